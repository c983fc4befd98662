/* content_cost: the per-dollar tables of the content model — the ranking on the instances'
 * price, and beside it the ranking with transfer (issue 39): each pair's relation, what its
 * measured traffic costs an hour and per TB moved, the total, each currency apart. */
#include "report/render/content_cost.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/analyze/advertised.h"
#include "report/load/lab.h"
#include "report/load/pricing.h"
#include "report/model/describe.h"
#include "report/render/content_tb.h"

static void instances(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_data *d = r->d;
	int spot = r->pricing && r->pricing->have_spot;
	/* prices in another currency are per that currency's hour: the Currency column says */
	/* a group case ranked (incast, fan-out): how fairly its clients shared, beside its total */
	int fair = 0;
	for (size_t i = 0; i < r->n_cost && !fair; i++)
		fair = r->cost[i].best_case >= 0 && d->cases[r->cost[i].best_case].fig[RP_JAIN].n > 0;
	const char *cols[16] = {"Rank", "Instance type", "Region", "Price basis", "$/hour",
				"Mbit/s", "Mbit/s per $/hour", "$ per Gbit/s-hour", "Ranked case",
				"Price as of", "Provider", "Currency", "Pricing"};
	size_t n_cols = 13;
	if (spot) {
		cols[n_cols++] = "Mbit/s per on-demand hour";
		cols[n_cols++] = "Mbit/s per spot hour";
	}
	if (fair)
		cols[n_cols++] = "Fairness (Jain's index)";
	tb_table(b, "cost-table", NULL, NULL, cols, n_cols);
	for (size_t i = 0; i < r->n_cost; i++) {
		const struct rp_cost_row *c = &r->cost[i];
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
		tb_cell_fmt(b, "%.0f", c->mbps_per_usd_hour);
		tb_cell_fmt(b, "%.4g", c->usd_per_gbps_hour);
		rp_buf_reset(lab);
		if (c->best_case >= 0)
			rp_case_label(d, &d->cases[c->best_case], lab);
		tb_cell(b, c->best_case >= 0 ? rp_buf_str(lab) : "no successful case");
		tb_cell(b, e->price_as_of);
		tb_cell(b, e->provider);
		tb_cell(b, !priced ? "–" : c->currency ? c->currency : "USD");
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
}

/* The ranking with transfer, in the instance ranking's row order: shown when any pair's
 * transfer is known (a rule, or same-zone). */
static void with_transfer(struct tb *b, const struct rp_report *r)
{
	const struct rp_data *d = r->d;
	int any = 0;
	for (size_t i = 0; i < r->n_cost; i++)
		any |= !isnan(r->cost[i].transfer_per_hour);
	if (!any)
		return;
	static const char *const cols[] = {"Rank with transfer", "Pair", "Relation", "Mbit/s",
		"Instances /hour", "Transfer /hour", "Total /hour", "Mbit/s per total /hour",
		"Transfer per TB", "Total per TB", "Rank on instances", "Currency"};
	tb_table(b, "cost-total-table", "With transfer", rp_lab_scale(d)
		 ? "The traffic each pair moved at its ranked rate, billed as its relation's "
		   "transfer rule says (the sides it bills, its tiers at the month's volume, a "
		   "server's included traffic); prices per hour and per decimal TB moved. A lab "
		   "pair's traffic is priced at the rate of the instances it emulates (its Mbit/s "
		   "over the lab's scale); its Mbit/s and Mbit/s per price stay the lab's."
		 : "The traffic each pair moved at its ranked rate, billed as its relation's "
		   "transfer rule says (the sides it bills, its tiers at the month's volume, a "
		   "server's included traffic); prices per hour and per decimal TB moved.",
		 cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t k = 1; k <= r->n_cost + 1; k++)
		for (size_t i = 0; i < r->n_cost; i++) {
			const struct rp_cost_row *c = &r->cost[i];
			/* by total rank, the unranked last */
			if ((k <= r->n_cost && c->total_rank != (int)k) ||
			    (k == r->n_cost + 1 && c->total_rank != 0))
				continue;
			const struct rp_endpoint *e = &d->eps[c->ep];
			tb_row(b, isnan(c->total_per_hour) ? "missing" : NULL, "data-pair", e->name);
			if (c->total_rank)
				tb_cell_int(b, c->total_rank);
			else
				tb_cell_v(b, "–", RP_CELL_NUM, NAN);
			tb_cell(b, rp_ep_label(e));
			tb_cell(b, e->xfer.relation[0] ? e->xfer.relation : "unknown");
			tb_cell_fmt(b, "%.0f", c->mbps);
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
			tb_cell(b, isnan(c->usd_per_hour) ? "–" : c->currency ? c->currency : "USD");
		}
}

void rp_content_cost(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	instances(b, r, lab);
	with_transfer(b, r);
}
