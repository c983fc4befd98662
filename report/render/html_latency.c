/* html_latency: the "Latency" section (see html_sections.h): each request/response case's
 * transactions/s and p50/p99/p99.9 (medians over repeats), its p99 against the baseline's by
 * the test the page states, and the cost of a million transactions where a price is known;
 * and the "Latency under load" section: a loaded case's goodput beside its latency probe. */
#include <math.h>
#include <stdio.h>

#include "report/render/hdoc.h"
#include "report/render/html_sections.h"
#include "report/analyze/latency.h"
#include "report/load/loadlat.h"

static void row(xmlNodePtr tb, const struct rp_lat_case *c)
{
	char b[96];
	xmlNodePtr tr = hd_el(tb, "tr", NULL);
	hd_attr(tr, "data-case-key", c->case_key);
	hd_el_class(tr, "td", "label", c->endpoint);
	snprintf(b, sizeof(b), "%s %lld/%lld B, %lld stream%s, %s", c->test, c->request,
		 c->response, c->streams, c->streams == 1 ? "" : "s",
		 c->rate > 0 ? "paced" : "back to back");
	hd_el(tr, "td", b);
	hd_td_fmt(tr, "%.0f", c->tps);
	hd_td_fmt(tr, "%.1f", c->p50_us);
	hd_td_fmt(tr, "%.1f", c->p99_us);
	hd_td_fmt(tr, "%.1f", c->p999_us);
	hd_td_fmt(tr, "%.0f", (double)c->lost);
	if (isfinite(c->change_pct)) {
		snprintf(b, sizeof(b), "%+.1f %%%s", c->change_pct,
			 c->regressed ? " regressed" : isfinite(c->p) ? "" : " (no test)");
		xmlNodePtr td = hd_td_num(tr, b, c->change_pct);
		if (c->regressed)
			hd_attr(td, "data-regressed", "1");
		if (isfinite(c->p)) {
			snprintf(b, sizeof(b), "Welch on log p99: p = %.3g", c->p);
			hd_attr(td, "title", b);
		}
	} else {
		hd_td_num(tr, "–", NAN);
	}
	hd_td_fmt(tr, "%.4g", c->usd_per_mtx);
	snprintf(b, sizeof(b), "%d", c->client_cpu);
	hd_el(tr, "td", c->client_cpu >= 0 ? b : "–");
	if (c->agent_cpu >= 0)
		snprintf(b, sizeof(b), "%d (%.0f %%)", c->agent_cpu, c->agent_cpu_pct);
	else
		snprintf(b, sizeof(b), "– (%.0f %%)", c->agent_cpu_pct);
	hd_el(tr, "td", b);
}

void rp_html_latency(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	const struct rp_latency *l = r->latency;
	xmlNodePtr s = hd_open(main, sec);
	static const char *const cols[] = {"Pair", "Case", "Transactions/s", "p50 µs", "p99 µs",
					   "p99.9 µs", "Lost", "p99 vs baseline", "$ per million",
					   "Client CPU", "Agent CPU (load)", NULL};
	xmlNodePtr t = hd_scroll_table(s, "latency-table", cols);
	xmlNodePtr tb = hd_el(t, "tbody", NULL);
	for (size_t i = 0; i < l->n; i++)
		row(tb, &l->cases[i]);
	if (!l->n_ab) {
		hd_close(s, sec);
		return;
	}
	hd_el(s, "h3", "A/B on latency");
	hd_el_class(s, "p", "note", RP_LAT_AB_NOTE);
	static const char *const abcols[] = {"A", "B", "Differ in", "p50 A / B µs",
					     "p99 A / B µs", "p99 A vs B", "p", NULL};
	xmlNodePtr at = hd_scroll_table(s, "latency-ab", abcols);
	xmlNodePtr atb = hd_el(at, "tbody", NULL);
	for (size_t i = 0; i < l->n_ab; i++) {
		const struct rp_lat_ab *a = &l->ab[i];
		char b[128];
		xmlNodePtr tr = hd_el(atb, "tr", NULL);
		hd_el(tr, "td", a->a ? a->a : "");
		hd_el(tr, "td", a->b ? a->b : "");
		snprintf(b, sizeof(b), "%s: %s / %s", a->attr, a->va ? a->va : "?", a->vb ? a->vb : "?");
		hd_el(tr, "td", b);
		snprintf(b, sizeof(b), "%.1f / %.1f", a->ca->p50_us, a->cb->p50_us);
		hd_el(tr, "td", b);
		snprintf(b, sizeof(b), "%.1f / %.1f", a->ca->p99_us, a->cb->p99_us);
		hd_el(tr, "td", b);
		hd_td_fmt(tr, "%+.1f %%", a->p99_diff_pct);
		hd_td_fmt(tr, "%.3g", a->p);
	}
	hd_close(s, sec);
}

/* "Latency under load": beside each loaded case's goodput, its latency probe idle and loaded
 * and the delay the load added (medians over repeats). */
void rp_html_loadlat(const struct rp_report *r, const struct rp_section *sec, xmlNodePtr main)
{
	const struct rp_loadlat *l = r->loadlat;
	xmlNodePtr s = hd_open(main, sec);
	static const char *const cols[] = {"Pair", "Case", "Mbit/s", "Idle p50 µs", "Idle p99 µs",
					   "Loaded p50 µs", "Loaded p99 µs", "Added p50 µs",
					   "Added p99 µs", NULL};
	static const char *const fmt[RP_LL_N] = {"%.1f", "%.1f", "%.1f", "%.1f", "%.1f", "%+.1f",
						 "%+.1f"};
	xmlNodePtr tb = hd_el(hd_scroll_table(s, "latency-under-load-table", cols), "tbody", NULL);
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_ll_case *c = &l->cases[i];
		xmlNodePtr tr = hd_el(tb, "tr", NULL);
		hd_attr(tr, "data-case-key", c->case_key);
		hd_el_class(tr, "td", "label", c->endpoint);
		hd_el(tr, "td", c->desc);
		for (int k = 0; k < RP_LL_N; k++)
			if (isfinite(c->v[k]))
				hd_td_fmt(tr, fmt[k], c->v[k]);
			else
				hd_td_num(tr, "–", NAN);
	}
	hd_close(s, sec);
}
