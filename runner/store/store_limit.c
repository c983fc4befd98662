/* store_limit: see store_limit.h. */
#include "store_limit.h"

#include <stddef.h>

#include "lib/sql/sqlrow.h"
#include "store_sql.h"

static int put_dir(sqlite3 *db, int64_t result_id, const char *dir, const struct probe_limit *l,
		   struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO result_limits (result_id, direction, asked_bps, offered_bps,"
		" shortfall_pct, sender_limited, cause, limited_by, snd_thread_cpu, rcv_thread_cpu,"
		" snd_steal_pct, rcv_steal_pct, snd_blocked_pct, pace_lost_pct)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
	const double v[] = {l->asked_bps, l->offered_bps, l->shortfall_pct};
	const double w[] = {l->sender_thread_cpu, l->receiver_thread_cpu, l->sender_steal_pct,
			    l->receiver_steal_pct, l->sender_blocked_pct, l->pace_lost_pct};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording a result's limits");
	sqlite3_bind_int64(st, 1, result_id);
	sqlite3_bind_text(st, 2, dir, -1, SQLITE_STATIC);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		sqlite3_bind_double(st, 3 + (int)i, v[i]);
	sqlite3_bind_int(st, 6, l->sender_limited);
	if (l->cause[0])
		sqlite3_bind_text(st, 7, l->cause, -1, SQLITE_TRANSIENT);
	if (l->limited_by[0])
		sqlite3_bind_text(st, 8, l->limited_by, -1, SQLITE_TRANSIENT);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		sqlite3_bind_double(st, 9 + (int)i, w[i]);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_sql_err(db, err, "recording a result's limits");
	return 0;
}

int store_limit_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		    struct ns_err *err)
{
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++)
		if (put_dir(db, result_id, d == 0 ? "fwd" : "ret", &res->dirs[d].limit, err) < 0)
			return -1;
	/* both ends' CPU per GB, where the engine threads ran and the receiver's path: the
	 * result's own columns (version 26) */
	static const char sql[] = "UPDATE results SET cpu_placement = ?2, client_cpus = ?3,"
				  " agent_cpus = ?4, rx_path = ?5, fwd_snd_cpu_s_per_gb = ?6,"
				  " fwd_rcv_cpu_s_per_gb = ?7, ret_snd_cpu_s_per_gb = ?8,"
				  " ret_rcv_cpu_s_per_gb = ?9 WHERE id = ?1";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording a result's CPU placement");
	sqlite3_bind_int64(st, 1, result_id);
	sqlrow_bind_text(st, 2, res->cpu_placement[0] ? res->cpu_placement : NULL);
	sqlite3_bind_text(st, 3, res->client_cpus, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 4, res->agent_cpus, -1, SQLITE_TRANSIENT);
	sqlrow_bind_text(st, 5, res->rx_path[0] ? res->rx_path : NULL);
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++) {
		sqlite3_bind_double(st, 6 + 2 * (int)d, res->dirs[d].sender.cpu_s_per_gb);
		sqlite3_bind_double(st, 7 + 2 * (int)d, res->dirs[d].receiver.cpu_s_per_gb);
	}
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_sql_err(db, err, "recording a result's CPU placement");
	return 0;
}
