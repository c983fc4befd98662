/* content_tables: the tables of the content model (content.h) — what changed, the per-dollar
 * ranking, the latency tables, the comparison with the baseline, the results, A/B between
 * pairs, the history, the rate searches, the environment and the equivalent probe commands —
 * built once, cell by cell, from the assembled report, so that index.html and report.md show
 * the same rows and columns with the same text. */
#include "report/render/content.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/analyze/advertised.h"
#include "report/load/limits.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"

#include "report/render/content_cells.h"

const struct rp_fig_col rp_fig_cols[RP_N_FIG_COLS] = {
	{"Sender (median)", RP_SND_BPS, NULL},
	{"Received pps", RP_RCV_PPS, "pps"},
	{"Retransmits", RP_RETRANS, "%.0f"},
	{"Loss %", RP_LOST_PCT, "%.3g"},
	{"Kernel drops", RP_KDROPS, "%.0f"},
	{"Sender CPU %", RP_SND_CPU, "%.0f"},
	{"Receiver CPU %", RP_RCV_CPU, "%.0f"},
	{"Sender CPU s/GB", RP_SND_CPU_GB, "%.3f"},
	{"Receiver CPU s/GB", RP_RCV_CPU_GB, "%.3f"},
	{"Return direction (bidir)", RP_RET_BPS, NULL},
	{"Jain's index (clients)", RP_JAIN, "%.3f"},
	{"Slowest client / fair share", RP_MIN_FAIR, "%.2f"},
	{"Shares settled (s)", RP_CONVERGE, "%.1f"},
};

int rp_results_cols(const struct rp_data *d, int used[RP_N_FIG_COLS])
{
	for (size_t k = 0; k < RP_N_FIG_COLS; k++) {
		used[k] = 0;
		for (size_t i = 0; i < d->n_cases && !used[k]; i++)
			used[k] = d->cases[i].fig[rp_fig_cols[k].fig].n > 0;
	}
	int adv = 0; /* a pair's type advertises a bandwidth: each case against it */
	for (size_t i = 0; i < d->n_cases && !adv; i++)
		adv = !isnan(rp_advertised_case(d, &d->cases[i]).pct);
	return adv;
}

/* One comparison row: [#,] case, baseline, now, change, p, verdict (a change in bold). */
static void cmp_row(struct tb *b, const struct rp_report *r, const struct rp_cmp_row *w,
		    int ordinal, struct rp_buf *lab)
{
	const struct rp_case *c = &r->d->cases[w->cur];
	int changed = w->verdict == RP_REGRESSION || w->verdict == RP_IMPROVEMENT;
	tb_row(b, changed ? rp_verdict_name(w->verdict) : NULL, "data-case-key", c->case_key);
	if (ordinal)
		tb_cell_int(b, c->ordinal);
	rp_buf_reset(lab);
	rp_case_label(r->d, c, lab);
	tb_cell(b, rp_buf_str(lab));
	tb_cell_bps(b, w->base_med, r->d->unit);
	tb_cell_bps(b, w->cur_med, r->d->unit);
	tb_cell_fmt(b, "%+.1f %%", w->change_pct);
	int tested = w->verdict != RP_UNTESTABLE && w->verdict != RP_NEW;
	tb_cell_fmt(b, "%.3g", tested ? w->test.p : NAN);
	tb_cell_v(b, rp_verdict_name(w->verdict), changed ? RP_CELL_STRONG : 0, NAN);
}

