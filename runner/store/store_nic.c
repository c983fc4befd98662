#include "store_nic.h"

#include <stddef.h>

#include "store_sql.h"

static int run(sqlite3 *db, sqlite3_stmt *st, struct ns_err *err, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	return store_sql_err(db, err, what);
}

static int put_side(sqlite3 *db, int64_t result_id, const char *side, const struct probe_nic *n,
		    struct ns_err *err)
{
	static const char sql[] =
		"INSERT OR REPLACE INTO result_nics (result_id, side, ifname, allowance_counters,"
		" bw_in_allowance_exceeded, bw_out_allowance_exceeded, pps_allowance_exceeded,"
		" conntrack_allowance_exceeded, linklocal_allowance_exceeded, drops, rx_packets,"
		" tx_packets, rx_bytes, tx_bytes)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)";
	const uint64_t v[] = {n->allowance_counters, n->bw_in_allowance_exceeded,
			      n->bw_out_allowance_exceeded, n->pps_allowance_exceeded,
			      n->conntrack_allowance_exceeded, n->linklocal_allowance_exceeded,
			      n->drops, n->rx_packets, n->tx_packets, n->rx_bytes, n->tx_bytes};
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording NIC counters");
	sqlite3_bind_int64(st, 1, result_id);
	sqlite3_bind_text(st, 2, side, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, n->ifname, -1, SQLITE_TRANSIENT);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		sqlite3_bind_int64(st, 4 + (int)i, (sqlite3_int64)v[i]);
	return run(db, st, err, "recording NIC counters");
}

int store_nic_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		  struct ns_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "UPDATE results SET shaped_by_provider = ?2 WHERE id = ?1", -1,
			       &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "recording NIC counters");
	sqlite3_bind_int64(st, 1, result_id);
	sqlite3_bind_int(st, 2, res->shaped_by_provider);
	if (run(db, st, err, "recording shaped_by_provider") < 0)
		return -1;
	if (res->nic_client.ifname[0] && put_side(db, result_id, "client", &res->nic_client, err) < 0)
		return -1;
	if (res->nic_agent.ifname[0] && put_side(db, result_id, "agent", &res->nic_agent, err) < 0)
		return -1;
	return 0;
}
