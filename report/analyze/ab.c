/* ab: see ab.h. A is the pair with the larger median on the case, so that differences read
 * as "A carried x % more than B". */
#include "report/analyze/ab.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/describe.h"
#include "report/analyze/findings.h"
#include "report/model/fmt.h"
#include "report/model/stats.h"

#define AB_MAX_FINDINGS 4

static const char *ep_driver(const struct rp_endpoint *e)
{
	return e->expected_driver ? e->expected_driver : e->agent.driver_family ?
	       e->agent.driver_family : e->agent.driver;
}

static int same(const char *x, const char *y)
{
	return (!x && !y) || (x && y && !strcmp(x, y));
}

/* The one attribute two pairs differ in, or NULL when they differ in none or several. */
static const char *one_difference(const struct rp_endpoint *a, const struct rp_endpoint *b,
				  const char **va, const char **vb)
{
	const char *names[3] = {"driver", "instance type", "region"};
	const char *x[3] = {ep_driver(a), a->instance_type, a->region};
	const char *y[3] = {ep_driver(b), b->instance_type, b->region};
	int n = 0, k = -1;
	for (int i = 0; i < 3; i++)
		if (!same(x[i], y[i])) {
			n++;
			k = i;
		}
	if (n != 1 || !x[k] || !y[k])
		return NULL;
	*va = x[k];
	*vb = y[k];
	return names[k];
}

static int same_params(const struct rp_case *a, const struct rp_case *b)
{
	return a->streams == b->streams && a->threads == b->threads && a->length == b->length &&
	       a->rate_bps == b->rate_bps && a->fq_rate_bps == b->fq_rate_bps &&
	       a->window == b->window && a->mss == b->mss && a->nodelay == b->nodelay &&
	       a->gso == b->gso && a->duration_s == b->duration_s && same(a->protocol, b->protocol) &&
	       same(a->direction, b->direction) && same(a->affinity, b->affinity) &&
	       same(a->congestion, b->congestion);
}

static void compare(const struct rp_data *d, double alpha, struct rp_ab_row *r)
{
	const struct rp_case *a = &d->cases[r->ca], *b = &d->cases[r->cb];
	size_t na = (size_t)a->fig[RP_RCV_BPS].n, nb = (size_t)b->fig[RP_RCV_BPS].n;
	r->med_a = a->fig[RP_RCV_BPS].med;
	r->med_b = b->fig[RP_RCV_BPS].med;
	double ma = rp_mean(a->goodput, na), mb = rp_mean(b->goodput, nb);
	r->diff_pct = mb > 0 ? (ma - mb) / mb * 100 : NAN;
	r->ci_lo = r->ci_hi = r->p = NAN;
	struct rp_welch w;
	if (mb > 0 && rp_welch_test(b->goodput, nb, a->goodput, na, &w) == 0) {
		r->p = w.p;
		double se = sqrt(rp_variance(a->goodput, na) / na + rp_variance(b->goodput, nb) / nb);
		double q = se > 0 ? rp_student_t_quantile(1 - alpha / 2, w.df) : 0;
		r->ci_lo = (ma - mb - q * se) / mb * 100;
		r->ci_hi = (ma - mb + q * se) / mb * 100;
	}
}

int rp_ab_build(const struct rp_data *d, double alpha, struct rp_ab *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	out->alpha = alpha;
	size_t cap = 0;
	for (size_t i = 0; i < d->n_eps; i++)
		for (size_t j = i + 1; j < d->n_eps; j++) {
			const char *va, *vb;
			const char *attr = one_difference(&d->eps[i], &d->eps[j], &va, &vb);
			if (!attr)
				continue;
			for (size_t x = 0; x < d->n_cases; x++) {
				if (d->cases[x].ep != i || isnan(d->cases[x].fig[RP_RCV_BPS].med))
					continue;
				for (size_t y = 0; y < d->n_cases; y++) {
					if (d->cases[y].ep != j || !same_params(&d->cases[x], &d->cases[y]) ||
					    isnan(d->cases[y].fig[RP_RCV_BPS].med))
						continue;
					if (out->n == cap) {
						cap = cap ? cap * 2 : 16;
						struct rp_ab_row *g = realloc(out->rows, cap * sizeof(*g));
						if (!g) {
							rp_ab_free(out);
							return ns_err_code(err, NS_E_NOMEM, "out of memory");
						}
						out->rows = g;
					}
					int swap = d->cases[y].fig[RP_RCV_BPS].med > d->cases[x].fig[RP_RCV_BPS].med;
					struct rp_ab_row *r = &out->rows[out->n++];
					*r = (struct rp_ab_row){.a = swap ? j : i, .b = swap ? i : j,
								.attr = attr, .va = swap ? vb : va,
								.vb = swap ? va : vb,
								.ca = swap ? (long)y : (long)x,
								.cb = swap ? (long)x : (long)y,
								.rr = d->cases[x].rr};
					out->n_goodput += !r->rr;
					compare(d, alpha, r);
				}
			}
		}
	return 0;
}

void rp_ab_free(struct rp_ab *ab)
{
	free(ab->rows);
	memset(ab, 0, sizeof(*ab));
}

int rp_ab_findings(const struct rp_data *d, const struct rp_ab *ab, struct rp_findings *f)
{
	struct rp_buf b;
	rp_buf_init(&b);
	char *said = calloc(ab->n + 1, 1);
	int rc = said ? 0 : -1;
	for (size_t k = 0; rc == 0 && k < AB_MAX_FINDINGS; k++) {
		long best = -1;
		for (size_t i = 0; i < ab->n; i++)
			if (!said[i] && !ab->rows[i].rr && ab->rows[i].p < ab->alpha &&
			    (best < 0 || ab->rows[i].diff_pct > ab->rows[best].diff_pct))
				best = (long)i;
		if (best < 0)
			break;
		said[best] = 1;
		const struct rp_ab_row *r = &ab->rows[best];
		const struct rp_endpoint *ea = &d->eps[r->a];
		rp_buf_reset(&b);
		rp_buf_printf(&b, "A/B: %s carried %.1f %% more than %s", r->va, r->diff_pct, r->vb);
		if (!strcmp(r->attr, "driver") && ea->instance_type)
			rp_buf_printf(&b, " on %s", ea->instance_type);
		rp_buf_puts(&b, ", ");
		rp_case_label_short(d, &d->cases[r->ca], &b);
		rp_buf_printf(&b, " (%.0f %% CI %.1f to %.1f %%, Welch's p = %.3g; pairs %s and %s "
			      "differ only in %s).", (1 - ab->alpha) * 100, r->ci_lo, r->ci_hi, r->p,
			      ea->name, d->eps[r->b].name, r->attr);
		if (b.oom || rp_findings_add(f, RP_FIND_AB, rp_buf_str(&b)) < 0)
			rc = -1;
	}
	free(said);
	rp_buf_free(&b);
	if (rc == 0)
		rp_findings_sort(f);
	return rc;
}
