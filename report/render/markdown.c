/* markdown: see markdown.h. */
#include "report/render/markdown.h"

#include "report/analyze/advertised.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/atomicfile.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/load/limits.h"
#include "lib/cli.h"
#include "report/render/md_sections.h"

static void esc(struct rp_buf *b, const char *s)
{
	rp_md_escape(b, s ? s : "–");
}

static void num(struct rp_buf *b, const char *fmt, double v)
{
	if (isnan(v))
		rp_buf_puts(b, "–");
	else
		rp_buf_printf(b, fmt, v);
}


/* GitHub's anchor for a heading: lower case, spaces to '-', other punctuation dropped. */
static void slug(struct rp_buf *b, const char *title)
{
	for (const unsigned char *p = (const unsigned char *)title; *p; p++) {
		if (*p == ' ')
			rp_buf_add(b, "-", 1);
		else if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-')
			rp_buf_add(b, (const char *)p, 1);
		else if (*p >= 'A' && *p <= 'Z')
			rp_buf_printf(b, "%c", *p - 'A' + 'a');
	}
}

static void paras(const struct rp_section *sec, int after, struct rp_buf *b)
{
	for (size_t i = 0; i < sec->n_paras; i++) {
		const struct rp_para *p = &sec->paras[i];
		if (p->after != after)
			continue;
		if (p->style == RP_PARA_WARN)
			rp_buf_puts(b, "> ");
		rp_md_escape(b, p->text);
		if (p->link_text) {
			rp_buf_puts(b, "[");
			rp_md_escape(b, p->link_text);
			rp_buf_puts(b, "](#");
			slug(b, p->link_text);
			rp_buf_puts(b, ").");
		}
		rp_buf_puts(b, "\n\n");
	}
}

/* A section of the content model: its heading and the sentences before its tables; md_close
 * adds the sentences after them. */
static void md_open(const struct rp_section *sec, struct rp_buf *b)
{
	rp_buf_puts(b, "## ");
	rp_md_escape(b, sec->title);
	rp_buf_puts(b, "\n\n");
	paras(sec, 0, b);
}

static void md_close(const struct rp_section *sec, struct rp_buf *b)
{
	if (b->len && b->s[b->len - 1] == '\n' && !(b->len > 1 && b->s[b->len - 2] == '\n'))
		rp_buf_puts(b, "\n");
	paras(sec, 1, b);
}

/* What changed, as html_news.c shows it: the significant changes by importance, then each
 * pair's per-dollar figure and rank then and now. */
static void news(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_news *n = r->news;
	if (!r->cmp || !n)
		return;
	struct rp_buf t;
	rp_buf_init(&t);
	if (n->n_changed)
		rp_buf_puts(b, "| Case | Baseline | Now | Change | p (Welch) | Verdict |\n"
			    "|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < n->n_changed; k++) {
		const struct rp_cmp_row *w = &r->cmp->rows[n->changed[k]];
		rp_buf_reset(&t);
		rp_case_label(r->d, &r->d->cases[w->cur], &t);
		rp_buf_puts(b, "| ");
		esc(b, rp_buf_str(&t));
		rp_buf_puts(b, " | ");
		rp_md_bps(b, w->base_med, r->d->unit);
		rp_buf_puts(b, " | ");
		rp_md_bps(b, w->cur_med, r->d->unit);
		rp_buf_printf(b, " | %+.1f %% | %.3g | **%s** |\n", w->change_pct, w->test.p,
			      rp_verdict_name(w->verdict));
	}
	if (n->n_changed)
		rp_buf_puts(b, "\n");
	if (!n->n_cost)
		return;
	rp_buf_puts(b, "### Per dollar, then and now\n\n| Pair | Baseline Mbit/s per $/hour | Now | "
		    "Change | Rank then | Rank now |\n|---|---|---|---|---|---|\n");
	for (size_t k = 0; k < n->n_cost; k++) {
		const struct rp_cost_change *c = &n->cost[k];
		rp_buf_puts(b, "| ");
		esc(b, rp_ep_label(&r->d->eps[r->cost[c->cur].ep]));
		rp_buf_puts(b, " | ");
		num(b, "%.0f", c->base_mpd);
		rp_buf_puts(b, " | ");
		num(b, "%.0f", c->cur_mpd);
		rp_buf_puts(b, " | ");
		num(b, "%+.1f %%", c->change_pct);
		rp_buf_printf(b, " | %d | %d |\n", c->base_rank, c->cur_rank);
	}
	rp_buf_puts(b, "\n");
	rp_buf_free(&t);
}

