/* result_rows: see result_rows.h. */
#include "report/load/result_rows.h"

#include <stdlib.h>

#define CSV_COLS \
	"SELECT v.run_id, v.case_key, v.ordinal, v.endpoint, v.instance_type, v.region, " \
	"v.protocol, v.streams, v.threads, v.length, v.rate_bps, v.fq_rate_bps, v.direction, " \
	"v.duration_s, v.omit_s, v.affinity, v.repeat, v.status, v.error, v.measured_s, " \
	"v.goodput_bps, v.fwd_snd_bps, v.fwd_rcv_pps, v.fwd_snd_pps, v.fwd_snd_cpu, v.fwd_rcv_cpu, " \
	"v.fwd_retransmits, v.fwd_rtt_ms, v.fwd_lost, v.fwd_lost_percent, v.fwd_kernel_drops, " \
	"v.fwd_jitter_ms, v.ret_rcv_bps, p.usd_per_hour, " \
	"CASE WHEN v.status = 'ok' THEN v.goodput_mbps / p.usd_per_hour END AS mbps_per_usd_hour"
#define CSV_FROM \
	" FROM v_results v JOIN v_endpoint_prices p ON p.endpoint_id = v.endpoint_id " \
	"WHERE v.run_id = ? ORDER BY v.ordinal, v.case_id, v.repeat"
static const char sql[] = CSV_COLS CSV_FROM;
/* a run with emulated pairs: each row says whether its figures are the lab's, and the scale */
static const char sql_lab[] = CSV_COLS ", v.emulated, v.lab_scale" CSV_FROM;

int rp_result_rows(sqlite3 *db, long long run_id, bool emulated, rp_row_fn fn, void *ctx,
		   struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, emulated ? sql_lab : sql, -1, &st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_int64(st, 1, run_id);
	int cols = sqlite3_column_count(st), rc = 0, s;
	const char **cells = calloc((size_t)cols, sizeof(*cells));
	if (!cells) {
		sqlite3_finalize(st);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	for (int i = 0; i < cols; i++)
		cells[i] = sqlite3_column_name(st, i);
	if (fn(ctx, cols, cells, err) < 0)
		goto out;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < cols; i++)
			cells[i] = (const char *)sqlite3_column_text(st, i);
		if (fn(ctx, cols, cells, err) < 0)
			goto out;
	}
	if (s != SQLITE_DONE)
		rc = ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	free(cells);
	sqlite3_finalize(st);
	return rc;
out:
	free(cells);
	sqlite3_finalize(st);
	return -1;
}
