/* store_latency: see store_latency.h. */
#include "store_latency.h"

#include <stddef.h>

int store_latency_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		      struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO result_latency (result_id, test, request, response, rate,"
		" transactions, transactions_per_second, lost, min_us, mean_us, p50_us, p90_us,"
		" p99_us, p999_us, max_us, relative_error, client_cpu, histogram) VALUES (?1, ?2,"
		" ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)";
	const struct probe_latency *l = &res->latency;
	if (!l->present)
		return 0;
	uint32_t req, resp;
	probe_rr_sizes(&res->params, &req, &resp);
	const double us[] = {l->sum.min_us, l->sum.mean_us, l->sum.p50_us, l->sum.p90_us,
			     l->sum.p99_us, l->sum.p999_us, l->sum.max_us, l->relative_error};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return ns_err_set(err, "database: %s", sqlite3_errmsg(db));
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
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	return ns_err_set(err, "database: recording latency: %s", sqlite3_errmsg(db));
}