static void run_facts(const struct rp_section *sec, struct rp_buf *b)
{
	rp_buf_puts(b, "| | |\n|---|---|\n");
	for (size_t i = 0; i < sec->n_facts; i++) {
		rp_buf_puts(b, "| ");
		esc(b, sec->facts[i].key);
		rp_buf_puts(b, " | ");
		esc(b, sec->facts[i].value);
		rp_buf_puts(b, " |\n");
	}
}

static void findings(const struct rp_report *r, struct rp_buf *b)
{
	for (size_t i = 0; i < r->findings->n; i++) {
		rp_buf_puts(b, "- ");
		esc(b, r->findings->items[i].text);
		rp_buf_puts(b, "\n");
	}
}

/* A declared/detected pair of cells, ≠ after a detected value that contradicts it. */
static void pair_cells(struct rp_buf *b, const char *declared, const char *detected,
		       const char *unknown, int differs)
{
	rp_buf_puts(b, " | ");
	esc(b, declared);
	rp_buf_puts(b, " | ");
	esc(b, detected ? detected : unknown);
	if (declared && detected && differs)
		rp_buf_puts(b, " ≠");
}

/* index.html's environment table, row for row (html_env.c). */
static void environment(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_data *d = r->d;
	rp_buf_puts(b, "| Endpoint | Side | Instance type declared | detected | Region declared | "
		    "detected | Driver expected | detected | Host | Kernel | CPU | MTU | qdisc |\n"
		    "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	char t[256];
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		for (int side = 0; side < 2; side++) {
			const struct rp_host *h = side ? &e->agent : &e->client;
			rp_buf_puts(b, "| ");
			esc(b, e->name);
			rp_buf_puts(b, side ? " | agent" : " | client");
			pair_cells(b, e->instance_type, h->cloud_instance_type, "not reported",
				   e->instance_type && h->cloud_instance_type &&
				   strcmp(e->instance_type, h->cloud_instance_type));
			pair_cells(b, e->region, h->cloud_region, "not reported",
				   e->region && h->cloud_region && strcmp(e->region, h->cloud_region));
			rp_host_driver_text(h, t, sizeof(t));
			const char *exp = side ? e->expected_driver : NULL;
			pair_cells(b, exp, h->driver ? t : NULL, t,
				   exp && !rp_host_driver_matches(exp, h));
			rp_buf_puts(b, " | ");
			esc(b, side ? (e->agent_addr ? e->agent_addr : "–")
			    : (h->hostname ? h->hostname : e->client_host ? e->client_host
			    : "runner host"));
			rp_buf_puts(b, " | ");
			esc(b, h->kernel);
			rp_buf_puts(b, " | ");
			esc(b, h->cpu_model);
			if (h->online_cpus)
				rp_buf_printf(b, " (%lld CPUs)", h->online_cpus);
			if (h->mtu)
				rp_buf_printf(b, " | %lld | ", h->mtu);
			else
				rp_buf_puts(b, " | – | ");
			esc(b, h->qdisc);
			rp_buf_puts(b, " |\n");
		}
	}
}

