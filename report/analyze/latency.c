/* latency: see latency.h. */
#include "report/analyze/latency.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cost.h"
#include "lib/sql/sqlrow.h"
#include "report/charts/charts_gp.h"
#include "report/analyze/ab.h"
#include "report/model/stats.h"

const char rp_latency_method[] =
	"Latency is the client's time per transaction, request sent to response read, from the "
	"merged histogram of every stream (percentiles within 0.78 %, never averaged over "
	"streams); each case shows the median over repeats. A case's p99 regressed when Welch's "
	"t-test on the logarithm of its repeats' p99 against the baseline's gives p < alpha and "
	"the median p99 rose by more than the minimum change: latency is skewed and "
	"multiplicative, so its logarithm is the scale on which a mean difference means "
	"something. Fewer than 2 repeats on either side: no test.";

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct rp_lat_pair *pair_of(struct rp_latency *l, const char *ep)
{
	for (size_t i = 0; i < l->n_pairs; i++)
		if (!strcmp(l->pairs[i].endpoint, ep))
			return &l->pairs[i];
	struct rp_lat_pair *np = realloc(l->pairs, (l->n_pairs + 1) * sizeof(*np));
	if (!np)
		return NULL;
	l->pairs = np;
	struct rp_lat_pair *p = &l->pairs[l->n_pairs];
	if (!(p->endpoint = strdup(ep)))
		return NULL;
	lathist_init(&p->h);
	l->n_pairs++;
	return p;
}

static const char q_run[] =
	"SELECT case_key, endpoint, test, request, response, streams, rate, transactions_per_second,"
	" p50_us, p99_us, p999_us, lost, client_cpu, histogram FROM v_latency"
	" WHERE run_id = ?1 AND status = 'ok' ORDER BY case_id, repeat";

/* Rows of one run, grouped by case_key in order; with hist, each pair's histograms merged. */
static int load_run(sqlite3 *db, long long run_id, struct rp_latency *l, bool hist,
		    struct ns_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q_run, -1, &st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	int rc = 0, s;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, 0);
		struct rp_lat_case *c = l->n ? &l->cases[l->n - 1] : NULL;
		if (!c || strcmp(c->case_key, key ? key : "")) {
			struct rp_lat_case *nc = realloc(l->cases, (l->n + 1) * sizeof(*nc));
			if (!nc)
				goto oom;
			l->cases = nc;
			c = &l->cases[l->n++];
			memset(c, 0, sizeof(*c));
			c->case_key = sqlrow_dup_or_empty(st, 0);
			c->endpoint = sqlrow_dup_or_empty(st, 1);
			c->test = sqlrow_dup_or_empty(st, 2);
			c->request = sqlite3_column_int64(st, 3);
			c->response = sqlite3_column_int64(st, 4);
			c->streams = sqlite3_column_int64(st, 5);
			c->rate = sqlite3_column_double(st, 6);
			c->client_cpu = sqlite3_column_int(st, 12);
			c->usd_per_mtx = c->base_p99_us = c->change_pct = c->p = NAN;
			if (!c->case_key || !c->endpoint || !c->test)
				goto oom;
		}
		if (c->n < RP_LAT_MAX_REPEATS)
			c->p99s[c->n++] = sqlite3_column_double(st, 9);
		c->lost += sqlite3_column_int64(st, 11);
		if (hist) {
			struct lathist *h = malloc(sizeof(*h));
			struct rp_lat_pair *p = pair_of(l, c->endpoint);
			struct ns_err e;
			if (!h || !p) {
				free(h);
				goto oom;
			}
			if (lathist_decode((const char *)sqlite3_column_text(st, 13), h, &e) == 0)
				lathist_merge(&p->h, h);
			free(h);
		}
	}
	if (s != SQLITE_DONE)
		rc = ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc;
oom:
	sqlite3_finalize(st);
	return ns_err_code(err, NS_E_NOMEM, "out of memory reading latency results");
}

