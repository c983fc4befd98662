/* md_sections: see md_sections.h. */
#include "report/render/md_sections.h"

#include <math.h>
#include <stdio.h>

#include "report/model/describe.h"
#include "report/render/content.h"

#define MAX_ROWS 60   /* as html_history.c: cases with a step first, then in the run's order */

void rp_md_bps(struct rp_buf *b, double v, struct rp_unit u)
{
	char t[32];
	rp_fmt_in(t, sizeof(t), v, u);
	rp_buf_puts(b, isnan(v) ? "–" : t);
}

void rp_md_ab(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_ab *ab = r->ab;
	rp_buf_puts(b, "| Differs in | A | B | Case | A (median) | B (median) | Difference | CI | "
		    "p (Welch) |\n|---|---|---|---|---|---|---|---|---|\n");
	struct rp_buf lab;
	rp_buf_init(&lab);
	for (size_t i = 0; i < ab->n; i++) {
		const struct rp_ab_row *w = &ab->rows[i];
		if (w->rr)
			continue;
		rp_buf_puts(b, "| ");
		rp_md_escape(b, w->attr);
		rp_buf_puts(b, " | ");
		rp_md_escape(b, w->va);
		rp_buf_puts(b, " (");
		rp_md_escape(b, r->d->eps[w->a].name);
		rp_buf_puts(b, ") | ");
		rp_md_escape(b, w->vb);
		rp_buf_puts(b, " (");
		rp_md_escape(b, r->d->eps[w->b].name);
		rp_buf_puts(b, ") | ");
		rp_buf_reset(&lab);
		rp_case_label_short(r->d, &r->d->cases[w->ca], &lab);
		rp_md_escape(b, rp_buf_str(&lab));
		rp_buf_puts(b, " | ");
		rp_md_bps(b, w->med_a, r->d->unit);
		rp_buf_puts(b, " | ");
		rp_md_bps(b, w->med_b, r->d->unit);
		rp_buf_printf(b, " | %+.1f %% | ", w->diff_pct);
		if (isnan(w->ci_lo))
			rp_buf_puts(b, "–");
		else
			rp_buf_printf(b, "%+.1f to %+.1f %%", w->ci_lo, w->ci_hi);
		rp_buf_printf(b, w->p < ab->alpha ? " | **%.3g** |\n" : " | %.3g |\n", w->p);
	}
	rp_buf_free(&lab);
}

static void history_row(const struct rp_report *r, size_t k, struct rp_buf *b)
{
	const struct rp_history *h = r->history;
	struct rp_buf lab;
	rp_buf_init(&lab);
	rp_case_label(r->d, &r->d->cases[k], &lab);
	rp_buf_puts(b, "| ");
	rp_md_escape(b, rp_buf_str(&lab));
	rp_buf_free(&lab);
	for (size_t j = 0; j < h->t.n_runs && j < 64; j++) {
		rp_buf_puts(b, " | ");
		rp_md_bps(b, h->t.vals[k * h->t.n_runs + j], r->d->unit);
		const struct rp_history_step *s = rp_history_step_at(h, k, j);
		if (s)
			rp_buf_printf(b, " %s (step %+.1f %%, p = %.3g)",
				      s->s.change_pct < 0 ? "▼" : "▲", s->s.change_pct, s->s.p);
	}
	rp_buf_puts(b, " |\n");
}

void rp_md_history(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_history *h = r->history;
	size_t runs = h->t.n_runs < 64 ? h->t.n_runs : 64;
	rp_buf_puts(b, "| Case |");
	for (size_t j = 0; j < runs; j++) {
		char name[64];
		rp_history_run_name(h, j, name, sizeof(name));
		rp_buf_puts(b, " ");
		rp_md_escape(b, name);
		rp_buf_puts(b, " |");
	}
	rp_buf_puts(b, "\n|---|");
	for (size_t j = 0; j < runs; j++)
		rp_buf_puts(b, "---|");
	rp_buf_puts(b, "\n");
	size_t shown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t k = 0; k < r->d->n_cases && shown < MAX_ROWS; k++)
			if (rp_history_has_step(h, k) == !pass) {
				history_row(r, k, b);
				shown++;
			}
	if (shown < r->d->n_cases)
		rp_buf_printf(b, "\n%zu more cases are not shown.\n", r->d->n_cases - shown);
}

