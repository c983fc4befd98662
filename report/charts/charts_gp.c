/* charts_gp: see charts_gp.h. */
#include "report/charts/charts_gp.h"

#include <errno.h>
#include <limits.h>
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

#include "lib/atomicfile.h"
#include "lib/sys/proc.h"
#include "lib/textesc.h"

/* A label inside a .dat file: double-quoted, quotes and backslashes removed, a control
 * character or a byte that is not UTF-8 shown as U+FFFD. */
void cg_dat_label(struct rp_buf *b, const char *s)
{
	rp_buf_add(b, "\"", 1);
	for (size_t take; s && *s; s += take) {
		/* a control character or a byte that is not UTF-8 (lib/textesc.h) is U+FFFD here:
		 * its escape's backslash has no place in the quoted label */
		char esc[8];
		take = textesc_step(s, esc, 0);
		if (esc[0])
			rp_buf_puts(b, "\xef\xbf\xbd");
		else if (*s != '"' && *s != '\\')
			rp_buf_add(b, s, take);
	}
	rp_buf_add(b, "\"", 1);
}

/* A "# label" comment line in a .dat file: control characters (a newline in an instance type
 * or a matrix value) shown as lib/textesc.h's escapes, so the label cannot start a data line. */
void cg_dat_comment(struct rp_buf *b, const char *s)
{
	rp_buf_add(b, "# ", 2);
	char *esc = textesc_dup(s ? s : ""); /* lib/textesc.h: no newline, valid UTF-8 */
	if (!esc)
		b->oom = 1;
	else
		rp_buf_puts(b, esc);
	free(esc);
	rp_buf_add(b, "\n", 1);
}

/* A number in a .dat file; gnuplot reads "NaN" as a missing point. */
void cg_dat_num(struct rp_buf *b, double v, const char *sep)
{
	if (isnan(v))
		rp_buf_printf(b, "NaN%s", sep);
	else
		rp_buf_printf(b, "%.6g%s", v, sep);
}

int cg_write_file(const char *dir, const char *name, const char *ext, const struct rp_buf *b,
		      struct ns_err *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	return atomicfile_write(path, rp_buf_str(b), b->len, 0644, 0, err);
}

void cg_gp_header(struct rp_buf *gp, const struct rp_chart_opts *o, const struct rp_chart *c)
{
	rp_buf_printf(gp, "# Written by netsweep report; edit freely and rerun: gnuplot %s.gp\n# ",
		      c->name);
	cg_dat_comment(gp, c->title);
	rp_buf_printf(gp, "set terminal svg size %d,%d dynamic noenhanced font 'sans,%d' "
		      "background '#ffffff'\n"
		      "if (!exists(\"outfile\")) outfile = '%s.svg'\nset output outfile\n", CG_WIDTH, CG_HEIGHT,
		      CG_FONT_PX, c->name);
	if (o->lab_scale) {
		/* the scale as stored, quoted by rp_gp_quote (control characters and a character
		 * the 16 bytes cut in half as escapes); short enough to fit over the plot */
		char t[64];
		snprintf(t, sizeof(t), "Emulated: netsweep lab at scale %.16s", o->lab_scale);
		rp_buf_puts(gp, "set title ");
		rp_gp_quote(gp, t);
		rp_buf_puts(gp, "\n");
	}
	/* Okabe and Ito's colour-blind-safe palette (yellow left out: unreadable on white). */
	static const char *const okabe_ito[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
						"#CC79A7", "#56B4E9", "#000000"};
	for (size_t i = 0; i < sizeof(okabe_ito) / sizeof(okabe_ito[0]); i++)
		rp_buf_printf(gp, "set linetype %zu lc rgb '%s' lw 2 pt %zu ps 1.2\n", i + 1,
			      okabe_ito[i], i + 5);
	rp_buf_printf(gp, "set linetype cycle %zu\nset grid\nset key below left maxcols 1\n"
		      "set border 3\nset tics nomirror\n", sizeof(okabe_ito) / sizeof(okabe_ito[0]));
}

void cg_gp_key_margin(struct rp_buf *gp, size_t entries)
{
	/* One key entry per line under the plot: the chart grows instead of the plot shrinking. */
	int height = CG_HEIGHT + (entries > 2 ? (int)(entries - 2) * CG_FONT_PX * 3 / 2 : 0);
	rp_buf_printf(gp, "set terminal svg size %d,%d dynamic noenhanced font 'sans,%d' "
		      "background '#ffffff'\nset bmargin %zu\n", CG_WIDTH, height, CG_FONT_PX,
		      4 + entries);
}

void cg_run_gnuplot(const struct rp_chart_opts *o, struct rp_chart *c)
{
	cg_run_gnuplot_to(o, c, c->name, "svg");
}