static void news(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_news *n = r->news;
	if (!r->cmp || !n)
		return;
	if (n->n_changed) {
		static const char *const cols[] = {"Case", "Baseline", "Now", "Change", "p (Welch)",
						   "Verdict"};
		tb_table(b, "changes-table", NULL, NULL, cols, 6);
		for (size_t k = 0; k < n->n_changed; k++)
			cmp_row(b, r, &r->cmp->rows[n->changed[k]], 0, lab);
	}
	if (!n->n_cost)
		return;
	/* in more than one currency, each figure names its own */
	int usd = 1;
	for (size_t k = 0; k < n->n_cost; k++)
		usd &= !strcmp(rp_money_code(r->cost[n->cost[k].cur].currency), "USD");
	const char *cols[] = {"Pair", usd ? "Baseline Mbit/s per $/hour" :
			      "Baseline Mbit/s per hour's price", "Now", "Change", "Rank then",
			      "Rank now", "Ranked case"};
	tb_table(b, "cost-change-table", usd ? "Per dollar, then and now" :
	      "Per unit of each currency, then and now", NULL, cols, 7);
	for (size_t k = 0; k < n->n_cost; k++) {
		const struct rp_cost_change *c = &n->cost[k];
		const struct rp_endpoint *e = &r->d->eps[r->cost[c->cur].ep];
		char t[64];
		/* green for a better rank or figure, red for a worse one; when they disagree (a
		 * rank up while the figure fell) neither — a rank that improved is never red */
		double min = r->cmp->min_change_pct, chg = c->change_pct;
		int up = c->base_rank && c->cur_rank && c->cur_rank < c->base_rank;
		int down = c->base_rank && c->cur_rank && c->cur_rank > c->base_rank;
		int rise = !isnan(chg) && chg > min, fall = !isnan(chg) && chg < -min;
		tb_row(b, (up && !fall) || (rise && !down) ? "improvement"
		       : (down && !rise) || (fall && !up) ? "regression" : NULL, "data-pair", e->name);
		tb_cell(b, rp_ep_label(e));
		char per[48];
		snprintf(per, sizeof(per), "%%.0f per %s/hour",
			 rp_money(r->cost[c->cur].currency));
		tb_cell_fmt(b, usd ? "%.0f" : per, c->base_mpd);
		tb_cell_fmt(b, usd ? "%.0f" : per, c->cur_mpd);
		tb_cell_fmt(b, "%+.1f %%", c->change_pct);
		snprintf(t, sizeof(t), "%d", c->base_rank);
		tb_cell_v(b, c->base < 0 ? "new" : c->base_rank ? t : "unranked", RP_CELL_NUM,
		       c->base_rank ? c->base_rank : NAN);
		snprintf(t, sizeof(t), "%d", c->cur_rank);
		tb_cell_v(b, c->cur_rank ? t : "unranked", RP_CELL_NUM, c->cur_rank ? c->cur_rank : NAN);
		const struct rp_cmp_row *w = c->cmp_row >= 0 ? &r->cmp->rows[c->cmp_row] : NULL;
		if (!c->same_case) {
			tb_cell(b, c->base < 0 ? "–" : "a different case than the baseline's");
		} else if (w && w->verdict != RP_UNTESTABLE && w->verdict != RP_NEW) {
			snprintf(t, sizeof(t), "%s, p = %.3g", rp_verdict_name(w->verdict), w->test.p);
			tb_cell(b, t);
		} else {
			tb_cell(b, "untestable");
		}
	}
}

static void comparison(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	static const char *const cols[] = {"#", "Case", "Baseline", "Now", "Change", "p (Welch)",
					   "Verdict"};
	if (!r->cmp)
		return;
	tb_table(b, "comparison-table", NULL, NULL, cols, 7);
	for (size_t i = 0; i < r->cmp->n; i++)
		cmp_row(b, r, &r->cmp->rows[i], 1, lab);
}

/* The results: the fixed columns, the figure columns some case has (rp_fig_cols), and the
 * share of the advertised bandwidth when a type advertises one. */
