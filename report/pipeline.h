/* pipeline: `netsweep report` as a library call — load the run (and its baseline) from the
 * database, analyse (compare, rank per dollar, news, history, latency, A/B, findings), draw
 * the charts, build the content model and write index.html, report.md, results.csv,
 * ranking.csv and report.json. Prints nothing: cmd_report.c parses the command line into a
 * struct rp_report_cfg, checks it, calls rp_pipeline_run and says what it did. */
#ifndef RP_PIPELINE_H
#define RP_PIPELINE_H

#include <sqlite3.h>

#include "lib/err.h"
#include "report/render/content.h"

struct rp_report_cfg {
	const char *db, *run, *baseline, *outdir, *title, *catalog, *rank_by;
	struct rp_pricing pricing;  /* --pricing, --fx */
	double fail_pct;           /* < 0 = off */
	long trend;                /* -1 = default */
	double alpha, min_change, gnuplot_timeout;
	double monthly_gb;         /* --monthly-transfer in decimal GB; 0 = the matrix's, else 730 h */
};

/* The defaults of every option; db from $NETSWEEP_DB when set. */
void rp_report_cfg_init(struct rp_report_cfg *cfg);
/* Options that contradict each other or are empty (NS_E_USAGE). */
int rp_report_cfg_check(const struct rp_report_cfg *cfg, struct ns_err *err);

/* Everything one report was made from, for the caller to state and gate on. */
struct rp_pipeline {
	sqlite3 *db;
	struct rp_data d, base;
	int have_base, have_cmp;
	struct rp_cmp cmp;
	struct rp_cost_row *cost, *base_cost;
	size_t n_cost, n_base_cost;
	struct rp_news news;
	struct rp_history hist;
	struct rp_latency lat;
	struct rp_loadlat loadlat;   /* throughput cases with a latency probe */
	struct rp_placement placement; /* heatmaps and steadiness over nights */
	struct rp_ab ab;
	struct rp_findings fnd;
	struct rp_search search;
	struct rp_charts charts;
	struct rp_content content;
	struct rp_pricing pricing;   /* the run's, settled */
	struct rp_client_rate *clients; /* group cases' clients, by member name */
	size_t n_clients, cap_clients;
	char *gnuplot;               /* NULL: charts not rendered, gp_reason says why */
	char baseline_note[256], gp_reason[256], price_note[4200];
};

/* Makes the report cfg asks for into cfg->outdir. Errors: NS_E_USAGE (no such run),
 * NS_E_INPUT (the database or the catalog), NS_E_IO (the output folder or a file),
 * NS_E_NOMEM. p is filled as far as it got either way; free it with rp_pipeline_free. */
int rp_pipeline_run(const struct rp_report_cfg *cfg, struct rp_pipeline *p, struct ns_err *err);
void rp_pipeline_free(struct rp_pipeline *p);
/* Creates dir and its parents as needed (an existing folder is fine); NS_E_IO, NS_E_USAGE
 * for a name past PATH_MAX. */
int rp_mkdir_p(const char *dir, struct ns_err *err);

#endif
