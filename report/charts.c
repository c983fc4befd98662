/* charts: see charts.h. The .dat files hold one gnuplot data block per series (blocks
 * separated by two blank lines, selected with `index`), the .gp files name every series
 * explicitly, and all strings from the database are quoted with rp_gp_quote (scripts) or
 * stripped of quotes (data labels), with gnuplot's enhanced text mode off. */
#include "charts.h"

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

#include "describe.h"
#include "fmt.h"

#define MAX_SERIES 12

char *rp_gnuplot_find(char *reason, size_t n)
{
	const char *env = getenv("NETSWEEP_GNUPLOT");
	if (env && *env) {
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
	const char *path = getenv("PATH");
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

/* A label inside a .dat file: double-quoted, with quotes and control characters removed. */
static void dat_label(struct rp_buf *b, const char *s)
{
	rp_buf_add(b, "\"", 1);
	for (; s && *s; s++)
		if (*s != '"' && *s != '\\' && (unsigned char)*s >= 0x20)
			rp_buf_add(b, s, 1);
	rp_buf_add(b, "\"", 1);
}

/* A "# label" comment line in a .dat file: characters below 0x20 (a newline in an instance
 * type or a matrix value) are dropped, so the label cannot start a data line. */
static void dat_comment(struct rp_buf *b, const char *s)
{
	rp_buf_add(b, "# ", 2);
	for (; s && *s; s++)
		if ((unsigned char)*s >= 0x20)
			rp_buf_add(b, s, 1);
	rp_buf_add(b, "\n", 1);
}

/* A number in a .dat file; gnuplot reads "NaN" as a missing point. */
static void dat_num(struct rp_buf *b, double v, const char *sep)
{
	if (isnan(v))
		rp_buf_printf(b, "NaN%s", sep);
	else
		rp_buf_printf(b, "%.6g%s", v, sep);
}

static int write_file(const char *dir, const char *name, const char *ext, const struct rp_buf *b,
		      struct ns_err *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	FILE *f = fopen(path, "w");
	if (!f)
		return ns_err_set(err, "%s: %s", path, strerror(errno));
	fwrite(rp_buf_str(b), 1, b->len, f);
	if (fclose(f) != 0)
		return ns_err_set(err, "%s: %s", path, strerror(errno));
	return 0;
}

static void gp_header(struct rp_buf *gp, const char *name, const char *title)
{
	rp_buf_printf(gp, "# Written by netsweep report; edit freely and rerun: gnuplot %s.gp\n"
		      "set terminal svg size 860,440 dynamic noenhanced font 'sans,11' "
		      "background '#ffffff'\nset output '%s.svg'\nset title ", name, name);
	rp_gp_quote(gp, title);
	rp_buf_puts(gp, "\nset grid\nset key below box maxcols 2\nset border 3\n"
		    "set tics nomirror\n");
}

/* Room under the plot for the key (two columns) and the x label, which gnuplot's "key below"
 * would otherwise draw over. */
static void gp_key_margin(struct rp_buf *gp, size_t entries)
{
	rp_buf_printf(gp, "set bmargin %zu\n", 5 + (entries + 1) / 2);
}

/* Runs gnuplot NAME.gp in dir under a time limit; fills c->status and c->reason. */
static void run_gnuplot(const struct rp_chart_opts *o, struct rp_chart *c)
{
	char errpath[4096], svg[4096], gp[64];
	snprintf(errpath, sizeof(errpath), "%s/.%s.gnuplot-err", o->outdir, c->name);
	snprintf(svg, sizeof(svg), "%s/%s.svg", o->outdir, c->name);
	snprintf(gp, sizeof(gp), "%s.gp", c->name);
	unlink(svg);
	pid_t pid = fork();
	if (pid < 0) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0) {
		setpgid(0, 0); /* its own group, so that a timeout kills whatever it started */
		int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		int nul = open("/dev/null", O_RDWR);
		if (fd >= 0)
			dup2(fd, 2);
		if (nul >= 0) {
			dup2(nul, 0);
			dup2(nul, 1);
		}
		if (chdir(o->outdir) != 0)
			_exit(126);
		execl(o->gnuplot, "gnuplot", gp, (char *)NULL);
		_exit(127);
	}
	struct timespec t0, now, nap = {0, 5 * 1000 * 1000};
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int st = 0, timed_out = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid || (r < 0 && errno != EINTR))
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 > o->timeout_s) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			timed_out = 1;
			break;
		}
		nanosleep(&nap, NULL);
	}
	char msg[200] = "";
	FILE *ef = fopen(errpath, "r");
	if (ef) {
		/* gnuplot's message is the last non-empty line it printed. */
		char line[200];
		while (fgets(line, sizeof(line), ef))
			if (line[0] != '\n' && line[0] != ' ')
				snprintf(msg, sizeof(msg), "%s", line);
		fclose(ef);
		msg[strcspn(msg, "\n")] = '\0';
	}
	unlink(errpath);
	struct stat sb;
	if (timed_out) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "gnuplot did not finish within %g s", o->timeout_s);
	} else if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "gnuplot failed (%s%d)%s%s",
			 WIFEXITED(st) ? "exit " : "signal ",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st), *msg ? ": " : "", msg);
	} else if (stat(svg, &sb) != 0 || sb.st_size == 0) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "gnuplot wrote no %s.svg", c->name);
	} else {
		c->status = RP_CHART_OK;
	}
}