/* Runs `gnuplot [-e expr] script` in dir under a time limit, stdout to /dev/null; 0 when it
 * exited 0, else -1 with why in reason (gnuplot's last message where it printed one). */
static int exec_gnuplot(const char *gnuplot, const char *dir, const char *expr,
			const char *script, double timeout_s, char *reason, size_t n)
{
	char *const with_expr[] = {(char *)gnuplot, "-e", (char *)expr, (char *)script, NULL};
	char *const plain[] = {(char *)gnuplot, (char *)script, NULL};
	struct proc_exec x;
	proc_run_in(dir, expr ? with_expr : plain, environ, timeout_s, 0, &x);
	/* gnuplot's message is the last non-empty line it printed that is not an echo of the
	 * script (those are indented) */
	char msg[200] = "";
	for (const char *l = x.errout; l && *l;) {
		size_t len = strcspn(l, "\n");
		if (len && l[0] != ' ')
			snprintf(msg, sizeof(msg), "%.*s", (int)len, l);
		l += len + (l[len] == '\n');
	}
	int rc = 0;
	if (x.status == PROC_TIMEOUT) {
		snprintf(reason, n, "gnuplot did not finish within %g s", timeout_s);
		rc = -1;
	} else if (x.status != PROC_OK) {
		char how[80];
		if (x.exit_code >= 0)
			snprintf(how, sizeof(how), "exit %d", x.exit_code);
		else
			snprintf(how, sizeof(how), "%.70s", x.error[0] ? x.error : "could not start");
		snprintf(reason, n, "gnuplot failed (%s)%s%.150s", how, *msg ? ": " : "", msg);
		rc = -1;
	}
	proc_exec_free(&x);
	return rc;
}

/* The chart's temporary output, written whole by gnuplot, becomes DIR/SCRIPT.EXT. */
static void commit_output(struct atomicfile *af, struct rp_chart *c, const char *script,
			  const char *ext)
{
	struct stat sb;
	struct ns_err aerr = {0};
	if (stat(af->tmp, &sb) != 0 || sb.st_size == 0) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "gnuplot wrote no %s.%s", script, ext);
	} else if (atomicfile_commit(af, &aerr) < 0) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "%.200s", aerr.msg);
	} else {
		c->status = RP_CHART_OK;
	}
	atomicfile_abort(af); /* after a commit: nothing left to remove */
}

static const char *base_name(const char *path)
{
	return strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
}

void cg_run_gnuplot_to(const struct rp_chart_opts *o, struct rp_chart *c, const char *script,
		       const char *ext)
{
	char out[4096], gp[64], outfile[ATOMICFILE_PATH_MAX + 16];
	struct atomicfile af;
	struct ns_err aerr = {0};
	snprintf(out, sizeof(out), "%s/%s.%s", o->outdir, script, ext);
	snprintf(gp, sizeof(gp), "%s.gp", script);
	/* gnuplot draws into the temporary file (the .gp's outfile, set from the command line):
	 * a chart that fails leaves the earlier one as it was, never half of a new one */
	if (atomicfile_open(&af, out, 0644, 0, &aerr) < 0) {
		c->status = RP_CHART_FAILED;
		snprintf(c->reason, sizeof(c->reason), "%.200s", aerr.msg);
		return;
	}
	snprintf(outfile, sizeof(outfile), "outfile='%s'", base_name(af.tmp));
	if (exec_gnuplot(o->gnuplot, o->outdir, outfile, gp, o->timeout_s, c->reason,
			 sizeof(c->reason)) < 0) {
		c->status = RP_CHART_FAILED;
		atomicfile_abort(&af);
		return;
	}
	commit_output(&af, c, script, ext);
}