/* The medians of tps, p50 and p999 over a case's repeats (a second pass: few rows). */
static int medians(sqlite3 *db, long long run_id, struct rp_latency *l, struct ns_err *err)
{
	static const char q[] = "SELECT transactions_per_second, p50_us, p999_us, agent_cpu_percent,"
				" agent_cpu FROM v_latency WHERE run_id = ?1 AND case_key = ?2"
				" AND status = 'ok'";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q, -1, &st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	for (size_t i = 0; i < l->n; i++) {
		struct rp_lat_case *c = &l->cases[i];
		double v[4][RP_LAT_MAX_REPEATS];
		size_t n = 0;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_text(st, 2, c->case_key, -1, SQLITE_STATIC);
		c->agent_cpu = -1;
		while (sqlite3_step(st) == SQLITE_ROW && n < RP_LAT_MAX_REPEATS) {
			for (int k = 0; k < 4; k++)
				v[k][n] = sqlite3_column_double(st, k);
			if (!n && sqlite3_column_type(st, 4) != SQLITE_NULL) /* the first, as client_cpu */
				c->agent_cpu = sqlite3_column_int(st, 4);
			n++;
		}
		c->agent_cpu_pct = median(v[3], n);
		c->tps = median(v[0], n);
		c->p50_us = median(v[1], n);
		c->p999_us = median(v[2], n);
		double tmp[RP_LAT_MAX_REPEATS];
		memcpy(tmp, c->p99s, c->n * sizeof(double));
		c->p99_us = median(tmp, c->n);
	}
	sqlite3_finalize(st);
	return 0;
}

static void price(const struct rp_data *d, struct rp_lat_case *c)
{
	for (size_t i = 0; i < d->n_eps; i++)
		if (d->eps[i].name && !strcmp(d->eps[i].name, c->endpoint) &&
		    !isnan(cost_usd_per_million(c->tps, d->eps[i].usd_per_hour)))
			c->usd_per_mtx = cost_usd_per_million(c->tps, d->eps[i].usd_per_hour);
}

static void against(struct rp_lat_case *c, const struct rp_latency *base, double alpha,
		    double min_change_pct)
{
	for (size_t i = 0; i < base->n; i++) {
		const struct rp_lat_case *b = &base->cases[i];
		if (strcmp(b->case_key, c->case_key))
			continue;
		c->base_p99_us = b->p99_us;
		if (b->p99_us > 0)
			c->change_pct = (c->p99_us / b->p99_us - 1) * 100;
		double la[RP_LAT_MAX_REPEATS], lb[RP_LAT_MAX_REPEATS];
		size_t na = 0, nb = 0;
		for (size_t k = 0; k < b->n; k++)
			if (b->p99s[k] > 0)
				la[na++] = log(b->p99s[k]);
		for (size_t k = 0; k < c->n; k++)
			if (c->p99s[k] > 0)
				lb[nb++] = log(c->p99s[k]);
		struct rp_welch w;
		if (rp_welch_test(la, na, lb, nb, &w) == 0) {
			c->p = w.p;
			c->regressed = w.p < alpha && c->change_pct > min_change_pct;
		}
		return;
	}
}

int rp_latency_load(sqlite3 *db, const struct rp_data *d, long long base_run_id, double alpha,
		    double min_change_pct, struct rp_latency *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	struct rp_latency base = {0};
	if (load_run(db, d->run.id, out, true, err) < 0 || medians(db, d->run.id, out, err) < 0)
		goto fail;
	if (base_run_id && (load_run(db, base_run_id, &base, false, err) < 0 ||
			    medians(db, base_run_id, &base, err) < 0))
		goto fail;
	for (size_t i = 0; i < out->n; i++) {
		price(d, &out->cases[i]);
		against(&out->cases[i], &base, alpha, min_change_pct);
		out->n_regressed += out->cases[i].regressed;
	}
	rp_latency_free(&base);
	return 0;
fail:
	rp_latency_free(&base);
	rp_latency_free(out);
	return -1;
}

void rp_latency_free(struct rp_latency *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->cases[i].case_key);
		free(l->cases[i].endpoint);
		free(l->cases[i].test);
	}
	for (size_t i = 0; i < l->n_pairs; i++)
		free(l->pairs[i].endpoint);
	free(l->cases);
	free(l->pairs);
	free(l->ab);
	memset(l, 0, sizeof(*l));
}

static const struct rp_lat_case *case_by_key(const struct rp_latency *l, const char *key)
{
	for (size_t i = 0; key && i < l->n; i++)
		if (!strcmp(l->cases[i].case_key, key))
			return &l->cases[i];
	return NULL;
}

/* Welch's two-sided p on the logarithms of two cases' p99s; NAN when a side has < 2. */
static double log_p99_p(const struct rp_lat_case *a, const struct rp_lat_case *b)
{
	double la[RP_LAT_MAX_REPEATS], lb[RP_LAT_MAX_REPEATS];
	size_t na = 0, nb = 0;
	for (size_t k = 0; k < a->n; k++)
		if (a->p99s[k] > 0)
			la[na++] = log(a->p99s[k]);
	for (size_t k = 0; k < b->n; k++)
		if (b->p99s[k] > 0)
			lb[nb++] = log(b->p99s[k]);
	struct rp_welch w;
	return rp_welch_test(lb, nb, la, na, &w) == 0 ? w.p : NAN;
}

