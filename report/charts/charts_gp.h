/* charts_gp: what every chart shares — its .dat and .gp files, the gnuplot terminal and
 * palette, running gnuplot under a time limit. For charts.c and charts_series.c. */
#ifndef RP_CHARTS_GP_H
#define RP_CHARTS_GP_H

#include <stddef.h>

#include "report/charts/charts.h"
#include "report/model/fmt.h"

/* Text stays legible where the page is narrowest: a 400 px screen leaves about 366 px for a
 * chart, and 14 / 540 * 366 = 9.5 px; on a wide screen (charts at most 960 px) it is 25 px. */
#define CG_WIDTH 540
#define CG_HEIGHT 360
#define CG_FONT_PX 14

void cg_dat_label(struct rp_buf *b, const char *s);
void cg_dat_comment(struct rp_buf *b, const char *s);
void cg_dat_num(struct rp_buf *b, double v, const char *sep);
int cg_write_file(const char *dir, const char *name, const char *ext, const struct rp_buf *b,
		  struct ns_err *err);
/* The script's opening: terminal (viewBox only, no fixed size), palette, grid, key below.
 * The title goes in a comment: the page shows it as the figure's heading. An emulated run's
 * chart says so in the picture too (its SVG is copied out alone). */
void cg_gp_header(struct rp_buf *gp, const struct rp_chart_opts *o, const struct rp_chart *c);
/* A chart for cg_run_batch: DIR/SCRIPT.gp draws DIR/SCRIPT.EXT (its outfile); its status
 * and reason go to c. */
struct cg_job {
	const char *dir, *script, *ext;
	struct rp_chart *c;
};
/* Draws every job in one gnuplot process started in workdir, each through its own
 * temporary file committed when whole; a job the batch did not reach (gnuplot stops at a
 * script's first error) is drawn alone. -1 (NS_E_NOMEM, NS_E_IO: the driver script) only
 * when nothing could be run; each chart's own failure is in its status. */
int cg_run_batch(const char *gnuplot, const char *workdir, double timeout_s,
		 struct cg_job *jobs, size_t n, struct ns_err *err);
/* Room under the plot for a key of this many entries, one per line. */
void cg_gp_key_margin(struct rp_buf *gp, size_t entries);
/* Runs gnuplot NAME.gp in dir under a time limit; fills c->status and c->reason. */
void cg_run_gnuplot(const struct rp_chart_opts *o, struct rp_chart *c);
/* The same for dir/SCRIPT.gp drawing dir/SCRIPT.EXT (its outfile; e.g. a PNG card). */
void cg_run_gnuplot_to(const struct rp_chart_opts *o, struct rp_chart *c, const char *script,
		       const char *ext);
/* A new chart; an emulated run's title says so and at what scale. */
struct rp_chart *cg_chart_new(struct rp_charts *cs, const struct rp_chart_opts *o,
			      const char *name, const char *title, const char *caption);
/* Writes the chart's files and renders it, or records why it has no data. */
int cg_chart_finish(const struct rp_chart_opts *o, struct rp_chart *c, struct rp_buf *dat,
		    struct rp_buf *gp, const char *nodata, struct ns_err *err);
/* Copies a plot command, expanding each '%s' to the chart's name. */
void cg_add_plot(struct rp_buf *gp, const struct rp_buf *plot, const char *name);

#endif
