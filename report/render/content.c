/* content: see content.h. Every sentence here is said by every writer. */
#include "report/render/content.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cli.h"
#include "lib/cost.h"
#include "report/analyze/plan.h"
#include "report/load/lab_runs.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/render/content_placement.h"

struct cb {
	struct rp_content *c;
	struct rp_section *s;   /* the section being written */
	int oom;
};

static struct rp_section *sec(struct cb *b, enum rp_sec_kind kind, const char *id,
			      const char *title)
{
	b->s = &b->c->secs[b->c->n++];
	*b->s = (struct rp_section){.kind = kind, .id = id, .title = title};
	return b->s;
}

static char *vfmt(struct cb *b, const char *fmt, va_list ap)
{
	char *t = NULL;
	if (vasprintf(&t, fmt, ap) < 0) {
		b->oom = 1;
		return NULL;
	}
	return t;
}

/* A sentence of the current section. */
static struct rp_para *para(struct cb *b, enum rp_para_style style, const char *id, int after,
			    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static struct rp_para *para(struct cb *b, enum rp_para_style style, const char *id, int after,
			    const char *fmt, ...)
{
	struct rp_section *s = b->s;
	struct rp_para *np = realloc(s->paras, (s->n_paras + 1) * sizeof(*np));
	if (!np) {
		b->oom = 1;
		return NULL;
	}
	s->paras = np;
	va_list ap;
	va_start(ap, fmt);
	char *t = vfmt(b, fmt, ap);
	va_end(ap);
	if (!t)
		return NULL;
	np[s->n_paras] = (struct rp_para){.style = style, .id = id, .after = after, .text = t};
	return &np[s->n_paras++];
}

static void fact(struct cb *b, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fact(struct cb *b, const char *key, const char *fmt, ...)
{
	struct rp_section *s = b->s;
	struct rp_kv *nf = realloc(s->facts, (s->n_facts + 1) * sizeof(*nf));
	if (!nf) {
		b->oom = 1;
		return;
	}
	s->facts = nf;
	va_list ap;
	va_start(ap, fmt);
	char *t = vfmt(b, fmt, ap);
	va_end(ap);
	if (t)
		nf[s->n_facts++] = (struct rp_kv){.key = key, .value = t};
}

static void news(struct cb *b, const struct rp_report *r)
{
	sec(b, RP_SEC_NEWS, "news", "What changed");
	if (!r->cmp) {
		para(b, RP_PARA_NOTE, NULL, 0, "No baseline%s%s%s: run netsweep report with "
		     "--baseline previous (or a run id or label) to see what changed since an "
		     "earlier run.", r->baseline_note ? " (" : "",
		     r->baseline_note ? r->baseline_note : "", r->baseline_note ? ")" : "");
		return;
	}
	const struct rp_cmp *cmp = r->cmp;
	para(b, cmp->n_regressions ? RP_PARA_WARN : RP_PARA_NOTE, NULL, 0, "Against run %lld "
	     "(%s): %zu regression%s and %zu improvement%s (Welch's t-test on the per-repeat "
	     "goodput, p < %g, and a median change above %g %%); %zu per-dollar rank%s moved.",
	     r->base->run.id, r->base->run.label ? r->base->run.label : r->base->run.started_at ?
	     r->base->run.started_at : "?", cmp->n_regressions, NS_PLURAL(cmp->n_regressions),
	     cmp->n_improvements, NS_PLURAL(cmp->n_improvements), cmp->alpha, cmp->min_change_pct,
	     r->news->n_rank_moves, NS_PLURAL(r->news->n_rank_moves));
	struct rp_para *p = para(b, RP_PARA_NOTE, NULL, 1, "Every case's comparison is in ");
	if (p) {
		p->link_text = "Comparison with the baseline";
		p->link_href = "#comparison";
	}
}

/* A run of group cases leads with what it varies: how the clients shared the path. */
static void group(struct cb *b, const struct rp_report *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->d->n_cases; i++)
		n += r->d->cases[i].clients > 0;
	if (!n)
		return;
	sec(b, RP_SEC_GROUP, "clients", "Clients and fairness");
	para(b, RP_PARA_NOTE, NULL, 0, "Each group case's clients ran together, started on one "
	     "clock, as one case: its figure is their total. Jain's index over the clients' rates "
	     "is 1 when they shared equally and 1/n when one of n took everything; the slowest "
	     "client's share is its rate over the total, and over its fair share (total / "
	     "clients). Per client: the mean over the case's successful repeats, by the matrix's "
	     "member names.");
}

/* "a price", or "a US-dollar price" when a pair is priced in another currency: what the
 * run's cost, in dollars, leaves out ("results of pairs without ..."). */
static const char *price_word(const struct rp_data *d)
{
	for (size_t i = 0; i < d->n_eps; i++)
		if (!isnan(d->eps[i].usd_per_hour) && !rp_ep_usd(&d->eps[i]))
			return "a US-dollar price";
	return "a price";
}

static void run_cost_sentence(struct cb *b, const struct rp_data *d)
{
	if (!isnan(d->run_cost_usd) && d->results_without_price)
		para(b, RP_PARA_TEXT, NULL, 1, "This run cost at least $%.4f of instance time "
		     "(measured and warm-up time of every successful case at its pair's price); "
		     "%lld successful result%s of pairs without %s %s not counted.",
		     d->run_cost_usd, d->results_without_price,
		     d->results_without_price == 1 ? "" : "s", price_word(d),
		     d->results_without_price == 1 ? "is" : "are");
	else if (!isnan(d->run_cost_usd))
		para(b, RP_PARA_TEXT, NULL, 1, "This run cost about $%.4f of instance time "
		     "(measured and warm-up time of every successful case at its pair's price).",
		     d->run_cost_usd);
	else
		para(b, RP_PARA_TEXT, NULL, 1, "The run's cost is unknown: no price was recorded.");
	/* the pairs of each other currency, in it: never added to the dollars */
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		int first = !rp_ep_usd(e) && !isnan(e->usd_per_hour);
		for (size_t k = 0; k < i && first; k++)
			first = isnan(d->eps[k].usd_per_hour) || !rp_money_same(d->eps[k].currency,
										  e->currency);
		if (!first)
			continue;
		double sum = 0;
		for (size_t k = i; k < d->n_eps; k++)
			if (!isnan(d->eps[k].usd_per_hour) && rp_money_same(d->eps[k].currency,
									     e->currency))
				sum += cost_run_usd(d->eps[k].usd_per_hour, d->eps[k].measured_s);
		char money[64];
		rp_fmt_money(money, sizeof(money), sum >= 0.001 ? "%.4f" : "%.6f", sum, e->currency);
		para(b, RP_PARA_TEXT, NULL, 1, "The pairs priced in %s cost %s of instance time, "
		     "in their own currency.", rp_money_code(e->currency), money);
	}
}

