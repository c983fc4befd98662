/* store_latency: see store_latency.h. */
#include "store_latency.h"

#include <stddef.h>

#include "store_sql.h"

int store_latency_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		      struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO result_latency (result_id, test, request, response, rate,"
		" transactions, transactions_per_second, lost, min_us, mean_us, p50_us, p90_us,"
		" p99_us, p999_us, max_us, relative_error, client_cpu, histogram, agent_cpu) VALUES"
		" (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18,"
		" ?19)";
	const struct probe_latency *l = &res->latency;
	if (!l->present)
		return 0;
	uint32_t req, resp;
	probe_rr_sizes(&res->params, &req, &resp);
	const double us[] = {l->sum.min_us, l->sum.mean_us, l->sum.p50_us, l->sum.p90_us,
			     l->sum.p99_us, l->sum.p999_us, l->sum.max_us, l->relative_error};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording latency");
	sqlite3_bind_int64(st, 1, result_id);
	sqlite3_bind_text(st, 2, probe_rr_test(&res->params), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, req);
	sqlite3_bind_int64(st, 4, resp);
	sqlite3_bind_double(st, 5, res->params.rr_rate);
	sqlite3_bind_int64(st, 6, (sqlite3_int64)l->sum.transactions);
	sqlite3_bind_double(st, 7, l->sum.transactions_per_second);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)l->sum.lost);
	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		sqlite3_bind_double(st, 9 + (int)i, us[i]);
	sqlite3_bind_int(st, 17, l->client_cpu);
	sqlite3_bind_text(st, 18, l->histogram ? l->histogram : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 19, l->agent_cpu);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	return store_sql_err(db, err, "recording latency");
}

/* One phase of a latency probe: its figures in a row of result_latency_load. */
static int put_phase(sqlite3 *db, sqlite3_stmt *st, int64_t result_id, const char *phase,
		     const struct probe_lul *l, const struct probe_latency_figures *f,
		     double dur, struct ns_err *err)
{
	const double us[] = {f->min_us, f->mean_us, f->p50_us, f->p90_us, f->p99_us, f->p999_us,
			     f->max_us};
	sqlite3_bind_int64(st, 1, result_id);
	sqlite3_bind_text(st, 2, phase, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, l->test, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, l->request);
	sqlite3_bind_int64(st, 5, l->response);
	sqlite3_bind_double(st, 6, l->rate);
	sqlite3_bind_double(st, 7, dur);
	sqlite3_bind_int64(st, 8, (sqlite3_int64)f->transactions);
	sqlite3_bind_double(st, 9, f->transactions_per_second);
	sqlite3_bind_int64(st, 10, (sqlite3_int64)f->lost);
	for (size_t i = 0; i < sizeof(us) / sizeof(us[0]); i++)
		sqlite3_bind_double(st, 11 + (int)i, us[i]);
	return store_sql_step_done(db, st, err, "recording latency under load");
}

/* A responsiveness result's row of result_rpm (store version 26). */
static int put_rpm(sqlite3 *db, int64_t result_id, const struct probe_rpm *r, struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO result_rpm (result_id, rpm, rpm_idle, foreign_tm_ms,"
		" foreign_probes, self_tm_ms, self_samples, idle_tm_ms, idle_probes, connections,"
		" saturated, goodput_bps) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording responsiveness");
	sqlite3_bind_int64(st, 1, result_id);
	sqlite3_bind_double(st, 2, r->rpm);
	sqlite3_bind_double(st, 3, r->rpm_idle);
	sqlite3_bind_double(st, 4, r->foreign_tm_ms);
	sqlite3_bind_int64(st, 5, (sqlite3_int64)r->foreign_probes);
	sqlite3_bind_double(st, 6, r->self_tm_ms);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)r->self_samples);
	sqlite3_bind_double(st, 8, r->idle_tm_ms);
	sqlite3_bind_int64(st, 9, (sqlite3_int64)r->idle_probes);
	sqlite3_bind_int(st, 10, (int)r->connections);
	sqlite3_bind_int(st, 11, r->saturated);
	sqlite3_bind_double(st, 12, r->goodput_bps);
	int rc = store_sql_step_done(db, st, err, "recording responsiveness");
	sqlite3_finalize(st);
	return rc;
}

int store_latency_load_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
			   struct ns_err *err)
{
	if (res->rpm.present && put_rpm(db, result_id, &res->rpm, err) < 0)
		return -1;
	static const char sql[] =
		"INSERT OR REPLACE INTO result_latency_load (result_id, phase, test, request,"
		" response, rate, duration_s, transactions, transactions_per_second, lost, min_us,"
		" mean_us, p50_us, p90_us, p99_us, p999_us, max_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6,"
		" ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";
	const struct probe_lul *l = &res->lul;
	if (!l->present)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording latency under load");
	int rc = put_phase(db, st, result_id, "idle", l, &l->idle, l->idle_s, err);
	if (rc == 0)
		rc = put_phase(db, st, result_id, "loaded", l, &l->loaded, l->loaded_s, err);
	sqlite3_finalize(st);
	return rc;
}
