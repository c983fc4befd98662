/* site_band: see site_band.h. */
#include "report/site/site_band.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/model/fmt.h"

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Nearest rank q (0..1) of n sorted values, as the store's views take it. */
static double rank_of(const double *v, size_t n, double q)
{
	return v[(size_t)llround(q * (double)(n - 1))];
}

int site_band_pair(const struct site_ctx *s, const struct site_series *p,
		   struct site_charts *out, struct cg_job *jobs, size_t *n, struct ns_err *err)
{
	double *v = malloc((s->n ? s->n : 1) * sizeof(*v));
	size_t k = 0;
	if (!v)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	double sum = 0, sq = 0;
	for (size_t i = 0; i < s->n; i++)
		if (p->at[i] && !isnan(p->at[i]->mbps)) {
			v[k++] = p->at[i]->mbps;
			sum += p->at[i]->mbps;
			sq += p->at[i]->mbps * p->at[i]->mbps;
		}
	if (k < 2) {
		free(v);
		return 0;
	}
	qsort(v, k, sizeof(*v), cmp_d);
	double p5 = rank_of(v, k, 0.05), p95 = rank_of(v, k, 0.95);
	double med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2, mean = sum / (double)k;
	double var = (sq - sum * sum / (double)k) / (double)(k - 1);
	double cv = mean > 0 ? 100 * sqrt(var > 0 ? var : 0) / mean : NAN;
	free(v);
	struct rp_chart_opts o = {.outdir = out->dir, .gnuplot = s->gnuplot,
				  .timeout_s = s->cfg->gnuplot_timeout,
				  .lab_scale = p->at[p->latest] ? p->at[p->latest]->lab_scale : NULL};
	char caption[400], band[80], mid[40];
	struct rp_unit u = rp_unit_for(p95 * 1e6); /* Gbit/s from 10 Gbit/s (report/model/fmt.h) */
	rp_fmt_range(band, sizeof(band), p5 * 1e6, p95 * 1e6, u);
	rp_fmt_in(mid, sizeof(mid), med * 1e6, u);
	snprintf(caption, sizeof(caption), "The pair varied %.0f %% night to night (coefficient "
		 "of variation of its %zu nightly medians): the band is their 5th to 95th "
		 "percentile, %s, the line their median, %s; a point is one night.", cv, k, band,
		 mid);
	struct rp_chart *c = cg_chart_new(&out->c, &o, "band", "How steady, night to night",
					  caption);
	struct rp_buf gp;
	rp_buf_init(&gp);
	cg_gp_header(&gp, &o, c);
	cg_gp_key_margin(&gp, 3); /* the key's three lines under the axis's label, not on it */
	/* the nights as the page's other charts place them: one place each, labelled per night
	 * (a time axis crowded a phone's width with the times of a lab's nights) */
	site_night_axis(s, &gp);
	rp_buf_puts(&gp, "set yrange [0:*]\nset ylabel 'Mbit/s'\n");
	rp_buf_printf(&gp, "p5 = %.6g\np95 = %.6g\nmed = %.6g\n", p5, p95, med);
	/* the band and the line span the nights, drawn at each night's place in series.dat */
	rp_buf_puts(&gp, "plot 'series.dat' using 0:(p5):(p95) with filledcurves "
		    "fc '#9ecae1' fs solid 0.6 title 'p5–p95 of the nightly medians', "
		    "'' using 0:(med) with lines lw 2 lc '#08519c' title 'median', "
		    "'' using 0:2 with points pt 7 lc '#1d2430' title 'a night'\n");
	int rc = gp.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
			: cg_write_file(out->dir, "band", "gp", &gp, err);
	rp_buf_free(&gp);
	if (rc < 0)
		return -1;
	if (!s->gnuplot) {
		c->status = RP_CHART_NOGNUPLOT;
		snprintf(c->reason, sizeof(c->reason), "gnuplot not run");
		return 0;
	}
	jobs[(*n)++] = (struct cg_job){.dir = out->dir, .script = c->name, .ext = "svg", .c = c};
	return 0;
}
