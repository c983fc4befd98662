/* cmd_report: `netsweep report` — loads a run (and optionally a baseline) from the database,
 * compares, ranks by cost, derives findings, draws charts with gnuplot, and writes
 * index.html, report.md and results.csv. The only place in report/ that prints or picks an
 * exit code: 0 written, 1 --fail-on-regression tripped, 2 usage or database error. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report/cmd_report.h"
#include "report/charts/charts.h"
#include "report/analyze/compare.h"
#include "report/analyze/cost.h"
#include "report/render/csv.h"
#include "report/load/data.h"
#include "report/analyze/findings.h"
#include "report/render/content.h"
#include "report/render/html.h"
#include "report/render/json_out.h"
#include "report/load/lab.h"
#include "report/render/markdown.h"
#include "report/load/reprice.h"
#include "report/load/pricing.h"
#include "report/analyze/advertised.h"
#include "report/analyze/news.h"
#include "report/render/report.h"
#include "report/load/rundb.h"
#include "lib/cli.h"

enum { EXIT_OK = 0, EXIT_REGRESSED = 1, EXIT_USAGE = 2 };

struct report_opts {
	const char *db, *run, *baseline, *outdir, *title, *catalog, *rank_by;
	struct rp_pricing pricing;  /* --pricing, --fx */
	double fail_pct;           /* < 0 = off */
	long trend;                /* -1 = default */
	double alpha, min_change, gnuplot_timeout;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: netsweep report [--db FILE] [--run RUN] [--baseline RUN]\n"
		"                       [-o DIR] [--title T] [--fail-on-regression PCT] [--trend N]\n"
		"                       [--alpha P] [--min-change PCT] [--gnuplot-timeout S]\n\n"
		"Writes DIR/index.html (self-contained, charts inline), DIR/report.md, DIR/results.csv,\n"
		"DIR/ranking.csv, DIR/report.json (schemas/report-json.md) and each chart's\n"
		".gp/.dat/.svg from the results database.\n\n"
		"  --db FILE          database (default $NETSWEEP_DB or ./netsweep.db)\n"
		"  --run RUN          run to report: an id, a label (its newest run), latest (the\n"
		"                     default) or previous; `netsweep runs` lists them\n"
		"  --baseline RUN     compare with this run: an id, a label, or previous (the same\n"
		"                     matrix's run before this one)\n"
		"  -o, --output DIR   output folder (default netsweep-report)\n"
		"  --title T          page title\n"
		"  --fail-on-regression PCT  exit 1 when a case's median goodput fell by more than\n"
		"                     PCT %% with significance (Welch's t-test, p < alpha), or by\n"
		"                     more than PCT %% on its median alone when a side has fewer\n"
		"                     than 2 successful repeats; also when a case that succeeded\n"
		"                     in the baseline has no successful repeat now, or when a\n"
		"                     baseline case is missing from the run; and when a\n"
		"                     request/response case's p99 rose by more than PCT %% (Welch's\n"
		"                     t-test on log p99 over repeats, p < alpha)\n"
		"  --trend N          trend chart over the last N runs of the matrix (default 10 with\n"
		"                     a baseline, otherwise none); the History table and its step\n"
		"                     changes cover the same N runs (default 10)\n"
		"  --alpha P          significance level (default 0.05)\n"
		"  --min-change PCT   smallest change flagged as regression/improvement (default 5)\n"
		"  --gnuplot-timeout S  time limit per chart (default 20)\n"
		"  --catalog FILE     price the pairs (and the baseline's) from this catalog\n"
		"                     (schemas/catalog.xsd) instead of the prices the run stored;\n"
		"                     the report says which prices it used\n"
		"  --rank-by RULE     the case each pair is ranked on per dollar: best (its\n"
		"                     highest median) or KEY=VALUE[,KEY=VALUE] over the cases\n"
		"                     table's columns, e.g. streams=1 (default: the matrix's\n"
		"                     rank-by, else best); stated on the page\n"
		"  --pricing MODEL    rank on on-demand, spot or reserved:TERM prices (reserved:1yr;\n"
		"                     default: the matrix's pricing, else on-demand), as the run\n"
		"                     recorded them (or --catalog has them); spot beside on-demand\n"
		"  --fx CUR=RATE,...  US dollars per unit of a currency (EUR=1.08): pairs priced in\n"
		"                     it are converted and ranked with the others; without a rate\n"
		"                     each currency is ranked on its own (stated on the page)\n\n"
		"Environment: NETSWEEP_GNUPLOT=PATH|none picks or disables gnuplot.\n");
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "netsweep report: %s %s: expected a number in [%g, %g]\n", opt, s,
			lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	static const struct option longopts[] = {
		{"db", required_argument, NULL, 'd'},
		{"run", required_argument, NULL, 'r'},
		{"baseline", required_argument, NULL, 'b'},
		{"output", required_argument, NULL, 'o'},
		{"title", required_argument, NULL, 'T'},
		{"fail-on-regression", required_argument, NULL, 'F'},
		{"trend", required_argument, NULL, 'n'},
		{"alpha", required_argument, NULL, 'a'},
		{"min-change", required_argument, NULL, 'm'},
		{"gnuplot-timeout", required_argument, NULL, 'g'},
		{"catalog", required_argument, NULL, 'C'},
		{"rank-by", required_argument, NULL, 'R'},
		{"pricing", required_argument, NULL, 'P'},
		{"fx", required_argument, NULL, 'X'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *env = getenv("NETSWEEP_DB");
	*o = (struct report_opts){.db = env && *env ? env : "netsweep.db", .run = "latest",
				  .outdir = "netsweep-report", .fail_pct = -1, .trend = -1,
				  .alpha = 0.05, .min_change = 5, .gnuplot_timeout = 20};
	double v;
	int c;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': o->db = optarg; break;
		case 'r': o->run = optarg; break;
		case 'b': o->baseline = optarg; break;
		case 'o': o->outdir = optarg; break;
		case 'T': o->title = optarg; break;
		case 'R': o->rank_by = optarg; break;
		case 'F':
			if (parse_num("--fail-on-regression", optarg, 0, 100, &o->fail_pct) < 0)
				return -1;
			break;
		case 'n':
			if (parse_num("--trend", optarg, 0, 1000, &v) < 0)
				return -1;
			o->trend = (long)v;
			break;
		case 'a':
			if (parse_num("--alpha", optarg, 1e-9, 0.5, &o->alpha) < 0)
				return -1;
			break;
		case 'm':
			if (parse_num("--min-change", optarg, 0, 100, &o->min_change) < 0)
				return -1;
			break;
		case 'C': o->catalog = optarg; break;
		case 'P':
		case 'X': {
			struct ns_err e = {0};
			if ((c == 'P' ? rp_pricing_parse_model(optarg, &o->pricing, &e)
				      : rp_pricing_parse_fx(optarg, &o->pricing, &e)) < 0) {
				fprintf(stderr, "netsweep report: %s\n", e.msg);
				return -1;
			}
			break;
		}
		case 'g':
			if (parse_num("--gnuplot-timeout", optarg, 0.1, 3600, &o->gnuplot_timeout) < 0)
				return -1;
			break;
		case 'h': usage(stdout); return 1;
		case ':':
			fprintf(stderr, "netsweep report: %s needs a value\n", argv[optind - 1]);
			return -1;
		default: {
			struct ns_err oe = {0};
			cli_option_error_hint(c, argv, longopts, &oe);
			fprintf(stderr, "netsweep report: %s\n", oe.msg);
			return -1;
		}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "netsweep report: unexpected argument %s\n", argv[optind]);
		return -1;
	}
	if (o->fail_pct >= 0 && !o->baseline) {
		fprintf(stderr, "netsweep report: --fail-on-regression needs --baseline\n");
		return -1;
	}
	if (!*o->outdir) {
		fprintf(stderr, "netsweep report: -o needs a folder\n");
		return -1;
	}
	return 0;
}