/* With a stated monthly volume (the matrix's monthly-transfer, report --monthly-transfer):
 * netsweep plan's answer for moving it (report/analyze/plan.h). */
static void plan_sentence(struct cb *b, const struct rp_report *r)
{
	const struct rp_data *d = r->d;
	if (!(d->monthly_gb > 0))
		return;
	struct rp_plan_need need = {
		.bps = d->monthly_gb * 8e9 / (COST_HOURS_PER_MONTH * 3600.0),
		.monthly_gb = d->monthly_gb,
	};
	struct rp_plan_option *o = NULL;
	size_t n = 0;
	char s[1024];
	if (rp_plan_build(d, r->cost, r->n_cost, &need, &o, &n, NULL) == 0 &&
	    rp_plan_sentence(d, r->cost, &need, o, n, s, sizeof(s)))
		para(b, RP_PARA_LEAD, "plan", 0, "%s (netsweep plan: pairs scaled out on their "
		     "measured rates, a 730-hour month, the transfer at its relation's rule.)", s);
	free(o);
}

static void cost(struct cb *b, const struct rp_report *r)
{
	sec(b, RP_SEC_COST, "cost", "Best per dollar");
	if (r->rank_rule && strcmp(r->rank_rule, RP_RANK_BEST_RULE) != 0)
		para(b, RP_PARA_LEAD, "rank-rule", 0, "Ranked on: %s — each pair's highest-median "
		     "case among those matching it.", r->rank_rule);
	else
		para(b, RP_PARA_LEAD, "rank-rule", 0, "Ranked on: best — each pair's highest-median "
		     "case.");
	para(b, RP_PARA_NOTE, NULL, 0, "Per endpoint pair: the ranked case's median receiver "
	     "goodput per hourly %s of the pair (both instances) or of the sender alone, as "
	     "the matrix declared (price basis). Prices are the ones recorded with the run. "
	     "ranking.csv, report.json and the database's v_cost_ranking view follow the same "
	     "rule (the matrix's rank-by attribute, or report --rank-by).",
	     r->pricing && r->pricing->per_currency ? "price, in its own currency," : "dollar");
	if (r->pricing)
		para(b, RP_PARA_LEAD, "pricing-note", 0, "%s", r->pricing->note);
	char dis[1024];
	if (rp_cost_disagree(r->d, r->cost, r->n_cost, dis, sizeof(dis)))
		para(b, RP_PARA_LEAD, "transfer-disagree", 0, "%s", dis);
	for (size_t i = 0; i < r->n_cost; i++)
		if (!isnan(r->cost[i].transfer_per_hour)) {
			if (r->d->monthly_gb > 0)
				para(b, RP_PARA_NOTE, "transfer-volume", 0, "Transfer tiers read at "
				     "%.6g GB a month (%s).", r->d->monthly_gb, r->d->monthly_from);
			else
				para(b, RP_PARA_NOTE, "transfer-volume", 0, "Transfer tiers read at "
				     "each pair's ranked rate for a 730-hour month (report "
				     "--monthly-transfer or the matrix's monthly-transfer states "
				     "another volume). Same-zone traffic without a rule is free; the "
				     "database's v_cost_total view has every result's figures.");
			break;
		}
	plan_sentence(b, r);
	run_cost_sentence(b, r->d);
}

