/* content_cost: the per-dollar ranking's tables of the content model (content_cells.h). */
#include "report/render/content_cells.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/analyze/burst.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"

/* The ranking's table of one currency (cur; NULL = USD): its price columns headed in it. */
static void cost_table(struct tb *b, const struct rp_report *r, const char *cur, size_t k,
		       size_t n_cur, int spot, int fair)
{
	static const char *const ids[] = {"cost-table", "cost-table-2", "cost-table-3",
					  "cost-table-4", "cost-table-5", "cost-table-6",
					  "cost-table-7", "cost-table-8"};
	static const struct { const char *code, *heading; } names[] = {
		{"USD", "Priced in US dollars"}, {"EUR", "Priced in euros"},
		{"GBP", "Priced in pounds sterling"}, {"JPY", "Priced in yen"},
	};
	const char *heading = "Priced in another currency (the Currency column names it)";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i].code, rp_money_code(cur)))
			heading = names[i].heading;
	const char *m = rp_money(cur);
	char per_hour[32], per_money[48], per_gbps[48];
	snprintf(per_hour, sizeof(per_hour), "%s/hour", m);
	rp_fmt_per_money(per_money, sizeof(per_money), cur);
	snprintf(per_gbps, sizeof(per_gbps), "%s per Gbit/s-hour", m);
	const char *cols[16] = {"Rank", "Instance type", "Region", "Price basis", per_hour,
				"Mbit/s", per_money, per_gbps, "Ranked case",
				"Price as of", "Provider", "Currency", "Pricing"};
	size_t n_cols = 13;
	if (spot) {
		cols[n_cols++] = "Mbit/s per on-demand hour";
		cols[n_cols++] = "Mbit/s per spot hour";
	}
	if (fair)
		cols[n_cols++] = "Fairness (Jain's index)";
	(void)r;
	tb_table(b, k < sizeof(ids) / sizeof(ids[0]) ? ids[k] : NULL, n_cur > 1 ? heading : NULL,
	      k == 0 && n_cur > 1 ? "Each currency is ranked on its own: a figure per dollar is "
	      "never compared with one per euro." : NULL, cols, n_cols);
}

static void cost_row(struct tb *b, const struct rp_report *r, const struct rp_cost_row *c,
		     int spot, int fair, struct rp_buf *lab)
{
	const struct rp_data *d = r->d;
	const struct rp_endpoint *e = &d->eps[c->ep];
	int priced = !isnan(c->usd_per_hour);
	tb_row(b, priced ? NULL : "missing", NULL, NULL);
	if (c->rank)
		tb_cell_int(b, c->rank);
	else
		tb_cell_v(b, "–", RP_CELL_NUM, NAN);
	tb_cell(b, rp_ep_label(e));
	tb_cell(b, e->region);
	tb_cell(b, e->price_basis);
	if (priced)
		tb_cell_fmt(b, "%.4g", c->usd_per_hour);
	else
		tb_cell(b, "missing");
	/* shaped on credits: ranked on the rate after the burst; sender-limited: the
	 * sender's figure, not the pair's */
	tb_cell_fmt(b, c->sustained && c->sender_limited ? "%.0f sustained (sender-limited)"
		 : c->sustained ? "%.0f sustained"
		 : c->sender_limited ? "%.0f (sender-limited)" : "%.0f", c->mbps);
	if (c->inside_burst && b->row && b->row->n_cells) {
		/* an "up to" type ranked on credit (report/analyze/burst.h): said beside it */
		rp_buf_reset(lab);
		rp_burst_note(d, c, lab);
		tb_cell_note(b, &b->row->cells[b->row->n_cells - 1], "note burst",
			     rp_buf_str(lab));
	}
	tb_cell_fmt(b, "%.0f", c->mbps_per_usd_hour);
	tb_cell_fmt(b, "%.4g", c->usd_per_gbps_hour);
	rp_buf_reset(lab);
	if (c->best_case >= 0)
		rp_case_label(d, &d->cases[c->best_case], lab);
	tb_cell(b, c->best_case >= 0 ? rp_buf_str(lab) : "no successful case");
	tb_cell(b, e->price_as_of);
	tb_cell(b, e->provider);
	char cur[64];
	if (priced && e->fx_rate > 0 && e->fx_currency)
		snprintf(cur, sizeof(cur), "USD (%s at %g)", e->fx_currency, e->fx_rate);
	else
		snprintf(cur, sizeof(cur), "%s", !priced ? "–" : rp_money_code(c->currency));
	tb_cell(b, cur);
	struct rp_cell *pc = tb_cell(b, e->pricing ? e->pricing : "on-demand");
	if (pc)
		pc->title = e->price_window;
	if (spot) {
		tb_cell_fmt(b, "%.0f", c->od_mbps_per_hour);
		tb_cell_fmt(b, "%.0f", c->spot_mbps_per_hour);
	}
	if (fair) {
		const struct rp_stat *j = c->best_case >= 0 ? &d->cases[c->best_case].fig[RP_JAIN]
							    : NULL;
		if (j && j->n > 0)
			tb_cell_fmt(b, "%.3f", j->med);
		else
			tb_cell_v(b, "–", RP_CELL_NUM, NAN);
	}
}

/* The ranking: a table per currency (never one "$/hour" column over two currencies), the
 * pairs without a price in the last. */
void rp_content_cost(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_data *d = r->d;
	int spot = r->pricing && r->pricing->have_spot;
	/* a group case ranked (incast, fan-out): how fairly its clients shared, beside its total */
	int fair = 0;
	for (size_t i = 0; i < r->n_cost && !fair; i++)
		fair = r->cost[i].best_case >= 0 && d->cases[r->cost[i].best_case].fig[RP_JAIN].n > 0;
	const char *curs[16];
	size_t n_cur = 0;
	for (size_t i = 0; i < r->n_cost; i++) {
		if (isnan(r->cost[i].usd_per_hour))
			continue;
		size_t k = 0;
		while (k < n_cur && !rp_money_same(curs[k], r->cost[i].currency))
			k++;
		if (k == n_cur && n_cur < sizeof(curs) / sizeof(curs[0]))
			curs[n_cur++] = rp_money_code(r->cost[i].currency);
	}
	if (!n_cur)
		curs[n_cur++] = "USD";
	for (size_t k = 0; k < n_cur; k++) {
		cost_table(b, r, curs[k], k, n_cur, spot, fair);
		for (size_t i = 0; i < r->n_cost; i++) {
			const struct rp_cost_row *c = &r->cost[i];
			int priced = !isnan(c->usd_per_hour);
			if (priced ? rp_money_same(curs[k], c->currency) : k + 1 == n_cur)
				cost_row(b, r, c, spot, fair, lab);
		}
	}
}

