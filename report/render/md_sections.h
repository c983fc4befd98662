/* md_sections: the Markdown tables of report.md's A/B and History sections, from the same
 * analysed data as html_ab.c and html_history.c, and of its rate-search section as
 * html_search.c (markdown.c writes the headings and the content model's sentences around
 * them). */
#ifndef RP_MD_SECTIONS_H
#define RP_MD_SECTIONS_H

#include "report/model/fmt.h"
#include "report/render/report.h"

/* bps in unit u as a table cell: "20.6 Gbit/s", "–" when not finite. */
void rp_md_bps(struct rp_buf *b, double v, struct rp_unit u);
/* Pairs differing in one attribute, side by side on each case they share. */
void rp_md_ab(const struct rp_report *r, struct rp_buf *b);
/* Each case's median over the last runs (the cases with a step first), steps marked ▼ ▲. */
void rp_md_history(const struct rp_report *r, struct rp_buf *b);

/* The rate searches' table and the sentences for the goals they did not settle. */
void rp_search_markdown(const struct rp_search *s, struct rp_buf *b);

/* The tables of the latency section (its heading and method: content.c). */
void rp_latency_markdown(const struct rp_latency *l, struct rp_buf *b);

/* The table of the "Latency under load" section (nothing without such cases). */
void rp_loadlat_markdown(const struct rp_loadlat *l, struct rp_buf *b);

#endif