static void method(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_data *d = r->d;
	/* The matrix as run, in a fence longer than any backtick run inside it. */
	size_t run = 0, longest = 0;
	for (const char *p = d->run.matrix_text ? d->run.matrix_text : ""; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	char fence[64];
	size_t nf = longest < 3 ? 3 : longest + 1;
	if (nf < sizeof(fence)) {
		memset(fence, '`', nf);
		fence[nf] = '\0';
		rp_buf_printf(b, "The matrix file as run:\n\n%sxml\n", fence);
		rp_buf_puts(b, d->run.matrix_text);
		if (b->len && b->s[b->len - 1] != '\n')
			rp_buf_puts(b, "\n");
		rp_buf_printf(b, "%s\n\n", fence);
	} else {
		/* No fence could hold it safely; index.html shows it. */
		rp_buf_puts(b, "The matrix file is shown in index.html.\n\n");
	}
	rp_buf_puts(b, "### Equivalent probe commands\n\n" RP_PROBE_NOTE "\n\n"
		    "| # | Case | Command |\n|---|---|---|\n");
	struct rp_buf t;
	rp_buf_init(&t);
	for (size_t i = 0; i < d->n_cases; i++) {
		rp_buf_printf(b, "| %d | ", d->cases[i].ordinal);
		rp_buf_reset(&t);
		rp_case_label(d, &d->cases[i], &t);
		esc(b, rp_buf_str(&t));
		rp_buf_puts(b, " | ");
		rp_buf_reset(&t);
		rp_case_probe_cmd(d, &d->cases[i], &t);
		esc(b, rp_buf_str(&t));
		rp_buf_puts(b, " |\n");
	}
	rp_buf_free(&t);
}

/* The results table with index.html's columns (content.h's rp_fig_cols). */
static void results(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_data *d = r->d;
	int used[RP_N_FIG_COLS];
	int adv = rp_results_cols(d, used);
	rp_buf_puts(b, "| # | Case | Repeats ok | Receiver (median) | Min–max | IQR |");
	size_t nc = 6;
	for (size_t k = 0; k < RP_N_FIG_COLS; k++)
		if (used[k]) {
			rp_buf_printf(b, " %s |", rp_fig_cols[k].name);
			nc++;
		}
	rp_buf_puts(b, adv ? " Of advertised |\n|" : "\n|");
	for (size_t k = 0; k < nc + (adv != 0); k++)
		rp_buf_puts(b, "---|");
	rp_buf_puts(b, "\n");
	struct rp_buf t;
	rp_buf_init(&t);
	char x[96];
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c = &d->cases[i];
		const struct rp_stat *g = &c->fig[RP_RCV_BPS];
		rp_buf_reset(&t);
		rp_case_label(d, c, &t);
		if (c->first_error) {
			rp_buf_puts(&t, " — ");
			rp_buf_puts(&t, c->first_error);
		}
		if (c->n_sender_limited) {
			rp_buf_puts(&t, " — ");
			rp_limits_note(c, &t);
		}
		rp_buf_printf(b, "| %d | ", c->ordinal);
		esc(b, rp_buf_str(&t));
		rp_buf_printf(b, " | %d / %d | ", c->n_ok, c->n_results);
		rp_md_bps(b, g->med, d->unit);
		rp_fmt_range(x, sizeof(x), g->min, g->max, d->unit);
		rp_buf_printf(b, " | %s | ", x);
		rp_fmt_range(x, sizeof(x), g->q1, g->q3, d->unit);
		rp_buf_puts(b, x);
		for (size_t k = 0; k < RP_N_FIG_COLS; k++) {
			double v = c->fig[rp_fig_cols[k].fig].med;
			if (!used[k])
				continue;
			rp_buf_puts(b, " | ");
			if (!rp_fig_cols[k].fmt) {
				rp_md_bps(b, v, d->unit);
			} else if (!strcmp(rp_fig_cols[k].fmt, "pps")) {
				rp_fmt_pps(x, sizeof(x), v);
				rp_buf_puts(b, isnan(v) ? "–" : x);
			} else {
				num(b, rp_fig_cols[k].fmt, v);
			}
		}
		if (adv) {
			struct rp_adv a = rp_advertised_case(d, c);
			rp_buf_puts(b, " | ");
			rp_advertised_text(&a, b);
		}
		rp_buf_puts(b, " |\n");
	}
	rp_buf_free(&t);
}

