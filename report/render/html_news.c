/* html_news: the page's opening section, "What changed" (see html_sections.h). */
#include <math.h>
#include <stdio.h>

#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/render/hdoc.h"
#include "report/render/html_sections.h"
#include "lib/cli.h"

void rp_html_cmp_row(const struct rp_report *r, xmlNodePtr tbody, const struct rp_cmp_row *w,
		     int ordinal)
{
	const struct rp_case *c = &r->d->cases[w->cur];
	char b[32], x[32], y[32];
	xmlNodePtr tr = hd_el(tbody, "tr", NULL);
	if (w->verdict == RP_REGRESSION || w->verdict == RP_IMPROVEMENT)
		hd_attr(tr, "class", rp_verdict_name(w->verdict));
	hd_attr(tr, "data-case-key", c->case_key ? c->case_key : "");
	if (ordinal) {
		snprintf(b, sizeof(b), "%d", c->ordinal);
		hd_el_class(tr, "td", "num", b);
	}
	struct rp_buf lab;
	rp_buf_init(&lab);
	rp_case_label(r->d, c, &lab);
	hd_el(tr, "td", rp_buf_str(&lab));
	rp_buf_free(&lab);
	rp_fmt_in(x, sizeof(x), w->base_med, r->d->unit);
	rp_fmt_in(y, sizeof(y), w->cur_med, r->d->unit);
	hd_td_num(tr, x, w->base_med);
	hd_td_num(tr, y, w->cur_med);
	hd_td_fmt(tr, "%+.1f %%", w->change_pct);
	int tested = w->verdict != RP_UNTESTABLE && w->verdict != RP_NEW;
	hd_td_fmt(tr, "%.3g", tested ? w->test.p : NAN);
	hd_el(tr, "td", rp_verdict_name(w->verdict));
}

static void changes_table(const struct rp_report *r, xmlNodePtr s)
{
	static const char *const cols[] = {"Case", "Baseline", "Now", "Change", "p (Welch)",
					   "Verdict", NULL};
	xmlNodePtr tb = hd_el(hd_scroll_table(s, "changes-table", cols), "tbody", NULL);
	for (size_t k = 0; k < r->news->n_changed; k++)
		rp_html_cmp_row(r, tb, &r->cmp->rows[r->news->changed[k]], 0);
}

static void cost_table(const struct rp_report *r, xmlNodePtr s)
{
	static const char *const cols[] = {"Pair", "Baseline Mbit/s per $/hour", "Now",
					   "Change", "Rank then", "Rank now", "Ranked case", NULL};
	xmlNodePtr tb = hd_el(hd_scroll_table(s, "cost-change-table", cols), "tbody", NULL);
	for (size_t k = 0; k < r->news->n_cost; k++) {
		const struct rp_cost_change *c = &r->news->cost[k];
		const struct rp_endpoint *e = &r->d->eps[r->cost[c->cur].ep];
		char b[64];
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		hd_attr(tr, "data-pair", e->name ? e->name : "");
		if (c->base_rank != c->cur_rank || (!isnan(c->change_pct) &&
		    fabs(c->change_pct) > r->cmp->min_change_pct))
			hd_attr(tr, "class", !isnan(c->change_pct) && c->change_pct > 0 ? "improvement"
				: "regression");
		hd_el(tr, "td", rp_ep_label(e));
		hd_td_fmt(tr, "%.0f", c->base_mpd);
		hd_td_fmt(tr, "%.0f", c->cur_mpd);
		hd_td_fmt(tr, "%+.1f %%", c->change_pct);
		snprintf(b, sizeof(b), "%d", c->base_rank);
		hd_td_num(tr, c->base < 0 ? "new" : c->base_rank ? b : "unranked",
			  c->base_rank ? c->base_rank : NAN);
		snprintf(b, sizeof(b), "%d", c->cur_rank);
		hd_td_num(tr, c->cur_rank ? b : "unranked", c->cur_rank ? c->cur_rank : NAN);
		const struct rp_cmp_row *w = c->cmp_row >= 0 ? &r->cmp->rows[c->cmp_row] : NULL;
		if (!c->same_case) {
			hd_el(tr, "td", c->base < 0 ? "–" : "a different case than the baseline's");
		} else if (w && w->verdict != RP_UNTESTABLE && w->verdict != RP_NEW) {
			snprintf(b, sizeof(b), "%s, p = %.3g", rp_verdict_name(w->verdict), w->test.p);
			hd_el(tr, "td", b);
		} else {
			hd_el(tr, "td", "untestable");
		}
	}
}

void rp_html_news(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	xmlNodePtr s = hd_open(main, sec);
	if (r->cmp && r->news->n_changed)
		changes_table(r, s);
	if (r->cmp && r->news->n_cost) {
		hd_el(s, "h3", "Per dollar, then and now");
		cost_table(r, s);
	}
	hd_close(s, sec);
}
