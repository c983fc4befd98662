/* charts: gnuplot charts of a run. Each chart is written as NAME.dat (data) and NAME.gp (a
 * script that reads the .dat and writes NAME.svg) so that users can restyle it; gnuplot runs
 * as an external program under a time limit. Charts without data are skipped and say why. */
#ifndef RP_CHARTS_H
#define RP_CHARTS_H

#include <sqlite3.h>
#include <stddef.h>

#include "report/analyze/compare.h"
#include "report/analyze/cost_rank.h"
#include "report/load/data.h"
#include "report/load/search_rows.h"

enum rp_chart_status {
	RP_CHART_OK,          /* NAME.svg rendered */
	RP_CHART_NODATA,      /* nothing to draw; no files written */
	RP_CHART_NOGNUPLOT,   /* .gp and .dat written; gnuplot missing or disabled */
	RP_CHART_FAILED       /* gnuplot failed or timed out; reason says which */
};

#define RP_MAX_CHARTS 18

struct rp_chart {
	char name[32];        /* file stem: NAME.gp, NAME.dat, NAME.svg */
	char title[160];
	char caption[512];    /* what it shows (plain text) */
	enum rp_chart_status status;
	char reason[256];
	int pending;          /* written, to be drawn by one batch (rp_chart_opts.defer) */
};

struct rp_charts {
	struct rp_chart items[RP_MAX_CHARTS];
	size_t n;
};

struct rp_chart_opts {
	const char *outdir;
	const char *gnuplot;      /* path of the gnuplot program; NULL = none (charts skipped) */
	double timeout_s;         /* per chart */
	size_t trend_runs;        /* 0 = no trend chart */
	const struct rp_cmp *cmp; /* NULL without a baseline */
	const char *rank_rule;    /* how each pair's ranked case is chosen; NULL = its best */
	const char *lab_scale;    /* the run was emulated (netsweep lab) at this scale; NULL = real */
	const struct rp_history *history; /* step changes to mark on the trend; NULL = none */
	const struct rp_search *search; /* the run's rate searches; NULL = none */
	int defer;                /* leave the drawing to rp_charts_draw (one gnuplot for all) */
};

int rp_charts_make(sqlite3 *db, const struct rp_data *d, const struct rp_cost_row *cost,
		   size_t n_cost, const struct rp_chart_opts *o, struct rp_charts *out,
		   struct ns_err *err);

/* The charts over time (charts_series.c): each pair's interval series as small multiples,
 * and each case's history over the last trend_runs runs. */
int rp_chart_series(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		    struct rp_charts *cs, struct ns_err *err);
/* Group cases: each client's rate over time, one panel per case (none without group cases). */
int rp_chart_clients(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err);
int rp_chart_trend(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		   struct rp_charts *cs, struct ns_err *err);

/* Draws every pending chart of cs (o->defer) in one gnuplot process: gnuplot's start-up is
 * most of a small chart's time. NS_E_NOMEM, NS_E_IO; each chart's failure is its status. */
int rp_charts_draw(const struct rp_chart_opts *o, struct rp_charts *cs, struct ns_err *err);

/* Finds gnuplot: NETSWEEP_GNUPLOT (a path, or "none" to disable) or `gnuplot` on PATH.
 * Returns a malloc'd path or NULL, with why in reason (e.g. "not found on PATH"). */
char *rp_gnuplot_find(char *reason, size_t n);

#endif
