/* findings: what the numbers say, as sentences derived from the data — best throughput per
 * dollar, where throughput stops scaling with streams, sender/receiver CPU saturation, where
 * UDP loss came from (receiver socket buffer vs network), unstable repeats, failures, and the
 * baseline comparison. Plain text; the writers escape it. */
#ifndef RP_FINDINGS_H
#define RP_FINDINGS_H

#include <stddef.h>

#include "compare.h"
#include "cost.h"
#include "data.h"

/* Thresholds, stated in the report's method section. */
#define RP_CPU_SATURATED_PCT 90.0   /* % of one core per thread */
#define RP_SCALING_GAIN_PCT 10.0    /* more streams adding less than this = stopped scaling */
#define RP_UNSTABLE_CV_PCT 10.0     /* repeats' coefficient of variation */

struct rp_findings {
	char **items;
	size_t n, cap;
};

int rp_findings_build(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		      const struct rp_cmp *cmp, const struct rp_data *base,
		      struct rp_findings *f, struct ns_err *err);
void rp_findings_free(struct rp_findings *f);

/* One sentence for the top of the page: what ran, the fastest case, the best per dollar. */
struct rp_buf;
void rp_headline(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		 struct rp_buf *b);

#endif
