/* pipeline: see pipeline.h. */
#include "report/pipeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report/analyze/advertised.h"
#include "report/analyze/burst.h"
#include "report/charts/latency_chart.h"
#include "report/load/export_rows.h"
#include "report/load/itypes.h"
#include "report/load/lab_runs.h"
#include "report/load/price/reprice.h"
#include "report/load/rundb.h"
#include "report/render/csv.h"
#include "report/render/html.h"
#include "report/render/json_out.h"
#include "report/render/markdown.h"

void rp_report_cfg_init(struct rp_report_cfg *cfg)
{
	*cfg = (struct rp_report_cfg){.db = "netsweep.db", .run = "latest",
				      .outdir = "netsweep-report", .fail_pct = -1, .trend = -1,
				      .alpha = 0.05, .min_change = 5, .gnuplot_timeout = 20};
}

int rp_report_cfg_check(const struct rp_report_cfg *cfg, struct ns_err *err)
{
	if (cfg->fail_pct >= 0 && !cfg->baseline)
		return ns_err_code(err, NS_E_USAGE,
				   "--fail-on-regression needs --baseline RUN to compare with: an id, a "
				   "label, or previous (the night before)");
	if (!cfg->outdir || !*cfg->outdir)
		return ns_err_code(err, NS_E_USAGE, "-o needs a folder");
	return 0;
}