void rp_search_markdown(const struct rp_search *s, struct rp_buf *b)
{
	size_t goals = s->n ? s->rows[0].n_goals : 0;
	rp_buf_puts(b, "| pair | streams | payload (B) |");
	for (size_t g = 0; g < goals; g++) {
		char gn[32];
		rp_search_goal_name(s->rows[0].goals[g].loss_ratio, gn, sizeof(gn));
		rp_buf_printf(b, " %s (pps) |", gn);
	}
	rp_buf_puts(b, " unpaced received (pps) | wire rate (pps) |\n|---|---:|---:|");
	for (size_t g = 0; g < goals; g++)
		rp_buf_puts(b, "---:|");
	rp_buf_puts(b, "---:|---:|\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct rp_search_row *r = &s->rows[i];
		rp_buf_puts(b, "| ");
		rp_md_escape(b, r->endpoint);
		rp_buf_printf(b, " | %lld | %lld |", r->streams, r->length);
		for (size_t g = 0; g < goals; g++) {
			const struct rp_search_goal *gg = g < r->n_goals ? &r->goals[g] : NULL;
			if (gg && gg->sender_limited && !isnan(gg->at_least_pps))
				rp_buf_printf(b, " ≥ %.0f (sender) |", gg->at_least_pps);
			else if (gg && gg->sender_limited)
				rp_buf_puts(b, " not met (sender) |");
			else if (gg && gg->met)
				rp_buf_printf(b, " %.0f |", gg->lower_pps);
			else
				rp_buf_puts(b, " not met |");
		}
		rp_buf_printf(b, " %.0f |", r->mrr_pps);
		double w = rp_search_wire_pps(r->link_bps, r->length);
		if (isnan(w))
			rp_buf_puts(b, " – |\n");
		else
			rp_buf_printf(b, " %.0f |\n", w);
	}
	rp_buf_puts(b, "\n");
	for (size_t i = 0; i < s->n; i++)
		for (size_t g = 0; g < s->rows[i].n_goals; g++) {
			const struct rp_search_goal *gg = &s->rows[i].goals[g];
			char line[768];
			if (!rp_search_unmet_sentence(&s->rows[i], gg, line, sizeof(line)))
				continue;
			rp_buf_puts(b, "- ");
			rp_md_escape(b, line);
			rp_buf_puts(b, "\n");
		}
	rp_buf_puts(b, "\n");
}

/* A table cell of the matrix's own words: no '|' or line break may end the cell. */
static void md_cell(struct rp_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			rp_buf_puts(b, "\\|");
		else if (*s != '\n' && *s != '\r')
			rp_buf_add(b, s, 1);
	}
}

void rp_latency_markdown(const struct rp_latency *l, struct rp_buf *b)
{
	if (!l->n)
		return;
	rp_buf_puts(b, "| Pair | Test | Request/response | Streams | Rate | Transactions/s | p50 us "
		       "| p99 us | p99.9 us | p99 vs baseline | $ per million | Agent CPU % |\n"
		       "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_lat_case *c = &l->cases[i];
		rp_buf_puts(b, "| ");
		md_cell(b, c->endpoint);
		char rate[32];
		snprintf(rate, sizeof(rate), c->rate > 0 ? "%.0f/s" : "back to back", c->rate);
		rp_buf_printf(b, " | %s | %lld/%lld B | %lld | %s | %.0f | %.1f | %.1f | %.1f | ",
			      c->test, c->request, c->response, c->streams, rate, c->tps, c->p50_us,
			      c->p99_us, c->p999_us);
		if (isfinite(c->change_pct))
			rp_buf_printf(b, "%+.1f %%%s%s", c->change_pct,
				      isfinite(c->p) ? "" : " (no test)",
				      c->regressed ? " **regressed**" : "");
		else
			rp_buf_puts(b, "–");
		if (isfinite(c->usd_per_mtx))
			rp_buf_printf(b, " | %.4g", c->usd_per_mtx);
		else
			rp_buf_puts(b, " | –");
		if (isfinite(c->agent_cpu_pct))
			rp_buf_printf(b, " | %.0f |\n", c->agent_cpu_pct);
		else
			rp_buf_puts(b, " | – |\n");
	}
	rp_buf_puts(b, "\n");
	if (!l->n_ab)
		return;
	rp_buf_puts(b, "### A/B on latency\n\n" RP_LAT_AB_NOTE "\n\n| A | B | Differ in | Case | p50 A / B us | p99 A / B us | "
		       "p99 A vs B | p |\n|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < l->n_ab; i++) {
		const struct rp_lat_ab *r = &l->ab[i];
		rp_buf_puts(b, "| ");
		md_cell(b, r->a ? r->a : "");
		rp_buf_puts(b, " | ");
		md_cell(b, r->b ? r->b : "");
		rp_buf_printf(b, " | %s | %s %lld/%lld B | %.1f / %.1f | %.1f / %.1f | %+.1f %% | ",
			      r->attr, r->ca->test, r->ca->request, r->ca->response, r->ca->p50_us,
			      r->cb->p50_us, r->ca->p99_us, r->cb->p99_us, r->p99_diff_pct);
		if (isfinite(r->p))
			rp_buf_printf(b, "%.3g |\n", r->p);
		else
			rp_buf_puts(b, "no test |\n");
	}
	rp_buf_puts(b, "\n");
}

static void md_num(struct rp_buf *b, const char *fmt, double v)
{
	if (isfinite(v))
		rp_buf_printf(b, fmt, v);
	else
		rp_buf_puts(b, "–");
}

void rp_loadlat_markdown(const struct rp_loadlat *l, struct rp_buf *b)
{
	if (!l || !l->n)
		return;
	rp_buf_puts(b, "| Pair | Case | Mbit/s | Idle p50 us | Idle p99 us | Loaded p50 us | "
		       "Loaded p99 us | Added p50 us | Added p99 us |\n"
		       "|---|---|---|---|---|---|---|---|---|\n");
	static const char *const fmt[RP_LL_N] = {"%.1f", "%.1f", "%.1f", "%.1f", "%.1f", "%+.1f",
						 "%+.1f"};
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_ll_case *c = &l->cases[i];
		rp_buf_puts(b, "| ");
		rp_md_escape(b, c->endpoint);
		rp_buf_puts(b, " | ");
		rp_md_escape(b, c->desc);
		for (int k = 0; k < RP_LL_N; k++) {
			rp_buf_puts(b, " | ");
			md_num(b, fmt[k], c->v[k]);
		}
		rp_buf_puts(b, " |\n");
	}
	rp_buf_puts(b, "\n");
}