static void findings(struct cb *b, const struct rp_report *r)
{
	sec(b, RP_SEC_FINDINGS, "findings", "Findings");
	if (!r->findings->n)
		para(b, RP_PARA_NOTE, NULL, 0, "Nothing stood out: no saturation, loss or regression "
		     "found.");
}

static void ab(struct cb *b, const struct rp_report *r)
{
	sec(b, RP_SEC_AB, "ab", "A/B between pairs");
	para(b, RP_PARA_NOTE, NULL, 0, "Pairs of this run that differ in exactly one attribute "
	     "(driver: the matrix's expected driver, else the one the agent reported; instance "
	     "type; region), side by side on each case they both ran with the same parameters. "
	     "A is the faster. Difference: of mean goodput, in %% of B's, with its %.0f %% "
	     "confidence interval (Welch) and Welch's two-sided p.", (1 - r->ab->alpha) * 100);
}

static void history(struct cb *b, const struct rp_report *r)
{
	const struct rp_history *h = r->history;
	sec(b, RP_SEC_HISTORY, "history", "History");
	para(b, RP_PARA_NOTE, NULL, 0, "Each case's median receiver goodput over the last %zu "
	     "run%s of this matrix. Step changes (▼ ▲, where the new level starts) are found by "
	     "binary segmentation of each case's run medians: the split that maximises Welch's t "
	     "between the runs before and after it is kept when p < %g and the means differ by "
	     "more than %g %% (at least %d runs each side), and each side is searched again. "
	     "%zu step%s found.", h->t.n_runs, NS_PLURAL(h->t.n_runs), h->alpha,
	     h->min_change_pct, RP_CP_MIN_SIDE, h->n_steps, NS_PLURAL(h->n_steps));
}

