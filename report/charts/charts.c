/* charts: see charts.h. The .dat files hold one gnuplot data block per series (blocks
 * separated by two blank lines, selected with `index`), the .gp files name every series
 * explicitly, and all strings from the database are quoted with rp_gp_quote (scripts) or
 * stripped of quotes (data labels), with gnuplot's enhanced text mode off. */
#include "report/charts/charts.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/charts/search_chart.h"
#include "report/charts/charts_gp.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "lib/settings.h"

#define MAX_SERIES 12

char *rp_gnuplot_find(char *reason, size_t n)
{
	const char *env = settings_get()->gnuplot;
	if (env) {
		if (strcmp(env, "none") == 0) {
			snprintf(reason, n, "disabled by NETSWEEP_GNUPLOT=none");
			return NULL;
		}
		if (access(env, X_OK) != 0) {
			snprintf(reason, n, "NETSWEEP_GNUPLOT=%s is not an executable program", env);
			return NULL;
		}
		return strdup(env);
	}
	const char *path = settings_get()->path;
	struct rp_buf b;
	rp_buf_init(&b);
	for (const char *p = path ? path : ""; *p;) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		rp_buf_reset(&b);
		rp_buf_add(&b, len ? p : ".", len ? len : 1);
		rp_buf_puts(&b, "/gnuplot");
		if (!b.oom && access(rp_buf_str(&b), X_OK) == 0) {
			char *found = strdup(rp_buf_str(&b));
			rp_buf_free(&b);
			return found;
		}
		p += len + (end ? 1 : 0);
		if (!end)
			break;
	}
	rp_buf_free(&b);
	snprintf(reason, n, "gnuplot was not found on PATH");
	return NULL;
}

/* Series label of a group: the case label without its stream count or length, whichever
 * the chart puts on x. */
static void series_label(const struct rp_data *d, const struct rp_case *c, int drop_len,
			 struct rp_buf *b)
{
	char r[32];
	rp_buf_printf(b, "%s %s %s", rp_ep_label(&d->eps[c->ep]), c->protocol, c->direction);
	if (drop_len)
		rp_buf_printf(b, " %lld stream%s", c->streams, c->streams == 1 ? "" : "s");
	else if (c->length)
		rp_buf_printf(b, " %lld B", c->length);
	if (c->fq_rate_bps) {
		rp_fmt_rate_opt(r, sizeof(r), c->fq_rate_bps);
		rp_buf_printf(b, " fq %s", r);
	}
	if (c->rate_bps) {
		rp_fmt_rate_opt(r, sizeof(r), c->rate_bps);
		rp_buf_printf(b, " rate %s", r);
	}
	if (c->gso)
		rp_buf_puts(b, " gso");
}

static int same_except(const struct rp_case *a, const struct rp_case *b, int except_len)
{
	return a->ep == b->ep && (except_len || a->length == b->length) &&
	       (!except_len || a->streams == b->streams) && a->rate_bps == b->rate_bps &&
	       a->fq_rate_bps == b->fq_rate_bps && a->window == b->window && a->gso == b->gso &&
	       (except_len ? a->threads == b->threads : 1) &&
	       !strcmp(a->protocol, b->protocol) && !strcmp(a->direction, b->direction) &&
	       !strcmp(a->affinity ? a->affinity : "", b->affinity ? b->affinity : "");
}

struct xy {
	long long x;
	const struct rp_case *c;
};

static int cmp_xy(const void *a, const void *b)
{
	const struct xy *p = a, *q = b;
	return (p->x > q->x) - (p->x < q->x);
}

/* Groups cases that differ only in x (streams or UDP length) into series of >= 2 points and
 * writes them as data blocks; returns the number of series written. */
