/* latency_chart: see latency_chart.h. */
#include "report/charts/latency_chart.h"

#include "report/charts/charts_gp.h"

/* Percentiles drawn: x is 1 / (1 - q), so that 90, 99, 99.9 % are evenly spaced decades. */
static const double chart_q[] = {0, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999};

int rp_latency_chart(const struct rp_latency *l, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err)
{
	if (!l->n_pairs || cs->n >= RP_MAX_CHARTS)
		return 0;
	struct rp_chart *c = cg_chart_new(cs, o, "latency", "Latency by percentile",
					  "Each pair's request/response latency against percentile, "
					  "from the merged histogram of all its request/response "
					  "results (both axes logarithmic, as HDR histograms are drawn).");
	struct rp_buf dat, gp, plot;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&plot);
	size_t n = 0;
	for (size_t i = 0; i < l->n_pairs; i++) {
		const struct lathist *h = &l->pairs[i].h;
		if (!h->count)
			continue;
		cg_dat_comment(&dat, l->pairs[i].endpoint);
		rp_buf_puts(&dat, "# percentile x=1/(1-q) latency_us\n");
		for (size_t k = 0; k < sizeof(chart_q) / sizeof(chart_q[0]); k++) {
			double q = chart_q[k];
			double v = (q > 0 ? lathist_percentile(h, q) : (double)h->min_ns) / 1e3;
			rp_buf_printf(&dat, "%g %.9g %.6g\n", q, 1.0 / (1.0 - q / 100.0), v);
		}
		rp_buf_puts(&dat, "\n\n");
		rp_buf_printf(&plot, "%s'%%s.dat' index %zu using 2:3 with linespoints title ",
			      n ? ", \\\n     " : "plot ", n);
		rp_gp_quote(&plot, l->pairs[i].endpoint);
		n++;
	}
	cg_gp_header(&gp, o, c);
	rp_buf_puts(&gp, "set xlabel 'percentile'\nset ylabel 'latency (us)'\n"
			 "set logscale x 10\nset logscale y 10\n"
			 "set xtics ('0' 1, '90' 10, '99' 100, '99.9' 1000, '99.99' 10000, "
			 "'99.999' 100000)\n");
	cg_gp_key_margin(&gp, n);
	cg_add_plot(&gp, &plot, c->name);
	rp_buf_puts(&gp, "\n");
	int rc = cg_chart_finish(o, c, &dat, &gp, n ? NULL : "no request/response results", err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&plot);
	return rc;
}