int cg_run_batch(const char *gnuplot, const char *workdir, double timeout_s,
		 struct cg_job *jobs, size_t n, struct ns_err *err)
{
	if (!n)
		return 0;
	struct atomicfile *af = calloc(n, sizeof(*af));
	int *open_ok = calloc(n, sizeof(*open_ok));
	struct rp_buf drv;
	rp_buf_init(&drv);
	char path[4096], reason[256];
	if (!af || !open_ok) {
		free(af);
		free(open_ok);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		struct cg_job *j = &jobs[i];
		struct ns_err aerr = {0};
		snprintf(path, sizeof(path), "%s/%s.%s", j->dir, j->script, j->ext);
		if (atomicfile_open(&af[i], path, 0644, 0, &aerr) < 0) {
			j->c->status = RP_CHART_FAILED;
			snprintf(j->c->reason, sizeof(j->c->reason), "%.200s", aerr.msg);
			continue;
		}
		open_ok[i] = 1;
		/* each chart from a clean state, in its own folder, into its temporary file */
		rp_buf_puts(&drv, "reset\ncd ");
		rp_gp_quote(&drv, j->dir);
		rp_buf_puts(&drv, "\noutfile = ");
		rp_gp_quote(&drv, base_name(af[i].tmp));
		rp_buf_puts(&drv, "\nload ");
		snprintf(path, sizeof(path), "%s.gp", j->script);
		rp_gp_quote(&drv, path);
		rp_buf_puts(&drv, "\nunset output\n");
	}
	snprintf(path, sizeof(path), "%s/.batch.gp", workdir);
	int rc = drv.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
			 : atomicfile_write(path, rp_buf_str(&drv), drv.len, 0644, 0, err);
	rp_buf_free(&drv);
	if (rc == 0) {
		/* one process for every chart: gnuplot's start-up, not its drawing, is most of a
		 * small chart's time */
		int ex = exec_gnuplot(gnuplot, workdir, NULL, ".batch.gp", timeout_s * (double)n,
				      reason, sizeof(reason));
		unlink(path);
		for (size_t i = 0; i < n; i++) {
			if (!open_ok[i])
				continue;
			struct stat sb;
			if (ex < 0 && (stat(af[i].tmp, &sb) != 0 || sb.st_size == 0)) {
				/* a chart the batch did not reach (gnuplot stops at the first
				 * error): drawn alone, so that one bad chart costs only itself */
				atomicfile_abort(&af[i]);
				struct rp_chart_opts o = {.outdir = jobs[i].dir, .gnuplot = gnuplot,
							  .timeout_s = timeout_s};
				cg_run_gnuplot_to(&o, jobs[i].c, jobs[i].script, jobs[i].ext);
				continue;
			}
			commit_output(&af[i], jobs[i].c, jobs[i].script, jobs[i].ext);
		}
	} else {
		for (size_t i = 0; i < n; i++)
			if (open_ok[i])
				atomicfile_abort(&af[i]);
	}
	free(af);
	free(open_ok);
	return rc;
}

struct rp_chart *cg_chart_new(struct rp_charts *cs, const struct rp_chart_opts *o,
			      const char *name, const char *title, const char *caption)
{
	struct rp_chart *c = &cs->items[cs->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	if (o->lab_scale)
		snprintf(c->title, sizeof(c->title), "%s (emulated, scale %.32s)", title, o->lab_scale);
	else
		snprintf(c->title, sizeof(c->title), "%s", title);
	snprintf(c->caption, sizeof(c->caption), "%s", caption);
	return c;
}

/* Writes the chart's files and renders it, or records why it has no data. */
int cg_chart_finish(const struct rp_chart_opts *o, struct rp_chart *c, struct rp_buf *dat,
			struct rp_buf *gp, const char *nodata, struct ns_err *err)
{
	if (dat->oom || gp->oom)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (nodata) {
		c->status = RP_CHART_NODATA;
		snprintf(c->reason, sizeof(c->reason), "%s", nodata);
		return 0;
	}
	if (cg_write_file(o->outdir, c->name, "dat", dat, err) < 0 ||
	    cg_write_file(o->outdir, c->name, "gp", gp, err) < 0)
		return -1;
	if (!o->gnuplot) {
		char svg[4096];
		snprintf(svg, sizeof(svg), "%s/%s.svg", o->outdir, c->name);
		unlink(svg); /* a stale chart from an earlier report would contradict this one */
		c->status = RP_CHART_NOGNUPLOT;
		snprintf(c->reason, sizeof(c->reason), "gnuplot not run");
		return 0;
	}
	if (o->defer) {
		c->pending = 1;
		return 0;
	}
	cg_run_gnuplot(o, c);
	return 0;
}

int rp_charts_draw(const struct rp_chart_opts *o, struct rp_charts *cs, struct ns_err *err)
{
	char dir[PATH_MAX];
	struct cg_job jobs[RP_MAX_CHARTS];
	size_t n = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cs->items[i].pending)
			n++;
	if (!n || !o->gnuplot)
		return 0;
	/* the batch moves into each job's folder: an absolute name */
	if (!realpath(o->outdir, dir))
		return ns_err_code(err, NS_E_IO, "%s: %s", o->outdir, strerror(errno));
	n = 0;
	for (size_t i = 0; i < cs->n; i++) {
		struct rp_chart *c = &cs->items[i];
		if (!c->pending)
			continue;
		c->pending = 0;
		jobs[n++] = (struct cg_job){.dir = dir, .script = c->name, .ext = "svg", .c = c};
	}
	return cg_run_batch(o->gnuplot, dir, o->timeout_s, jobs, n, err);
}

/* The plot command written by write_groups holds '%s' for the chart's name; expand it. */
void cg_add_plot(struct rp_buf *gp, const struct rp_buf *plot, const char *name)
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

