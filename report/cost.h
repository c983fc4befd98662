/* cost: throughput per hourly dollar. One row per endpoint pair of a run: its best case (the
 * highest median receiver goodput), Mbit/s per $/hour, $ per Gbit/s-hour, and a rank by
 * Mbit/s per $/hour. Endpoints without a known price are kept, marked missing, unranked. */
#ifndef RP_COST_H
#define RP_COST_H

#include <stdbool.h>
#include <stddef.h>

#include "data.h"

struct rp_cost_row {
	size_t ep;                 /* index into rp_data.eps */
	long best_case;            /* index into rp_data.cases; -1 = no successful case */
	double mbps;               /* median receiver goodput of the best case; its sustained rate
	                              when it was shaped (report/phases.h) */
	bool sustained;            /* mbps is the sustained rate after a burst */
	double usd_per_hour;       /* NAN = price missing */
	double mbps_per_usd_hour;  /* NAN when price or throughput missing */
	double usd_per_gbps_hour;
	int rank;                  /* 1 = best; 0 = unranked (no price or no result) */
};

/* Builds the rows (one per endpoint, in rank order) into *rows (malloc'd). */
int rp_cost_build(const struct rp_data *d, struct rp_cost_row **rows, size_t *n,
		  struct ns_err *err);
/* Sorts rows by Mbit/s per $/hour, best first, unranked last, and assigns competition ranks
 * (1, 2, 2, 4): values within one part in 10^9 tie, so equal ratios printed alike share a
 * rank. Stable: ties keep their input order. */
void rp_cost_rank(struct rp_cost_row *rows, size_t n);

#endif
