/* news: see news.h. Pairs are matched across runs by name, the way the matrix names them. */
#include "report/analyze/news.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ranked { size_t row; int regression; double size; };

static int by_importance(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	if (a->regression != b->regression)
		return b->regression - a->regression;
	return (a->size < b->size) - (a->size > b->size);
}

int rp_news_build(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		  const struct rp_data *base, const struct rp_cost_row *base_cost,
		  size_t n_base_cost, const struct rp_cmp *cmp, struct rp_news *out,
		  struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	out->changed = calloc(cmp ? cmp->n + 1 : 1, sizeof(*out->changed));
	out->cost = calloc(n_cost + 1, sizeof(*out->cost));
	if (!out->changed || !out->cost) {
		rp_news_free(out);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	struct ranked *rk = calloc(cmp ? cmp->n + 1 : 1, sizeof(*rk));
	if (!rk) {
		rp_news_free(out);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; cmp && i < cmp->n; i++)
		if (cmp->rows[i].verdict == RP_REGRESSION || cmp->rows[i].verdict == RP_IMPROVEMENT)
			rk[out->n_changed++] = (struct ranked){i, cmp->rows[i].verdict == RP_REGRESSION,
							       fabs(cmp->rows[i].change_pct)};
	qsort(rk, out->n_changed, sizeof(*rk), by_importance);
	for (size_t i = 0; i < out->n_changed; i++)
		out->changed[i] = rk[i].row;
	free(rk);
	for (size_t i = 0; i < n_cost; i++) {
		struct rp_cost_change *c = &out->cost[out->n_cost++];
		const struct rp_cost_row *r = &cost[i];
		*c = (struct rp_cost_change){.cur = i, .base = -1, .base_mpd = NAN,
					     .cur_mpd = r->rank ? r->mbps_per_usd_hour : NAN,
					     .change_pct = NAN, .cur_rank = r->rank, .cmp_row = -1};
		if (!base || !base_cost)
			continue;
		const char *name = d->eps[r->ep].name ? d->eps[r->ep].name : "";
		for (size_t k = 0; k < n_base_cost; k++) {
			const char *bn = base->eps[base_cost[k].ep].name;
			if (!bn || strcmp(bn, name) != 0)
				continue;
			c->base = (long)k;
			c->base_rank = base_cost[k].rank;
			/* a figure per euro is not compared with one per dollar */
			c->base_mpd = base_cost[k].rank && rp_money_same(base_cost[k].currency,
									 r->currency)
				      ? base_cost[k].mbps_per_usd_hour : NAN;
			if (!isnan(c->base_mpd) && !isnan(c->cur_mpd) && c->base_mpd > 0)
				c->change_pct = (c->cur_mpd - c->base_mpd) / c->base_mpd * 100;
			if (c->base_rank != c->cur_rank)
				out->n_rank_moves++;
			if (r->best_case < 0 || base_cost[k].best_case < 0)
				break;
			const char *kc = d->cases[r->best_case].case_key;
			const char *kb = base->cases[base_cost[k].best_case].case_key;
			c->same_case = kc && kb && !strcmp(kc, kb);
			for (size_t j = 0; cmp && j < cmp->n; j++)
				if (cmp->rows[j].cur == (size_t)r->best_case)
					c->cmp_row = (long)j;
			break;
		}
	}
	return 0;
}

void rp_news_free(struct rp_news *n)
{
	free(n->changed);
	free(n->cost);
	memset(n, 0, sizeof(*n));
}