static int mkdir_p(const char *dir)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(path, 0777) != 0 && errno != EEXIST)
		return -1;
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

/* The --fail-on-regression gate (rp_cmp_gate): says on stderr why it trips and which cases
 * it could not test; returns nonzero when it trips. */
static int gate_report(const struct rp_cmp *cmp, const struct rp_data *d,
		       const struct rp_data *base, double fail_pct, double alpha)
{
	struct rp_gate g;
	rp_cmp_gate(cmp, d, base, fail_pct, &g);
	if (g.tested)
		fprintf(stderr, "netsweep report: %zu case%s regressed by more than %g %% "
			"(significant at p < %g)\n", g.tested, g.tested == 1 ? "" : "s", fail_pct,
			alpha);
	if (g.median)
		fprintf(stderr, "netsweep report: %zu case%s with fewer than 2 successful repeats "
			"fell by more than %g %% (median change alone, no significance test)\n",
			g.median, g.median == 1 ? "" : "s", fail_pct);
	if (g.lost)
		fprintf(stderr, "netsweep report: %zu case%s had successful repeats in run %lld "
			"and none now\n", g.lost, g.lost == 1 ? "" : "s", base->run.id);
	if (g.gone)
		fprintf(stderr, "netsweep report: %zu case%s of run %lld %s missing from this run\n",
			g.gone, g.gone == 1 ? "" : "s", base->run.id, g.gone == 1 ? "is" : "are");
	if (g.ungated)
		fprintf(stderr, "netsweep report: warning: %zu case%s not gated: no successful "
			"repeat in run %lld to compare with\n", g.ungated,
			g.ungated == 1 ? "" : "s", base->run.id);
	if (g.limited)
		fprintf(stderr, "netsweep report: warning: %zu case%s not gated: sender-limited in "
			"this run or run %lld (the sender offered less than asked: the figure is "
			"the sender's, not the path's)\n", g.limited, g.limited == 1 ? "" : "s",
			base->run.id);
	return rp_gate_tripped(&g) != 0;
}

