/* latency_rows: see latency_rows.h. */
#include "report/load/latency_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/sqlrow.h"
#include "report/model/stats.h"

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
		c->agent_cpu_pct = rp_median(v[3], n);
		c->tps = rp_median(v[0], n);
		c->p50_us = rp_median(v[1], n);
		c->p999_us = rp_median(v[2], n);
		double tmp[RP_LAT_MAX_REPEATS];
		memcpy(tmp, c->p99s, c->n * sizeof(double));
		c->p99_us = rp_median(tmp, c->n);
	}
	sqlite3_finalize(st);
	return 0;
}

int rp_latency_read(sqlite3 *db, long long run_id, bool hist, struct rp_latency *l,
		    struct ns_err *err)
{
	return load_run(db, run_id, l, hist, err) < 0 || medians(db, run_id, l, err) < 0 ? -1 : 0;
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
