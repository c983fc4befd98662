/* compare: see compare.h. */
#include "report/analyze/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct key_ix {
	const char *key;
	long ix;
};

static int cmp_key(const void *a, const void *b)
{
	return strcmp(((const struct key_ix *)a)->key, ((const struct key_ix *)b)->key);
}

const char *rp_verdict_name(enum rp_verdict v)
{
	switch (v) {
	case RP_REGRESSION: return "regression";
	case RP_IMPROVEMENT: return "improvement";
	case RP_UNTESTABLE: return "untestable";
	case RP_NEW: return "new";
	default: return "no significant change";
	}
}

int rp_compare(const struct rp_data *cur, const struct rp_data *base, double alpha,
	       double min_change_pct, struct rp_cmp *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	out->alpha = alpha;
	out->min_change_pct = min_change_pct;
	struct key_ix *ix = malloc((base->n_cases + 1) * sizeof(*ix));
	out->rows = calloc(cur->n_cases + 1, sizeof(*out->rows));
	if (!ix || !out->rows) {
		free(ix);
		rp_cmp_free(out);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < base->n_cases; i++)
		ix[i] = (struct key_ix){base->cases[i].case_key ? base->cases[i].case_key : "", (long)i};
	qsort(ix, base->n_cases, sizeof(*ix), cmp_key);
	size_t matched = 0;
	for (size_t i = 0; i < cur->n_cases; i++) {
		const struct rp_case *c = &cur->cases[i];
		struct rp_cmp_row *r = &out->rows[out->n++];
		r->cur = i;
		r->base = -1;
		r->cur_med = c->fig[RP_RCV_BPS].med;
		r->base_med = NAN;
		r->change_pct = NAN;
		struct key_ix k = {c->case_key ? c->case_key : "", 0};
		struct key_ix *hit = bsearch(&k, ix, base->n_cases, sizeof(*ix), cmp_key);
		if (!hit) {
			r->verdict = RP_NEW;
			out->n_new++;
			continue;
		}
		matched++;
		const struct rp_case *b = &base->cases[hit->ix];
		r->base = hit->ix;
		r->base_med = b->fig[RP_RCV_BPS].med;
		if (r->base_med > 0 && !isnan(r->cur_med))
			r->change_pct = (r->cur_med - r->base_med) / r->base_med * 100;
		if (rp_welch_test(b->goodput, (size_t)b->fig[RP_RCV_BPS].n, c->goodput,
				  (size_t)c->fig[RP_RCV_BPS].n, &r->test) < 0 || isnan(r->change_pct)) {
			r->verdict = RP_UNTESTABLE;
			out->n_untestable++;
			continue;
		}
		int significant = r->test.p < alpha;
		if (significant && r->change_pct < -min_change_pct) {
			r->verdict = RP_REGRESSION;
			out->n_regressions++;
			if (r->change_pct < out->worst_pct)
				out->worst_pct = r->change_pct;
		} else if (significant && r->change_pct > min_change_pct) {
			r->verdict = RP_IMPROVEMENT;
			out->n_improvements++;
		} else {
			r->verdict = RP_SAME;
		}
	}
	out->n_gone = base->n_cases - matched;
	free(ix);
	return 0;
}

void rp_cmp_gate(const struct rp_cmp *cmp, const struct rp_data *cur,
		 const struct rp_data *base, double fail_pct, struct rp_gate *g)
{
	memset(g, 0, sizeof(*g));
	for (size_t i = 0; i < cmp->n; i++) {
		const struct rp_cmp_row *w = &cmp->rows[i];
		if (w->verdict == RP_NEW || w->base < 0)
			continue;
		if (cur->cases[w->cur].n_sender_limited || base->cases[w->base].n_sender_limited) {
			g->limited++;
			continue;
		}
		if (w->verdict != RP_UNTESTABLE) {
			g->tested += w->test.p < cmp->alpha && w->change_pct < -fail_pct;
			continue;
		}
		int nb = base->cases[w->base].fig[RP_RCV_BPS].n;
		int nc = cur->cases[w->cur].fig[RP_RCV_BPS].n;
		if (nb < 1)
			g->ungated++;
		else if (nc < 1)
			g->lost++;
		else if (isnan(w->change_pct))
			g->ungated++;
		else
			g->median += w->change_pct < -fail_pct;
	}
	g->gone = cmp->n_gone;
}

size_t rp_gate_tripped(const struct rp_gate *g)
{
	return g->tested + g->median + g->lost + g->gone;
}

void rp_cmp_free(struct rp_cmp *c)
{
	free(c->rows);
	memset(c, 0, sizeof(*c));
}