static void results(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_data *d = r->d;
	int used[RP_N_FIG_COLS];
	int adv = rp_results_cols(d, used);
	const char *cols[6 + RP_N_FIG_COLS + 1] = {"#", "Case", "Repeats ok", "Receiver (median)",
						   "Min–max", "IQR"};
	size_t nc = 6;
	for (size_t k = 0; k < RP_N_FIG_COLS; k++)
		if (used[k])
			cols[nc++] = rp_fig_cols[k].name;
	if (adv)
		cols[nc++] = "Of advertised";
	tb_table(b, "results-table", NULL, NULL, cols, nc);
	char t[96];
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		const struct rp_stat *g = &c->fig[RP_RCV_BPS];
		tb_row(b, NULL, "data-case-key", c->case_key);
		tb_cell_int(b, c->ordinal);
		rp_buf_reset(lab);
		rp_case_label(d, c, lab);
		struct rp_cell *lc = tb_cell(b, rp_buf_str(lab));
		if (lc)
			lc->cls = "label";
		if (c->first_error)
			tb_cell_note(b, lc, "note", c->first_error);
		rp_buf_reset(lab);
		if (rp_limits_note(c, lab))
			tb_cell_note(b, lc, "note sender-limited", rp_buf_str(lab));
		snprintf(t, sizeof(t), "%d / %d", c->n_ok, c->n_results);
		tb_cell_v(b, t, RP_CELL_NUM, NAN);
		tb_cell_bps(b, g->med, d->unit);
		tb_cell_range(b, g->min, g->max, d->unit);
		tb_cell_range(b, g->q1, g->q3, d->unit);
		for (size_t k = 0; k < RP_N_FIG_COLS; k++) {
			double v = c->fig[rp_fig_cols[k].fig].med;
			if (!used[k])
				continue;
			if (!rp_fig_cols[k].fmt) {
				tb_cell_bps(b, v, d->unit);
			} else if (!strcmp(rp_fig_cols[k].fmt, "pps")) {
				rp_fmt_pps(t, sizeof(t), v);
				tb_cell_v(b, isnan(v) ? "–" : t, RP_CELL_NUM, v);
			} else {
				tb_cell_fmt(b, rp_fig_cols[k].fmt, v);
			}
		}
		if (adv) {
			struct rp_adv a = rp_advertised_case(d, c);
			rp_buf_reset(lab);
			rp_advertised_text(&a, lab);
			tb_cell_v(b, isnan(a.pct) ? "–" : rp_buf_str(lab), RP_CELL_NUM, a.pct);
		}
	}
}

/* A declared/detected pair of cells: what the matrix said beside what the host reported
 * (never shown as if the host had said it), ≠ on a mismatch. Returns 1 on a mismatch. */
static int declared_detected(struct tb *b, const char *declared, const char *detected,
			     const char *unknown, int differs)
{
	tb_cell(b, declared);
	if (declared && detected && differs) {
		char t[300];
		snprintf(t, sizeof(t), "%s ≠", detected);
		struct rp_cell *c = tb_cell(b, t);
		if (c) {
			c->cls = "mismatch";
			c->title = "differs from what the matrix declared";
		}
		return 1;
	}
	struct rp_cell *c = tb_cell(b, detected ? detected : unknown);
	if (c && !detected)
		c->cls = "note";
	return 0;
}

/* Per endpoint side: the declared instance type, region and expected driver beside what the
 * host reported, then its host, kernel, CPU, MTU and qdisc. */
static void environment(struct tb *b, const struct rp_report *r)
{
	static const char *const cols[] = {
		"Endpoint", "Side", "Instance type declared", "detected", "Region declared",
		"detected", "Driver expected", "detected", "Host", "Kernel", "CPU", "MTU", "qdisc"};
	const struct rp_data *d = r->d;
	tb_table(b, "environment-table", NULL, NULL, cols, 13);
	char t[256];
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		for (int side = 0; side < 2; side++) {
			const struct rp_host *h = side ? &e->agent : &e->client;
			const char *sname = side ? "agent" : "client";
			tb_row2(b, NULL, "data-endpoint", e->name, "data-side", sname);
			struct rp_row *rw = b->row;
			tb_cell(b, e->name);
			tb_cell(b, sname);
			int bad = declared_detected(b, e->instance_type, h->cloud_instance_type,
						    "not reported", e->instance_type &&
						    h->cloud_instance_type &&
						    strcmp(e->instance_type, h->cloud_instance_type));
			bad |= declared_detected(b, e->region, h->cloud_region, "not reported",
						 e->region && h->cloud_region &&
						 strcmp(e->region, h->cloud_region));
			rp_host_driver_text(h, t, sizeof(t));
			/* The matrix's expected driver is about the agent's NIC (the runner checks
			 * it there); the client side shows its driver without an expectation. */
			const char *exp = side ? e->expected_driver : NULL;
			bad |= declared_detected(b, exp, h->driver ? t : NULL, t,
						 exp && !rp_host_driver_matches(exp, h));
			if (bad && rw)
				rw->cls = "mismatch";
			tb_cell(b, side ? e->agent_addr : h->hostname ? h->hostname : e->client_host
			     ? e->client_host : "runner host");
			tb_cell(b, h->kernel);
			if (h->online_cpus)
				snprintf(t, sizeof(t), "%s (%lld CPUs)", h->cpu_model ? h->cpu_model : "–",
					 h->online_cpus);
			else
				snprintf(t, sizeof(t), "%s", h->cpu_model ? h->cpu_model : "–");
			tb_cell(b, t);
			snprintf(t, sizeof(t), "%lld", h->mtu);
			tb_cell_v(b, h->mtu ? t : "–", RP_CELL_NUM, NAN);
			tb_cell(b, h->qdisc);
		}
	}
}

