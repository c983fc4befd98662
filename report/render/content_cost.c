/* content_cost: the per-dollar ranking's tables of the content model (content_cells.h): the
 * ranking on the instances' price, and beside it the ranking with transfer (issue 39): each
 * pair's relation, what its measured traffic costs an hour and per TB moved, the total — each
 * currency in a table of its own, headed in its money. */
#include "report/render/content_cells.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/analyze/burst.h"
#include "report/load/lab_runs.h"
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
				"Throughput", per_money, per_gbps, "Ranked case",
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
	char rate[64];
	rp_fmt_in(rate, sizeof(rate), c->mbps * 1e6, r->d->unit);
	char rate_cell[96];
	snprintf(rate_cell, sizeof(rate_cell), "%s%s", rate,
		 c->sustained && c->sender_limited ? " sustained (sender-limited)"
		 : c->sustained ? " sustained" : c->sender_limited ? " (sender-limited)" : "");
	tb_cell_v(b, rate_cell, RP_CELL_NUM, c->mbps);
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

/* The ranking with transfer of one currency (cur), by total rank, the unranked last; the
 * pairs without a price in the last currency's table (last). Shown when any pair's transfer
 * is known (a rule, or same-zone). */
static void transfer_table(struct tb *b, const struct rp_report *r, const char *cur, size_t k,
			   size_t n_cur, int last)
{
	static const char *const ids[] = {"cost-total-table", "cost-total-table-2",
					  "cost-total-table-3", "cost-total-table-4",
					  "cost-total-table-5", "cost-total-table-6",
					  "cost-total-table-7", "cost-total-table-8"};
	static const struct { const char *code, *heading; } names[] = {
		{"USD", "With transfer, priced in US dollars"},
		{"EUR", "With transfer, priced in euros"},
		{"GBP", "With transfer, priced in pounds sterling"},
		{"JPY", "With transfer, priced in yen"},
	};
	const struct rp_data *d = r->d;
	const char *heading = "With transfer";
	if (n_cur > 1) {
		heading = "With transfer, priced in another currency (the Currency column names it)";
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(names[i].code, rp_money_code(cur)))
				heading = names[i].heading;
	}
	const char *m = rp_money(cur);
	char inst[32], xfer[32], total[32], per_total[48], xfer_tb[32], total_tb[32];
	snprintf(inst, sizeof(inst), "Instances %s/hour", m);
	snprintf(xfer, sizeof(xfer), "Transfer %s/hour", m);
	snprintf(total, sizeof(total), "Total %s/hour", m);
	snprintf(per_total, sizeof(per_total), "Mbit/s per total %s/hour", m);
	snprintf(xfer_tb, sizeof(xfer_tb), "Transfer %s per TB", m);
	snprintf(total_tb, sizeof(total_tb), "Total %s per TB", m);
	const char *const cols[] = {"Rank with transfer", "Pair", "Relation", "Throughput", inst, xfer,
				    total, per_total, xfer_tb, total_tb, "Rank on instances",
				    "Currency"};
	tb_table(b, k < sizeof(ids) / sizeof(ids[0]) ? ids[k] : NULL, heading, k > 0 ? NULL
		 : rp_lab_scale(d)
		 ? "The traffic each pair moved at its ranked rate, billed as its relation's "
		   "transfer rule says (the sides it bills, its tiers at the month's volume, a "
		   "server's included traffic); prices per hour and per decimal TB moved, each "
		   "currency ranked on its own. A lab pair's traffic is priced at the rate of the "
		   "instances it emulates (its Mbit/s over the lab's scale); its Mbit/s and Mbit/s "
		   "per price stay the lab's."
		 : "The traffic each pair moved at its ranked rate, billed as its relation's "
		   "transfer rule says (the sides it bills, its tiers at the month's volume, a "
		   "server's included traffic); prices per hour and per decimal TB moved, each "
		   "currency ranked on its own.",
		 cols, sizeof(cols) / sizeof(cols[0]));
	/* a run with QUIC cases ranks each pair once per protocol: the pair names its protocol */
	int per_proto = r->n_cost > d->n_eps;
	char label[160];
	for (size_t rank = 1; rank <= r->n_cost + 1; rank++)
		for (size_t i = 0; i < r->n_cost; i++) {
			const struct rp_cost_row *c = &r->cost[i];
			int priced = !isnan(c->usd_per_hour);
			if (priced ? !rp_money_same(cur, c->currency) : !last)
				continue;
			if ((rank <= r->n_cost && c->total_rank != (int)rank) ||
			    (rank == r->n_cost + 1 && c->total_rank != 0))
				continue;
			const struct rp_endpoint *e = &d->eps[c->ep];
			tb_row(b, isnan(c->total_per_hour) ? "missing" : NULL, "data-pair", e->name);
			if (c->total_rank)
				tb_cell_int(b, c->total_rank);
			else
				tb_cell_v(b, "–", RP_CELL_NUM, NAN);
			const struct rp_case *bc = c->best_case >= 0 ? &d->cases[c->best_case] : NULL;
			if (per_proto && bc && bc->protocol)
				snprintf(label, sizeof(label), "%s (%s)", rp_ep_label(e), bc->protocol);
			else
				snprintf(label, sizeof(label), "%s", rp_ep_label(e));
			tb_cell(b, label);
			tb_cell(b, e->xfer.relation[0] ? e->xfer.relation : "unknown");
			char rate[64];
			rp_fmt_in(rate, sizeof(rate), c->mbps * 1e6, r->d->unit);
			tb_cell_v(b, rate, RP_CELL_NUM, c->mbps);
			tb_cell_fmt(b, "%.4g", c->usd_per_hour);
			if (isnan(c->transfer_per_hour))
				tb_cell_v(b, e->xfer.unconvertible ? "no rate for its currency"
					  : "no rule known", RP_CELL_NUM, NAN);
			else
				tb_cell_fmt(b, "%.4g", c->transfer_per_hour);
			tb_cell_fmt(b, "%.4g", c->total_per_hour);
			tb_cell_fmt(b, "%.0f", c->mbps_per_total_hour);
			tb_cell_fmt(b, "%.4g", c->transfer_per_tb);
			tb_cell_fmt(b, "%.4g", c->total_per_tb);
			if (c->rank)
				tb_cell_int(b, c->rank);
			else
				tb_cell_v(b, "–", RP_CELL_NUM, NAN);
			tb_cell(b, priced ? rp_money_code(c->currency) : "–");
		}
}

/* The ranking: a table per currency (never one "$/hour" column over two currencies), the
 * pairs without a price in the last; then, when any pair's transfer is known, the ranking
 * with transfer alike. */
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
	int any = 0;
	for (size_t i = 0; i < r->n_cost; i++)
		any |= !isnan(r->cost[i].transfer_per_hour);
	for (size_t k = 0; any && k < n_cur; k++)
		transfer_table(b, r, curs[k], k, n_cur, k + 1 == n_cur);
}