static void charts(struct cb *b, const struct rp_report *r)
{
	sec(b, RP_SEC_CHARTS, "charts", "Charts");
	if (r->gnuplot_note)
		para(b, RP_PARA_WARN, "charts-skipped", 0, "Charts were skipped: %s. Their gnuplot "
		     "scripts (.gp) and data (.dat) are written next to this report; install gnuplot "
		     "(" RP_INSTALL_GNUPLOT ") and run netsweep report again, or run gnuplot NAME.gp "
		     "in that folder.", r->gnuplot_note);
}

static void comparison(struct cb *b, const struct rp_report *r)
{
	const struct rp_cmp *cmp = r->cmp;
	sec(b, RP_SEC_COMPARISON, "comparison", "Comparison with the baseline");
	para(b, RP_PARA_TEXT, NULL, 0, "Baseline: run %lld (%s). Test: Welch's two-sided t-test "
	     "on the per-repeat receiver goodput; a case is a regression (or improvement) when "
	     "p < %g and its median moved by more than %g %%. Cases with fewer than 2 successful "
	     "repeats on either side cannot be tested.", r->base->run.id,
	     r->base->run.started_at ? r->base->run.started_at : "?", cmp->alpha,
	     cmp->min_change_pct);
	para(b, RP_PARA_NOTE, NULL, 0, "%s", RP_GATE_RULE);
	para(b, cmp->n_regressions ? RP_PARA_WARN : RP_PARA_NOTE, NULL, 0, "%zu regression%s, %zu "
	     "improvement%s, %zu untestable, %zu new case%s, %zu baseline case%s not in this run.",
	     cmp->n_regressions, NS_PLURAL(cmp->n_regressions), cmp->n_improvements,
	     NS_PLURAL(cmp->n_improvements), cmp->n_untestable, cmp->n_new, NS_PLURAL(cmp->n_new),
	     cmp->n_gone, NS_PLURAL(cmp->n_gone));
}

/* A declared value the host contradicts, said after the environment table. */
static void mismatch(struct cb *b, const struct rp_endpoint *e, const char *side,
		     const char *what, const char *declared, const char *detected)
{
	struct rp_para *p = para(b, RP_PARA_WARN, NULL, 1, "%s (%s): the matrix declared %s %s, "
				 "but the host reports %s.", e->name, side, what, declared, detected);
	if (p)
		p->cls = "mismatch-note";
}

static void environment(struct cb *b, const struct rp_report *r)
{
	const struct rp_data *d = r->d;
	sec(b, RP_SEC_ENVIRONMENT, "environment", "Environment");
	para(b, RP_PARA_NOTE, NULL, 0, "Declared: what the matrix said about each endpoint pair. "
	     "Detected: what each host reported about itself (netsweep hostinfo; a cloud instance "
	     "type and region only where the host could read its metadata). A detected value "
	     "that contradicts the declared one is marked ≠. Client = where the test's client "
	     "side ran, agent = the far end.");
	for (size_t i = 0; i < d->n_eps; i++) {
		const struct rp_endpoint *e = &d->eps[i];
		for (int side = 0; side < 2; side++) {
			const struct rp_host *h = side ? &e->agent : &e->client;
			const char *sname = side ? "agent" : "client";
			if (e->instance_type && h->cloud_instance_type &&
			    strcmp(e->instance_type, h->cloud_instance_type))
				mismatch(b, e, sname, "instance type", e->instance_type,
					 h->cloud_instance_type);
			if (e->region && h->cloud_region && strcmp(e->region, h->cloud_region))
				mismatch(b, e, sname, "region", e->region, h->cloud_region);
			/* the expected driver is about the agent's NIC (the runner checks it there) */
			if (side && e->expected_driver && h->driver &&
			    !rp_host_driver_matches(e->expected_driver, h)) {
				char t[256];
				rp_host_driver_text(h, t, sizeof(t));
				mismatch(b, e, sname, "driver", e->expected_driver, t);
			}
		}
	}
}

