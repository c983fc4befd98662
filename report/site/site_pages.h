/* site_pages: the site's own pages — index.html and pairs/SLUG/index.html — and their charts,
 * from the nights' summaries (site_night.h), as libxml2 trees written through
 * lib/atomicfile.h. Each page carries an Open Graph card (title, description, its per-dollar
 * chart as a PNG) and links the feed. */
#ifndef RP_SITE_PAGES_H
#define RP_SITE_PAGES_H

#include <stddef.h>

#include "lib/err.h"
#include "report/site/site.h"
#include "report/site/site_night.h"

/* One endpoint pair across the nights. */
struct site_series {
	const char *name;      /* borrowed from the nights */
	char slug[96];         /* pairs/SLUG/ */
	const struct site_pair **at; /* per night (oldest first); NULL = not in that night */
	size_t latest;         /* the last night it ran */
	const char *currency;  /* its price's in the last night ("USD", "EUR"): its charts are in
				  it, a night priced in another is a gap */
};

struct site_ctx {
	const struct rp_site_cfg *cfg;
	const struct site_night *nights;  /* oldest first */
	size_t n;
	struct site_series *series;
	size_t n_series;
	const char *gnuplot;              /* NULL: charts written as .gp/.dat only */
	char title[256];
	char generated[32];               /* RFC 3339, UTC */
	int mixed;                        /* a pair priced in another currency than dollars:
					     every figure names its own (site_nights_mixed) */
};

/* The pairs over the nights, in order of first appearance; NS_E_NOMEM. */
int site_series_build(struct site_ctx *s, struct ns_err *err);
void site_series_free(struct site_ctx *s);
int site_pages_write(const struct site_ctx *s, struct ns_err *err);

#endif
