/* html: index.html — one self-contained page (inline CSS, charts inline as SVG, no network
 * resources) built as a libxml2 HTML tree, so every string from the database is escaped by
 * construction: text goes in through xmlNewTextChild / xmlNewProp only. */
#ifndef RP_HTML_H
#define RP_HTML_H

#include "report/render/content.h"
#include "lib/err.h"

/* Renders the content model c (built from r) as the page, in c's order. */
int rp_html_write(const struct rp_report *r, const struct rp_content *c, const char *path,
		  struct ns_err *err);

/* Renders text as the content of a <p> and returns the serialized element (malloc'd), for
 * tests of the escaping: "<script>" must come back as "&lt;script&gt;". */
char *rp_html_text_fragment(const char *text);

#endif