static struct rp_chart *chart_new(struct rp_charts *cs, const char *name, const char *title,
				  const char *caption)
{
	struct rp_chart *c = &cs->items[cs->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->title, sizeof(c->title), "%s", title);
	snprintf(c->caption, sizeof(c->caption), "%s", caption);
	return c;
}

/* Writes the chart's files and renders it, or records why it has no data. */
static int chart_finish(const struct rp_chart_opts *o, struct rp_chart *c, struct rp_buf *dat,
			struct rp_buf *gp, const char *nodata, struct ns_err *err)
{
	if (dat->oom || gp->oom)
		return ns_err_set(err, "out of memory");
	if (nodata) {
		c->status = RP_CHART_NODATA;
		snprintf(c->reason, sizeof(c->reason), "%s", nodata);
		return 0;
	}
	if (write_file(o->outdir, c->name, "dat", dat, err) < 0 ||
	    write_file(o->outdir, c->name, "gp", gp, err) < 0)
		return -1;
	if (!o->gnuplot) {
		char svg[4096];
		snprintf(svg, sizeof(svg), "%s/%s.svg", o->outdir, c->name);
		unlink(svg); /* a stale chart from an earlier report would contradict this one */
		c->status = RP_CHART_NOGNUPLOT;
		snprintf(c->reason, sizeof(c->reason), "gnuplot not run");
		return 0;
	}
	run_gnuplot(o, c);
	return 0;
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
		dat_comment(dat, rp_buf_str(&lab));
		rp_buf_puts(dat, by_len ? "# length_B rcv_Mpps rcv_Gbps min_Gbps max_Gbps "
				       "wire_Mpps wire_goodput_Gbps (as v_wire_rate; NaN = no link speed)\n"
				       : "# streams med_Gbps min_Gbps max_Gbps\n");
		for (size_t k = 0; k < n; k++) {
			const struct rp_stat *g = &pts[k].c->fig[RP_RCV_BPS];
			if (!by_len) {
				rp_buf_printf(dat, "%lld %.6g %.6g %.6g\n", pts[k].x, g->med / 1e9,
					      g->min / 1e9, g->max / 1e9);
				continue;
			}
			/* The store's v_wire_rate rule: payload + 46 B, at least 64 B, + 20 B. */
			double link = (double)d->eps[pts[k].c->ep].link_bps;
			double frame = pts[k].x + 46 > 64 ? (double)pts[k].x + 46 : 64;
			rp_buf_printf(dat, "%lld ", pts[k].x);
			dat_num(dat, pts[k].c->fig[RP_RCV_PPS].med / 1e6, " ");
			rp_buf_printf(dat, "%.6g %.6g %.6g ", g->med / 1e9, g->min / 1e9, g->max / 1e9);
			dat_num(dat, link > 0 ? link / ((frame + 20) * 8) / 1e6 : NAN, " ");
			dat_num(dat, link > 0 ? link * (double)pts[k].x / (frame + 20) / 1e9 : NAN, "\n");
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

/* The plot command written by write_groups holds '%s' for the chart's name; expand it. */
static void add_plot(struct rp_buf *gp, const struct rp_buf *plot, const char *name)
{
	for (const char *p = rp_buf_str(plot); *p; p++) {
		if (p[0] == '%' && p[1] == 's') {
			rp_buf_puts(gp, name);
			p++;
		} else {
			rp_buf_add(gp, p, 1);
		}
	}
}

static int chart_streams(const struct rp_data *d, const struct rp_chart_opts *o,
			 struct rp_charts *cs, struct ns_err *err)
{
	struct rp_chart *c = chart_new(cs, "streams", "Throughput vs streams",
				       "Median receiver goodput against the number of parallel "
				       "streams, one line per instance type, protocol and pacing "
				       "setting; bars span min to max over repeats.");
	struct rp_buf dat, gp, plot;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&plot);
	size_t more;
	size_t n = write_groups(d, 0, &dat, &plot, "1:2:3:4", &more);
	gp_header(&gp, c->name, c->title);
	rp_buf_puts(&gp, "set xlabel 'parallel streams'\nset ylabel 'Gbit/s (receiver)'\n"
		    "set logscale x 2\nset yrange [0:*]\n");
	gp_key_margin(&gp, n);
	add_plot(&gp, &plot, c->name);
	rp_buf_puts(&gp, "\n");
	if (more)
		snprintf(c->caption + strlen(c->caption), sizeof(c->caption) - strlen(c->caption),
			 " %zu more series are in the data but not drawn.", more);
	int rc = chart_finish(o, c, &dat, &gp, n ? NULL : "no cases differ only in stream count",
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
	struct rp_chart *c = chart_new(cs, pps ? "pps_size" : "gbps_size",
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
	gp_header(&gp, c->name, c->title);
	/* pps spans decades between small and large packets: a log axis keeps both readable. */
	rp_buf_printf(&gp, "set xlabel 'UDP payload (bytes)'\nset ylabel '%s'\n%s"
		      "frame(x) = (x + 46 > 64 ? x + 46 : 64)\n", pps ? "Mpps (receiver)" : "Gbit/s",
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
	gp_key_margin(&gp, n + nl);
	add_plot(&gp, &fixed, c->name);
	for (size_t i = 0; n && i < nl; i++) {
		char r[32];
		rp_fmt_bps(r, sizeof(r), (double)links[i]);
		if (pps)
			rp_buf_printf(&gp, ", \\\n     %lld.0 / ((frame(x) + 20) * 8) / 1e6", links[i]);
		else
			rp_buf_printf(&gp, ", \\\n     %lld.0 * x / (frame(x) + 20) / 1e9", links[i]);
		rp_buf_printf(&gp, " with lines dashtype 2 lw 2 title 'wire rate, %s link'", r);
	}
	rp_buf_puts(&gp, "\n");
	if (n && !nl)
		snprintf(c->caption + strlen(c->caption), sizeof(c->caption) - strlen(c->caption),
			 " No link speed was declared (link_bps), so no wire-rate curve is drawn.");
	int rc = chart_finish(o, c, &dat, &gp,
			      n ? NULL : "no UDP cases differ only in packet size", err);
	rp_buf_free(&fixed);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&plot);
	return rc;
}

static int chart_dollar(const struct rp_data *d, const struct rp_cost_row *cost, size_t n_cost,
			const struct rp_chart_opts *o, struct rp_charts *cs, struct ns_err *err)
{
	struct rp_chart *c = chart_new(cs, "per_dollar", "Throughput per hourly dollar",
				       "Mbit/s of the best case per $/hour of the endpoint pair "
				       "(or of the sender, as the matrix chose), best first.");
	struct rp_buf dat, gp;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	size_t n = 0;
	rp_buf_puts(&dat, "# label Mbps_per_usd_hour Mbps usd_per_hour\n");
	for (size_t i = 0; i < n_cost; i++) {
		if (!cost[i].rank)
			continue;
		dat_label(&dat, rp_ep_label(&d->eps[cost[i].ep]));
		rp_buf_printf(&dat, " %.6g %.6g %.6g\n", cost[i].mbps_per_usd_hour, cost[i].mbps,
			      cost[i].usd_per_hour);
		n++;
	}
	gp_header(&gp, c->name, c->title);
	rp_buf_printf(&gp, "set ylabel 'Mbit/s per $/hour'\nset yrange [0:*]\nset key off\n"
		      "set xrange [-0.6:%zu.6]\n", n ? n - 1 : 0);
	rp_buf_printf(&gp, "set style fill solid 0.8 border -1\nset boxwidth 0.6\nset xtics rotate by -30\n"
		      "plot '%s.dat' using 0:2:xtic(1) with boxes lc rgb '#3b75af', \\\n"
		      "     '' using 0:2:(sprintf('%%.0f', $2)) with labels offset 0,0.8\n", c->name);
	int rc = chart_finish(o, c, &dat, &gp, n ? NULL : "no endpoint has both a price and a result",
			      err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	return rc;
}

static int chart_series(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
			struct rp_charts *cs, struct ns_err *err)
{
	long best = -1;
	for (size_t i = 0; i < d->n_cases; i++)
		if (d->cases[i].series_result_id &&
		    (best < 0 || d->cases[i].fig[RP_RCV_BPS].med > d->cases[best].fig[RP_RCV_BPS].med))
			best = (long)i;
	struct rp_buf dat, gp, lab;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&lab);
	if (best >= 0)
		rp_case_label(d, &d->cases[best], &lab);
	char caption[512];
	snprintf(caption, sizeof(caption), "Per-interval receiver goodput of the fastest case with "
		 "interval samples%s%s, one line per repeat: how stable the result was.",
		 best >= 0 ? ": " : "", rp_buf_str(&lab));
	struct rp_chart *c = chart_new(cs, "series", "Throughput over time", caption);
	struct rp_series s = {0};
	if (best >= 0 && rp_series_load(db, d->cases[best].id, &s, err) < 0)
		goto err;
	gp_header(&gp, c->name, c->title);
	rp_buf_puts(&gp, "set xlabel 'seconds'\nset ylabel 'Gbit/s (receiver)'\nset yrange [0:*]\n");
	size_t blocks = 0, longest = 0, run = 0;
	for (size_t i = 0; i < s.n; i++) {
		run = (i && s.repeat[i] == s.repeat[i - 1]) ? run + 1 : 1;
		if (run > longest)
			longest = run;
	}
	size_t repeats = 0;
	for (size_t i = 0; i < s.n; i++)
		repeats += i == 0 || s.repeat[i] != s.repeat[i - 1];
	gp_key_margin(&gp, repeats);
	for (size_t i = 0; longest >= 2 && i < s.n; i++) {
		if (i == 0 || s.repeat[i] != s.repeat[i - 1]) {
			if (i)
				rp_buf_puts(&dat, "\n\n");
			rp_buf_printf(&dat, "# repeat %d\n# t_end_s Gbps\n", s.repeat[i]);
			rp_buf_printf(&gp, "%s'%s.dat' index %zu using 1:2 with linespoints "
				      "title 'repeat %d'", blocks ? ", \\\n     " : "plot ", c->name,
				      blocks, s.repeat[i]);
			blocks++;
		}
		rp_buf_printf(&dat, "%.6g %.6g\n", s.t_end[i], s.bps[i] / 1e9);
	}
	rp_buf_puts(&gp, "\n");
	size_t n_samples = s.n;
	rp_series_free(&s);
	int rc = chart_finish(o, c, &dat, &gp, blocks ? NULL : n_samples ? "the charted case has fewer "
			      "than 2 intervals per repeat" : "no case has interval samples", err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return rc;
err:
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return -1;
}

static int chart_cpu(const struct rp_data *d, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err)
{
	struct rp_chart *c = chart_new(cs, "cpu", "CPU vs throughput",
				       "Sender and receiver CPU (% of one core, median over repeats) "
				       "against receiver goodput, one point per case.");
	struct rp_buf dat, gp;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	size_t n = 0;
	rp_buf_puts(&dat, "# Gbps snd_cpu_pct rcv_cpu_pct (NaN = not measured)\n");
	for (size_t i = 0; i < d->n_cases; i++) {
		const struct rp_case *k = &d->cases[i];
		double g = k->fig[RP_RCV_BPS].med, s = k->fig[RP_SND_CPU].med, r = k->fig[RP_RCV_CPU].med;
		if (isnan(g) || (isnan(s) && isnan(r)))
			continue;
		dat_num(&dat, g / 1e9, " ");
		dat_num(&dat, s, " ");
		dat_num(&dat, r, "\n");
		n++;
	}
	gp_header(&gp, c->name, c->title);
	rp_buf_printf(&gp, "set xlabel 'Gbit/s (receiver)'\nset ylabel '%% of one core'\n"
		      "set yrange [0:*]\nset xrange [0:*]\nset bmargin 6\n"
		      "plot '%s.dat' using 1:2 with points pt 7 title 'sender CPU', \\\n"
		      "     '' using 1:3 with points pt 5 title 'receiver CPU'\n", c->name);
	int rc = chart_finish(o, c, &dat, &gp, n ? NULL : "no case recorded CPU use", err);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	return rc;
}

static int chart_trend(sqlite3 *db, const struct rp_data *d, const struct rp_chart_opts *o,
		       struct rp_charts *cs, struct ns_err *err)
{
	char caption[512];
	snprintf(caption, sizeof(caption), "Median receiver goodput of up to 6 cases over the last "
		 "%zu runs of this matrix, as %% of each case's value in the oldest run shown "
		 "(regressed cases first, then the fastest).", o->trend_runs);
	struct rp_chart *c = chart_new(cs, "trend", "Trend over recent runs", caption);
	/* Pick the keys: regressions first, then the highest medians. */
	const char *keys[6];
	size_t idx[6], nk = 0;
	if (o->cmp)
		for (size_t i = 0; i < o->cmp->n && nk < 6; i++)
			if (o->cmp->rows[i].verdict == RP_REGRESSION)
				idx[nk++] = o->cmp->rows[i].cur;
	while (nk < 6) {
		long best = -1;
		for (size_t i = 0; i < d->n_cases; i++) {
			int taken = 0;
			for (size_t k = 0; k < nk; k++)
				taken |= idx[k] == i;
			if (!taken && !isnan(d->cases[i].fig[RP_RCV_BPS].med) &&
			    (best < 0 || d->cases[i].fig[RP_RCV_BPS].med > d->cases[best].fig[RP_RCV_BPS].med))
				best = (long)i;
		}
		if (best < 0)
			break;
		idx[nk++] = (size_t)best;
	}
	for (size_t k = 0; k < nk; k++)
		keys[k] = d->cases[idx[k]].case_key ? d->cases[idx[k]].case_key : "";
	struct rp_trend t;
	if (rp_trend_load(db, d, keys, nk, o->trend_runs, &t, err) < 0)
		return -1;
	struct rp_buf dat, gp, lab;
	rp_buf_init(&dat);
	rp_buf_init(&gp);
	rp_buf_init(&lab);
	gp_header(&gp, c->name, c->title);
	/* Each case relative to its oldest value shown, so that a 478 Mbit/s case and a
	 * 30 Gbit/s one share an axis and a drop in either is visible. */
	rp_buf_puts(&gp, "set xlabel 'run'\nset ylabel '% of the case in the oldest run shown'\n"
		    "set yrange [0:*]\nset xtics rotate by -30\nset offsets 0.3, 0.3, 0, 0\n");
	gp_key_margin(&gp, t.n_runs >= 2 ? nk : 0);
	size_t blocks = 0;
	for (size_t k = 0; t.n_runs >= 2 && k < nk; k++) {
		rp_buf_reset(&lab);
		rp_case_label(d, &d->cases[idx[k]], &lab);
		dat_comment(&dat, rp_buf_str(&lab));
		rp_buf_puts(&dat, "# ordinal run_label Gbps percent_of_oldest\n");
		double ref = NAN;
		for (size_t r = 0; r < t.n_runs && isnan(ref); r++)
			ref = t.vals[k * t.n_runs + r];
		for (size_t r = 0; r < t.n_runs; r++) {
			double v = t.vals[k * t.n_runs + r];
			/* NaN keeps the x position but draws no point. */
			rp_buf_printf(&dat, "%zu \"#%lld\" ", r, t.run_ids[r]);
			dat_num(&dat, v / 1e9, " ");
			dat_num(&dat, ref > 0 ? v / ref * 100 : NAN, "\n");
		}
		rp_buf_puts(&dat, "\n\n");
		rp_buf_printf(&gp, "%s'%s.dat' index %zu using 1:4:xtic(2) with linespoints title ",
			      blocks ? ", \\\n     " : "plot ", c->name, blocks);
		rp_gp_quote(&gp, rp_buf_str(&lab));
		blocks++;
	}
	rp_buf_puts(&gp, "\n");
	int rc = chart_finish(o, c, &dat, &gp, blocks ? NULL : "fewer than 2 runs of this matrix",
			      err);
	rp_trend_free(&t);
	rp_buf_free(&dat);
	rp_buf_free(&gp);
	rp_buf_free(&lab);
	return rc;
}

/* Rate searches: NDR/PDR packets/s against payload size, the unpaced figure and the wire
 * rate beside them. No chart at all when the run has no search. */
static int chart_search(const struct rp_search *s, const struct rp_chart_opts *o,
			struct rp_charts *cs, struct ns_err *err)
{
	if (!s || !s->n)
		return 0;
	struct rp_chart *c = chart_new(cs, "search_size", "Zero-loss packet rate vs packet size",
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
	gp_header(&gp, c->name, c->title);
	rp_buf_puts(&gp, "set xlabel 'UDP payload (bytes)'\nset ylabel 'Mpps offered'\n"
		    "set logscale x 2\nset logscale y\nset samples 200\n");
	gp_key_margin(&gp, n * (s->rows[0].n_goals + 1) + 1);
	add_plot(&gp, &plot, c->name);
	rp_buf_puts(&gp, "\n");
	int rc = chart_finish(o, c, &dat, &gp, n ? NULL : "no searches", err);
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
	if (chart_streams(d, o, out, err) < 0 || chart_size(d, o, out, 1, err) < 0 ||
	    chart_size(d, o, out, 0, err) < 0 || chart_dollar(d, cost, n_cost, o, out, err) < 0 ||
	    chart_series(db, d, o, out, err) < 0 || chart_cpu(d, o, out, err) < 0)
		return -1;
	if (o->trend_runs >= 2 && chart_trend(db, d, o, out, err) < 0)
		return -1;
	if (chart_search(o->search, o, out, err) < 0)
		return -1;
	return 0;
}
