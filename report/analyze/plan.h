/* plan: a purchasing plan from measured results (issue 39) — given a need, to move a volume a
 * month or to hold a rate, each priced pair of a run answers with how many pairs of its type at
 * its placement meet it (scaled out on its measured rate: its ranked case, sustained where it
 * stepped down; a lab pair's at the instances' rate, over its scale), what the instances and
 * the transfer (its relation's rule, tiers at the month's whole volume, each server's included
 * traffic) cost a month, cheapest first, each currency apart. `netsweep plan` and the report
 * (when the matrix states a monthly-transfer) say the same. */
#ifndef RP_PLAN_H
#define RP_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "report/analyze/cost_rank.h"
#include "report/load/data.h"

struct rp_plan_need {
	double bps;                /* the rate to hold, or the month's volume over 730 hours */
	double monthly_gb;         /* the month's volume (decimal GB) */
	bool hold;                 /* the need was a rate (--hold), not a volume (--move) */
	const char *relation;      /* only pairs measured at this relation; NULL = any */
	const char *from, *to;     /* only pairs whose client end is at from (a zone or region) and
	                              agent end at to, either way round; NULL = any */
};

struct rp_plan_option {
	size_t row;                /* index into the cost rows */
	int pairs;                 /* how many pairs (of the pair's price basis) meet the need */
	double pair_bps;           /* each one's measured rate, the instances' (lab: over scale) */
	double single_flow_bps;    /* its best one-stream case, likewise; NAN = none measured */
	double instances_month, transfer_month, total_month; /* in currency; NAN = unknown */
	const char *currency;      /* NULL = USD */
	int rank;                  /* 1 = cheapest of its currency; 0 = transfer unknown */
};

/* The options for need from rows (rp_cost_build's), in plan order: each currency's known
 * totals cheapest first, then those whose transfer has no price known. *opts malloc'd. */
int rp_plan_build(const struct rp_data *d, const struct rp_cost_row *rows, size_t n,
		  const struct rp_plan_need *need, struct rp_plan_option **opts, size_t *n_opts,
		  struct ns_err *err);

/* The plan in one sentence: "To move 50 TB a month: 3 pairs of m5.8xlarge same-zone at
 * 6,728 $ a month; next ...". 0 when no option. */
int rp_plan_sentence(const struct rp_data *d, const struct rp_cost_row *rows,
		     const struct rp_plan_need *need, const struct rp_plan_option *opts,
		     size_t n_opts, char *buf, size_t len);

#endif
