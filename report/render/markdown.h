/* markdown: report.md — the same content as index.html as GitHub-flavoured Markdown, with the
 * charts as image links to the .svg files beside it. Database strings go through rp_md_escape. */
#ifndef RP_MARKDOWN_H
#define RP_MARKDOWN_H

#include "report/render/content.h"
#include "lib/err.h"

/* Renders the content model c (built from r), in c's order: the same sections, titles and
 * sentences as index.html. */
int rp_markdown_write(const struct rp_report *r, const struct rp_content *c, const char *path,
		      struct ns_err *err);

#endif
