/* site: see site.h. */
#include "report/site/site.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "report/charts/charts.h"
#include "report/load/rundb.h"
#include "report/pipeline.h"
#include "report/site/site_feed.h"
#include "report/site/site_night.h"
#include "report/site/site_pages.h"

void rp_site_cfg_init(struct rp_site_cfg *cfg)
{
	*cfg = (struct rp_site_cfg){.db = "netsweep.db",
				    .outdir = "netsweep-site", .gnuplot_timeout = 20};
}

int rp_site_cfg_check(const struct rp_site_cfg *cfg, struct ns_err *err)
{
	if (!cfg->outdir || !*cfg->outdir)
		return ns_err_code(err, NS_E_USAGE, "-o needs a folder");
	if (!cfg->db || !*cfg->db)
		return ns_err_code(err, NS_E_USAGE, "--db needs a file");
	if (cfg->base_url && strncmp(cfg->base_url, "https://", 8) != 0 &&
	    strncmp(cfg->base_url, "http://", 7) != 0)
		return ns_err_code(err, NS_E_USAGE, "--base-url %s: expected an http:// or https:// "
				   "address", cfg->base_url);
	return 0;
}

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* The night's full report into nights/SLUG/ (the report as `netsweep report --run ID
 * --baseline previous` writes it), then its summary; the summary last, so that a night
 * whose rendering was cut short is rendered again by the next build. */
static int render_night(const struct rp_site_cfg *cfg, const struct rp_night_ref *ref,
			const char *slug, const char *dir, struct site_night *out,
			struct ns_err *err)
{
	char run[32], path[4096 + 16];
	snprintf(run, sizeof(run), "%lld", ref->id);
	struct rp_report_cfg rc;
	rp_report_cfg_init(&rc);
	rc.db = cfg->db;
	rc.run = run;
	rc.monthly_gb = cfg->monthly_gb;
	rc.baseline = "previous";
	rc.outdir = dir;
	rc.gnuplot_timeout = cfg->gnuplot_timeout;
	struct rp_pipeline p;
	int r = rp_pipeline_run(&rc, &p, err);
	if (r == 0)
		r = site_night_from_report(ref, slug, &p, out, err);
	rp_pipeline_free(&p);
	if (r < 0)
		return -1;
	snprintf(path, sizeof(path), "%s/night.xml", dir);
	return site_night_write(out, path, err);
}

static void site_title(const struct rp_site_cfg *cfg, struct site_ctx *s)
{
	const char *m = s->nights[s->n - 1].matrix;
	int one = 1;
	for (size_t i = 0; i < s->n && one; i++)
		one = strcmp(s->nights[i].matrix, m) == 0;
	if (cfg->title)
		snprintf(s->title, sizeof(s->title), "%s", cfg->title);
	else if (one)
		snprintf(s->title, sizeof(s->title), "netsweep: %s, every night", m);
	else
		snprintf(s->title, sizeof(s->title), "netsweep: every night");
}

int rp_site_build(const struct rp_site_cfg *cfg, struct rp_site_stats *st, struct ns_err *err)
{
	double t0 = now_s();
	*st = (struct rp_site_stats){0};
	struct rp_night_ref *refs = NULL;
	size_t n = 0;
	sqlite3 *db = NULL;
	int rc = rp_db_open(cfg->db, &db, err);
	if (rc == 0)
		rc = rp_nights_list(db, cfg->matrix, &refs, &n, err);
	rp_db_close(db);
	if (rc < 0)
		return -1;
	if (!n) {
		rp_nights_free(refs, n);
		return ns_err_code(err, NS_E_USAGE, "%s holds no finished run%s%s (netsweep runs "
				   "lists them)", cfg->db, cfg->matrix ? " of matrix " : "",
				   cfg->matrix ? cfg->matrix : "");
	}
	struct site_ctx s = {.cfg = cfg, .n = 0};
	struct site_night *nights = calloc(n, sizeof(*nights));
	char dir[4096], path[4096 + 16], slug[64], reason[256];
	snprintf(dir, sizeof(dir), "%s/nights", cfg->outdir);
	if (!nights) {
		rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	s.nights = nights;
	if ((rc = rp_mkdir_p(dir, err)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		site_night_slug(&refs[i], slug, sizeof(slug));
		snprintf(dir, sizeof(dir), "%s/nights/%s", cfg->outdir, slug);
		snprintf(path, sizeof(path), "%s/night.xml", dir);
		bool render = cfg->rerender || stat(path, &sb) != 0;
		struct ns_err rerr = {0};
		if (!render && (rc = site_night_read(path, &nights[i], &rerr)) < 0) {
			site_night_free(&nights[i]);
			if (rerr.code != NS_E_INPUT) {
				if (err)
					*err = rerr;
				goto out;
			}
			/* a summary no parser reads (an older build wrote a stored label's control
			 * bytes into it): the night is rendered again from the database rather than
			 * stopping this build and every later one */
			render = true;
			st->repaired++;
		}
		if (render) {
			double t = now_s();
			rc = render_night(cfg, &refs[i], slug, dir, &nights[i], err);
			st->render_s += now_s() - t;
			st->rendered++;
		}
		if (rc < 0) {
			ns_err_prefix(err, "run %lld (nights/%s)", refs[i].id, slug);
			goto out;
		}
		s.n++;
	}
	time_t now = time(NULL);
	strftime(s.generated, sizeof(s.generated), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	site_title(cfg, &s);
	char *gnuplot = rp_gnuplot_find(reason, sizeof(reason));
	s.gnuplot = gnuplot;
	s.mixed = site_nights_mixed(s.nights, s.n);
	rc = site_series_build(&s, err);
	if (rc == 0)
		rc = site_pages_write(&s, err);
	if (rc == 0)
		rc = site_feed_write(&s, err);
	st->nights = n;
	st->pairs = s.n_series;
	site_series_free(&s);
	free(gnuplot);
out:
	for (size_t i = 0; i < s.n; i++)
		site_night_free(&nights[i]);
	free(nights);
	rp_nights_free(refs, n);
	st->total_s = now_s() - t0;
	return rc;
}
