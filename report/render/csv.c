/* csv: see csv.h. Values are written as SQLite renders them, so the file holds the
 * database's numbers, not the report's rounding. */
#include "report/render/csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lib/atomicfile.h"
#include "report/model/describe.h"
#include "report/model/fmt.h"
#include "report/load/lab.h"
#include "report/render/report.h"

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

int rp_csv_write(sqlite3 *db, long long run_id, bool emulated, const char *path,
		 struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	struct atomicfile af = {0};
	FILE *f = NULL;
	struct rp_buf b;
	rp_buf_init(&b);
	if (sqlite3_prepare_v2(db, emulated ? sql_lab : sql, -1, &st, NULL) != SQLITE_OK) {
		ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
		goto err;
	}
	sqlite3_bind_int64(st, 1, run_id);
	if (atomicfile_open(&af, path, 0644, 0, err) < 0)
		goto err;
	f = af.f;
	int cols = sqlite3_column_count(st);
	for (int i = 0; i < cols; i++) {
		rp_csv_field(&b, sqlite3_column_name(st, i));
		rp_buf_puts(&b, i + 1 < cols ? "," : "\r\n");
	}
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int i = 0; i < cols; i++) {
			rp_csv_field(&b, (const char *)sqlite3_column_text(st, i));
			rp_buf_puts(&b, i + 1 < cols ? "," : "\r\n");
		}
		if (b.len > 1 << 16) {
			fwrite(rp_buf_str(&b), 1, b.len, f);
			rp_buf_reset(&b);
		}
	}
	if (rc != SQLITE_DONE) {
		ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
		goto err;
	}
	if (b.oom) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto err;
	}
	fwrite(rp_buf_str(&b), 1, b.len, f);
	sqlite3_finalize(st);
	rp_buf_free(&b);
	return atomicfile_commit(&af, err);
err:
	sqlite3_finalize(st);
	rp_buf_free(&b);
	atomicfile_abort(&af);
	return -1;
}

int rp_csv_ranking(const struct rp_report *r, const char *path, struct ns_err *err)
{
	struct rp_buf b;
	rp_buf_init(&b);
	bool lab = rp_lab_scale(r->d) != NULL;
	rp_buf_puts(&b, "rule,rank,endpoint,instance_type,region,price_basis,usd_per_hour,case_key,"
		    "mbps,mbps_per_usd_hour,provider,currency,pricing,per_hour,mbps_per_hour");
	rp_buf_puts(&b, lab ? ",emulated,lab_scale\n" : "\n");
	for (size_t i = 0; i < r->n_cost; i++) {
		const struct rp_cost_row *c = &r->cost[i];
		const struct rp_endpoint *e = &r->d->eps[c->ep];
		rp_csv_field(&b, r->rank_rule ? r->rank_rule : "best");
		if (c->rank)
			rp_buf_printf(&b, ",%d,", c->rank);
		else
			rp_buf_puts(&b, ",,");
		rp_csv_field(&b, e->name);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->instance_type);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->region);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->price_basis);
		rp_buf_puts(&b, ",");
		int usd = rp_ep_usd(e); /* the dollar columns only in dollars */
		if (!isnan(c->usd_per_hour) && usd)
			rp_buf_printf(&b, "%.17g", c->usd_per_hour);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, c->best_case >= 0 ? r->d->cases[c->best_case].case_key : NULL);
		rp_buf_puts(&b, ",");
		if (!isnan(c->mbps))
			rp_buf_printf(&b, "%.17g", c->mbps);
		rp_buf_puts(&b, ",");
		if (!isnan(c->mbps_per_usd_hour) && usd)
			rp_buf_printf(&b, "%.17g", c->mbps_per_usd_hour);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->provider);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, isnan(c->usd_per_hour) ? NULL : usd ? "USD" : e->currency);
		rp_buf_puts(&b, ",");
		rp_csv_field(&b, e->pricing ? e->pricing : "on-demand");
		rp_buf_puts(&b, ",");
		if (!isnan(c->usd_per_hour))
			rp_buf_printf(&b, "%.17g", c->usd_per_hour);
		rp_buf_puts(&b, ",");
		if (!isnan(c->mbps_per_usd_hour))
			rp_buf_printf(&b, "%.17g", c->mbps_per_usd_hour);
		if (lab && e->lab_scale)
			rp_buf_printf(&b, ",1,%.17g", e->emu_scale);
		else if (lab)
			rp_buf_puts(&b, ",0,");
		rp_buf_puts(&b, "\n");
	}
	int rc = b.oom ? ns_err_code(err, NS_E_NOMEM, "out of memory")
		       : atomicfile_write(path, rp_buf_str(&b), b.len, 0644, 0, err);
	rp_buf_free(&b);
	return rc;
}
