/* hdoc: the small vocabulary the HTML writers build their libxml2 tree with — elements with
 * text (escaped by libxml2), sections with a heading, numeric cells that carry the exact
 * value in data-value for machines and tests, and tables that scroll inside their own box
 * on narrow screens. Shared by html.c and each section's writer (html_*.c). */
#ifndef RP_HDOC_H
#define RP_HDOC_H

#include <libxml/tree.h>

#include "lib/err.h"
#include "report/render/content.h"

xmlNodePtr hd_el(xmlNodePtr parent, const char *name, const char *text);
xmlNodePtr hd_el_class(xmlNodePtr parent, const char *name, const char *cls, const char *text);
void hd_text(xmlNodePtr parent, const char *s);
void hd_attr(xmlNodePtr n, const char *name, const char *value);
xmlNodePtr hd_section(xmlNodePtr main, const char *id, const char *title);
/* A section of the content model: its <section id>, heading and the sentences said before
 * its tables; hd_close adds the sentences said after them. */
xmlNodePtr hd_open(xmlNodePtr main, const struct rp_section *sec);
void hd_close(xmlNodePtr s, const struct rp_section *sec);
xmlNodePtr hd_row_kv(xmlNodePtr table, const char *k, const char *v);
/* A numeric cell: shown text, and v in data-value (none, and "–" shown, when v is NAN). */
xmlNodePtr hd_td_num(xmlNodePtr tr, const char *shown, double v);
void hd_td_fmt(xmlNodePtr tr, const char *fmt, double v);
/* A table inside <div class="scroll" data-scroll="x">: it scrolls sideways in its own box,
 * never the page. id may be NULL. Returns the table. */
xmlNodePtr hd_scroll_table(xmlNodePtr parent, const char *id, const char *const *cols);
/* Table t (hd_scroll_table's) stacked on a phone: each cell gets its column's name
 * (data-label) and its box data-stack, so that the page's CSS shows a row as a card of
 * "column: value" lines below 700 px — every figure, the per-dollar one too, without
 * scrolling sideways. Call it once the rows are in. */
void hd_stack_on_phones(xmlNodePtr t);
/* Its CSS, for the inside of a page's @media (max-width:700px) { ... }. */
#define HD_STACK_CSS \
	"[data-stack] table,[data-stack] tbody,[data-stack] tr,[data-stack] td{display:block}" \
	"[data-stack] thead{display:none}[data-stack] tr{border:1px solid #d0d5dd;margin:0 0 6px}" \
	"[data-stack] td{border:0;padding:1px 6px;text-align:left;white-space:normal}" \
	"[data-stack] td::before{content:attr(data-label) \": \";font-weight:600}" \
	".scroll[data-stack]::before{display:none}"
/* The section's tables of the content model (content.h), each in a scrolling box, after an
 * h3 and a note when the table has them: numbers in class num with data-value, a row's class
 * and data- attribute, a cell's title and its notes (below it, each a span of its class). */
void hd_tables(xmlNodePtr s, const struct rp_section *sec);
/* DIR/NAME.svg (gnuplot's) into fig: parsed as XML (no network, no entity expansion),
 * stripped of anything active (script, foreignObject, on* handlers, external links), its ids
 * prefixed per chart so that several charts can share one page, sized by CSS through its
 * viewBox, labelled for screen readers. -1 when the file is not an SVG. */
int hd_embed_svg(xmlNodePtr fig, const char *dir, const char *name, const char *label);
/* A page's head's common lines: the meta description (a page's summary for search engines
 * and link previews; none when description is NULL or empty) and the favicon, a small SVG as
 * a data: URI, so that no browser asks the server for /favicon.ico and logs its 404. */
void hd_head_common(xmlNodePtr head, const char *description);
/* Writes doc (HTML when html, else XML; UTF-8) as the whole of path through
 * lib/atomicfile.h, and frees it either way. NS_E_IO. */
int hd_save(xmlDocPtr doc, const char *path, int html, struct ns_err *err);

#endif
