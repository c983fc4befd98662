/* news: what changed since the baseline, in order of importance, for the top of the report
 * (HTML, Markdown, report.json): regressions, then improvements, each by size; and per
 * endpoint pair the change of its ranked Mbit/s per $/hour and of its rank. */
#ifndef RP_NEWS_H
#define RP_NEWS_H

#include <stddef.h>

#include "report/analyze/compare.h"
#include "report/analyze/cost_rank.h"
#include "report/load/data.h"

struct rp_cost_change {
	size_t cur;                /* index into the current cost rows */
	long base;                 /* index into the baseline's cost rows; -1 = new pair */
	double base_mpd, cur_mpd;  /* Mbit/s per $/hour; NAN = unranked */
	double change_pct;         /* NAN when either side is unranked */
	int base_rank, cur_rank;   /* 0 = unranked */
	long cmp_row;              /* the comparison row of the ranked case, -1 = none */
	int same_case;             /* the ranked case is the same case in both runs */
};

struct rp_news {
	size_t *changed;           /* indexes into cmp->rows: regressions (worst first), then
				    * improvements (largest first) */
	size_t n_changed;
	struct rp_cost_change *cost; /* one per current cost row, in its rank order */
	size_t n_cost;
	size_t n_rank_moves;       /* pairs whose rank changed */
};

/* base_cost may be NULL (no baseline): then only the cost rows are filled, without change. */
int rp_news_build(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
		  const struct rp_data *base, const struct rp_cost_row *base_cost,
		  size_t n_base_cost, const struct rp_cmp *cmp, struct rp_news *out,
		  struct ns_err *err);
void rp_news_free(struct rp_news *n);

#endif