/* Pairs that differ in one attribute, side by side on each throughput case they share. */
static void ab(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	static const char *const cols[] = {"Differs in", "A", "B", "Case", "A (median)",
					   "B (median)", "Difference", "CI", "p (Welch)"};
	const struct rp_ab *x = r->ab;
	if (!x)
		return;
	tb_table(b, "ab-table", NULL, NULL, cols, 9);
	char t[512];
	for (size_t i = 0; i < x->n; i++) {
		const struct rp_ab_row *w = &x->rows[i];
		const char *a = r->d->eps[w->a].name, *bn = r->d->eps[w->b].name;
		if (w->rr)
			continue;
		int significant = w->p < x->alpha;
		tb_row2(b, significant ? "significant" : NULL, "data-a", a, "data-b", bn);
		tb_cell(b, w->attr);
		snprintf(t, sizeof(t), "%s (%s)", w->va, a);
		tb_cell(b, t);
		snprintf(t, sizeof(t), "%s (%s)", w->vb, bn);
		tb_cell(b, t);
		rp_buf_reset(lab);
		rp_case_label_short(r->d, &r->d->cases[w->ca], lab);
		tb_cell(b, rp_buf_str(lab));
		tb_cell_bps(b, w->med_a, r->d->unit);
		tb_cell_bps(b, w->med_b, r->d->unit);
		tb_cell_fmt(b, "%+.1f %%", w->diff_pct);
		snprintf(t, sizeof(t), "%+.1f to %+.1f %%", w->ci_lo, w->ci_hi);
		tb_cell_v(b, isnan(w->ci_lo) ? "–" : t, RP_CELL_NUM, NAN);
		snprintf(t, sizeof(t), "%.3g", w->p);
		tb_cell_v(b, isnan(w->p) ? "–" : t, RP_CELL_NUM | (significant ? RP_CELL_STRONG : 0),
		       w->p);
	}
}

/* Each request/response case's transactions/s and percentiles (medians over repeats), its p99
 * against the baseline's, the cost of a million transactions; then A/B on latency. */
