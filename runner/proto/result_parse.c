/* result_parse: probe_result_from_json, the inverse of probe_result_json (result_json.c), so
 * that a result a client agent ran on the runner's behalf lands in the same struct — and the
 * same store code — as a local one. The JSON is read by SQLite's JSON functions over an
 * in-memory connection (no parser of our own); numbers are taken as their JSON text (the
 * `->` operator) and converted here, so that 17-digit doubles and 64-bit counters come back
 * bit for bit. */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "proto.h"

struct rp {
	sqlite3 *db;
	const char *json;
	struct ns_err *err;
	bool bad;                 /* a number that is not one */
	char bad_key[64];
};

/* Figure keys in struct probe_figures order (the column order of fig_sql). */
static const char *const fig_keys[] = {
	"bytes", "packets", "bits_per_second", "packets_per_second", "cpu_percent",
	"retransmits", "rtt_ms", "cwnd_bytes", "lost", "lost_percent", "out_of_order",
	"duplicates", "jitter_ms", "kernel_drops",
};
#define N_FIG (sizeof(fig_keys) / sizeof(fig_keys[0]))

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : NULL;
}

/* JSON text of a number (or null / missing: 0). */
static double num_d(struct rp *r, sqlite3_stmt *st, int i, const char *key)
{
	const char *t = col_text(st, i);
	if (!t || !strcmp(t, "null"))
		return 0;
	char *end;
	errno = 0;
	double v = strtod(t, &end);
	if (*end || end == t || !isfinite(v)) {
		r->bad = true;
		snprintf(r->bad_key, sizeof(r->bad_key), "%s", key);
		return 0;
	}
	return v;
}

static uint64_t num_u(struct rp *r, sqlite3_stmt *st, int i, const char *key)
{
	const char *t = col_text(st, i);
	if (!t || !strcmp(t, "null"))
		return 0;
	char *end;
	errno = 0;
	uint64_t v = strtoull(t, &end, 10);
	if (*end || end == t || t[0] == '-' || errno) {
		r->bad = true;
		snprintf(r->bad_key, sizeof(r->bad_key), "%s", key);
		return 0;
	}
	return v;
}

static int64_t num_i(struct rp *r, sqlite3_stmt *st, int i, const char *key)
{
	const char *t = col_text(st, i);
	if (!t || !strcmp(t, "null"))
		return 0;
	char *end;
	errno = 0;
	int64_t v = strtoll(t, &end, 10);
	if (*end || end == t || errno) {
		r->bad = true;
		snprintf(r->bad_key, sizeof(r->bad_key), "%s", key);
		return 0;
	}
	return v;
}

static bool is_true(sqlite3_stmt *st, int i)
{
	const char *t = col_text(st, i);
	return t && !strcmp(t, "true");
}

static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int i)
{
	const char *t = col_text(st, i);
	snprintf(dst, cap, "%s", t ? t : "");
	proto_printable(dst); /* another host's words, printed and stored */
}

static int prep(struct rp *r, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK)
		return ns_err_set(r->err, "reading a probe result: %s", sqlite3_errmsg(r->db));
	return 0;
}

static int dir_of(const char *name, enum ns_dir *d)
{
	if (!name)
		return -1;
	if (!strcmp(name, "forward"))
		*d = NS_DIR_FORWARD;
	else if (!strcmp(name, "reverse"))
		*d = NS_DIR_REVERSE;
	else if (!strcmp(name, "bidir"))
		*d = NS_DIR_BIDIR;
	else
		return -1;
	return 0;
}

/* Figures of the JSON object text obj (NULL: zeros). */
static int figures(struct rp *r, sqlite3_stmt *st, const char *obj, struct probe_figures *f)
{
	memset(f, 0, sizeof(*f));
	if (!obj)
		return 0;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, obj, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_ROW)
		return ns_err_set(r->err, "reading probe figures: %s", sqlite3_errmsg(r->db));
	int k = 0;
	f->bytes = num_u(r, st, k, fig_keys[k]), k++;
	f->packets = num_u(r, st, k, fig_keys[k]), k++;
	f->bits_per_second = num_d(r, st, k, fig_keys[k]), k++;
	f->packets_per_second = num_d(r, st, k, fig_keys[k]), k++;
	f->cpu_percent = num_d(r, st, k, fig_keys[k]), k++;
	f->retransmits = num_u(r, st, k, fig_keys[k]), k++;
	f->rtt_ms = num_d(r, st, k, fig_keys[k]), k++;
	f->cwnd_bytes = num_u(r, st, k, fig_keys[k]), k++;
	f->lost = num_u(r, st, k, fig_keys[k]), k++;
	f->lost_percent = num_d(r, st, k, fig_keys[k]), k++;
	f->out_of_order = num_u(r, st, k, fig_keys[k]), k++;
	f->duplicates = num_u(r, st, k, fig_keys[k]), k++;
	f->jitter_ms = num_d(r, st, k, fig_keys[k]), k++;
	f->kernel_drops = num_u(r, st, k, fig_keys[k]), k++;
	return 0;
}

