/* site_charts: the site's gnuplot charts over the nights, written as the report's are
 * (report/charts/charts_gp.h: NAME.dat, NAME.gp that the user may restyle, NAME.svg) — a
 * pair's throughput, price (when it changed) and per-dollar history, and every pair's per
 * dollar on the index — plus card.png, the per-dollar chart at 1200 x 630 for the page's
 * Open Graph card. */
#ifndef RP_SITE_CHARTS_H
#define RP_SITE_CHARTS_H

#include "report/charts/charts.h"
#include "report/site/site_pages.h"

#include "report/charts/charts_gp.h"

struct site_charts {
	struct rp_charts c;    /* in the page's order, the per-dollar chart first */
	struct rp_chart card;  /* card.png; drawn when its status is RP_CHART_OK */
	char dir[4096];        /* the folder, which the batch's jobs point to */
};

/* At most this many gnuplot jobs per page. */
#define SITE_CHART_JOBS 5 /* the band chart (site_band.h) too */

/* The lab's scale of the first pair whose latest night was emulated by `netsweep lab`; NULL
 * when every pair's was measured on real instances. */
const char *site_lab_scale(const struct site_ctx *s);
/* Writes the pair's data and scripts into dir (its folder, an absolute path) and appends
 * their drawing to jobs (*n of them; room for SITE_CHART_JOBS more), for one cg_run_batch
 * over the whole site; without gnuplot the charts say so. NS_E_IO, NS_E_NOMEM. out must stay
 * where it is until the batch ran. */
int site_charts_pair(const struct site_ctx *s, const struct site_series *p, const char *dir,
		     struct site_charts *out, struct cg_job *jobs, size_t *n, struct ns_err *err);
/* The same for the index (dir: the site's root): every pair's per dollar over the nights. */
int site_charts_index(const struct site_ctx *s, const char *dir, struct site_charts *out,
		      struct cg_job *jobs, size_t *n, struct ns_err *err);

/* The x axis of a chart over the nights: one place per night (a data file's row number,
 * gnuplot's column 0), labelled by the night's label or date, as many as fit. */
void site_night_axis(const struct site_ctx *s, struct rp_buf *gp);

/* A chart's axis of throughput per price: "Mbit/s per $/hour", "Mbit/s per EUR/hour". */
void site_gp_per_money(const char *cur, char *out, size_t n);

#endif