static void latency(struct tb *b, const struct rp_report *r)
{
	const struct rp_latency *l = r->latency;
	char t[160];
	if (!l || !l->n)
		return;
	/* a pair priced in another currency: each price names its money, none under "$" */
	int usd = 1;
	for (size_t i = 0; i < l->n; i++)
		usd &= isnan(l->cases[i].usd_per_mtx) || rp_money_same(l->cases[i].currency, "USD");
	const char *const cols[] = {"Pair", "Case", "Transactions/s", "p50 µs", "p99 µs",
				    "p99.9 µs", "Lost", "p99 vs baseline", usd ? "$ per million"
				    : "Price per million", "Client CPU", "Agent CPU (load)"};
	tb_table(b, "latency-table", NULL, NULL, cols, 11);
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_lat_case *c = &l->cases[i];
		char rate[32] = "back to back";
		if (c->rate > 0)
			snprintf(rate, sizeof(rate), "%.0f/s", c->rate);
		tb_row(b, NULL, "data-case-key", c->case_key);
		struct rp_cell *pc = tb_cell(b, c->endpoint);
		if (pc)
			pc->cls = "label";
		snprintf(t, sizeof(t), "%s %lld/%lld B, %lld stream%s, %s", c->test, c->request,
			 c->response, c->streams, c->streams == 1 ? "" : "s", rate);
		tb_cell(b, t);
		tb_cell_fmt(b, "%.0f", c->tps);
		tb_cell_fmt(b, "%.1f", c->p50_us);
		tb_cell_fmt(b, "%.1f", c->p99_us);
		tb_cell_fmt(b, "%.1f", c->p999_us);
		tb_cell_fmt(b, "%.0f", (double)c->lost);
		if (isfinite(c->change_pct)) {
			snprintf(t, sizeof(t), "%+.1f %%%s", c->change_pct,
				 c->regressed ? " regressed" : isfinite(c->p) ? "" : " (no test)");
			struct rp_cell *x = tb_cell_v(b, t, RP_CELL_NUM | (c->regressed ? RP_CELL_STRONG : 0),
						   c->change_pct);
			if (x && c->regressed)
				x->attr = "data-regressed";
			if (x && isfinite(c->p) && asprintf(&x->own_title, "Welch on log p99: p = %.3g",
							    c->p) >= 0)
				x->title = x->own_title;
		} else {
			tb_cell_v(b, "–", RP_CELL_NUM, NAN);
		}
		if (usd || isnan(c->usd_per_mtx)) {
			tb_cell_fmt(b, "%.4g", c->usd_per_mtx);
		} else {
			rp_fmt_money(t, sizeof(t), "%.4g", c->usd_per_mtx, c->currency);
			tb_cell_v(b, t, RP_CELL_NUM, c->usd_per_mtx);
		}
		snprintf(t, sizeof(t), "%d", c->client_cpu);
		tb_cell(b, c->client_cpu >= 0 ? t : "–");
		if (c->agent_cpu >= 0)
			snprintf(t, sizeof(t), "%d (%.0f %%)", c->agent_cpu, c->agent_cpu_pct);
		else
			snprintf(t, sizeof(t), "– (%.0f %%)", c->agent_cpu_pct);
		tb_cell(b, t);
	}
	if (!l->n_ab)
		return;
	static const char *const abcols[] = {"A", "B", "Differ in", "Case", "p50 A / B µs",
					     "p99 A / B µs", "p99 A vs B", "p"};
	tb_table(b, "latency-ab", "A/B on latency", RP_LAT_AB_NOTE, abcols, 8);
	for (size_t i = 0; i < l->n_ab; i++) {
		const struct rp_lat_ab *a = &l->ab[i];
		tb_row(b, NULL, NULL, NULL);
		tb_cell(b, a->a ? a->a : "");
		tb_cell(b, a->b ? a->b : "");
		snprintf(t, sizeof(t), "%s: %s / %s", a->attr, a->va ? a->va : "?",
			 a->vb ? a->vb : "?");
		tb_cell(b, t);
		snprintf(t, sizeof(t), "%s %lld/%lld B", a->ca->test, a->ca->request, a->ca->response);
		tb_cell(b, t);
		snprintf(t, sizeof(t), "%.1f / %.1f", a->ca->p50_us, a->cb->p50_us);
		tb_cell(b, t);
		snprintf(t, sizeof(t), "%.1f / %.1f", a->ca->p99_us, a->cb->p99_us);
		tb_cell(b, t);
		tb_cell_fmt(b, "%+.1f %%", a->p99_diff_pct);
		tb_cell_fmt(b, "%.3g", a->p);
	}
}

/* Beside each loaded case's goodput, its latency probe idle and loaded and the delay the load
 * added (medians over repeats). */
