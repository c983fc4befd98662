/* export_rows: see export_rows.h. */
#include "report/load/export_rows.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/names/itype.h"
#include "lib/jsonw.h"
#include "lib/sql/sqlrow.h"
#include "report/load/rundb.h"

/* The median of v_responsiveness column col over case c's ok results (NULL: none). */
#define RPM_MEDIAN(col) "(SELECT avg(v) FROM (SELECT x." col " AS v, row_number() OVER" \
	" (ORDER BY x." col ") AS i, count(*) OVER () AS n FROM v_responsiveness x" \
	" WHERE x.case_id = c.id AND x.status = 'ok' AND x." col " IS NOT NULL)" \
	" WHERE i IN ((n + 1) / 2, (n + 2) / 2))"

static const char CASES_SQL[] =
	"SELECT c.run_id, coalesce(ru.label, ''), ru.matrix_name, e.name, e.instance_type,"
	" e.region, c.protocol, c.direction, c.streams, c.length, c.case_key,"
	" coalesce(strftime('%s', (SELECT max(r.finished_at) FROM results r WHERE r.case_id = c.id)),"
	"          strftime('%s', ru.started_at)),"
	" m.median_bps,"
	" (SELECT count(*) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT count(*) FROM results r WHERE r.case_id = c.id AND r.status <> 'ok'),"
	" (SELECT avg(r.fwd_lost_percent) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT avg(r.fwd_retransmits) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT avg(r.fwd_snd_cpu) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT avg(r.fwd_rcv_cpu) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT CASE rp.currency WHEN 'USD' THEN rp.per_hour END FROM v_endpoint_ranked_price rp"
	"  WHERE rp.endpoint_id = e.id),"
	" EXISTS (SELECT 1 FROM endpoint_emulation em WHERE em.endpoint_id = e.id),"
	" k.rank,"
	" (SELECT t.family FROM run_instance_types t WHERE t.run_id = c.run_id"
	"  AND t.instance_type = e.instance_type),"
	" (SELECT max(g.clients) FROM group_results g JOIN results r ON r.id = g.result_id"
	"  WHERE r.case_id = c.id),"
	" (SELECT avg(g.jain) FROM group_results g JOIN results r ON r.id = g.result_id"
	"  WHERE r.case_id = c.id AND r.status = 'ok'),"
	" (SELECT min(g.min_of_fair) FROM group_results g JOIN results r ON r.id = g.result_id"
	"  WHERE r.case_id = c.id AND r.status = 'ok'),"
	" k.currency," /* the ranked price's: each currency is ranked on its own */
	/* with transfer, in US dollars: the mean over the case's results (v_cost_total) */
	" (SELECT avg(t.transfer_per_hour) FROM v_cost_total t WHERE t.case_id = c.id"
	"  AND t.currency = 'USD'),"
	" (SELECT avg(t.total_per_hour) FROM v_cost_total t WHERE t.case_id = c.id"
	"  AND t.currency = 'USD'),"
	" e.relation,"
	/* a responsiveness case's median RPM and idle RPM over its ok repeats */
	" " RPM_MEDIAN("rpm") ", " RPM_MEDIAN("rpm_idle")
	" FROM cases c JOIN runs ru ON ru.id = c.run_id JOIN endpoints e ON e.id = c.endpoint_id"
	" LEFT JOIN v_case_median m ON m.case_id = c.id"
	/* the run's ranking alone: the filter reaches the view's windows (store version 24) */
	" LEFT JOIN (SELECT case_id, rank, currency FROM v_cost_ranking WHERE run_id = ?1) k"
	" ON k.case_id = c.id"
	" WHERE c.run_id = ?1 ORDER BY c.ordinal, c.id";


void rp_xset_free(struct rp_xset *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < RP_X_COLS; k++)
			free(s->c[i].text[k]);
	free(s->c);
}

