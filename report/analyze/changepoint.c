/* changepoint: see changepoint.h. */
#include "report/analyze/changepoint.h"

#include <math.h>
#include <stdlib.h>

#include "report/model/stats.h"

struct seg_ctx {
	const double *x;      /* the finite values */
	const size_t *ix;     /* their indexes in the caller's series */
	double alpha, min_pct;
	struct rp_step *out;
	size_t n, max;
};

static void search(struct seg_ctx *c, size_t lo, size_t hi)
{
	size_t n = hi - lo, best = 0;
	double best_t = -1;
	struct rp_welch w, bw = {0};
	if (n < 2 * RP_CP_MIN_SIDE || c->n >= c->max)
		return;
	for (size_t k = lo + RP_CP_MIN_SIDE; k + RP_CP_MIN_SIDE <= hi; k++) {
		if (rp_welch_test(c->x + lo, k - lo, c->x + k, hi - k, &w) < 0)
			continue;
		if (fabs(w.t) > best_t) {
			best_t = fabs(w.t);
			best = k;
			bw = w;
		}
	}
	if (best_t < 0)
		return;
	double a = rp_mean(c->x + lo, best - lo), b = rp_mean(c->x + best, hi - best);
	double pct = a != 0 ? (b - a) / fabs(a) * 100 : NAN;
	if (!(bw.p < c->alpha) || !(fabs(pct) > c->min_pct))
		return;
	search(c, lo, best);
	if (c->n < c->max)
		c->out[c->n++] = (struct rp_step){c->ix[best], a, b, pct, bw.p};
	search(c, best, hi);
}

size_t rp_changepoints(const double *v, size_t n, double alpha, double min_change_pct,
		       struct rp_step *out, size_t max)
{
	double *x = malloc((n + 1) * sizeof(*x));
	size_t *ix = malloc((n + 1) * sizeof(*ix));
	size_t m = 0;
	struct seg_ctx c = {x, ix, alpha, min_change_pct, out, 0, max};
	if (x && ix) {
		for (size_t i = 0; i < n; i++)
			if (isfinite(v[i])) {
				x[m] = v[i];
				ix[m++] = i;
			}
		search(&c, 0, m);
	}
	free(x);
	free(ix);
	return c.n;
}