int rp_latency_ab(struct rp_latency *l, const struct rp_data *d, const struct rp_ab *ab,
		  struct ns_err *err)
{
	for (size_t i = 0; ab && i < ab->n; i++) {
		const struct rp_ab_row *r = &ab->rows[i];
		if (r->ca < 0 || r->cb < 0 || (size_t)r->ca >= d->n_cases || (size_t)r->cb >= d->n_cases)
			continue;
		const struct rp_lat_case *ca = case_by_key(l, d->cases[r->ca].case_key);
		const struct rp_lat_case *cb = case_by_key(l, d->cases[r->cb].case_key);
		if (!ca || !cb)
			continue;
		struct rp_lat_ab *nv = realloc(l->ab, (l->n_ab + 1) * sizeof(*nv));
		if (!nv)
			return ns_err_code(err, NS_E_NOMEM, "out of memory for the latency A/B");
		l->ab = nv;
		l->ab[l->n_ab++] = (struct rp_lat_ab){
			.a = d->eps[r->a].name, .b = d->eps[r->b].name, .attr = r->attr, .va = r->va,
			.vb = r->vb, .ca = ca, .cb = cb,
			.p99_diff_pct = cb->p99_us > 0 ? (ca->p99_us / cb->p99_us - 1) * 100 : NAN,
			.p = log_p99_p(ca, cb)};
	}
	return 0;
}

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

/* A table cell of the matrix's own words: no '|' or line break may end the cell. */
static void md_cell(struct rp_buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			rp_buf_puts(b, "\\|");
		else if (*s != '\n' && *s != '\r')
			rp_buf_add(b, s, 1);
	}
}

void rp_latency_markdown(const struct rp_latency *l, struct rp_buf *b)
{
	if (!l->n)
		return;
	rp_buf_puts(b, "| Pair | Test | Request/response | Streams | Rate | Transactions/s | p50 us "
		       "| p99 us | p99.9 us | p99 vs baseline | $ per million | Agent CPU % |\n"
		       "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < l->n; i++) {
		const struct rp_lat_case *c = &l->cases[i];
		rp_buf_puts(b, "| ");
		md_cell(b, c->endpoint);
		char rate[32];
		snprintf(rate, sizeof(rate), c->rate > 0 ? "%.0f/s" : "back to back", c->rate);
		rp_buf_printf(b, " | %s | %lld/%lld B | %lld | %s | %.0f | %.1f | %.1f | %.1f | ",
			      c->test, c->request, c->response, c->streams, rate, c->tps, c->p50_us,
			      c->p99_us, c->p999_us);
		if (isfinite(c->change_pct))
			rp_buf_printf(b, "%+.1f %%%s%s", c->change_pct,
				      isfinite(c->p) ? "" : " (no test)",
				      c->regressed ? " **regressed**" : "");
		else
			rp_buf_puts(b, "–");
		if (isfinite(c->usd_per_mtx))
			rp_buf_printf(b, " | %.4g", c->usd_per_mtx);
		else
			rp_buf_puts(b, " | –");
		if (isfinite(c->agent_cpu_pct))
			rp_buf_printf(b, " | %.0f |\n", c->agent_cpu_pct);
		else
			rp_buf_puts(b, " | – |\n");
	}
	rp_buf_puts(b, "\n");
	if (!l->n_ab)
		return;
	rp_buf_puts(b, "### A/B on latency\n\nPairs that differ in one attribute, on the same "
		       "request/response case: p99 of A against B (Welch's t on log p99 over "
		       "repeats).\n\n| A | B | Differ in | Case | p50 A / B us | p99 A / B us | "
		       "p99 A vs B | p |\n|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < l->n_ab; i++) {
		const struct rp_lat_ab *r = &l->ab[i];
		rp_buf_puts(b, "| ");
		md_cell(b, r->a ? r->a : "");
		rp_buf_puts(b, " | ");
		md_cell(b, r->b ? r->b : "");
		rp_buf_printf(b, " | %s | %s %lld/%lld B | %.1f / %.1f | %.1f / %.1f | %+.1f %% | ",
			      r->attr, r->ca->test, r->ca->request, r->ca->response, r->ca->p50_us,
			      r->cb->p50_us, r->ca->p99_us, r->cb->p99_us, r->p99_diff_pct);
		if (isfinite(r->p))
			rp_buf_printf(b, "%.3g |\n", r->p);
		else
			rp_buf_puts(b, "no test |\n");
	}
	rp_buf_puts(b, "\n");
}
