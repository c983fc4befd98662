/* content_cost: the per-dollar section's tables (content.h's RP_SEC_COST): the ranking on
 * the instances' price and, when any pair's transfer is known, the ranking with it. */
#ifndef RP_CONTENT_COST_H
#define RP_CONTENT_COST_H

#include "report/model/fmt.h"
#include "report/render/report.h"

struct tb;
void rp_content_cost(struct tb *b, const struct rp_report *r, struct rp_buf *lab);

#endif
