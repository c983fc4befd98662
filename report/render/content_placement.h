/* content_placement: the report's "Placement and steadiness" section (content.h's model) from
 * a run's placement (placement.h): the findings in sentences (the slowest link, the asymmetric
 * pairs, how much each instance type and pair varied night to night), the heatmaps as tables
 * with the figure in every cell and a heat class (heat0 slowest .. heat4 fastest; the page's
 * colours), the same figures as one row per link for screen readers and copy-paste, and the
 * consistency ranking beside the per-dollar one. Every writer renders it as it renders the
 * other sections. */
#ifndef RP_CONTENT_PLACEMENT_H
#define RP_CONTENT_PLACEMENT_H

#include <stdbool.h>

#include "report/model/fmt.h"
#include "report/placement/placement.h"

struct rp_section;

/* Whether the placement has anything to say (a heatmap of two links or more, or nights). */
bool rp_placement_any(const struct rp_placement *p);

/* report.json's "placement": the links, the slowest, the asymmetric ones, the pairs' and
 * types' steadiness; null when rp_placement_any is false. */
struct jsonw;
void rp_placement_json(struct jsonw *w, const struct rp_placement *p);

/* Fills s (kind, id and title already set) with the sentences and tables, every throughput
 * in the page's unit u; -1 when out of memory (what was built stays in s for the content's
 * free). */
int rp_content_placement(const struct rp_placement *p, struct rp_unit u, struct rp_section *s);

#endif
