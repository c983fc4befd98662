/* markdown: report.md — the same content as index.html as GitHub-flavoured Markdown, with the
 * charts as image links to the .svg files beside it. Database strings go through rp_md_escape. */
#ifndef RP_MARKDOWN_H
#define RP_MARKDOWN_H

#include "report/render/report.h"
#include "lib/err.h"

int rp_markdown_write(const struct rp_report *r, const char *path, struct ns_err *err);

#endif