static size_t write_groups(const struct rp_data *d, int by_len, struct rp_buf *dat,
			   struct rp_buf *plot, const char *ycols, size_t *more)
{
	char *used = calloc(d->n_cases + 1, 1);
	struct xy *pts = malloc((d->n_cases + 1) * sizeof(*pts));
	size_t series = 0;
	*more = 0;
	if (!used || !pts) {
		dat->oom = 1;
		goto out;
	}
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *c0 = &d->cases[i];
		if (used[i] || isnan(c0->fig[RP_RCV_BPS].med) ||
		    (by_len && (strcmp(c0->protocol, "udp") != 0 || !c0->length)))
			continue;
		size_t n = 0;
		for (size_t j = i; j < d->n_cases; j++) {
			const struct rp_case *c = &d->cases[j];
			if (used[j] || isnan(c->fig[RP_RCV_BPS].med) || !same_except(c0, c, by_len) ||
			    (by_len && !c->length))
				continue;
			used[j] = 1;
			pts[n++] = (struct xy){by_len ? c->length : c->streams, c};
		}
		qsort(pts, n, sizeof(*pts), cmp_xy);
		if (n < 2 || pts[0].x == pts[n - 1].x)
			continue;
		if (series >= MAX_SERIES) {
			(*more)++;
			continue;
		}
		struct rp_buf lab;
		rp_buf_init(&lab);
		series_label(d, c0, by_len, &lab);
		cg_dat_comment(dat, rp_buf_str(&lab));
		if (by_len)
			rp_buf_printf(dat, "# length_B rcv_Mpps rcv min max wire_Mpps wire_goodput "
				      "(%s; wire as v_wire_rate; NaN = no link speed)\n", d->unit.name);
		else
			rp_buf_printf(dat, "# streams med min max (%s)\n", d->unit.name);
		for (size_t k = 0; k < n; k++) {
			const struct rp_stat *g = &pts[k].c->fig[RP_RCV_BPS];
			double u = d->unit.div;
			if (!by_len) {
				rp_buf_printf(dat, "%lld %.6g %.6g %.6g\n", pts[k].x, g->med / u,
					      g->min / u, g->max / u);
				continue;
			}
			/* The store's v_wire_rate rule: payload + 46 B, at least 64 B, + 20 B. */
			double link = (double)d->eps[pts[k].c->ep].link_bps;
			double frame = pts[k].x + 46 > 64 ? (double)pts[k].x + 46 : 64;
			rp_buf_printf(dat, "%lld ", pts[k].x);
			cg_dat_num(dat, pts[k].c->fig[RP_RCV_PPS].med / 1e6, " ");
			rp_buf_printf(dat, "%.6g %.6g %.6g ", g->med / u, g->min / u, g->max / u);
			cg_dat_num(dat, link > 0 ? link / ((frame + 20) * 8) / 1e6 : NAN, " ");
			cg_dat_num(dat, link > 0 ? link * (double)pts[k].x / (frame + 20) / u : NAN, "\n");
		}
		rp_buf_puts(dat, "\n\n");
		rp_buf_printf(plot, "%s'%%s.dat' index %zu using %s with yerrorlines title ",
			      series ? ", \\\n     " : "plot ", series, ycols);
		rp_gp_quote(plot, rp_buf_str(&lab));
		if (lab.oom)
			dat->oom = 1;
		rp_buf_free(&lab);
		series++;
	}
out:
	free(used);
	free(pts);
	return series;
}

/* Medians more than this far apart: a log y axis. */
#define CHART_LOG_SPREAD 20.0

static int chart_streams(const struct rp_data *d, const struct rp_chart_opts *o,
			 struct rp_charts *cs, struct ns_err *err)
{
	struct rp_chart *c = cg_chart_new(cs, o, "streams", "Throughput vs streams",
				       "Median receiver goodput against the number of parallel "
				       "streams, one line per instance type, protocol and pacing "
				       "setting; bars span min to max over repeats.");
	struct rp_buf dat, gp, plot;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&plot);
	size_t more;
	size_t n = write_groups(d, 0, &dat, &plot, "1:2:3:4", &more);
	cg_gp_header(&gp, o, c);
	/* Stream counts double from one case to the next: a log-2 axis spaces them evenly. Lines
	 * far apart (TCP at tens of Gbit/s, UDP paced at 500 Mbit/s) share a log axis, or the
	 * slow ones lie flat on zero. */
	double lo = NAN, hi = NAN;
	for (size_t i = 0; i < d->n_cases; i++) {
		double v = d->cases[i].fig[RP_RCV_BPS].med;
		if (v > 0 && !d->cases[i].rr) {
			lo = isnan(lo) || v < lo ? v : lo;
			hi = isnan(hi) || v > hi ? v : hi;
		}
	}
	int spread = !isnan(lo) && hi / lo > CHART_LOG_SPREAD;
	rp_buf_printf(&gp, "set xlabel 'parallel streams'\nset ylabel '%s (receiver%s)'\n"
		      "set logscale x 2\n%s\nset offsets graph 0.05, graph 0.05, 0, 0\n",
		      d->unit.name, spread ? ", log scale" : "",
		      spread ? "set logscale y 10\nset yrange [*:*]" : "set yrange [0:*]");
	cg_gp_key_margin(&gp, n);
	cg_add_plot(&gp, &plot, c->name);
	rp_buf_puts(&gp, "\n");
	if (more)
		snprintf(c->caption + strlen(c->caption), sizeof(c->caption) - strlen(c->caption),
			 " %zu more series are in the data but not drawn.", more);
	int rc = cg_chart_finish(o, c, &dat, &gp, n ? NULL : "no cases differ only in stream count",
			      err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&plot);
	return rc;
}

