/* report: the assembled content of one report, shared by the HTML and Markdown writers so
 * that both say the same things: the run, its baseline and comparison, the cost rows, the
 * findings and the charts (with whether gnuplot rendered them). */
#ifndef RP_REPORT_H
#define RP_REPORT_H

#include <stddef.h>

#include "report/charts/charts.h"
#include "report/analyze/compare.h"
#include "report/analyze/cost_rank.h"
#include "report/load/data.h"
#include "report/analyze/findings.h"
#include "report/analyze/ab.h"
#include "report/analyze/history.h"
#include "report/analyze/latency_analysis.h"
#include "report/load/loadlat.h"
#include "report/analyze/news.h"
#include "report/load/search_rows.h"
#include "report/load/price/pricing.h"
#include "report/placement/placement.h"

/* One client of a group case (v_group_clients): its case, its member name and its mean
 * receive rate over the case's successful results, in case and client order. */
struct rp_client_rate {
	char *case_key, *name;
	double bps;
};

struct rp_report {
	const char *title;
	const char *generated_at;        /* ISO-8601 UTC */
	const struct rp_data *d;
	const struct rp_data *base;      /* NULL without a baseline */
	const char *baseline_note;       /* why there is no baseline, or NULL */
	const struct rp_cmp *cmp;        /* NULL without a baseline */
	const struct rp_cost_row *cost;
	size_t n_cost;
	const struct rp_cost_row *base_cost; /* the baseline's, NULL without one */
	size_t n_base_cost;
	const struct rp_news *news;      /* what changed, in order of importance */
	const struct rp_ab *ab;          /* pairs differing in one attribute; NULL = none */
	const struct rp_history *history; /* the cases over the last runs; NULL = none */
	const char *rank_rule;           /* the per-dollar ranking rule as stated ("best", ...) */
	const struct rp_findings *findings;
	const struct rp_search *search;  /* rate searches of the run (n = 0: none) */
	const struct rp_charts *charts;
	const char *gnuplot_note;        /* why charts were not rendered, or NULL */
	const char *outdir;
	const char *price_note;          /* report --catalog: which prices were used, or NULL */
	const struct rp_pricing *pricing; /* the model, rates and currency split ranked on */
	const struct rp_latency *latency; /* request/response cases; NULL or n = 0: none */
	const struct rp_loadlat *loadlat; /* cases with a latency probe; NULL or n = 0: none */
	const struct rp_client_rate *clients; /* group cases' clients; n_clients = 0: none */
	size_t n_clients;
	const struct rp_placement *placement; /* heatmaps and steadiness; NULL = none */
};

#define RP_INSTALL_GNUPLOT "apt-get install gnuplot-nox"

#endif