static void loadlat(struct tb *b, const struct rp_report *r)
{
	static const char *const cols[] = {"Pair", "Case", "Goodput", "Idle p50 µs", "Idle p99 µs",
					   "Loaded p50 µs", "Loaded p99 µs", "Added p50 µs",
					   "Added p99 µs", "RPM", "Idle RPM", "RPM per $/hour"};
	static const char *const fmt[RP_LL_N] = {"%.1f", "%.1f", "%.1f", "%.1f", "%.1f", "%+.1f",
						 "%+.1f", "%.0f", "%.0f", "%.1f"};
	const struct rp_loadlat *l = r->loadlat;
	if (!l || !l->n)
		return;
	tb_table(b, "latency-under-load-table", NULL, l->rpm ? rp_loadlat_rpm_method : NULL, cols,
	      l->rpm ? 12 : 9); /* the RPM columns where a case is a responsiveness test */
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_ll_case *c = &l->cases[i];
		tb_row(b, NULL, "data-case-key", c->case_key);
		struct rp_cell *pc = tb_cell(b, c->endpoint);
		if (pc)
			pc->cls = "label";
		tb_cell(b, c->desc);
		/* the goodput with its unit, in the page's (Gbit/s from 10 Gbit/s) */
		tb_cell_bps(b, c->v[RP_LL_MBPS] * 1e6, r->d->unit);
		for (int k = RP_LL_MBPS + 1; k < (l->rpm ? RP_LL_N : RP_LL_RPM); k++)
			tb_cell_fmt(b, fmt[k], c->v[k]);
	}
}

/* A packets/s figure: "–" when there is none. */
static void cell_pps(struct tb *b, double v)
{
	char t[32];
	snprintf(t, sizeof(t), "%.0f", v);
	tb_cell_v(b, isnan(v) ? "–" : t, RP_CELL_NUM, v);
}

/* The sentence for a goal a search did not settle: not met, limited by the sender, or not
 * narrowed ("64-byte datagrams, c5n, 1 stream: NDR not met: note."); 1 when it wrote one, 0
 * (out untouched) for a goal met, converged and not sender-bounded. */
static int unmet_sentence(const struct rp_search_row *r, const struct rp_search_goal *g,
			  char *out, size_t n)
{
	if (g->met && g->converged && !g->sender_limited)
		return 0;
	char gn[32];
	rp_search_goal_name(g->loss_ratio, gn, sizeof(gn));
	if (g->sender_limited)
		snprintf(out, n, "%lld-byte datagrams, %s, %lld stream%s: %s limited by the sender, not "
			 "the path: %s.", r->length, r->endpoint ? r->endpoint : "?", r->streams,
			 r->streams == 1 ? "" : "s", gn, g->note ? g->note : "no note");
	else if (!g->met)
		snprintf(out, n, "%lld-byte datagrams, %s, %lld stream%s: %s not met%s%s.", r->length,
			 r->endpoint ? r->endpoint : "?", r->streams, r->streams == 1 ? "" : "s", gn,
			 g->note ? ": " : "", g->note ? g->note : "");
	else
		snprintf(out, n, "%lld-byte datagrams, %s, %lld stream%s: %s %s.", r->length,
			 r->endpoint ? r->endpoint : "?", r->streams, r->streams == 1 ? "" : "s", gn,
			 g->note ? g->note : "not narrowed to the goal width");
	return 1;
}

/* Each rate search: per loss goal the highest rate that met it and the lowest that did not,
 * the unpaced rate and the wire rate; then why a goal was not settled. */
