/* latency: see latency.h. */
#include "report/analyze/latency_analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"
#include "report/analyze/ab.h"
#include "report/model/stats.h"

const char rp_latency_method[] =
	"Latency is the client's time per transaction, request sent to response read, from the "
	"merged histogram of every stream (percentiles within 0.78 %, never averaged over "
	"streams); each case shows the median over repeats. A case's p99 regressed when Welch's "
	"t-test on the logarithm of its repeats' p99 against the baseline's gives p < alpha and "
	"the median p99 rose by more than the minimum change: latency is skewed and "
	"multiplicative, so its logarithm is the scale on which a mean difference means "
	"something. Fewer than 2 repeats on either side: no test.";

static void price(const struct rp_data *d, struct rp_lat_case *c)
{
	for (size_t i = 0; i < d->n_eps; i++)
		if (d->eps[i].name && !strcmp(d->eps[i].name, c->endpoint) &&
		    !isnan(cost_usd_per_million(c->tps, d->eps[i].usd_per_hour)))
		{
			c->usd_per_mtx = cost_usd_per_million(c->tps, d->eps[i].usd_per_hour);
			c->currency = d->eps[i].currency;
		}
}

static void against(struct rp_lat_case *c, const struct rp_latency *base, double alpha,
		    double min_change_pct)
{
	for (size_t i = 0; i < base->n; i++) {
		const struct rp_lat_case *b = &base->cases[i];
		if (strcmp(b->case_key, c->case_key))
			continue;
		c->base_p99_us = b->p99_us;
		if (b->p99_us > 0)
			c->change_pct = (c->p99_us / b->p99_us - 1) * 100;
		double la[RP_LAT_MAX_REPEATS], lb[RP_LAT_MAX_REPEATS];
		size_t na = 0, nb = 0;
		for (size_t k = 0; k < b->n; k++)
			if (b->p99s[k] > 0)
				la[na++] = log(b->p99s[k]);
		for (size_t k = 0; k < c->n; k++)
			if (c->p99s[k] > 0)
				lb[nb++] = log(c->p99s[k]);
		struct rp_welch w;
		if (rp_welch_test(la, na, lb, nb, &w) == 0) {
			c->p = w.p;
			c->regressed = w.p < alpha && c->change_pct > min_change_pct;
		}
		return;
	}
}

int rp_latency_load(sqlite3 *db, const struct rp_data *d, long long base_run_id, double alpha,
		    double min_change_pct, struct rp_latency *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	struct rp_latency base = {0};
	if (rp_latency_read(db, d->run.id, true, out, err) < 0 ||
	    (base_run_id && rp_latency_read(db, base_run_id, false, &base, err) < 0))
		goto fail;
	for (size_t i = 0; i < out->n; i++) {
		price(d, &out->cases[i]);
		against(&out->cases[i], &base, alpha, min_change_pct);
		out->n_regressed += out->cases[i].regressed;
	}
	rp_latency_free(&base);
	return 0;
fail:
	rp_latency_free(&base);
	rp_latency_free(out);
	return -1;
}

static const struct rp_lat_case *case_by_key(const struct rp_latency *l, const char *key)
{
	for (size_t i = 0; key && i < l->n; i++)
		if (!strcmp(l->cases[i].case_key, key))
			return &l->cases[i];
	return NULL;
}

/* Welch's two-sided p on the logarithms of two cases' p99s; NAN when a side has < 2. */
static double log_p99_p(const struct rp_lat_case *a, const struct rp_lat_case *b)
{
	double la[RP_LAT_MAX_REPEATS], lb[RP_LAT_MAX_REPEATS];
	size_t na = 0, nb = 0;
	for (size_t k = 0; k < a->n; k++)
		if (a->p99s[k] > 0)
			la[na++] = log(a->p99s[k]);
	for (size_t k = 0; k < b->n; k++)
		if (b->p99s[k] > 0)
			lb[nb++] = log(b->p99s[k]);
	struct rp_welch w;
	return rp_welch_test(lb, nb, la, na, &w) == 0 ? w.p : NAN;
}

int rp_latency_ab(struct rp_latency *l, const struct rp_data *d, const struct rp_ab *ab,
		  struct ns_err *err)
{
	for (size_t i = 0; ab && i < ab->n; i++) {
		const struct rp_ab_row *r = &ab->rows[i];
		if (r->ca < 0 || r->cb < 0 || (size_t)r->ca >= d->n_cases || (size_t)r->cb >= d->n_cases)
			continue;
		const struct rp_lat_case *ca = case_by_key(l, d->cases[r->ca].case_key);
		const struct rp_lat_case *cb = case_by_key(l, d->cases[r->cb].case_key);
		if (!ca || !cb)
			continue;
		struct rp_lat_ab *nv = realloc(l->ab, (l->n_ab + 1) * sizeof(*nv));
		if (!nv)
			return ns_err_code(err, NS_E_NOMEM, "out of memory for the latency A/B");
		l->ab = nv;
		l->ab[l->n_ab++] = (struct rp_lat_ab){
			.a = d->eps[r->a].name, .b = d->eps[r->b].name, .attr = r->attr, .va = r->va,
			.vb = r->vb, .ca = ca, .cb = cb,
			.p99_diff_pct = cb->p99_us > 0 ? (ca->p99_us / cb->p99_us - 1) * 100 : NAN,
			.p = log_p99_p(ca, cb)};
	}
	return 0;
}
