/* loadlat: see loadlat.h. */
#include "report/load/loadlat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/sqlrow.h"
#include "report/model/stats.h"

const char rp_loadlat_method[] =
	"Each case's load carried a latency probe: a request/response flow of one stream on a "
	"connection of its own, timed idle (alone, just before the load) and loaded (beside the "
	"load's streams, after its omit). The added delay is loaded minus idle — the queue the "
	"load built at the bottleneck (bufferbloat). Medians over repeats.";

const char rp_loadlat_rpm_method[] =
	"Responsiveness (RPM, round trips per minute; the IETF IPPM draft's method, "
	"schemas/responsiveness.md): TCP connections were added until the goodput saturated, then "
	"60 s over the mean of two trimmed means under that load: a probe's round trips on a "
	"connection of its own and the loaded connections' own RTT. Idle RPM: the probe alone. "
	"RPM per $/hour: by the pair's hourly price in USD. Medians over repeats.";

static const char q_run[] =
	"SELECT l.case_key, l.endpoint, l.protocol, l.direction, l.streams, l.test, l.goodput_mbps,"
	" l.idle_p50_us, l.idle_p99_us, l.loaded_p50_us, l.loaded_p99_us, l.added_p50_us,"
	" l.added_p99_us, r.rpm, r.rpm_idle, r.rpm_per_usd_hour, l.loaded_lost"
	" FROM v_latency_under_load l LEFT JOIN v_responsiveness r ON r.result_id = l.result_id"
	" WHERE l.run_id = ?1 AND l.status = 'ok' ORDER BY l.case_id, l.repeat";
enum { Q_KEY, Q_EP, Q_PROTO, Q_DIR, Q_STREAMS, Q_TEST, Q_FIRST_V, Q_LOST = Q_FIRST_V + RP_LL_N };

/* The median of the finite values of v[0..n) (compacted and sorted in place); NAN when none
 * (a phase without answered transactions has no added delay). */
static double median_finite(double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i]))
			v[k++] = v[i];
	return rp_median(v, k);
}

/* A new case from row st; NULL when out of memory. */
static struct rp_ll_case *new_case(struct rp_loadlat *l, sqlite3_stmt *st)
{
	struct rp_ll_case *nc = realloc(l->cases, (l->n + 1) * sizeof(*nc));
	if (!nc)
		return NULL;
	l->cases = nc;
	struct rp_ll_case *c = &l->cases[l->n++];
	memset(c, 0, sizeof(*c));
	c->case_key = sqlrow_dup_or_empty(st, Q_KEY);
	c->endpoint = sqlrow_dup_or_empty(st, Q_EP);
	char d[160];
	long long streams = sqlite3_column_int64(st, Q_STREAMS);
	const unsigned char *p = sqlite3_column_text(st, Q_PROTO), *dir = sqlite3_column_text(st, Q_DIR),
			    *test = sqlite3_column_text(st, Q_TEST);
	snprintf(d, sizeof(d), "%s %s, %lld stream%s, %s probe", p ? (const char *)p : "?",
		 dir ? (const char *)dir : "?", streams, streams == 1 ? "" : "s",
		 test ? (const char *)test : "?");
	c->desc = strdup(d);
	return c->case_key && c->endpoint && c->desc ? c : NULL;
}

int rp_loadlat_load(sqlite3 *db, long long run_id, struct rp_loadlat *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, q_run, -1, &st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	double (*v)[RP_LL_MAX_REPEATS] = calloc(RP_LL_N, sizeof(*v)); /* the current case's */
	int rc = 0, s;
	if (!v)
		goto oom;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *key = (const char *)sqlite3_column_text(st, Q_KEY);
		struct rp_ll_case *c = out->n ? &out->cases[out->n - 1] : NULL;
		if (!c || strcmp(c->case_key, key ? key : "")) {
			if (c)
				for (int k = 0; k < RP_LL_N; k++)
					c->v[k] = median_finite(v[k], c->n);
			if (!(c = new_case(out, st)))
				goto oom;
		}
		if (c->n < RP_LL_MAX_REPEATS) {
			for (int k = 0; k < RP_LL_N; k++)
				v[k][c->n] = sqlrow_num(st, Q_FIRST_V + k);
			c->n++;
		}
		c->lost += sqlite3_column_int64(st, Q_LOST);
		out->rpm |= sqlite3_column_type(st, Q_FIRST_V + RP_LL_RPM) != SQLITE_NULL;
	}
	if (out->n)
		for (int k = 0; k < RP_LL_N; k++)
			out->cases[out->n - 1].v[k] = median_finite(v[k], out->cases[out->n - 1].n);
	if (s != SQLITE_DONE)
		rc = ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	free(v);
	return rc;
oom:
	sqlite3_finalize(st);
	free(v);
	return ns_err_code(err, NS_E_NOMEM, "out of memory reading latency under load");
}

void rp_loadlat_free(struct rp_loadlat *l)
{
	for (size_t i = 0; l && i < l->n; i++) {
		free(l->cases[i].case_key);
		free(l->cases[i].endpoint);
		free(l->cases[i].desc);
	}
	if (l)
		free(l->cases);
}