static void method(struct cb *b, const struct rp_report *r)
{
	const struct rp_data *d = r->d;
	sec(b, RP_SEC_METHOD, "method", "Method");
	char seed[48] = "";
	if (d->run.has_seed)
		snprintf(seed, sizeof(seed), " (seed %lld)", d->run.seed);
	para(b, RP_PARA_TEXT, NULL, 0, "Matrix %s%s%s, run by netsweep %s; cases in %s order%s, "
	     "%lld repeat%s of each case. Throughput is the receiver's goodput; tables give the "
	     "median over repeats with the minimum–maximum and interquartile range. CPU is the "
	     "process's user+system time as %% of one core; a side counts as saturated above 90 %% "
	     "of one core per thread. Streams stop scaling when more streams add less than 10 %%. "
	     "UDP loss counts as the receiver's socket buffer when kernel drops (RcvbufErrors + "
	     "InErrors) are at least 80 %% of the lost datagrams.",
	     d->run.matrix_name ? d->run.matrix_name : "?", d->run.matrix_path ? " from " : "",
	     d->run.matrix_path ? d->run.matrix_path : "", d->run.netsweep_version,
	     d->run.order_mode ? d->run.order_mode : "as-written", seed, d->run.repeats,
	     d->run.repeats == 1 ? "" : "s");
}

static void run_facts(struct cb *b, const struct rp_report *r)
{
	const struct rp_data *d = r->d;
	size_t ok = 0, results = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		ok += (size_t)d->cases[i].n_ok;
		results += (size_t)d->cases[i].n_results;
	}
	sec(b, RP_SEC_RUN, "summary", "Run");
	fact(b, "Run", "%lld", d->run.id);
	fact(b, "Matrix", "%s", d->run.matrix_name ? d->run.matrix_name : "");
	if (d->run.matrix_description)
		fact(b, "Description", "%s", d->run.matrix_description);
	if (d->run.label)
		fact(b, "Label", "%s", d->run.label);
	fact(b, "Started", "%s", d->run.started_at ? d->run.started_at : "");
	fact(b, "Finished", "%s", d->run.finished_at ? d->run.finished_at : "not finished");
	fact(b, "Status", "%s", d->run.status ? d->run.status : "");
	fact(b, "Size", "%zu case%s, %zu endpoint pair%s, %zu of %zu result%s ok", d->n_cases,
	     NS_PLURAL(d->n_cases), d->n_eps, NS_PLURAL(d->n_eps), ok, results, NS_PLURAL(results));
	if (!isnan(d->run_cost_usd) && d->results_without_price)
		fact(b, "Run cost", "at least $%.4f (%lld successful result%s of pairs without %s "
		     "not counted)", d->run_cost_usd, d->results_without_price,
		     d->results_without_price == 1 ? "" : "s", price_word(d));
	else if (!isnan(d->run_cost_usd))
		fact(b, "Run cost", "$%.4f", d->run_cost_usd);
	else
		fact(b, "Run cost", "%s", strcmp(price_word(d), "a price")
		     ? "unknown in US dollars: the pairs are priced in another currency (report "
		       "--fx converts)" : "unknown: no price for the run's instance types");
	if (!isnan(d->run_billed_usd))
		fact(b, "Billed cost", "$%.4f for %.0f s of instance time (setup to teardown, or the "
		     "run's wall time without hooks); the run cost above counts measured time only",
		     d->run_billed_usd, d->run_billed_s);
	if (r->price_note)
		fact(b, "Prices", "%s", r->price_note);
	if (r->base)
		fact(b, "Baseline", "run %lld (%s)", r->base->run.id,
		     r->base->run.started_at ? r->base->run.started_at : "?");
	else if (r->baseline_note)
		fact(b, "Baseline", "%s", r->baseline_note);
	if (d->run.warnings && strcmp(d->run.warnings, "[]") != 0)
		fact(b, "Run warnings", "%s", d->run.warnings);
}

