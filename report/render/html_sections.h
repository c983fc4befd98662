/* html_sections: the report page's sections that live in files of their own (html_*.c),
 * each writing one section of the content model (content.h) into the page's <main>; html.c
 * calls them in the content's order. */
#ifndef RP_HTML_SECTIONS_H
#define RP_HTML_SECTIONS_H

#include <libxml/tree.h>

#include "report/render/content.h"

/* "What changed": regressions and improvements against the baseline, by importance, and
 * each pair's per-dollar figure and rank then and now (html_news.c). */
void rp_html_news(const struct rp_report *r, const struct rp_section *sec,
		 xmlNodePtr main);
/* One row of a comparison table: [#,] case, baseline, now, change, p, verdict. */
void rp_html_cmp_row(const struct rp_report *r, xmlNodePtr tbody, const struct rp_cmp_row *w,
		     int ordinal);

/* "Environment": per endpoint side, what the matrix declared (instance type, region,
 * expected driver) beside what the host reported, mismatches marked (html_env.c). */
void rp_html_environment(const struct rp_report *r, const struct rp_section *sec,
		 xmlNodePtr main);

/* "History": each case's medians over the last runs, step changes marked (html_history.c). */
void rp_html_history(const struct rp_report *r, const struct rp_section *sec,
		 xmlNodePtr main);

/* "A/B between pairs": pairs differing in one attribute, side by side (html_ab.c). */
void rp_html_ab(const struct rp_report *r, const struct rp_section *sec,
		 xmlNodePtr main);

/* "Latency": request/response cases, p99 against the baseline (html_latency.c). */
void rp_html_latency(const struct rp_report *r, const struct rp_section *sec,
		 xmlNodePtr main);
/* "Latency under load": goodput beside a latency probe's idle and loaded figures
 * (html_latency.c). */
void rp_html_loadlat(const struct rp_report *r, const struct rp_section *sec,
		     xmlNodePtr main);

/* "Zero-loss rate search": each search's goals, table and sentences (html_search.c). */
void rp_search_html(const struct rp_search *s, xmlNodePtr parent);

#endif
