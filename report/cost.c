/* cost: see cost.h. */
#include "cost.h"

#include "phases.h"

#include <math.h>
#include <stdlib.h>

int rp_cost_build(const struct rp_data *d, struct rp_cost_row **rows, size_t *n,
		  struct ns_err *err)
{
	*n = 0;
	*rows = calloc(d->n_eps ? d->n_eps : 1, sizeof(**rows));
	if (!*rows)
		return ns_err_set(err, "out of memory");
	for (size_t i = 0; i < d->n_eps; i++) {
		struct rp_cost_row *r = &(*rows)[(*n)++];
		r->ep = i;
		r->best_case = -1;
		r->mbps = NAN;
		for (size_t c = 0; c < d->n_cases; c++) {
			const struct rp_case *k = &d->cases[c];
			/* shaped on credits: the rate after the burst is what the money buys */
			double m = rp_phases_rank_bps(k) / 1e6;
			if (k->ep == i && !isnan(m) && (r->best_case < 0 || m > r->mbps)) {
				r->best_case = (long)c;
				r->mbps = m;
				r->sustained = k->n_shaped > 0;
			}
		}
		r->usd_per_hour = d->eps[i].usd_per_hour;
		r->mbps_per_usd_hour = NAN;
		r->usd_per_gbps_hour = NAN;
		if (!isnan(r->usd_per_hour) && !isnan(r->mbps) && r->usd_per_hour > 0) {
			r->mbps_per_usd_hour = r->mbps / r->usd_per_hour;
			if (r->mbps > 0)
				r->usd_per_gbps_hour = r->usd_per_hour / (r->mbps / 1e3);
		}
	}
	rp_cost_rank(*rows, *n);
	return 0;
}

void rp_cost_rank(struct rp_cost_row *rows, size_t n)
{
	/* Insertion sort: stable, and n is the number of endpoint pairs. */
	for (size_t i = 1; i < n; i++) {
		struct rp_cost_row r = rows[i];
		double v = r.mbps_per_usd_hour;
		size_t j = i;
		while (j > 0) {
			double u = rows[j - 1].mbps_per_usd_hour;
			int before = !isnan(v) && (isnan(u) || v > u * (1 + 1e-9));
			if (!before)
				break;
			rows[j] = rows[j - 1];
			j--;
		}
		rows[j] = r;
	}
	for (size_t i = 0; i < n; i++) {
		double v = rows[i].mbps_per_usd_hour;
		if (isnan(v))
			rows[i].rank = 0;
		else if (i > 0 && !isnan(rows[i - 1].mbps_per_usd_hour) &&
			 fabs(rows[i - 1].mbps_per_usd_hour - v) <= 1e-9 * fabs(v))
			rows[i].rank = rows[i - 1].rank;
		else
			rows[i].rank = (int)i + 1;
	}
}