static void search(struct tb *b, const struct rp_report *r)
{
	const struct rp_search *s = r->search;
	if (!s || !s->n)
		return;
	size_t goals = s->rows[0].n_goals < 8 ? s->rows[0].n_goals : 8;
	char names[16][64];
	const char *cols[3 + 16 + 2] = {"pair", "streams", "payload (B)"};
	size_t nc = 3;
	for (size_t g = 0; g < goals; g++) {
		char gn[32];
		rp_search_goal_name(s->rows[0].goals[g].loss_ratio, gn, sizeof(gn));
		snprintf(names[2 * g], sizeof(names[0]), "%s (pps)", gn);
		snprintf(names[2 * g + 1], sizeof(names[0]), "%s upper bound", gn);
		cols[nc++] = names[2 * g];
		cols[nc++] = names[2 * g + 1];
	}
	cols[nc++] = "unpaced received (pps)";
	cols[nc++] = "wire rate (pps)";
	tb_table(b, "search-table", NULL, NULL, cols, nc);
	char t[64];
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_search_row *w = &s->rows[i];
		tb_row(b, NULL, NULL, NULL);
		tb_cell(b, w->endpoint);
		tb_cell_int(b, (int)w->streams);
		tb_cell_int(b, (int)w->length);
		for (size_t g = 0; g < goals; g++) {
			const struct rp_search_goal *gg = g < w->n_goals ? &w->goals[g] : NULL;
			if (gg && gg->sender_limited) {
				/* a floor the sender set, not the path's figure */
				snprintf(t, sizeof(t), "≥ %.0f (sender)", gg->at_least_pps);
				struct rp_cell *c = tb_cell_v(b, isnan(gg->at_least_pps) ? "not met (sender)"
							   : t, RP_CELL_NUM, gg->at_least_pps);
				if (c) {
					c->cls = "num sender-limited";
					c->title = "the sender could not offer more: a floor, not the path's "
						   "limit";
				}
			} else if (gg && gg->met) {
				cell_pps(b, gg->lower_pps);
			} else {
				tb_cell_v(b, "not met", RP_CELL_NUM, NAN);
			}
			cell_pps(b, gg ? gg->upper_pps : NAN);
		}
		cell_pps(b, w->mrr_pps);
		cell_pps(b, rp_search_wire_pps(w->link_bps, w->length));
	}
	for (size_t i = 0; i < s->n && b->t; i++)
		for (size_t g = 0; g < s->rows[i].n_goals; g++) {
			char line[768];
			if (!unmet_sentence(&s->rows[i], &s->rows[i].goals[g], line,
						      sizeof(line)))
				continue;
			char **ni = realloc(b->t->items, (b->t->n_items + 1) * sizeof(*ni));
			if (!ni) {
				b->oom = 1;
				return;
			}
			b->t->items = ni;
			ni[b->t->n_items++] = tb_dup(b, line);
		}
}

#define HISTORY_MAX_ROWS 60 /* cases with a step first, then in the run's order */
#define HISTORY_MAX_RUNS 64

static void history_row(struct tb *b, const struct rp_report *r, size_t k, size_t runs,
			struct rp_buf *lab)
{
	const struct rp_history *h = r->history;
	const struct rp_case *c = &r->d->cases[k];
	tb_row(b, NULL, "data-case-key", c->case_key);
	rp_buf_reset(lab);
	rp_case_label(r->d, c, lab);
	struct rp_cell *lc = tb_cell(b, rp_buf_str(lab));
	if (lc)
		lc->cls = "label";
	for (size_t j = 0; j < runs; j++) {
		double v = h->t.vals[k * h->t.n_runs + j];
		const struct rp_history_step *st = rp_history_step_at(h, k, j);
		char t[64];
		rp_fmt_in(t, sizeof(t), v, r->d->unit);
		if (!st) {
			tb_cell_v(b, isnan(v) ? "–" : t, RP_CELL_NUM, v);
			continue;
		}
		char shown[96];
		snprintf(shown, sizeof(shown), "%s %s", isnan(v) ? "–" : t,
			 st->s.change_pct < 0 ? "▼" : "▲");
		struct rp_cell *sc = tb_cell_v(b, shown, RP_CELL_NUM | RP_CELL_SAY_TITLE, v);
		if (!sc)
			continue;
		if (asprintf(&sc->own_title, "step %+.1f %% from here, p = %.3g", st->s.change_pct,
			     st->s.p) < 0) {
			sc->own_title = NULL;
			b->oom = 1;
		}
		sc->title = sc->own_title;
		sc->cls = "num step";
		sc->attr = "data-step";
	}
}

/* Each case's median over the matrix's last runs, run names as columns, a step change marked
 * where its new level starts. */