int rp_mkdir_p(const char *dir, struct ns_err *err)
{
	char path[4096];
	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return ns_err_code(err, NS_E_USAGE, "%.64s...: folder name too long", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		goto fail;
	struct stat st;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
fail:
	return ns_err_code(err, NS_E_IO, "%s: cannot create folder: %s", dir, strerror(errno));
}

/* The run and, with cfg->baseline, the baseline: loaded, priced, compared. */
static int load(const struct rp_report_cfg *cfg, struct rp_pipeline *p, struct ns_err *err)
{
	long long run_id = 0, base_id = 0;
	size_t n_repriced = 0;
	struct rp_pricing base_pricing = cfg->pricing; /* before the run's own rates join it */
	p->pricing = cfg->pricing;
	if (rp_db_open(cfg->db, &p->db, err) < 0 || rp_run_resolve(p->db, cfg->run, &run_id, err) < 0 ||
	    (cfg->baseline && rp_baseline_resolve(p->db, cfg->baseline, run_id, &base_id, err) < 0) ||
	    rp_data_load(p->db, run_id, &p->d, err) < 0 ||
	    rp_pricing_load(p->db, &p->d, &p->pricing, err) < 0 ||
	    rp_itypes_load(p->db, &p->d, err) < 0 ||
	    (cfg->catalog && rp_reprice(&p->d, cfg->catalog, &p->pricing, &n_repriced, err) < 0))
		return -1;
	rp_pricing_settle(&p->d, &p->pricing);
	if (rp_transfer_load(p->db, &p->d, &p->pricing, cfg->monthly_gb, err) < 0)
		return -1;
	if (cfg->catalog)
		snprintf(p->price_note, sizeof(p->price_note), "from --catalog %s for %zu of %zu "
			 "pair%s%s", cfg->catalog, n_repriced, p->d.n_eps, p->d.n_eps == 1 ? "" : "s",
			 n_repriced < p->d.n_eps ? ", the run's own for the rest" : "");
	if (cfg->baseline && base_id) {
		size_t n_base_priced;
		if (rp_data_load(p->db, base_id, &p->base, err) < 0 ||
		    rp_pricing_load(p->db, &p->base, &base_pricing, err) < 0 ||
		    rp_itypes_load(p->db, &p->base, err) < 0 ||
		    (cfg->catalog && rp_reprice(&p->base, cfg->catalog, &base_pricing,
						&n_base_priced, err) < 0))
			return -1;
		rp_pricing_settle(&p->base, &base_pricing);
		if (rp_transfer_load(p->db, &p->base, &base_pricing, cfg->monthly_gb, err) < 0)
			return -1;
		p->have_base = 1;
		if (rp_compare(&p->d, &p->base, cfg->alpha, cfg->min_change, &p->cmp, err) < 0)
			return -1;
		p->have_cmp = 1;
	} else if (cfg->baseline) {
		snprintf(p->baseline_note, sizeof(p->baseline_note),
			 "none: no earlier run of this matrix");
	}
	return 0;
}

/* The report's files, one writer each, in the order they are written: a new format is one
 * entry (and its adapter) here. */
struct rp_writer {
	const char *file;
	int (*write)(struct rp_pipeline *p, const struct rp_report *r, const char *path,
		     struct ns_err *err);
};

static int w_html(struct rp_pipeline *p, const struct rp_report *r, const char *path,
		  struct ns_err *err)
{
	return rp_html_write(r, &p->content, path, err);
}

static int w_markdown(struct rp_pipeline *p, const struct rp_report *r, const char *path,
		      struct ns_err *err)
{
	return rp_markdown_write(r, &p->content, path, err);
}

static int w_results_csv(struct rp_pipeline *p, const struct rp_report *r, const char *path,
			 struct ns_err *err)
{
	(void)r;
	return rp_csv_write(p->db, p->d.run.id, rp_lab_scale(&p->d) != NULL, path, err);
}

static int w_ranking_csv(struct rp_pipeline *p, const struct rp_report *r, const char *path,
			 struct ns_err *err)
{
	(void)p;
	return rp_csv_ranking(r, path, err);
}

static int w_json(struct rp_pipeline *p, const struct rp_report *r, const char *path,
		  struct ns_err *err)
{
	(void)p;
	return rp_json_write(r, path, err);
}

static const struct rp_writer writers[] = {
	{"index.html", w_html},         {"report.md", w_markdown}, {"results.csv", w_results_csv},
	{"ranking.csv", w_ranking_csv}, {"report.json", w_json},
};

static int write_files(const struct rp_report_cfg *cfg, struct rp_pipeline *p,
		       const struct rp_report *r, struct ns_err *err)
{
	char path[4096];
	if (rp_content_build(r, &p->content, err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", cfg->outdir, writers[i].file);
		if (writers[i].write(p, r, path, err) < 0)
			return -1;
	}
	return 0;
}

/* rp_xclients_each's rows into p->clients. */
static int add_client(void *ctx, const char *case_key, const char *name, double bps)
{
	struct rp_pipeline *p = ctx;
	if (p->n_clients == p->cap_clients) {
		size_t cap = p->cap_clients ? 2 * p->cap_clients : 16;
		struct rp_client_rate *n = realloc(p->clients, cap * sizeof(*n));
		if (!n)
			return -1;
		p->clients = n;
		p->cap_clients = cap;
	}
	struct rp_client_rate *x = &p->clients[p->n_clients];
	*x = (struct rp_client_rate){.case_key = strdup(case_key ? case_key : ""),
				     .name = strdup(name ? name : "?"), .bps = bps};
	if (!x->case_key || !x->name) {
		free(x->case_key);
		free(x->name);
		return -1;
	}
	p->n_clients++;
	return 0;
}

int rp_pipeline_run(const struct rp_report_cfg *cfg, struct rp_pipeline *p, struct ns_err *err)
{
	*p = (struct rp_pipeline){0};
	if (load(cfg, p, err) < 0)
		return -1;
	struct rp_data *d = &p->d, *base = p->have_base ? &p->base : NULL;
	const struct rp_cmp *cmp = p->have_cmp ? &p->cmp : NULL;
	/* The baseline is ranked by the same rule, so that per-dollar changes compare like
	 * with like. */
	const char *rule_text = cfg->rank_by ? cfg->rank_by : d->run.rank_by ? d->run.rank_by
				: RP_RANK_BEST_RULE;
	struct rp_rank_rule rule;
	if (rp_rank_parse(rule_text, &rule, err) < 0 ||
	    rp_cost_build(d, &rule, &p->cost, &p->n_cost, err) < 0 ||
	    (base && rp_cost_build(base, &rule, &p->base_cost, &p->n_base_cost, err) < 0) ||
	    rp_news_build(d, p->cost, p->n_cost, base, p->base_cost, p->n_base_cost, cmp, &p->news,
			  err) < 0 ||
	    rp_mkdir_p(cfg->outdir, err) < 0 || rp_search_load(p->db, d->run.id, &p->search, err) < 0 ||
	    rp_history_build(p->db, d, cfg->trend >= 0 ? (size_t)cfg->trend : 10, cfg->alpha,
			     cfg->min_change, &p->hist, err) < 0)
		return -1;
	rp_burst_mark(d, p->cost, p->n_cost);
	p->gnuplot = rp_gnuplot_find(p->gp_reason, sizeof(p->gp_reason));
	struct rp_chart_opts co = {
		.outdir = cfg->outdir, .gnuplot = p->gnuplot, .timeout_s = cfg->gnuplot_timeout,
		.trend_runs = cfg->trend >= 0 ? (size_t)cfg->trend : p->hist.t.n_runs >= 2 ? 10 : 0,
		.cmp = cmp, .search = &p->search, .rank_rule = rule.n ? rule_text : NULL,
		.history = &p->hist, .lab_scale = rp_lab_scale(d), .defer = 1,
	};
	if (rp_latency_load(p->db, d, base ? base->run.id : 0, cfg->alpha, cfg->min_change,
			    &p->lat, err) < 0 || rp_loadlat_load(p->db, d->run.id, &p->loadlat, err) < 0 ||
	    rp_charts_make(p->db, d, p->cost, p->n_cost, &co, &p->charts, err) < 0 ||
	    rp_latency_chart(&p->lat, &co, &p->charts, err) < 0 ||
	    rp_charts_draw(&co, &p->charts, err) < 0 ||
	    rp_findings_build(d, p->cost, p->n_cost, cmp, base, &p->news, &p->fnd, err) < 0 ||
	    rp_ab_build(d, cfg->alpha, &p->ab, err) < 0 || rp_latency_ab(&p->lat, d, &p->ab, err) < 0 ||
	    rp_xclients_each(p->db, d->run.id, add_client, p, err) < 0 ||
	    rp_placement_load(p->db, d->run.id, d->run.matrix_name, &p->placement, err) < 0)
		return -1;
	if (rp_history_findings(d, &p->hist, &p->fnd) < 0 || rp_ab_findings(d, &p->ab, &p->fnd) < 0 ||
	    rp_advertised_findings(d, &p->fnd) < 0 ||
	    rp_burst_findings(d, p->cost, p->n_cost, &p->fnd) < 0)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	rp_findings_sort(&p->fnd);

	char now[32];
	time_t t = time(NULL);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	char title[512];
	if (cfg->title)
		snprintf(title, sizeof(title), "%s", cfg->title);
	else
		snprintf(title, sizeof(title), "netsweep: %s, run %lld", d->run.matrix_name, d->run.id);
	struct rp_report r = {
		.title = title, .generated_at = now, .d = d, .base = base,
		.baseline_note = *p->baseline_note ? p->baseline_note : NULL, .cmp = cmp,
		.cost = p->cost, .n_cost = p->n_cost, .base_cost = p->base_cost,
		.n_base_cost = p->n_base_cost, .news = &p->news, .findings = &p->fnd,
		.search = &p->search, .rank_rule = rule_text, .history = &p->hist, .ab = &p->ab,
		.charts = &p->charts, .gnuplot_note = p->gnuplot ? NULL : p->gp_reason,
		.outdir = cfg->outdir, .price_note = *p->price_note ? p->price_note : NULL,
		.pricing = &p->pricing, .latency = &p->lat, .loadlat = &p->loadlat,
		.clients = p->clients, .n_clients = p->n_clients,
		.placement = &p->placement,
	};
	return write_files(cfg, p, &r, err);
}

void rp_pipeline_free(struct rp_pipeline *p)
{
	free(p->gnuplot);
	rp_content_free(&p->content);
	for (size_t i = 0; i < p->n_clients; i++) {
		free(p->clients[i].case_key);
		free(p->clients[i].name);
	}
	free(p->clients);
	rp_findings_free(&p->fnd);
	rp_search_free(&p->search);
	free(p->cost);
	free(p->base_cost);
	rp_news_free(&p->news);
	rp_history_free(&p->hist);
	rp_latency_free(&p->lat);
	rp_loadlat_free(&p->loadlat);
	rp_placement_free(&p->placement);
	rp_ab_free(&p->ab);
	rp_cmp_free(&p->cmp);
	rp_data_free(&p->base);
	rp_data_free(&p->d);
	rp_db_close(p->db);
	*p = (struct rp_pipeline){0};
}