int rp_xset_read(sqlite3 *db, long long run, const char *type, struct rp_xset *s,
		 struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, CASES_SQL, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (!itype_matches(sqlrow_text(st, RP_X_TYPE), sqlrow_text(st, RP_X_FAMILY), type))
			continue;
		if (s->n == s->cap) {
			size_t cap = s->cap ? 2 * s->cap : 64;
			struct rp_xcase *c = realloc(s->c, cap * sizeof(*c));
			if (!c)
				goto nomem;
			s->c = c;
			s->cap = cap;
		}
		struct rp_xcase *x = &s->c[s->n];
		memset(x, 0, sizeof(*x));
		s->n++;
		for (int k = 0; k < RP_X_COLS; k++) {
			x->text[k] = sqlrow_dup_or_empty(st, k);
			x->num[k] = sqlrow_num(st, k);
			if (!x->text[k])
				goto nomem;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_IO, "database: %s", sqlite3_errmsg(db));
	return 0;
nomem:
	sqlite3_finalize(st);
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

static const char RUN_SQL[] =
	"SELECT coalesce(ru.label, ''), ru.matrix_name, strftime('%s', coalesce(ru.finished_at,"
	" ru.started_at)), (SELECT usd FROM v_run_billed b WHERE b.run_id = ?1),"
	" (SELECT usd FROM v_run_cost x WHERE x.run_id = ?1) FROM runs ru WHERE ru.id = ?1";

int rp_xrun_read(sqlite3 *db, long long id, struct rp_xrun *r, struct ns_err *err)
{
	sqlite3_stmt *st;
	*r = (struct rp_xrun){.ts = NAN, .usd = {NAN, NAN}};
	if (rp_db_prep(db, RUN_SQL, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int found = sqlite3_step(st) == SQLITE_ROW;
	if (found) {
		const unsigned char *l = sqlite3_column_text(st, 0), *m = sqlite3_column_text(st, 1);
		r->label = strdup(l ? (const char *)l : "");
		r->matrix = strdup(m ? (const char *)m : "");
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			r->ts = sqlite3_column_double(st, 2);
		for (int k = 0; k < 2; k++)
			if (sqlite3_column_type(st, 3 + k) != SQLITE_NULL)
				r->usd[k] = sqlite3_column_double(st, 3 + k);
	}
	sqlite3_finalize(st);
	if (found && (!r->label || !r->matrix)) {
		rp_xrun_free(r);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	return found;
}

void rp_xrun_free(struct rp_xrun *r)
{
	free(r->label);
	free(r->matrix);
	r->label = r->matrix = NULL;
}

int rp_xclients_each(sqlite3 *db, long long id, rp_xclient_fn fn, void *ctx, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT case_key, name, avg(rcv_bps) FROM v_group_clients"
		       " WHERE run_id = ?1 AND status = 'ok' GROUP BY case_id, client, name"
		       " ORDER BY case_id, client", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = 0;
	while (!rc && sqlite3_step(st) == SQLITE_ROW)
		rc = fn(ctx, sqlrow_text(st, 0), sqlrow_text(st, 1), sqlrow_num(st, 2));
	sqlite3_finalize(st);
	return rc < 0 ? ns_err_code(err, NS_E_NOMEM, "out of memory") : 0;
}

/* A group result's "group" object, built by SQLite's JSON functions (NULL for any other). */
#define GROUP_JSON \
	"(SELECT json_object('kind', g.kind, 'clients', g.clients, 'completed', g.completed," \
	" 'streams_per_client', g.streams_per_client, 'total_bps', g.total_bps, 'jain', g.jain," \
	" 'min_share', g.min_share, 'min_of_fair', g.min_of_fair, 'converge_s', g.converge_s," \
	" 'start_spread_ms', g.start_spread_ms, 'start_dispatched', g.start_dispatched," \
	" 'members', (SELECT json_group_array(json_object('client', m.client, 'name', m.name," \
	" 'client_host', m.client_host, 'agent', m.agent, 'status', m.status, 'error', m.error," \
	" 'start_offset_ms', m.start_offset_ms, 'rcv_bps', m.rcv_bps, 'snd_bps', m.snd_bps," \
	" 'retransmits', m.retransmits, 'lost_percent', m.lost_percent, 'snd_cpu', m.snd_cpu," \
	" 'rcv_cpu', m.rcv_cpu, 'limited_by', m.limited_by, 'sender_limited', m.sender_limited))" \
	" FROM (SELECT * FROM group_clients WHERE result_id = g.result_id ORDER BY client) m))" \
	" FROM group_results g WHERE g.result_id = v.result_id)"

/* A responsiveness result's v_responsiveness figures (NULL for any other). */
#define RPM_JSON \
	"(SELECT json_object('rpm', x.rpm, 'rpm_idle', x.rpm_idle, 'rpm_per_usd_hour'," \
	" x.rpm_per_usd_hour, 'foreign_tm_ms', x.foreign_tm_ms, 'foreign_probes'," \
	" x.foreign_probes, 'self_tm_ms', x.self_tm_ms, 'self_samples', x.self_samples," \
	" 'idle_tm_ms', x.idle_tm_ms, 'idle_probes', x.idle_probes, 'connections'," \
	" x.connections, 'saturated', x.saturated) FROM v_responsiveness x" \
	" WHERE x.result_id = v.result_id)"

/* A successful result's v_cost_total figures (NULL for a failed one). */
#define TRANSFER_JSON \
	"(SELECT json_object('relation', t.relation, 'bps', t.bps, 'currency', t.currency," \
	" 'instance_per_hour', t.instance_per_hour, 'gb_per_hour', t.gb_per_hour," \
	" 'monthly_gb', t.monthly_gb, 'transfer_per_hour', t.transfer_per_hour," \
	" 'total_per_hour', t.total_per_hour, 'mbps_per_instance_hour', t.mbps_per_instance_hour," \
	" 'mbps_per_total_hour', t.mbps_per_total_hour, 'transfer_per_tb', t.transfer_per_tb," \
	" 'total_per_tb', t.total_per_tb) FROM v_cost_total t WHERE t.result_id = v.result_id)"

int rp_xjson_rows(sqlite3 *db, long long id, const char *type, rp_line_fn fn, void *ctx,
		  struct ns_err *err)
{
	sqlite3_stmt *st;
	/* a group case's figures, then the type's family last, to select by; every column
	 * before them is v_results' */
	if (rp_db_prep(db, "SELECT v.*, " GROUP_JSON ", " TRANSFER_JSON ", " RPM_JSON ", (SELECT t.family FROM"
		       " run_instance_types t WHERE t.run_id = v.run_id AND t.instance_type ="
		       " v.instance_type) FROM v_results v WHERE v.run_id = ?1 ORDER BY v.result_id",
		       &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = 0, cols = sqlite3_column_count(st) - 4, type_col = -1;
	for (int k = 0; k < cols; k++)
		if (!strcmp(sqlite3_column_name(st, k), "instance_type"))
			type_col = k;
	while (!rc && sqlite3_step(st) == SQLITE_ROW) {
		if (!itype_matches(type_col < 0 ? NULL : sqlrow_text(st, type_col),
				   sqlrow_text(st, cols + 3), type))
			continue;
		struct jsonw w;
		jsonw_init(&w, false);
		jsonw_obj_open(&w);
		for (int k = 0; k < cols; k++) {
			jsonw_key(&w, sqlite3_column_name(st, k));
			switch (sqlite3_column_type(st, k)) {
			case SQLITE_INTEGER: jsonw_int(&w, sqlite3_column_int64(st, k)); break;
			case SQLITE_FLOAT: jsonw_double(&w, sqlite3_column_double(st, k)); break;
			case SQLITE_NULL: jsonw_null(&w); break;
			default: jsonw_str(&w, (const char *)sqlite3_column_text(st, k)); break;
			}
		}
		if (sqlite3_column_type(st, cols) != SQLITE_NULL) {
			jsonw_key(&w, "group");
			jsonw_raw(&w, (const char *)sqlite3_column_text(st, cols));
		}
		if (sqlite3_column_type(st, cols + 1) != SQLITE_NULL) {
			jsonw_key(&w, "transfer");
			jsonw_raw(&w, (const char *)sqlite3_column_text(st, cols + 1));
		}
		if (sqlite3_column_type(st, cols + 2) != SQLITE_NULL) {
			jsonw_key(&w, "responsiveness");
			jsonw_raw(&w, (const char *)sqlite3_column_text(st, cols + 2));
		}
		jsonw_obj_close(&w);
		const char *text = jsonw_finish(&w);
		rc = text ? fn(ctx, text, err) : ns_err_code(err, NS_E_NOMEM, "out of memory");
		jsonw_free(&w);
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* iperf3's layout (schemas/iperf3-json.md) of a stored result, built by SQLite's JSON
 * functions from its probe_json: the same keys, units and types as runner/proto/iperf3_json.c
 * writes for `probe -J --json-format iperf3`, for the figures a stored result keeps (its
 * streams' end figures, its interval sums); a group case's total has one end.streams[] entry
 * per client stream. X is the result's row: p its probe_json, t its duration, udp, sends
 * (the client sent), ts its start (epoch seconds). */
#define I3_B(e) "iif(" e ", json('true'), json('false'))"
#define I3_SPAN(f) "'start', 0, 'end', x.t, 'seconds', x.t, 'bytes', " f "->>'bytes'," \
	" 'bits_per_second', " f "->>'bits_per_second'"
#define I3_US(e) "CAST(round(1000 * coalesce(" e ", 0)) AS INTEGER)"
#define I3_UDP(f) "'jitter_ms', " f "->>'jitter_ms', 'lost_packets', " f "->>'lost'," \
	" 'packets', " f "->>'packets' + " f "->>'lost', 'lost_percent', " f "->>'lost_percent'"
#define I3_IV(v, sum) "json_patch(json_object(" sum " 'start', " v "->>'start_s', 'end', " \
	v "->>'end_s', 'seconds', " v "->>'end_s' - (" v "->>'start_s'), 'bytes', " v "->>'bytes'," \
	" 'bits_per_second', " v "->>'bits_per_second', 'omitted', " I3_B(v "->>'omitted'") "," \
	" 'sender', " I3_B("x.sends") "), CASE WHEN x.udp AND x.sends THEN json_object('packets'," \
	" " v "->>'packets') WHEN x.udp THEN json_object('jitter_ms', " v "->>'jitter_ms'," \
	" 'lost_packets', " v "->>'lost', 'packets', " v "->>'packets', 'lost_percent'," \
	" 100.0 * " v "->>'lost' / max(1, " v "->>'packets' + " v "->>'lost'))" \
	" WHEN x.sends THEN json_object('retransmits', coalesce(" v "->>'retransmits', 0)) ELSE '{}' END)"
static const char IPERF3_SQL[] =
	"WITH x AS (SELECT v.result_id AS id, v.instance_type AS itype, (SELECT t.family FROM"
	" run_instance_types t WHERE t.run_id = v.run_id AND t.instance_type = v.instance_type)"
	" AS family, r.probe_json AS p, coalesce(r.probe_json->>'duration_s', 0) AS t,"
	" r.probe_json->>'protocol' = 'udp' AS udp,"
	" coalesce(r.probe_json->>'direction', 'forward') <> 'reverse' AS sends,"
	" coalesce(nullif(r.probe_json->>'started_unix', 0), unixepoch(r.started_at), 0) AS ts,"
	" " GROUP_JSON " AS grp,"
	" (SELECT streams_per_client FROM group_results g WHERE g.result_id = v.result_id) AS spc"
	" FROM v_results v JOIN results r ON r.id = v.result_id"
	" WHERE v.run_id = ?1 AND json_valid(r.probe_json))"
	" SELECT x.itype, x.family, json_object("
	"'start', json_object("
	/* a group's streams are its clients' one after another: each to its client's agent */
	" 'connected', (SELECT json_group_array(json_object('socket', 5 + sid, 'local_host',"
	"  coalesce(x.p->>'$.params.bind', ''), 'local_port', 0, 'remote_host',"
	"  coalesce(trim(rtrim(rtrim(a, '0123456789'), ':'), '[]'), x.p->>'$.params.host'),"
	"  'remote_port', coalesce(CAST(substr(a, length(rtrim(a, '0123456789')) + 1) AS INTEGER),"
	"  x.p->>'$.params.port')))"
	"  FROM (SELECT sid, (SELECT gc.agent FROM group_clients gc WHERE gc.result_id = x.id"
	"  AND gc.client = sid / x.spc) AS a FROM (SELECT DISTINCT s.value->>'id' AS sid"
	"  FROM json_each(x.p, '$.streams_detail') s) ORDER BY sid)),"
	" 'version', 'netsweep ' || coalesce(x.p->>'netsweep', ''), 'system_info', '',"
	" 'timestamp', json_object('time', substr('SunMonTueWedThuFriSat', 1 + 3 * strftime('%w',"
	"  x.ts, 'unixepoch'), 3) || strftime(', %d ', x.ts, 'unixepoch') ||"
	"  substr('JanFebMarAprMayJunJulAugSepOctNovDec', 3 * strftime('%m', x.ts, 'unixepoch') - 2,"
	"  3) || strftime(' %Y %H:%M:%S GMT', x.ts, 'unixepoch'), 'timesecs', CAST(x.ts AS INTEGER)),"
	" 'connecting_to', json_object('host', x.p->>'$.params.host', 'port', x.p->>'$.params.port'),"
	" 'cookie', '', 'target_bitrate', x.p->>'$.params.rate_bps',"
	" 'sock_bufsize', x.p->>'$.params.window',"
	" 'test_start', json_object('protocol', upper(x.p->>'protocol'), 'num_streams',"
	"  x.p->>'streams', 'blksize', CASE WHEN x.p->>'$.params.length' > 0 THEN"
	"  x.p->>'$.params.length' WHEN x.udp THEN 1460 ELSE 131072 END, 'omit',"
	"  CAST(x.p->>'$.params.omit_s' AS INTEGER), 'duration',"
	"  CAST(x.p->>'$.params.duration_s' AS INTEGER), 'bytes', x.p->>'$.params.bytes', 'blocks',"
	"  x.p->>'$.params.blocks', 'reverse', x.p->>'direction' = 'reverse', 'tos',"
	"  x.p->>'$.params.tos', 'target_bitrate', x.p->>'$.params.rate_bps', 'bidir',"
	"  x.p->>'direction' = 'bidir', 'fqrate', x.p->>'$.params.fq_rate_bps', 'interval',"
	"  x.p->>'$.params.interval_s')),"
	"'intervals', (SELECT json_group_array(json_object("
	" 'streams', (SELECT json_group_array(json(" I3_IV("s.value", "'socket', 5 + (s.value->>'stream'),") "))"
	"  FROM json_each(x.p, '$.intervals') s WHERE s.value->>'stream' >= 0"
	"  AND s.value->>'start_s' = i.value->>'start_s'"
	"  AND s.value->>'direction' IS i.value->>'direction'),"
	" 'sum', json(" I3_IV("i.value", "") ")))"
	" FROM json_each(x.p, '$.intervals') i WHERE i.value->>'stream' = -1"
	" AND i.value->>'direction' IS coalesce(x.p->>'$.sum.direction', x.p->>'direction')),"
	"'end', json_patch(json_object("
	" 'streams', (SELECT json_group_array(json(CASE WHEN x.udp THEN json_object('udp',"
	"  json_object('socket', 5 + (s.value->>'id'), " I3_SPAN("s.value->'$.receiver'") ","
	"  " I3_UDP("s.value->'$.receiver'") ", 'out_of_order', s.value->>'$.receiver.out_of_order',"
	"  'sender', " I3_B("x.sends") ")) ELSE json_object("
	"  'sender', json_object('socket', 5 + (s.value->>'id'), " I3_SPAN("s.value->'$.sender'") ","
	"  'retransmits', coalesce(s.value->>'$.sender.retransmits', 0),"
	"  'max_snd_cwnd', coalesce(s.value->>'$.sender.cwnd_bytes', 0),"
	"  'max_rtt', " I3_US("s.value->>'$.sender.rtt_ms'") ", 'min_rtt',"
	"  " I3_US("s.value->>'$.sender.rtt_ms'") ", 'mean_rtt', " I3_US("s.value->>'$.sender.rtt_ms'") ","
	"  'sender', " I3_B("x.sends") "),"
	"  'receiver', json_object('socket', 5 + (s.value->>'id'), " I3_SPAN("s.value->'$.receiver'") ","
	"  'sender', " I3_B("x.sends") ")) END))"
	"  FROM json_each(x.p, '$.streams_detail') s),"
	" 'sum_sent', json_patch(json_object(" I3_SPAN("x.p->'$.sum.sender'") ", 'sender',"
	"  " I3_B("x.sends") "), CASE WHEN x.udp THEN json_object('jitter_ms', 0, 'lost_packets', 0,"
	"  'packets', x.p->>'$.sum.sender.packets', 'lost_percent', 0) ELSE json_object('retransmits',"
	"  coalesce(x.p->>'$.sum.sender.retransmits', 0)) END),"
	" 'sum_received', json_patch(json_object(" I3_SPAN("x.p->'$.sum.receiver'") ", 'sender',"
	"  " I3_B("NOT x.udp AND x.sends") "), CASE WHEN x.udp THEN json_object("
	"  " I3_UDP("x.p->'$.sum.receiver'") ") ELSE '{}' END),"
	" 'cpu_utilization_percent', json_object('host_total', iif(x.sends,"
	"  x.p->>'$.sum.sender.cpu_percent', x.p->>'$.sum.receiver.cpu_percent'), 'remote_total',"
	"  iif(x.sends, x.p->>'$.sum.receiver.cpu_percent', x.p->>'$.sum.sender.cpu_percent'))),"
	" CASE WHEN x.udp THEN json_object('sum', json_object(" I3_SPAN("x.p->'$.sum.receiver'") ","
	"  " I3_UDP("x.p->'$.sum.receiver'") ", 'sender', " I3_B("x.sends") ")) ELSE '{}' END),"
	/* the stored result, and a group's v_group_fairness figures and members as export
	 * --format ndjson has them ("group"), member names included */
	"'netsweep', iif(x.grp IS NULL, json(x.p), json_set(x.p, '$.group', json(x.grp))))"
	" FROM x ORDER BY x.id";

int rp_xiperf3_rows(sqlite3 *db, long long id, const char *type, rp_line_fn fn, void *ctx,
		    struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, IPERF3_SQL, &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int rc = 0, step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (itype_matches(sqlrow_text(st, 0), sqlrow_text(st, 1), type))
			rc = fn(ctx, sqlrow_text(st, 2), err);
	}
	if (!rc && step != SQLITE_DONE)
		rc = ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int rp_export_monthly_volume(sqlite3 *db, double monthly_gb, struct ns_err *err)
{
	static const char from[] = "run_transfer_volume", to[] = "temp.ns_export_volume";
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT sql FROM main.sqlite_master WHERE type = 'view' "
		       "AND name = 'v_cost_total'", &st, err) < 0)
		return -1;
	const char *sql = sqlite3_step(st) == SQLITE_ROW
			  ? (const char *)sqlite3_column_text(st, 0) : NULL;
	const char *at = sql ? strstr(sql, from) : NULL;
	if (!at || strstr(at + 1, from)) {
		sqlite3_finalize(st);
		return ns_err_code(err, NS_E_INPUT, "--monthly-transfer: this database's "
				   "v_cost_total prices no monthly volume (a store from before "
				   "transfer pricing)");
	}
	/* "CREATE VIEW v_cost_total" -> "CREATE TEMP VIEW v_cost_total", the volume's table
	 * named anew; the rest, the formula, as the store has it */
	const char *view = strstr(sql, "VIEW");
	size_t n = strlen(sql) + sizeof(to) + 16;
	char *tv = view && view < at ? malloc(n) : NULL;
	if (tv)
		snprintf(tv, n, "CREATE TEMP %.*s%s%s", (int)(at - view), view, to,
			 at + strlen(from));
	sqlite3_finalize(st);
	if (!tv)
		return ns_err_code(err, view ? NS_E_NOMEM : NS_E_INPUT, view ? "out of memory"
				   : "--monthly-transfer: v_cost_total is not a view");
	char *msg = NULL;
	int rc = sqlite3_exec(db, "DROP VIEW IF EXISTS temp.v_cost_total;"
			      "CREATE TEMP TABLE IF NOT EXISTS ns_export_volume ("
			      " run_id INTEGER PRIMARY KEY, monthly_gb REAL NOT NULL);"
			      "DELETE FROM temp.ns_export_volume", NULL, NULL, &msg);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, tv, NULL, NULL, &msg);
	free(tv);
	if (rc == SQLITE_OK && rp_db_prep(db, "INSERT INTO temp.ns_export_volume "
					  "SELECT id, ? FROM main.runs", &st, err) == 0) {
		sqlite3_bind_double(st, 1, monthly_gb);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
		sqlite3_finalize(st);
		if (rc != SQLITE_OK)
			return ns_err_code(err, NS_E_INPUT, "--monthly-transfer: %s",
					   sqlite3_errmsg(db));
		return 0;
	}
	if (rc == SQLITE_OK)
		return -1; /* rp_db_prep filled err */
	ns_err_code(err, NS_E_INPUT, "--monthly-transfer: %s", msg ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}