static void cost(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_data *d = r->d;
	const struct rp_pricing *pr = r->pricing;
	int spot = pr && pr->have_spot;
	/* index.html's columns, in its order */
	rp_buf_puts(b, "| Rank | Instance type | Region | Price basis | $/hour | Mbit/s | "
		    "Mbit/s per $/hour | $ per Gbit/s-hour | Ranked case | Price as of | Provider | "
		    "Currency | Pricing |");
	rp_buf_puts(b, spot ? " Mbit/s per on-demand hour | Mbit/s per spot hour |\n" : "\n");
	rp_buf_puts(b, spot ? "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
			    : "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	struct rp_buf lab;
	rp_buf_init(&lab);
	for (size_t i = 0; i < r->n_cost; i++) {
		const struct rp_cost_row *c = &r->cost[i];
		const struct rp_endpoint *e = &d->eps[c->ep];
		if (c->rank)
			rp_buf_printf(b, "| %d | ", c->rank);
		else
			rp_buf_puts(b, "| – | ");
		esc(b, rp_ep_label(e));
		rp_buf_puts(b, " | ");
		esc(b, e->region);
		rp_buf_puts(b, " | ");
		esc(b, e->price_basis);
		rp_buf_puts(b, " | ");
		if (isnan(c->usd_per_hour))
			rp_buf_puts(b, "missing");
		else
			rp_buf_printf(b, "%.4g", c->usd_per_hour);
		rp_buf_puts(b, " | ");
		num(b, "%.0f", c->mbps);
		if (c->sustained) /* shaped on credits: ranked on the rate after the burst */
			rp_buf_puts(b, " sustained");
		if (c->sender_limited) /* the sender's figure, not the pair's */
			rp_buf_puts(b, " (sender-limited)");
		rp_buf_puts(b, " | ");
		num(b, "%.0f", c->mbps_per_usd_hour);
		rp_buf_puts(b, " | ");
		num(b, "%.4g", c->usd_per_gbps_hour);
		rp_buf_puts(b, " | ");
		rp_buf_reset(&lab);
		if (c->best_case >= 0)
			rp_case_label(d, &d->cases[c->best_case], &lab);
		esc(b, c->best_case >= 0 ? rp_buf_str(&lab) : "no successful case");
		rp_buf_puts(b, " | ");
		esc(b, e->price_as_of ? e->price_as_of : "–");
		rp_buf_puts(b, " | ");
		esc(b, e->provider ? e->provider : "–");
		rp_buf_puts(b, " | ");
		esc(b, isnan(c->usd_per_hour) ? "–" : c->currency ? c->currency : "USD");
		rp_buf_puts(b, " | ");
		esc(b, e->pricing ? e->pricing : "on-demand");
		if (spot) {
			rp_buf_puts(b, " | ");
			num(b, "%.0f", c->od_mbps_per_hour);
			rp_buf_puts(b, " | ");
			num(b, "%.0f", c->spot_mbps_per_hour);
		}
		rp_buf_puts(b, " |\n");
	}
	rp_buf_free(&lab);
}

static void comparison(const struct rp_report *r, struct rp_buf *b)
{
	const struct rp_cmp *cmp = r->cmp;
	if (!cmp)
		return;
	rp_buf_puts(b, "| # | Case | Baseline | Now | Change | p (Welch) | Verdict |\n"
		    "|---|---|---|---|---|---|---|\n");
	struct rp_buf t;
	rp_buf_init(&t);
	for (size_t i = 0; i < cmp->n; i++) {
		const struct rp_cmp_row *w = &cmp->rows[i];
		const struct rp_case *c = &r->d->cases[w->cur];
		rp_buf_reset(&t);
		rp_case_label(r->d, c, &t);
		rp_buf_printf(b, "| %d | ", c->ordinal);
		esc(b, rp_buf_str(&t));
		rp_buf_puts(b, " | ");
		rp_md_bps(b, w->base_med, r->d->unit);
		rp_buf_puts(b, " | ");
		rp_md_bps(b, w->cur_med, r->d->unit);
		rp_buf_puts(b, " | ");
		num(b, "%+.1f %%", w->change_pct);
		rp_buf_puts(b, " | ");
		num(b, "%.3g", (w->verdict == RP_UNTESTABLE || w->verdict == RP_NEW) ? NAN : w->test.p);
		rp_buf_printf(b, w->verdict == RP_REGRESSION ? " | **%s** |\n" : " | %s |\n",
			      rp_verdict_name(w->verdict));
	}
	rp_buf_free(&t);
}

static void charts(const struct rp_report *r, struct rp_buf *b)
{
	for (size_t i = 0; i < r->charts->n; i++) {
		const struct rp_chart *c = &r->charts->items[i];
		rp_buf_printf(b, "### %s\n\n", c->title);
		if (c->status == RP_CHART_NODATA) {
			rp_buf_puts(b, "Not drawn: ");
			esc(b, c->reason);
			rp_buf_puts(b, ".\n\n");
			continue;
		}
		if (c->status == RP_CHART_OK)
			rp_buf_printf(b, "![%s](%s.svg)\n\n", c->title, c->name);
		else if (c->status == RP_CHART_FAILED) {
			rp_buf_puts(b, "Not rendered: ");
			esc(b, c->reason);
			rp_buf_puts(b, ".\n\n");
		}
		esc(b, c->caption);
		rp_buf_printf(b, " Data: [%s.dat](%s.dat), script: [%s.gp](%s.gp).\n\n", c->name,
			      c->name, c->name, c->name);
	}
}

static void section(const struct rp_report *r, const struct rp_section *sec, struct rp_buf *b)
{
	md_open(sec, b);
	switch (sec->kind) {
	case RP_SEC_NEWS: news(r, b); break;
	case RP_SEC_COST: cost(r, b); break;
	case RP_SEC_FINDINGS: findings(r, b); break;
	case RP_SEC_LATENCY: rp_latency_markdown(r->latency, b); break;
	case RP_SEC_LOADLAT: rp_loadlat_markdown(r->loadlat, b); break;
	case RP_SEC_AB: rp_md_ab(r, b); break;
	case RP_SEC_CHARTS: charts(r, b); break;
	case RP_SEC_HISTORY: rp_md_history(r, b); break;
	case RP_SEC_SEARCH: rp_search_markdown(r->search, b); break;
	case RP_SEC_COMPARISON: comparison(r, b); break;
	case RP_SEC_RESULTS: results(r, b); break;
	case RP_SEC_ENVIRONMENT: environment(r, b); break;
	case RP_SEC_METHOD: method(r, b); break;
	case RP_SEC_RUN: run_facts(sec, b); break;
	case RP_SEC_N: break;
	}
	md_close(sec, b);
}

int rp_markdown_write(const struct rp_report *r, const struct rp_content *c, const char *path,
		      struct ns_err *err)
{
	struct rp_buf b;
	rp_buf_init(&b);
	rp_buf_puts(&b, "# ");
	esc(&b, r->title);
	rp_buf_puts(&b, "\n\n");
	esc(&b, c->headline);
	rp_buf_puts(&b, "\n\n");
	esc(&b, c->generated);
	rp_buf_puts(&b, "\n\n");
	for (size_t i = 0; i < c->n; i++)
		section(r, &c->secs[i], &b);
	if (b.oom) {
		rp_buf_free(&b);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	int rc = atomicfile_write(path, rp_buf_str(&b), b.len, 0644, 0, err);
	rp_buf_free(&b);
	return rc;
}