/* Distinct declared link speeds of endpoints with UDP cases (for wire-rate curves). */
static size_t link_speeds(const struct rp_data *d, long long *out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n_cases; i++) {
		long long l = d->eps[d->cases[i].ep].link_bps;
		if (l <= 0 || strcmp(d->cases[i].protocol, "udp") != 0)
			continue;
		size_t k = 0;
		while (k < n && out[k] != l)
			k++;
		if (k == n && n < max)
			out[n++] = l;
	}
	return n;
}

static int chart_size(const struct rp_data *d, const struct rp_chart_opts *o,
		      struct rp_charts *cs, int pps, struct ns_err *err)
{
	struct rp_chart *c = cg_chart_new(cs, o, pps ? "pps_size" : "gbps_size",
				       pps ? "Packets/s vs packet size" : "Goodput vs packet size",
				       pps ? "Received UDP datagrams per second against payload size, "
					     "with the theoretical wire rate of the declared link "
					     "(frame = payload + 46 B, at least 64 B, plus 20 B "
					     "preamble and gap)."
					   : "Received UDP goodput against payload size, with the "
					     "payload rate the declared link carries at wire rate.");
	struct rp_buf dat, gp, plot;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&plot);
	size_t more;
	size_t n = write_groups(d, 1, &dat, &plot, pps ? "1:2" : "1:3:4:5", &more);
	cg_gp_header(&gp, o, c);
	/* pps spans decades between small and large packets: a log axis keeps both readable. */
	rp_buf_printf(&gp, "set xlabel 'UDP payload (bytes)'\nset ylabel '%s'\nset logscale x 2\n%s"
		      "frame(x) = (x + 46 > 64 ? x + 46 : 64)\n", pps ? "Mpps (receiver)" : d->unit.name,
		      pps ? "set logscale y\nset samples 200\n" : "set yrange [0:*]\nset samples 200\n");
	/* With only medians (no spread) yerrorlines needs 3 columns; pps uses linespoints. */
	struct rp_buf fixed;
	rp_buf_init(&fixed);
	const char *p = rp_buf_str(&plot);
	for (; *p; p++) {
		if (pps && !strncmp(p, "yerrorlines", 11)) {
			rp_buf_puts(&fixed, "linespoints");
			p += 10;
		} else {
			rp_buf_add(&fixed, p, 1);
		}
	}
	long long links[3];
	size_t nl = link_speeds(d, links, 3);
	cg_gp_key_margin(&gp, n + nl);
	cg_add_plot(&gp, &fixed, c->name);
	for (size_t i = 0; n && i < nl; i++) {
		char r[32];
		rp_fmt_bps(r, sizeof(r), (double)links[i]);
		if (pps)
			rp_buf_printf(&gp, ", \\\n     %lld.0 / ((frame(x) + 20) * 8) / 1e6", links[i]);
		else
			rp_buf_printf(&gp, ", \\\n     %lld.0 * x / (frame(x) + 20) / %g", links[i],
				      d->unit.div);
		rp_buf_printf(&gp, " with lines dashtype 2 lw 2 title 'wire rate, %s link'", r);
	}
	rp_buf_puts(&gp, "\n");
	if (n && !nl)
		snprintf(c->caption + strlen(c->caption), sizeof(c->caption) - strlen(c->caption),
			 " No link speed was declared (link_bps), so no wire-rate curve is drawn.");
	int rc = cg_chart_finish(o, c, &dat, &gp,
			      n ? NULL : "no UDP cases differ only in packet size", err);
	rp_buf_free(&fixed);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&plot);
	return rc;
}

/* The per-dollar chart of one currency (cur), its pairs alone: two currencies never share an
 * axis. The first currency's chart is per_dollar, another's per_CODE ("per_eur"). */
