/* store_group: see store_group.h. */
#include "store_group.h"

#include <math.h>

#include "lib/sql/sqlrow.h"
#include "store_sql.h"

static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isfinite(v))
		sqlite3_bind_double(st, i, v);
	else
		sqlite3_bind_null(st, i);
}

static int put_summary(sqlite3 *db, int64_t id, const struct store_group *g, struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO group_results (result_id, kind, clients, completed,"
		" streams_per_client, start_spread_ms, start_dispatched, total_bps, jain, min_share,"
		" min_of_fair, converge_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording a group");
	sqlite3_bind_int64(st, 1, id);
	sqlrow_bind_text(st, 2, g->kind);
	sqlite3_bind_int(st, 3, (int)g->clients);
	sqlite3_bind_int(st, 4, (int)g->completed);
	sqlite3_bind_int(st, 5, (int)g->streams_per_client);
	bind_num(st, 6, g->start_spread_ms);
	sqlite3_bind_int(st, 7, g->dispatched);
	sqlite3_bind_double(st, 8, isfinite(g->total_bps) ? g->total_bps : 0);
	bind_num(st, 9, g->jain);
	bind_num(st, 10, g->min_share);
	bind_num(st, 11, g->min_of_fair);
	bind_num(st, 12, g->converge_s);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_sql_err(db, err, "recording a group");
}

static int put_client(sqlite3 *db, int64_t id, size_t k, const struct store_group_client *c,
		      struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO group_clients (result_id, client, name, client_host, agent,"
		" status, error, start_offset_ms, rcv_bps, snd_bps, retransmits, lost_percent,"
		" snd_cpu, rcv_cpu, limited_by, sender_limited, probe_json)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording a group's client");
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)k);
	sqlrow_bind_text(st, 3, c->name);
	sqlrow_bind_text(st, 4, c->client_host && c->client_host[0] ? c->client_host : NULL);
	sqlrow_bind_text(st, 5, c->agent);
	sqlrow_bind_text(st, 6, c->ok ? "ok" : "failed");
	sqlrow_bind_text(st, 7, c->error && c->error[0] ? c->error : NULL);
	bind_num(st, 8, c->start_offset_ms);
	if (c->res && c->res->n_dirs > 0) {
		const struct probe_direction *d = &c->res->dirs[0];
		sqlite3_bind_double(st, 9, d->receiver.bits_per_second);
		sqlite3_bind_double(st, 10, d->sender.bits_per_second);
		if (c->res->params.proto == NS_PROTO_TCP)
			sqlite3_bind_int64(st, 11, (sqlite3_int64)d->sender.retransmits);
		else
			sqlite3_bind_double(st, 12, d->receiver.lost_percent);
		sqlite3_bind_double(st, 13, d->sender.cpu_percent);
		sqlite3_bind_double(st, 14, d->receiver.cpu_percent);
		sqlrow_bind_text(st, 15, d->limit.limited_by[0] ? d->limit.limited_by : NULL);
		sqlite3_bind_int(st, 16, d->limit.sender_limited);
	}
	sqlrow_bind_text(st, 17, c->probe_json);
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : store_sql_err(db, err, "recording a group's client");
}

static int put_samples(sqlite3 *db, int64_t id, size_t k, const struct probe_result *res,
		       struct ns_err *err)
{
	static const char sql[] = "INSERT OR REPLACE INTO group_samples (result_id, client, t_start,"
				  " t_end, bps) VALUES (?1, ?2, ?3, ?4, ?5)";
	if (!res || res->n_dirs == 0)
		return 0;
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording a group's samples");
	const struct probe_direction *d = &res->dirs[0];
	int rc = 0;
	for (uint32_t i = 0; i < d->n_intervals && rc == 0; i++) {
		const struct probe_interval *v = &d->intervals[i];
		if (v->stream != -1)
			continue;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)k);
		sqlite3_bind_double(st, 3, v->start_s);
		sqlite3_bind_double(st, 4, v->end_s);
		sqlite3_bind_double(st, 5, v->bits_per_second);
		rc = store_sql_step_done(db, st, err, "recording a group's samples");
	}
	sqlite3_finalize(st);
	return rc;
}

int store_group_put(sqlite3 *db, int64_t result_id, const struct store_group *g,
		    struct ns_err *err)
{
	if (put_summary(db, result_id, g, err) < 0)
		return -1;
	for (size_t k = 0; k < g->n; k++)
		if (put_client(db, result_id, k, &g->c[k], err) < 0 ||
		    put_samples(db, result_id, k, g->c[k].res, err) < 0)
			return -1;
	return 0;
}
