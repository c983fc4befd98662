/* site_feed: feed.xml, an Atom feed (RFC 4287) of the nights, newest first: one entry per
 * night with its headline, its regressions and a link to its report; each entry's id is the
 * run's uuid, so a reader never sees a night twice, whatever database it was rendered from. */
#ifndef RP_SITE_FEED_H
#define RP_SITE_FEED_H

#include "lib/err.h"
#include "report/site/site_pages.h"

int site_feed_write(const struct site_ctx *s, struct ns_err *err);

#endif
