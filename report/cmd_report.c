/* cmd_report: `netsweep report` — parses the command line into a struct rp_report_cfg, checks
 * it, and calls the library (rp_pipeline_run, pipeline.h) that loads, analyses and writes;
 * then says what was written and applies the --fail-on-regression gate. The only place in
 * report/ that prints or picks an exit code: 0 written, 1 --fail-on-regression tripped, 2
 * usage or database error. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/cmd_report.h"
#include "report/pipeline.h"
#include "lib/cli.h"
#include "lib/cost.h"

enum { EXIT_OK = 0, EXIT_REGRESSED = 1, EXIT_USAGE = 2 };

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
		"                     each currency is ranked on its own (stated on the page)\n"
		"  --monthly-transfer VOLUME  the monthly volume (50TB, 500GB) the transfer tiers are\n"
		"                     read at (default: the matrix's monthly-transfer, else each\n"
		"                     pair's measured rate for a 730-hour month)\n\n"
		"Environment: NETSWEEP_GNUPLOT=PATH|none picks or disables gnuplot.\n");
}

static int parse_num(const char *opt, const char *s, double lo, double hi, double *out)
{
	struct ns_err e = {0};
	if (cli_number(opt, s, lo, hi, out, &e) < 0) {
		fprintf(stderr, "netsweep report: %s\n", e.msg);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv, struct rp_report_cfg *o)
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
		{"monthly-transfer", required_argument, NULL, 'M'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	rp_report_cfg_init(o);
	o->db = cli_db_default();
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
		case 'M': {
			struct ns_err e = {0};
			if (cost_volume_parse(optarg, &o->monthly_gb, &e) < 0) {
				fprintf(stderr, "netsweep report: --monthly-transfer: %s\n", e.msg);
				return -1;
			}
			break;
		}
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
	return 0;
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

/* What was written, on stdout; a chart that failed, on stderr. */
static void say_written(const struct rp_report_cfg *cfg, const struct rp_pipeline *p)
{
	const struct rp_charts *charts = &p->charts;
	size_t ok = 0, nodata = 0, failed = 0;
	for (size_t i = 0; i < charts->n; i++) {
		ok += charts->items[i].status == RP_CHART_OK;
		nodata += charts->items[i].status == RP_CHART_NODATA;
		if (charts->items[i].status == RP_CHART_FAILED) {
			failed++;
			fprintf(stderr, "netsweep report: chart %s: %s\n", charts->items[i].name,
				charts->items[i].reason);
		}
	}
	printf("netsweep report: run %lld (%zu case%s) -> %s/index.html, report.md, results.csv; "
	       "%zu chart%s drawn, %zu without data", p->d.run.id, p->d.n_cases,
	       NS_PLURAL(p->d.n_cases), cfg->outdir, ok, NS_PLURAL(ok), nodata);
	if (failed)
		printf(", %zu failed", failed);
	printf("\n");
	if (!p->gnuplot)
		printf("netsweep report: charts skipped (%s); their .gp and .dat files are written. "
		       "Install gnuplot: %s\n", p->gp_reason, RP_INSTALL_GNUPLOT);
	if (*p->baseline_note)
		printf("netsweep report: baseline %s\n", p->baseline_note);
	if (*p->price_note)
		printf("netsweep report: prices %s\n", p->price_note);
}

int cmd_report(int argc, char **argv)
{
	struct rp_report_cfg cfg;
	struct ns_err err = {0};
	int pr = parse_args(argc, argv, &cfg);
	if (pr != 0)
		return pr > 0 ? EXIT_OK : EXIT_USAGE;
	if (rp_report_cfg_check(&cfg, &err) < 0) {
		fprintf(stderr, "netsweep report: %s\n", err.msg);
		return EXIT_USAGE;
	}
	struct rp_pipeline p;
	if (rp_pipeline_run(&cfg, &p, &err) < 0) {
		fprintf(stderr, "netsweep report: %s\n", err.msg);
		rp_pipeline_free(&p);
		return EXIT_USAGE;
	}
	say_written(&cfg, &p);
	int rc = EXIT_OK;
	if (p.have_cmp) {
		printf("netsweep report: against run %lld: %zu regressions, %zu improvements "
		       "(Welch's t-test, p < %g, change > %g %%)\n", p.base.run.id,
		       p.cmp.n_regressions, p.cmp.n_improvements, cfg.alpha, cfg.min_change);
		if (cfg.fail_pct >= 0 && gate_report(&p.cmp, &p.d, &p.base, cfg.fail_pct, cfg.alpha))
			rc = EXIT_REGRESSED;
		if (cfg.fail_pct >= 0 && latency_gate(&p.lat, cfg.fail_pct, cfg.alpha))
			rc = EXIT_REGRESSED;
	}
	rp_pipeline_free(&p);
	return rc;
}