static void history(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	const struct rp_history *h = r->history;
	if (!h)
		return;
	size_t runs = h->t.n_runs < HISTORY_MAX_RUNS ? h->t.n_runs : HISTORY_MAX_RUNS;
	const char *cols[1 + HISTORY_MAX_RUNS] = {"Case"};
	char names[HISTORY_MAX_RUNS][64];
	for (size_t j = 0; j < runs; j++) {
		rp_history_run_name(h, j, names[j], sizeof(names[j]));
		cols[1 + j] = names[j];
	}
	tb_table(b, "history-table", NULL, NULL, cols, 1 + runs);
	size_t shown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < r->d->n_cases && shown < HISTORY_MAX_ROWS; k++)
			if (rp_history_has_step(h, k) == !pass) {
				history_row(b, r, k, runs, lab);
				shown++;
			}
	if (shown < r->d->n_cases && b->t &&
	    asprintf(&b->t->after, "%zu more cases are not shown.", r->d->n_cases - shown) < 0) {
		b->t->after = NULL;
		b->oom = 1;
	}
}

/* Each case as the probe command that reproduces it. */
static void method(struct tb *b, const struct rp_report *r, struct rp_buf *lab)
{
	static const char *const cols[] = {"#", "Case", "Command"};
	const struct rp_data *d = r->d;
	tb_table(b, NULL, "Equivalent probe commands", RP_PROBE_NOTE, cols, 3);
	for (size_t i = 0; i < d->n_cases; i++) {
		tb_row(b, NULL, NULL, NULL);
		tb_cell_int(b, d->cases[i].ordinal);
		rp_buf_reset(lab);
		rp_case_label(d, &d->cases[i], lab);
		tb_cell(b, rp_buf_str(lab));
		rp_buf_reset(lab);
		rp_case_probe_cmd(d, &d->cases[i], lab);
		tb_cell_v(b, rp_buf_str(lab), RP_CELL_CODE, NAN);
	}
}

int rp_content_tables(const struct rp_report *r, struct rp_section *s)
{
	struct tb b = {.s = s};
	struct rp_buf lab;
	rp_buf_init(&lab);
	switch (s->kind) {
	case RP_SEC_NEWS: news(&b, r, &lab); break;
	case RP_SEC_COST: rp_content_cost(&b, r, &lab); break;
	case RP_SEC_COMPARISON: comparison(&b, r, &lab); break;
	case RP_SEC_RESULTS: results(&b, r, &lab); break;
	case RP_SEC_LATENCY: latency(&b, r); break;
	case RP_SEC_LOADLAT: loadlat(&b, r); break;
	case RP_SEC_AB: ab(&b, r, &lab); break;
	case RP_SEC_HISTORY: history(&b, r, &lab); break;
	case RP_SEC_SEARCH: search(&b, r); break;
	case RP_SEC_ENVIRONMENT: environment(&b, r); break;
	case RP_SEC_METHOD: method(&b, r, &lab); break;
	default: break;
	}
	b.oom |= lab.oom;
	rp_buf_free(&lab);
	return b.oom ? -1 : 0;
}

void rp_content_tables_free(struct rp_section *s)
{
	for (size_t i = 0; i < s->n_tables; i++) {
		struct rp_table *t = &s->tables[i];
		for (size_t k = 0; k < t->n_rows; k++) {
			struct rp_row *rw = &t->rows[k];
			for (size_t j = 0; j < rw->n_cells; j++) {
				free(rw->cells[j].text);
				free(rw->cells[j].own_title);
				for (size_t n = 0; n < RP_CELL_NOTES; n++)
					free(rw->cells[j].note[n]);
			}
			free(rw->cells);
			for (size_t n = 0; n < RP_ROW_ATTRS; n++)
				free(rw->attr_value[n]);
		}
		free(t->rows);
		for (size_t k = 0; k < t->n_cols; k++)
			free(t->cols[k]);
		free(t->after);
		for (size_t k = 0; k < t->n_items; k++)
			free(t->items[k]);
		free(t->items);
		free(t->cols);
	}
	free(s->tables);
	s->tables = NULL;
	s->n_tables = 0;
}