int rp_content_build(const struct rp_report *r, struct rp_content *c, struct ns_err *err)
{
	*c = (struct rp_content){0};
	struct cb b = {.c = c};
	struct rp_buf lead;
	rp_buf_init(&lead);
	rp_lab_headline(r->d, r->base, &lead);
	rp_headline(r->d, r->cost, r->n_cost, r->cmp, r->base, r->news, &lead);
	c->headline = lead.oom ? NULL : strdup(rp_buf_str(&lead));
	rp_buf_free(&lead);
	if (asprintf(&c->generated, "Generated by netsweep report at %s from run %lld.",
		     r->generated_at, r->d->run.id) < 0)
		c->generated = NULL;
	/* News first, then the best per dollar, then the rest by how often readers need it. */
	news(&b, r);
	group(&b, r);
	cost(&b, r);
	findings(&b, r);
	if (r->latency && r->latency->n) {
		sec(&b, RP_SEC_LATENCY, "latency", "Latency (request/response)");
		para(&b, RP_PARA_NOTE, NULL, 0, "%s", rp_latency_method);
	}
	if (r->loadlat && r->loadlat->n) {
		sec(&b, RP_SEC_LOADLAT, "latency-under-load", "Latency under load");
		para(&b, RP_PARA_NOTE, NULL, 0, "%s", rp_loadlat_method);
	}
	if (r->placement && rp_placement_any(r->placement)) {
		sec(&b, RP_SEC_PLACEMENT, "placement", "Placement and steadiness");
		if (rp_content_placement(r->placement, r->d->unit, b.s) < 0)
			b.oom = 1;
	}
	if (r->ab && r->ab->n_goodput)
		ab(&b, r);
	charts(&b, r);
	if (r->history && r->history->t.n_runs >= 2)
		history(&b, r);
	if (r->search && r->search->n) {
		sec(&b, RP_SEC_SEARCH, "search", "Zero-loss rate search");
		para(&b, RP_PARA_TEXT, NULL, 0, "The highest offered UDP packet rate whose trials met "
		     "each loss goal (NDR: no loss, RFC 2544 throughput; PDR: loss under the ratio), "
		     "found by a search after RFC 9971: short trials bracket and bisect, trials of the "
		     "final duration confirm. \"Unpaced\" is what arrived when the sender ran flat "
		     "out, for comparison; the wire rate is that of the declared link.");
	}
	if (r->cmp)
		comparison(&b, r);
	sec(&b, RP_SEC_RESULTS, "results", "Results");
	para(&b, RP_PARA_NOTE, NULL, 1, "Every repeat's figures are in results.csv; columns "
	     "without any value in this run are left out.");
	environment(&b, r);
	method(&b, r);
	run_facts(&b, r);
	for (size_t i = 0; i < c->n; i++)
		if ((c->secs[i].kind == RP_SEC_GROUP ? rp_content_group_tables(r, &c->secs[i])
						     : rp_content_tables(r, &c->secs[i])) < 0)
			b.oom = 1;
	if (b.oom || !c->headline || !c->generated) {
		rp_content_free(c);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	return 0;
}

void rp_content_free(struct rp_content *c)
{
	for (size_t i = 0; i < c->n; i++) {
		struct rp_section *s = &c->secs[i];
		for (size_t k = 0; k < s->n_paras; k++)
			free(s->paras[k].text);
		for (size_t k = 0; k < s->n_facts; k++)
			free(s->facts[k].value);
		free(s->paras);
		free(s->facts);
		rp_content_tables_free(s);
	}
	free(c->headline);
	free(c->generated);
	*c = (struct rp_content){0};
}