/* The gate on request/response cases: p99 up by more than fail_pct with Welch's t on log p99
 * at p < alpha (cases with fewer than 2 repeats on a side are not gated on latency). */
static int latency_gate(const struct rp_latency *l, double fail_pct, double alpha)
{
	size_t n = 0, untested = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_lat_case *c = &l->cases[i];
		if (!isfinite(c->change_pct))
			continue;
		if (!isfinite(c->p))
			untested++;
		else if (c->p < alpha && c->change_pct > fail_pct)
			n++;
	}
	if (n)
		fprintf(stderr, "netsweep report: %zu request/response case%s' p99 rose by more than "
			"%g %% (Welch's t on log p99, p < %g)\n", n, n == 1 ? "" : "s", fail_pct,
			alpha);
	if (untested)
		fprintf(stderr, "netsweep report: warning: %zu request/response case%s not gated on "
			"latency: fewer than 2 repeats on a side\n", untested, untested == 1 ? "" : "s");
	return n != 0;
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	int pr = parse_args(argc, argv, &o);
	if (pr != 0)
		return pr > 0 ? EXIT_OK : EXIT_USAGE;

	int rc = EXIT_USAGE;
	struct ns_err err = {0};
	sqlite3 *db = NULL;
	struct rp_data d = {0}, base = {0};
	struct rp_cmp cmp = {0};
	struct rp_cost_row *cost = NULL, *base_cost = NULL;
	size_t n_cost = 0, n_base_cost = 0;
	struct rp_news news = {0};
	struct rp_history hist = {0};
	struct rp_latency lat = {0};
	struct rp_loadlat loadlat = {0};
	struct rp_ab ab = {0};
	struct rp_findings fnd = {0};
	struct rp_search search = {0};
	struct rp_charts charts = {0};
	struct rp_content content = {0};
	char *gnuplot = NULL;
	int have_base = 0, have_cmp = 0;
	char baseline_note[256] = "", gp_reason[256] = "", path[4096], price_note[4200] = "";
	size_t n_repriced = 0;
	long long run_id = 0, base_id = 0;

	struct rp_pricing base_pricing = o.pricing; /* before the run's own rates join it */
	if (rp_db_open(o.db, &db, &err) < 0 || rp_run_resolve(db, o.run, &run_id, &err) < 0 ||
	    (o.baseline && rp_baseline_resolve(db, o.baseline, run_id, &base_id, &err) < 0) ||
	    rp_data_load(db, run_id, &d, &err) < 0 ||
	    rp_pricing_load(db, &d, &o.pricing, &err) < 0 || rp_advertised_load(db, &d, &err) < 0 ||
	    (o.catalog && rp_reprice(&d, o.catalog, &o.pricing, &n_repriced, &err) < 0))
		goto fail;
	rp_pricing_settle(&d, &o.pricing);
	if (o.catalog)
		snprintf(price_note, sizeof(price_note), "from --catalog %s for %zu of %zu pair%s%s",
			 o.catalog, n_repriced, d.n_eps, d.n_eps == 1 ? "" : "s",
			 n_repriced < d.n_eps ? ", the run's own for the rest" : "");
	if (o.baseline && base_id) {
		size_t n_base_priced;
		if (rp_data_load(db, base_id, &base, &err) < 0 ||
		    rp_pricing_load(db, &base, &base_pricing, &err) < 0 ||
		    rp_advertised_load(db, &base, &err) < 0 ||
		    (o.catalog && rp_reprice(&base, o.catalog, &base_pricing, &n_base_priced,
					     &err) < 0))
			goto fail;
		rp_pricing_settle(&base, &base_pricing);
		have_base = 1;
		if (rp_compare(&d, &base, o.alpha, o.min_change, &cmp, &err) < 0)
			goto fail;
		have_cmp = 1;
	} else if (o.baseline) {
		snprintf(baseline_note, sizeof(baseline_note), "none: no earlier run of this matrix");
	}
	/* The baseline is ranked by the same rule, so that per-dollar changes compare like
	 * with like. */
	const char *rule_text = o.rank_by ? o.rank_by : d.run.rank_by ? d.run.rank_by
				: RP_RANK_BEST_RULE;
	struct rp_rank_rule rule;
	if (rp_rank_parse(rule_text, &rule, &err) < 0)
		goto fail;
	if (rp_cost_build(&d, &rule, &cost, &n_cost, &err) < 0 ||
	    (have_base && rp_cost_build(&base, &rule, &base_cost, &n_base_cost, &err) < 0) ||
	    rp_news_build(&d, cost, n_cost, have_base ? &base : NULL, base_cost, n_base_cost,
			  have_cmp ? &cmp : NULL, &news, &err) < 0)
		goto fail;
	if (mkdir_p(o.outdir) < 0) {
		fprintf(stderr, "netsweep report: %s: cannot create folder: %s\n", o.outdir,
			strerror(errno));
		goto out;
	}
	if (rp_search_load(db, d.run.id, &search, &err) < 0)
		goto fail;
	if (rp_history_build(db, &d, o.trend >= 0 ? (size_t)o.trend : 10, o.alpha, o.min_change,
			     &hist, &err) < 0)
		goto fail;
	gnuplot = rp_gnuplot_find(gp_reason, sizeof(gp_reason));
	struct rp_chart_opts co = {
		.outdir = o.outdir, .gnuplot = gnuplot, .timeout_s = o.gnuplot_timeout,
		.trend_runs = o.trend >= 0 ? (size_t)o.trend : hist.t.n_runs >= 2 ? 10 : 0,
		.cmp = have_cmp ? &cmp : NULL, .search = &search,
		.rank_rule = rule.n ? rule_text : NULL, .history = &hist, .lab_scale = rp_lab_scale(&d),
	};
	if (rp_latency_load(db, &d, have_base ? base_id : 0, o.alpha, o.min_change, &lat, &err) < 0 ||
	    rp_loadlat_load(db, d.run.id, &loadlat, &err) < 0)
		goto fail;
	if (rp_charts_make(db, &d, cost, n_cost, &co, &charts, &err) < 0 ||
	    rp_latency_chart(&lat, &co, &charts, &err) < 0 ||
	    rp_findings_build(&d, cost, n_cost, have_cmp ? &cmp : NULL, have_base ? &base : NULL,
			      &news, &fnd, &err) < 0 || rp_ab_build(&d, o.alpha, &ab, &err) < 0 ||
	    rp_latency_ab(&lat, &d, &ab, &err) < 0)
		goto fail;
	if (rp_history_findings(&d, &hist, &fnd) < 0 || rp_ab_findings(&d, &ab, &fnd) < 0 ||
	    rp_advertised_findings(&d, &fnd) < 0) {
		ns_err_code(&err, NS_E_NOMEM, "out of memory");
		goto fail;
	}
	rp_findings_sort(&fnd);

	char now[32];
	time_t t = time(NULL);
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	char title[512];
	if (o.title)
		snprintf(title, sizeof(title), "%s", o.title);
	else
		snprintf(title, sizeof(title), "netsweep: %s, run %lld", d.run.matrix_name, d.run.id);
	struct rp_report r = {
		.title = title, .generated_at = now, .d = &d, .base = have_base ? &base : NULL,
		.baseline_note = *baseline_note ? baseline_note : NULL,
		.cmp = have_cmp ? &cmp : NULL, .cost = cost, .n_cost = n_cost,
		.base_cost = base_cost, .n_base_cost = n_base_cost, .news = &news, .findings = &fnd,
		.search = &search, .rank_rule = rule_text, .history = &hist, .ab = &ab,
		.charts = &charts, .gnuplot_note = gnuplot ? NULL : gp_reason, .outdir = o.outdir,
		.price_note = *price_note ? price_note : NULL, .pricing = &o.pricing,
		.latency = &lat, .loadlat = &loadlat,
	};
	if (rp_content_build(&r, &content, &err) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/index.html", o.outdir);
	if (rp_html_write(&r, &content, path, &err) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/report.md", o.outdir);
	if (rp_markdown_write(&r, &content, path, &err) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/results.csv", o.outdir);
	if (rp_csv_write(db, d.run.id, rp_lab_scale(&d) != NULL, path, &err) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/ranking.csv", o.outdir);
	if (rp_csv_ranking(&r, path, &err) < 0)
		goto fail;
	snprintf(path, sizeof(path), "%s/report.json", o.outdir);
	if (rp_json_write(&r, path, &err) < 0)
		goto fail;

	size_t ok = 0, nodata = 0, failed = 0;
	for (size_t i = 0; i < charts.n; i++) {
		ok += charts.items[i].status == RP_CHART_OK;
		nodata += charts.items[i].status == RP_CHART_NODATA;
		if (charts.items[i].status == RP_CHART_FAILED) {
			failed++;
			fprintf(stderr, "netsweep report: chart %s: %s\n", charts.items[i].name,
				charts.items[i].reason);
		}
	}
	printf("netsweep report: run %lld (%zu case%s) -> %s/index.html, report.md, results.csv; "
	       "%zu chart%s drawn, %zu without data", d.run.id, d.n_cases, NS_PLURAL(d.n_cases),
	       o.outdir, ok, NS_PLURAL(ok), nodata);
	if (failed)
		printf(", %zu failed", failed);
	printf("\n");
	if (!gnuplot)
		printf("netsweep report: charts skipped (%s); their .gp and .dat files are written. "
		       "Install gnuplot: %s\n", gp_reason, RP_INSTALL_GNUPLOT);
	if (*baseline_note)
		printf("netsweep report: baseline %s\n", baseline_note);
	if (*price_note)
		printf("netsweep report: prices %s\n", price_note);
	rc = EXIT_OK;
	if (have_cmp) {
		printf("netsweep report: against run %lld: %zu regressions, %zu improvements "
		       "(Welch's t-test, p < %g, change > %g %%)\n", base.run.id, cmp.n_regressions,
		       cmp.n_improvements, o.alpha, o.min_change);
		if (o.fail_pct >= 0 && gate_report(&cmp, &d, &base, o.fail_pct, o.alpha))
			rc = EXIT_REGRESSED;
		if (o.fail_pct >= 0 && latency_gate(&lat, o.fail_pct, o.alpha))
			rc = EXIT_REGRESSED;
	}
	goto out;
fail:
	fprintf(stderr, "netsweep report: %s\n", err.msg);
out:
	free(gnuplot);
	rp_content_free(&content);
	rp_findings_free(&fnd);
	rp_search_free(&search);
	free(cost);
	free(base_cost);
	rp_news_free(&news);
	rp_history_free(&hist);
	rp_latency_free(&lat);
	rp_loadlat_free(&loadlat);
	rp_ab_free(&ab);
	rp_cmp_free(&cmp);
	rp_data_free(&base);
	rp_data_free(&d);
	sqlite3_close(db);
	return rc;
}
