/* export_rows: what netsweep export reads of a run — each case with its labels and figures
 * (its median over the successful repeats, v_case_median; its time the end of its last
 * result, else the run's start; its mean transfer and total US dollars an hour, v_cost_total),
 * its responsiveness case's median RPM and idle RPM over its ok repeats, v_responsiveness),
 * the run's billed and measured cost, and its v_results rows
 * as JSON objects. render/export.c writes them as Prometheus, OpenMetrics or NDJSON. */
#ifndef RP_EXPORT_ROWS_H
#define RP_EXPORT_ROWS_H

#include <sqlite3.h>
#include <stddef.h>

#include "lib/err.h"

enum rp_xcol { RP_X_RUN, RP_X_LABEL, RP_X_MATRIX, RP_X_PAIR, RP_X_TYPE, RP_X_REGION, RP_X_PROTO, RP_X_DIR, RP_X_STREAMS, RP_X_LENGTH,
       RP_X_KEY, RP_X_TS, RP_X_MEDIAN, RP_X_OK, RP_X_FAILED, RP_X_LOST, RP_X_RETR, RP_X_SCPU, RP_X_RCPU, RP_X_PRICE, RP_X_EMU,
       RP_X_RANK, RP_X_FAMILY, RP_X_CLIENTS, RP_X_JAIN, RP_X_MINFAIR, RP_X_RANK_CUR,
       RP_X_XFER, RP_X_TOTAL, RP_X_RELATION, RP_X_RPM, RP_X_RPM_IDLE, RP_X_COLS };

/* One case: its labels as text and its figures (NAN = none). */
struct rp_xcase {
	char *text[RP_X_COLS];
	double num[RP_X_COLS];
};

struct rp_xset {
	struct rp_xcase *c;
	size_t n, cap;
};

/* Appends run's cases to s, those of the pairs whose type answers to type only (lib/names/itype.h;
 * NULL = every case). NS_E_INPUT for the database, NS_E_NOMEM. */
int rp_xset_read(sqlite3 *db, long long run, const char *type, struct rp_xset *s,
		 struct ns_err *err);
void rp_xset_free(struct rp_xset *s);

/* A run's labels, time (NAN = none) and cost: usd[0] billed, usd[1] measured (NAN = none). */
struct rp_xrun {
	char *label, *matrix;
	double ts;
	double usd[2];
};
/* 1 and r filled, 0 when there is no such run, -1 with err. Free r with rp_xrun_free. */
int rp_xrun_read(sqlite3 *db, long long id, struct rp_xrun *r, struct ns_err *err);
void rp_xrun_free(struct rp_xrun *r);

/* Each client of run id's group cases: its case's key, its name and its mean receive rate
 * over the case's successful results, to fn in case and client order. */
typedef int (*rp_xclient_fn)(void *ctx, const char *case_key, const char *name, double bps);
int rp_xclients_each(sqlite3 *db, long long id, rp_xclient_fn fn, void *ctx, struct ns_err *err);

/* Each v_results row of run id (of the types answering to type; NULL = all) as one JSON object
 * (every column under its name and type; a group case's also "group": its v_group_fairness
 * figures with its clients' v_group_clients rows as "members"; a responsiveness result's
 * "responsiveness": its v_responsiveness figures), to fn in result order; fn's negative return stops
 * with that error. */
typedef int (*rp_line_fn)(void *ctx, const char *line, struct ns_err *err);
int rp_xjson_rows(sqlite3 *db, long long id, const char *type, rp_line_fn fn, void *ctx,
		  struct ns_err *err);

/* Each stored result of run id (of the types answering to type; NULL = all) in iperf3's JSON
 * layout (schemas/iperf3-json.md), one document to fn each, in result order: start,
 * intervals (the stored interval sums, and the streams' where they were kept), end (one
 * streams[] entry per stream — a group case's every client's streams — sum_sent,
 * sum_received, for UDP sum, cpu_utilization_percent) and the stored result whole under
 * "netsweep". A result without a stored probe_json is left out. */
int rp_xiperf3_rows(sqlite3 *db, long long id, const char *type, rp_line_fn fn, void *ctx,
		    struct ns_err *err);

/* export --monthly-transfer: prices every run's transfer at monthly_gb GB a month for the rest
 * of this connection, as `report --monthly-transfer` does. Reads the store's own v_cost_total
 * (the one formula, schemas/store.sql) and shadows it with a TEMP view of the same text that
 * reads the volume from a TEMP table instead of run_transfer_volume: nothing is written to the
 * database (read-only is enough). NS_E_INPUT when the store's view has no volume to override
 * (a store from before transfer pricing). */
int rp_export_monthly_volume(sqlite3 *db, double monthly_gb, struct ns_err *err);

#endif
