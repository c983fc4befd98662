/* ab: A/B between endpoint pairs of one run. Two pairs that differ in exactly one attribute
 * — NIC driver (the matrix's expected driver, else the agent's reported one), instance type
 * or region — are compared on every case they both ran with the same parameters: the
 * difference of mean goodput in % of B's, its confidence interval (Welch's, at 1 - alpha)
 * and Welch's two-sided p. */
#ifndef RP_AB_H
#define RP_AB_H

#include <stdbool.h>
#include <stddef.h>

#include "report/load/data.h"

struct rp_ab_row {
	size_t a, b;               /* endpoint indexes */
	const char *attr;          /* "driver", "instance type", "region" */
	const char *va, *vb;       /* the attribute's value on each side */
	long ca, cb;               /* case indexes */
	double med_a, med_b;       /* medians, bits/s */
	double diff_pct;           /* (mean A - mean B) / mean B * 100 */
	double ci_lo, ci_hi;       /* its confidence interval, % of mean B; NAN = untestable */
	double p;                  /* Welch's two-sided p; NAN = fewer than 2 repeats a side */
	bool rr;                   /* request/response cases: compared on latency
				    * (analyze/latency_analysis.c), not in the goodput table or findings */
};

struct rp_ab {
	struct rp_ab_row *rows;
	size_t n;
	size_t n_goodput;          /* rows that are not rr: the goodput comparisons */
	double alpha;
};

int rp_ab_build(const struct rp_data *d, double alpha, struct rp_ab *out, struct ns_err *err);
void rp_ab_free(struct rp_ab *ab);
/* One finding per row with p < alpha (the largest differences first, at most a few). */
struct rp_findings;
int rp_ab_findings(const struct rp_data *d, const struct rp_ab *ab, struct rp_findings *f);

#endif