static int chart_dollar_in(const struct rp_data *d, const struct rp_cost_row *cost,
			   size_t n_cost, const char *cur, int first, size_t n_cur,
			   const struct rp_chart_opts *o, struct rp_charts *cs, struct ns_err *err)
{
	const char *m = rp_money(cur), *word = rp_money_word(cur);
	char caption[640], name[32], title[96], ylabel[48];
	snprintf(caption, sizeof(caption), "Mbit/s per %s/hour of each pair's ranked case (%s), "
		 "per hourly %s of the pair (or of the sender, as the matrix chose), best "
		 "first; the ranked case is named under each bar.%s", m,
		 o->rank_rule ? o->rank_rule : "its best case: the highest median goodput", word,
		 n_cur > 1 ? " Only the pairs priced in this currency: each currency has its own "
		 "chart and ranking, never one axis for two." : "");
	if (first) {
		snprintf(name, sizeof(name), "per_dollar");
	} else {
		snprintf(name, sizeof(name), "per_%s", rp_money_code(cur));
		for (char *p = name; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
	}
	snprintf(title, sizeof(title), "Throughput per hourly %s", word);
	/* gnuplot's fonts may lack a symbol: the code on the axis, never "$" for another money */
	snprintf(ylabel, sizeof(ylabel), "Mbit/s per %s/hour", !strcmp(m, "$") ? "$"
		 : rp_money_code_ok(cur) ? rp_money_code(cur) : "price unit");
	struct rp_chart *c = cg_chart_new(cs, o, name, title, caption);
	struct rp_buf dat, gp, lab;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&lab);
	size_t n = 0;
	double top = 0;
	if (!strcmp(rp_money_code(cur), "USD"))
		rp_buf_puts(&dat, "# label Mbps_per_usd_hour Mbps usd_per_hour\n");
	else
		rp_buf_printf(&dat, "# label Mbps_per_hour Mbps per_hour (in %s)\n",
			      rp_money_code_ok(cur) ? rp_money_code(cur) : "its currency");
	for (size_t i = 0; i < n_cost; i++) {
		if (!cost[i].rank || !rp_money_same(cost[i].currency, cur))
			continue;
		rp_buf_reset(&lab);
		rp_buf_puts(&lab, rp_ep_label(&d->eps[cost[i].ep]));
		if (cost[i].best_case >= 0) {
			rp_buf_puts(&lab, ": ");
			rp_case_label_short(d, &d->cases[cost[i].best_case], &lab);
		}
		cg_dat_label(&dat, rp_buf_str(&lab));
		rp_buf_printf(&dat, " %.6g %.6g %.6g\n", cost[i].mbps_per_usd_hour, cost[i].mbps,
			      cost[i].usd_per_hour);
		if (cost[i].mbps_per_usd_hour > top)
			top = cost[i].mbps_per_usd_hour;
		n++;
	}
	cg_gp_header(&gp, o, c);
	/* Bars across, best on top, each named above its bar and its figure at its end: a pair
	 * and case name under a rotated bar ran into the next and off the chart's edge. The
	 * chart grows a row per bar; the axis leaves a fifth more room for the figures. */
	rp_buf_printf(&gp, "set terminal svg size %d,%zu dynamic noenhanced font 'sans,%d' "
		      "background '#ffffff'\n", CG_WIDTH, 110 + (n ? n : 1) * 52, CG_FONT_PX);
	rp_buf_puts(&gp, "set xlabel ");
	rp_gp_quote(&gp, ylabel);
	rp_buf_printf(&gp, "\nset key off\nunset ytics\n"
		      "set border 1\nset lmargin 2\nset rmargin 4\nset grid noytics\n"
		      "set yrange [%zu.5:-0.8]\n", n ? n - 1 : 0);
	if (top > 0)
		rp_buf_printf(&gp, "set xrange [0:%.6g]\n", top * 1.2);
	else
		rp_buf_puts(&gp, "set xrange [0:*]\n");
	rp_buf_printf(&gp, "set style fill solid 0.8 border -1\n"
		      "plot '%s.dat' using (0):0:(0):2:($0-0.2):($0+0.2) with boxxyerror "
		      "lc rgb '#0072B2' notitle, \\\n"
		      "     '' using (0):($0-0.42):1 with labels left notitle, \\\n"
		      "     '' using 2:0:(sprintf('%%.0f', $2)) with labels left offset 0.5,0 "
		      "notitle\n", c->name);
	int rc = cg_chart_finish(o, c, &dat, &gp, n ? NULL : "no endpoint has both a price and a result",
			      err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return rc;
}

/* One per-dollar chart per currency of the ranking (its rows come grouped by currency, US
 * dollars first); one chart, per dollar, when nothing is priced. */
static int chart_dollar(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
			const struct rp_chart_opts *o, struct rp_charts *cs, struct ns_err *err)
{
	const char *curs[4];
	size_t n_cur = 0;
	for (size_t i = 0; i < n_cost; i++)
		if (cost[i].rank == 1 && (!n_cur || !rp_money_same(curs[n_cur - 1], cost[i].currency)) &&
		    n_cur < sizeof(curs) / sizeof(curs[0]))
			curs[n_cur++] = rp_money_code(cost[i].currency);
	if (!n_cur)
		return chart_dollar_in(d, cost, n_cost, "USD", 1, 1, o, cs, err);
	for (size_t k = 0; k < n_cur; k++)
		if (cs->n < RP_MAX_CHARTS - 6 &&
		    chart_dollar_in(d, cost, n_cost, curs[k], k == 0, n_cur, o, cs, err) < 0)
			return -1;
	return 0;
}

static int chart_cpu(const struct rp_data *d, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err)
{
	struct rp_chart *c = cg_chart_new(cs, o, "cpu", "CPU vs throughput",
				       "Sender and receiver CPU (% of one core, median over repeats) "
				       "against receiver goodput, one point per case.");
	struct rp_buf dat, gp;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	size_t n = 0;
	rp_buf_printf(&dat, "# %s snd_cpu_pct rcv_cpu_pct (NaN = not measured)\n", d->unit.name);
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *k = &d->cases[i];
		double g = k->fig[RP_RCV_BPS].med, s = k->fig[RP_SND_CPU].med, r = k->fig[RP_RCV_CPU].med;
		if (isnan(g) || (isnan(s) && isnan(r)))
			continue;
		cg_dat_num(&dat, g / d->unit.div, " ");
		cg_dat_num(&dat, s, " ");
		cg_dat_num(&dat, r, "\n");
		n++;
	}
	cg_gp_header(&gp, o, c);
	cg_gp_key_margin(&gp, 2);
	rp_buf_printf(&gp, "set xlabel '%s (receiver)'\nset ylabel '%% of one core'\n"
		      "set yrange [0:*]\nset xrange [0:*]\n"
		      "plot '%s.dat' using 1:2 with points pt 7 title 'sender CPU', \\\n"
		      "     '' using 1:3 with points pt 5 title 'receiver CPU'\n", d->unit.name, c->name);
	int rc = cg_chart_finish(o, c, &dat, &gp, n ? NULL : "no case recorded CPU use", err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	return rc;
}

/* Rate searches: NDR/PDR packets/s against payload size, the unpaced figure and the wire
 * rate beside them. No chart at all when the run has no search. */
static int chart_search(const struct rp_search *s, const struct rp_chart_opts *o,
			struct rp_charts *cs, struct ns_err *err)
{
	if (!s || !s->n)
		return 0;
	struct rp_chart *c = cg_chart_new(cs, o, "search_size", "Zero-loss packet rate vs packet size",
				       "Highest offered UDP packets/s meeting each loss goal (NDR: "
				       "none lost; PDR: under the ratio) against payload size, with "
				       "what arrived when the sender ran unpaced and the wire rate of "
				       "the declared link (frame = payload + 46 B, at least 64 B, plus "
				       "20 B preamble and gap).");
	struct rp_buf dat, gp, plot;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&plot);
	size_t n = rp_search_chart(s, c->name, &dat, &plot);
	cg_gp_header(&gp, o, c);
	rp_buf_puts(&gp, "set xlabel 'UDP payload (bytes)'\nset ylabel 'Mpps offered'\n"
		    "set logscale x 2\nset logscale y\nset samples 200\n");
	cg_gp_key_margin(&gp, n * (s->rows[0].n_goals + 1) + 1);
	cg_add_plot(&gp, &plot, c->name);
	rp_buf_puts(&gp, "\n");
	int rc = cg_chart_finish(o, c, &dat, &gp, n ? NULL : "no searches", err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&plot);
	return rc;
}