static int fig_stmt(struct rp *r, sqlite3_stmt **st)
{
	char sql[1024];
	size_t n = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
	for (size_t i = 0; i < N_FIG; i++)
		n += (size_t)snprintf(sql + n, sizeof(sql) - n, "%s?1 -> '$.%s'", i ? ", " : "",
				      fig_keys[i]);
	return prep(r, sql, st);
}

static int top_level(struct rp *r, struct probe_result *res, bool *has_rev, int64_t *n_streams)
{
	sqlite3_stmt *st = NULL;
	struct probe_params *p = &res->params;
	int rc = -1;
	if (prep(r, "SELECT ?1 -> '$.version', ?1 ->> '$.status', ?1 ->> '$.error', "
		    "?1 -> '$.duration_s', ?1 -> '$.gso_active', json(?1 -> '$.agent_hostinfo'), "
		    "?1 -> '$.sum_reverse' IS NOT NULL, json_array_length(?1, '$.streams_detail'), "
		    "?1 ->> '$.params.host', ?1 -> '$.params.port', ?1 ->> '$.params.protocol', "
		    "?1 ->> '$.params.direction', ?1 -> '$.params.streams', ?1 -> '$.params.threads', "
		    "?1 -> '$.params.length', ?1 -> '$.params.rate_bps', ?1 -> '$.params.fq_rate_bps', "
		    "?1 -> '$.params.duration_s', ?1 -> '$.params.interval_s', "
		    "?1 -> '$.params.omit_s', ?1 ->> '$.params.affinity', ?1 -> '$.params.window', "
		    "?1 -> '$.params.mss', ?1 -> '$.params.nodelay', ?1 ->> '$.params.congestion', "
		    "?1 -> '$.params.gso', ?1 -> '$.params.connect_timeout_s', "
		    "?1 -> '$.params.timeout_s'",
		 &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ns_err_set(r->err, "reading a probe result: %s", sqlite3_errmsg(r->db));
		goto out;
	}
	if (num_u(r, st, 0, "version") != 1 || !col_text(st, 1)) {
		ns_err_set(r->err, "not a version-1 probe result");
		goto out;
	}
	res->status = !strcmp(col_text(st, 1), "ok") ? 0 : -1;
	copy_text(res->error, sizeof(res->error), st, 2);
	if (res->status != 0 && !res->error[0])
		snprintf(res->error, sizeof(res->error), "unknown error");
	res->duration_s = num_d(r, st, 3, "duration_s");
	res->gso_active = is_true(st, 4);
	const char *hi = col_text(st, 5);
	if (hi && strcmp(hi, "null") && !(res->agent_hostinfo = strdup(hi))) {
		ns_err_set(r->err, "out of memory");
		goto out;
	}
	*has_rev = sqlite3_column_int(st, 6) != 0;
	*n_streams = sqlite3_column_int64(st, 7);
	copy_text(p->host, sizeof(p->host), st, 8);
	p->port = (uint16_t)num_u(r, st, 9, "port");
	const char *proto = col_text(st, 10);
	p->proto = proto && !strcmp(proto, "udp") ? NS_PROTO_UDP : NS_PROTO_TCP;
	if (dir_of(col_text(st, 11), &p->dir) < 0) {
		ns_err_set(r->err, "probe result: unknown direction");
		goto out;
	}
	p->streams = (uint32_t)num_u(r, st, 12, "streams");
	p->threads = (uint32_t)num_u(r, st, 13, "threads");
	p->length = (uint32_t)num_u(r, st, 14, "length");
	p->rate_bps = num_u(r, st, 15, "rate_bps");
	p->fq_rate_bps = num_u(r, st, 16, "fq_rate_bps");
	p->duration_s = num_d(r, st, 17, "duration_s");
	p->interval_s = num_d(r, st, 18, "interval_s");
	p->omit_s = num_d(r, st, 19, "omit_s");
	copy_text(p->affinity, sizeof(p->affinity), st, 20);
	p->window = (uint32_t)num_u(r, st, 21, "window");
	p->mss = (uint32_t)num_u(r, st, 22, "mss");
	p->nodelay = is_true(st, 23);
	copy_text(p->congestion, sizeof(p->congestion), st, 24);
	p->gso = is_true(st, 25);
	p->connect_timeout_s = num_d(r, st, 26, "connect_timeout_s");
	p->timeout_s = num_d(r, st, 27, "timeout_s");
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int warnings(struct rp *r, struct probe_result *res)
{
	sqlite3_stmt *st = NULL;
	if (prep(r, "SELECT value FROM json_each(?1, '$.warnings') WHERE type = 'text'", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	size_t n = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *w = col_text(st, 0);
		if (w && n + 1 < sizeof(res->warnings))
			n += (size_t)snprintf(res->warnings + n, sizeof(res->warnings) - n, "%s%s",
					      n ? "; " : "", w);
		if (n >= sizeof(res->warnings))
			n = sizeof(res->warnings) - 1;
	}
	sqlite3_finalize(st);
	proto_printable(res->warnings);
	return 0;
}

/* Sums: dirs[0] from "sum", dirs[1] from "sum_reverse". */
static int sums(struct rp *r, sqlite3_stmt *fig, struct probe_result *res)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	static const char *const keys[2] = {"$.sum", "$.sum_reverse"};
	if (prep(r, "SELECT ?1 -> ?2 ->> '$.direction', ?1 -> ?2 -> '$.sender', "
		    "?1 -> ?2 -> '$.receiver'", &st) < 0)
		return -1;
	for (uint32_t d = 0; d < res->n_dirs; d++) {
		struct probe_direction *pd = &res->dirs[d];
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, keys[d], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW || dir_of(col_text(st, 0), &pd->dir) < 0 ||
		    pd->dir == NS_DIR_BIDIR) {
			ns_err_set(r->err, "probe result: malformed %s", keys[d] + 2);
			goto out;
		}
		if (figures(r, fig, col_text(st, 1), &pd->sender) < 0 ||
		    figures(r, fig, col_text(st, 2), &pd->receiver) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int dir_index(const struct probe_result *res, const char *name, uint32_t *d)
{
	enum ns_dir dir;
	if (dir_of(name, &dir) < 0)
		return -1;
	for (uint32_t i = 0; i < res->n_dirs; i++)
		if (res->dirs[i].dir == dir) {
			*d = i;
			return 0;
		}
	return -1;
}

static int streams(struct rp *r, sqlite3_stmt *fig, struct probe_result *res, int64_t n)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (n > 2 * NS_MAX_STREAMS)
		return ns_err_set(r->err, "probe result: %lld streams (at most %d)", (long long)n,
				  2 * NS_MAX_STREAMS);
	for (uint32_t d = 0; d < res->n_dirs && n > 0; d++)
		if (!(res->dirs[d].streams = calloc((size_t)n, sizeof(struct probe_stream_result))))
			return ns_err_set(r->err, "out of memory");
	if (prep(r, "SELECT value ->> '$.direction', value -> '$.id', value -> '$.cpu', "
		    "value -> '$.sender', value -> '$.receiver' "
		    "FROM json_each(?1, '$.streams_detail') ORDER BY key", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t d;
		if (dir_index(res, col_text(st, 0), &d) < 0) {
			ns_err_set(r->err, "probe result: a stream of no direction of the test");
			goto out;
		}
		struct probe_direction *pd = &res->dirs[d];
		struct probe_stream_result *s = &pd->streams[pd->n_streams++];
		s->id = (uint32_t)num_u(r, st, 1, "id");
		s->cpu = (int)num_i(r, st, 2, "cpu");
		if (figures(r, fig, col_text(st, 3), &s->sender) < 0 ||
		    figures(r, fig, col_text(st, 4), &s->receiver) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int intervals(struct rp *r, struct probe_result *res)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	int64_t count[2] = {0, 0};
	if (prep(r, "SELECT value ->> '$.direction', count(*) FROM json_each(?1, '$.intervals') "
		    "GROUP BY 1", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t d;
		if (dir_index(res, col_text(st, 0), &d) < 0) {
			ns_err_set(r->err, "probe result: an interval of no direction of the test");
			goto out;
		}
		count[d] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (count[0] + count[1] > PROBE_JSON_MAX_ROWS)
		return ns_err_set(r->err, "probe result: %lld intervals (at most %d)",
				  (long long)(count[0] + count[1]), PROBE_JSON_MAX_ROWS);
	for (uint32_t d = 0; d < res->n_dirs; d++)
		if (count[d] &&
		    !(res->dirs[d].intervals = calloc((size_t)count[d], sizeof(struct probe_interval))))
			return ns_err_set(r->err, "out of memory");
	if (prep(r, "SELECT value ->> '$.direction', value -> '$.stream', value -> '$.start_s', "
		    "value -> '$.end_s', value -> '$.bytes', value -> '$.bits_per_second', "
		    "value -> '$.packets', value -> '$.retransmits', value -> '$.cwnd_bytes', "
		    "value -> '$.rtt_ms', value -> '$.lost', value -> '$.jitter_ms', "
		    "value -> '$.omitted' FROM json_each(?1, '$.intervals') ORDER BY key", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t d;
		if (dir_index(res, col_text(st, 0), &d) < 0 || res->dirs[d].n_intervals >= count[d]) {
			ns_err_set(r->err, "probe result: intervals changed while read");
			goto out;
		}
		struct probe_interval *v = &res->dirs[d].intervals[res->dirs[d].n_intervals++];
		v->stream = (int32_t)num_i(r, st, 1, "stream");
		v->start_s = num_d(r, st, 2, "start_s");
		v->end_s = num_d(r, st, 3, "end_s");
		v->bytes = num_u(r, st, 4, "bytes");
		v->bits_per_second = num_d(r, st, 5, "bits_per_second");
		v->packets = num_u(r, st, 6, "packets");
		v->retransmits = num_u(r, st, 7, "retransmits");
		v->cwnd_bytes = num_u(r, st, 8, "cwnd_bytes");
		v->rtt_ms = num_d(r, st, 9, "rtt_ms");
		v->lost = num_u(r, st, 10, "lost");
		v->jitter_ms = num_d(r, st, 11, "jitter_ms");
		v->omitted = is_true(st, 12);
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int probe_result_from_json(const char *json, struct probe_result *res, struct ns_err *err)
{
	struct rp r = {.json = json, .err = err};
	sqlite3_stmt *fig = NULL, *st = NULL;
	bool has_rev = false;
	int64_t n_streams = 0;
	memset(res, 0, sizeof(*res));
	res->status = -1;
	if (!json)
		return ns_err_set(err, "no probe result");
	if (sqlite3_open_v2(":memory:", &r.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
	    SQLITE_OK) {
		ns_err_set(err, "cannot open SQLite to read a probe result");
		goto err;
	}
	if (prep(&r, "SELECT json_valid(?1) AND json_type(?1) = 'object'", &st) < 0)
		goto err;
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	bool valid = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	if (!valid) {
		ns_err_set(err, "the probe result is not a JSON object");
		goto err;
	}
	if (top_level(&r, res, &has_rev, &n_streams) < 0 || warnings(&r, res) < 0)
		goto err;
	/* A test that never started has no streams and a zero "sum": no direction at all. */
	res->n_dirs = has_rev ? 2 : (res->status == 0 || n_streams > 0) ? 1 : 0;
	if (fig_stmt(&r, &fig) < 0 || sums(&r, fig, res) < 0 ||
	    streams(&r, fig, res, n_streams) < 0 || intervals(&r, res) < 0)
		goto err;
	if (r.bad) {
		ns_err_set(err, "probe result: '%s' is not a number in range", r.bad_key);
		goto err;
	}
	sqlite3_finalize(fig);
	sqlite3_close(r.db);
	return 0;
err:
	sqlite3_finalize(fig);
	sqlite3_close(r.db);
	probe_result_free(res);
	res->status = -1;
	snprintf(res->error, sizeof(res->error), "%s", err && err->msg[0] ? err->msg : "bad result");
	return -1;
}