/* A group case's throughput and fairness against its number of clients (incast, fan-out, the
 * clients axis): the total's median on the left axis, Jain's index on the right, one pair of
 * lines per pair and protocol. No chart at all when the run has no group case. */
static int chart_fairness(const struct rp_data *d, const struct rp_chart_opts *o,
			  struct rp_charts *cs, struct ns_err *err)
{
	size_t n = 0, series = 0;
	for (size_t i = 0; i < d->n_cases; i++)
		n += d->cases[i].clients > 0;
	if (!n)
		return 0;
	struct rp_chart *c = cg_chart_new(cs, o, "fairness", "Throughput and fairness vs clients",
					  "The clients' total (median over repeats, left axis) and "
					  "Jain's fairness index over the clients (right axis: 1 = "
					  "equal shares) against the number of clients sending at once.");
	struct rp_buf dat, gp, plot;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&plot);
	char *done = calloc(d->n_cases, 1);
	if (!done)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *a = &d->cases[i];
		if (done[i] || a->clients <= 0)
			continue;
		char title[200];
		snprintf(title, sizeof(title), "%.120s %s", rp_ep_label(&d->eps[a->ep]), a->protocol);
		rp_buf_printf(&dat, "# %s: clients %s jain\n", title, d->unit.name);
		for (long long last = 0;;) { /* this pair and protocol's cases by clients */
			size_t best = d->n_cases;
			for (size_t k = i; k < d->n_cases; k++) {
				const struct rp_case *b = &d->cases[k];
				if (!done[k] && b->clients > last && b->ep == a->ep &&
				    !strcmp(b->protocol, a->protocol) &&
				    (best == d->n_cases || b->clients < d->cases[best].clients))
					best = k;
			}
			if (best == d->n_cases)
				break;
			const struct rp_case *b = &d->cases[best];
			done[best] = 1;
			last = b->clients;
			rp_buf_printf(&dat, "%lld ", b->clients);
			cg_dat_num(&dat, b->fig[RP_RCV_BPS].med / d->unit.div, " ");
			cg_dat_num(&dat, b->fig[RP_JAIN].med, "\n");
		}
		rp_buf_puts(&dat, "\n\n");
		rp_buf_printf(&plot, "%s'%%s.dat' index %zu using 1:2 with linespoints lw 2 title ",
			      series ? ", \\\n     " : "plot ", series);
		rp_gp_quote(&plot, title);
		rp_buf_printf(&plot, ", \\\n     '%%s.dat' index %zu using 1:3 axes x1y2 with "
			      "linespoints dt 2 lw 2 title ", series);
		snprintf(title + strlen(title), sizeof(title) - strlen(title), ": Jain's index");
		rp_gp_quote(&plot, title);
		series++;
	}
	free(done);
	cg_gp_header(&gp, o, c);
	rp_buf_printf(&gp, "set xlabel 'clients'\nset ylabel '%s (total, receiver)'\n"
		      "set y2label \"Jain's index\"\nset yrange [0:*]\nset y2range [0:1.05]\n"
		      "set ytics nomirror\nset y2tics 0.25\nset xtics 1\n"
		      "set offsets graph 0.05, graph 0.05, 0, 0\n", d->unit.name);
	cg_gp_key_margin(&gp, 2 * series);
	cg_add_plot(&gp, &plot, c->name);
	rp_buf_puts(&gp, "\n");
	int rc = cg_chart_finish(o, c, &dat, &gp, NULL, err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&plot);
	return rc;
}

int rp_charts_make(sqlite3 *db, const struct rp_data *d, const struct rp_cost_row *cost,
		   size_t n_cost, const struct rp_chart_opts *o, struct rp_charts *out,
		   struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	if (chart_fairness(d, o, out, err) < 0 || chart_streams(d, o, out, err) < 0 || chart_size(d, o, out, 1, err) < 0 ||
	    chart_size(d, o, out, 0, err) < 0 || chart_dollar(d, cost, n_cost, o, out, err) < 0 ||
	    rp_chart_series(db, d, o, out, err) < 0 || rp_chart_clients(db, d, o, out, err) < 0 ||
	    chart_cpu(d, o, out, err) < 0)
		return -1;
	if (o->trend_runs >= 2 && rp_chart_trend(db, d, o, out, err) < 0)
		return -1;
	if (chart_search(o->search, o, out, err) < 0)
		return -1;
	return 0;
}
