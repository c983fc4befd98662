/* result_parse: probe_result_from_json, the inverse of probe_result_json (result_json.c): a
 * result kept as its JSON text (a search case keeps each trial's, runner/sweep/search_case.c)
 * comes back into the struct the store takes. (A delegated run's result travels in binary,
 * result_wire.h.) The JSON is read by SQLite's JSON functions on lib/sql/jsonr's connection (no
 * parser of our own); numbers are taken as their JSON text (the `->` operator) and converted
 * by jsonr's rules, so that 17-digit doubles and 64-bit counters come back bit for bit. The
 * keys of each struct come from its field table (fields.h). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fields.h"
#include "lib/sql/jsonr.h"
#include "lib/sql/sqlrow.h"
#include "probe.h"
#include "proto.h"

struct rp {
	struct jsonr *reader;
	sqlite3 *db;              /* the reader's connection: the field tables' column lists are SQL */
	const char *json;
	struct ns_err *err;
	bool bad;                 /* a number that is not one */
	char bad_key[64];
};

static void set_bad(struct rp *r, const char *key);

/* JSON text of a number (or null / missing: 0), converted by lib/sql/jsonr's rules. */
static double num_d(struct rp *r, sqlite3_stmt *st, int i, const char *key)
{
	const char *t = sqlrow_text(st, i);
	double v = 0;
	if (t && strcmp(t, "null") && jsonr_num_double(t, key, &v, NULL) < 0)
		set_bad(r, key);
	return v;
}

static uint64_t num_u(struct rp *r, sqlite3_stmt *st, int i, const char *key)
{
	const char *t = sqlrow_text(st, i);
	uint64_t v = 0;
	if (t && strcmp(t, "null") && jsonr_num_u64(t, key, UINT64_MAX, &v, NULL) < 0)
		set_bad(r, key);
	return v;
}

static int64_t num_i(struct rp *r, sqlite3_stmt *st, int i, const char *key)
{
	const char *t = sqlrow_text(st, i);
	int64_t v = 0;
	if (t && strcmp(t, "null") && jsonr_num_i64(t, key, INT64_MIN, INT64_MAX, &v, NULL) < 0)
		set_bad(r, key);
	return v;
}

static bool is_true(sqlite3_stmt *st, int i)
{
	const char *t = sqlrow_text(st, i);
	return t && !strcmp(t, "true");
}

static void copy_text(char *dst, size_t cap, sqlite3_stmt *st, int i)
{
	const char *t = sqlrow_text(st, i);
	snprintf(dst, cap, "%s", t ? t : "");
	proto_printable(dst); /* another host's words, printed and stored */
}

static int prep(struct rp *r, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(r->db, sql, -1, st, NULL) != SQLITE_OK)
		return ns_err_code(r->err, NS_E_INPUT, "reading a probe result: %s", sqlite3_errmsg(r->db));
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

/* A SELECT's column list, built from constant expressions and the field tables' keys (no
 * value from the input ever goes into the SQL text; the JSON is a bound parameter). */
struct cols {
	char sql[4096];
	size_t n;
	int count;
	bool overflow;
};

/* Appends one column, the concatenation of the five parts. */
static void cols_add(struct cols *c, const char *a, const char *b, const char *d,
		     const char *e, const char *g)
{
	int k = snprintf(c->sql + c->n, sizeof(c->sql) - c->n, "%s", c->count ? ", " : "");
	if (k >= 0 && (size_t)k < sizeof(c->sql) - c->n) {
		c->n += (size_t)k;
		k = snprintf(c->sql + c->n, sizeof(c->sql) - c->n, "%s%s%s%s%s", a, b, d, e, g);
	}
	if (k < 0 || (size_t)k >= sizeof(c->sql) - c->n) {
		c->overflow = true;
		c->n = sizeof(c->sql) - 1;
		return;
	}
	c->n += (size_t)k;
	c->count++;
}

static void cols_expr(struct cols *c, const char *expr)
{
	cols_add(c, expr, "", "", "", "");
}

/* base -> 'prefix key' for every JSON field of t (->> for text: the value, unquoted). */
static void cols_fields(struct cols *c, const char *base, const char *prefix,
			const struct field_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		if (!(f->flags & F_JSON) || !f->key)
			continue;
		bool text = f->type == FT_STR || f->type == FT_PROTO || f->type == FT_DIR;
		cols_add(c, base, text ? " ->> '" : " -> '", prefix, f->key, "'");
	}
}

static int cols_prep(struct rp *r, const struct cols *c, const char *tail, sqlite3_stmt **st)
{
	char sql[sizeof(c->sql) + 128];
	if (c->overflow || (size_t)snprintf(sql, sizeof(sql), "SELECT %s%s", c->sql, tail) >=
				   sizeof(sql))
		return ns_err_code(r->err, NS_E_FAIL, "internal: a probe result query is too long");
	return prep(r, sql, st);
}

static void set_bad(struct rp *r, const char *key)
{
	if (!r->bad)
		snprintf(r->bad_key, sizeof(r->bad_key), "%s", key);
	r->bad = true;
}

/* Reads the columns cols_fields added for t, from column *col on, into dst. Keys that are
 * missing (or null) leave 0. */
static int row_fields(struct rp *r, sqlite3_stmt *st, int *col, const struct field_table *t,
		      void *dst)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		void *p = (char *)dst + f->off;
		if (!(f->flags & F_JSON) || !f->key)
			continue;
		int k = (*col)++;
		switch (f->type) {
		case FT_BOOL: *(bool *)p = is_true(st, k); break;
		case FT_U8:
		case FT_U16:
		case FT_U32: {
			uint64_t v = num_u(r, st, k, f->key);
			uint64_t max = f->type == FT_U8 ? UINT8_MAX : f->type == FT_U16 ? UINT16_MAX
											: UINT32_MAX;
			if (v > max)
				set_bad(r, f->key);
			if (f->type == FT_U8)
				*(uint8_t *)p = (uint8_t)v;
			else if (f->type == FT_U16)
				*(uint16_t *)p = (uint16_t)v;
			else
				*(uint32_t *)p = (uint32_t)v;
			break;
		}
		case FT_U64: *(uint64_t *)p = num_u(r, st, k, f->key); break;
		case FT_I32:
		case FT_ERRNO: {
			int64_t v = num_i(r, st, k, f->key);
			if (v < INT32_MIN || v > INT32_MAX)
				set_bad(r, f->key);
			*(int32_t *)p = (int32_t)v;
			break;
		}
		case FT_F64: *(double *)p = num_d(r, st, k, f->key); break;
		case FT_STR: copy_text(p, f->size, st, k); break;
		case FT_PROTO: {
			const char *name = sqlrow_text(st, k);
			*(enum ns_proto *)p = name && !strcmp(name, "udp") ? NS_PROTO_UDP
					      : name && !strcmp(name, "quic") ? NS_PROTO_QUIC
					      : NS_PROTO_TCP;
			break;
		}
		case FT_DIR:
			if (dir_of(sqlrow_text(st, k), p) < 0)
				return ns_err_code(r->err, NS_E_INPUT, "probe result: unknown %s", f->key);
			break;
		}
	}
	return 0;
}

/* Figures of the JSON object text obj (NULL: zeros). */
static int figures(struct rp *r, sqlite3_stmt *st, const char *obj, struct probe_figures *f)
{
	int col = 0;
	memset(f, 0, sizeof(*f));
	if (!obj)
		return 0;
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, obj, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_ROW)
		return ns_err_code(r->err, NS_E_INPUT, "reading probe figures: %s", sqlite3_errmsg(r->db));
	return row_fields(r, st, &col, &fields_figures, f);
}

static int fig_stmt(struct rp *r, sqlite3_stmt **st)
{
	struct cols c = {.count = 0};
	cols_fields(&c, "?1", "$.", &fields_figures);
	return cols_prep(r, &c, "", st);
}

static int top_level(struct rp *r, struct probe_result *res, bool *has_rev, int64_t *n_streams)
{
	sqlite3_stmt *st = NULL;
	struct cols c = {.count = 0};
	int rc = -1, col = 6;
	cols_expr(&c, "?1 -> '$.version', ?1 ->> '$.status', ?1 ->> '$.error'");
	cols_expr(&c, "json(?1 -> '$.agent_hostinfo'), ?1 -> '$.sum_reverse' IS NOT NULL");
	cols_expr(&c, "json_array_length(?1, '$.streams_detail')");
	cols_fields(&c, "?1", "$.", &fields_result);
	cols_fields(&c, "?1", "$.params.", &fields_params);
	if (cols_prep(r, &c, "", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ns_err_code(r->err, NS_E_INPUT, "reading a probe result: %s", sqlite3_errmsg(r->db));
		goto out;
	}
	if (num_u(r, st, 0, "version") != 1 || !sqlrow_text(st, 1)) {
		ns_err_code(r->err, NS_E_INPUT, "not a version-1 probe result");
		goto out;
	}
	res->status = !strcmp(sqlrow_text(st, 1), "ok") ? 0 : -1;
	copy_text(res->error, sizeof(res->error), st, 2);
	if (res->status != 0 && !res->error[0])
		snprintf(res->error, sizeof(res->error), "unknown error");
	const char *hi = sqlrow_text(st, 3);
	if (hi && strcmp(hi, "null") && !(res->agent_hostinfo = strdup(hi))) {
		ns_err_code(r->err, NS_E_NOMEM, "out of memory");
		goto out;
	}
	*has_rev = sqlite3_column_int(st, 4) != 0;
	*n_streams = sqlite3_column_int64(st, 5);
	if (row_fields(r, st, &col, &fields_result, res) < 0 ||
	    row_fields(r, st, &col, &fields_params, &res->params) < 0)
		goto out;
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
		const char *w = sqlrow_text(st, 0);
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

/* An object of a sum read by its field table: 1 read, 0 none (NULL or "null": dst stays
 * zero, as in results written before the object existed), -1 error. */
static int sum_object(struct rp *r, const char *obj, const struct field_table *t, void *dst,
		      size_t size, const char *what)
{
	sqlite3_stmt *st = NULL;
	struct cols c = {.count = 0};
	int col = 0, rc = -1;
	memset(dst, 0, size);
	if (!obj || !strcmp(obj, "null"))
		return 0;
	cols_fields(&c, "?1", "$.", t);
	if (cols_prep(r, &c, "", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, obj, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) != SQLITE_ROW)
		ns_err_code(r->err, NS_E_INPUT, "reading the %s object: %s", what, sqlite3_errmsg(r->db));
	else if (row_fields(r, st, &col, t, dst) == 0)
		rc = 1;
	sqlite3_finalize(st);
	return rc;
}

/* Sums: dirs[0] from "sum", dirs[1] from "sum_reverse". */
static int sums(struct rp *r, sqlite3_stmt *fig, struct probe_result *res)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	static const char *const keys[2] = {"$.sum", "$.sum_reverse"};
	if (prep(r, "SELECT ?1 -> ?2 ->> '$.direction', ?1 -> ?2 -> '$.sender', "
		    "?1 -> ?2 -> '$.receiver', ?1 -> ?2 -> '$.receiver' -> '$.shaping', "
		    "?1 -> ?2 -> '$.limit'", &st) < 0)
		return -1;
	for (uint32_t d = 0; d < res->n_dirs; d++) {
		struct probe_direction *pd = &res->dirs[d];
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, keys[d], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_ROW || dir_of(sqlrow_text(st, 0), &pd->dir) < 0 ||
		    pd->dir == NS_DIR_BIDIR) {
			ns_err_code(r->err, NS_E_INPUT, "probe result: malformed %s", keys[d] + 2);
			goto out;
		}
		int found;
		if (figures(r, fig, sqlrow_text(st, 1), &pd->sender) < 0 ||
		    figures(r, fig, sqlrow_text(st, 2), &pd->receiver) < 0 ||
		    (found = sum_object(r, sqlrow_text(st, 3), &fields_shaping, &pd->shaping,
					sizeof(pd->shaping), "shaping")) < 0 ||
		    sum_object(r, sqlrow_text(st, 4), &fields_limit, &pd->limit, sizeof(pd->limit),
			       "limit") < 0)
			goto out;
		pd->shaping.found = found == 1;
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
		return ns_err_code(r->err, NS_E_INPUT, "probe result: %lld streams (at most %d)", (long long)n,
				  2 * NS_MAX_STREAMS);
	for (uint32_t d = 0; d < res->n_dirs && n > 0; d++)
		if (!(res->dirs[d].streams = calloc((size_t)n, sizeof(struct probe_stream_result))))
			return ns_err_code(r->err, NS_E_NOMEM, "out of memory");
	struct cols c = {.count = 0};
	cols_expr(&c, "value ->> '$.direction', value -> '$.sender', value -> '$.receiver'");
	cols_fields(&c, "value", "$.", &fields_stream);
	if (cols_prep(r, &c, " FROM json_each(?1, '$.streams_detail') ORDER BY key", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t d;
		if (dir_index(res, sqlrow_text(st, 0), &d) < 0) {
			ns_err_code(r->err, NS_E_INPUT, "probe result: a stream of no direction of the test");
			goto out;
		}
		struct probe_direction *pd = &res->dirs[d];
		struct probe_stream_result *s = &pd->streams[pd->n_streams++];
		int col = 3;
		if (row_fields(r, st, &col, &fields_stream, s) < 0 ||
		    figures(r, fig, sqlrow_text(st, 1), &s->sender) < 0 ||
		    figures(r, fig, sqlrow_text(st, 2), &s->receiver) < 0)
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
		if (dir_index(res, sqlrow_text(st, 0), &d) < 0) {
			ns_err_code(r->err, NS_E_INPUT, "probe result: an interval of no direction of the test");
			goto out;
		}
		count[d] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (count[0] + count[1] > PROBE_JSON_MAX_ROWS)
		return ns_err_code(r->err, NS_E_INPUT, "probe result: %lld intervals (at most %d)",
				  (long long)(count[0] + count[1]), PROBE_JSON_MAX_ROWS);
	for (uint32_t d = 0; d < res->n_dirs; d++)
		if (count[d] &&
		    !(res->dirs[d].intervals = calloc((size_t)count[d], sizeof(struct probe_interval))))
			return ns_err_code(r->err, NS_E_NOMEM, "out of memory");
	struct cols c = {.count = 0};
	cols_expr(&c, "value ->> '$.direction'");
	cols_fields(&c, "value", "$.", &fields_interval);
	if (cols_prep(r, &c, " FROM json_each(?1, '$.intervals') ORDER BY key", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		uint32_t d;
		if (dir_index(res, sqlrow_text(st, 0), &d) < 0 || res->dirs[d].n_intervals >= count[d]) {
			ns_err_code(r->err, NS_E_INPUT, "probe result: intervals changed while read");
			goto out;
		}
		struct probe_interval *v = &res->dirs[d].intervals[res->dirs[d].n_intervals++];
		int col = 1;
		if (row_fields(r, st, &col, &fields_interval, v) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

#define RP_MAX_HISTOGRAM (1u << 20) /* bytes of a latency histogram's text, at most */

/* The histogram text at path into *out (left NULL when the key is absent). */
static int lat_histogram(struct rp *r, const char *path, char **out)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (prep(r, "SELECT ?1 ->> ?2", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	const char *h = sqlite3_step(st) == SQLITE_ROW ? sqlrow_text(st, 0) : NULL;
	if (h && strlen(h) > RP_MAX_HISTOGRAM)
		ns_err_code(r->err, NS_E_INPUT, "probe result: a latency histogram of %zu bytes (at most %u)",
			   strlen(h), RP_MAX_HISTOGRAM);
	else if (h && !(*out = strdup(h)))
		ns_err_code(r->err, NS_E_NOMEM, "out of memory");
	else
		rc = 0;
	sqlite3_finalize(st);
	return rc;
}

/* A latency interval series (the array at path) into *ivl, *n. */
static int lat_series(struct rp *r, const char *path, struct probe_latency_interval **ivl,
		      uint32_t *n_out)
{
	sqlite3_stmt *st = NULL;
	int rc = -1, col;
	if (prep(r, "SELECT count(*) FROM json_each(?1, ?2)", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	int64_t n = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	st = NULL;
	if (n > PROBE_JSON_MAX_ROWS)
		return ns_err_code(r->err, NS_E_INPUT, "probe result: %lld latency intervals (at most %d)",
				  (long long)n, PROBE_JSON_MAX_ROWS);
	if (n && !(*ivl = calloc((size_t)n, sizeof(**ivl))))
		return ns_err_code(r->err, NS_E_NOMEM, "out of memory");
	struct cols c = {.count = 0};
	cols_expr(&c, "value -> '$.start_s', value -> '$.end_s', value -> '$.omitted'");
	cols_fields(&c, "value", "$.", &fields_latency);
	if (cols_prep(r, &c, " FROM json_each(?1, ?2) ORDER BY key", &st) < 0)
		goto out;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW && *n_out < n) {
		struct probe_latency_interval *v = &(*ivl)[(*n_out)++];
		v->start_s = num_d(r, st, 0, "start_s");
		v->end_s = num_d(r, st, 1, "end_s");
		v->omitted = is_true(st, 2);
		col = 3;
		if (row_fields(r, st, &col, &fields_latency, &v->f) < 0)
			goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* "latency": its figures, notes and histogram, then its interval series. */
static int latency(struct rp *r, struct probe_result *res)
{
	struct probe_latency *l = &res->latency;
	sqlite3_stmt *st = NULL;
	struct cols c = {.count = 0};
	int rc = -1, col = 6;
	cols_expr(&c, "?1 -> '$.latency' -> '$.relative_error'");
	cols_expr(&c, "?1 -> '$.latency' -> '$.client_cpu', ?1 -> '$.latency' ->> '$.one_way_why'");
	cols_expr(&c, "?1 -> '$.latency' -> '$.client_clock_synced'");
	cols_expr(&c, "?1 -> '$.latency' -> '$.client_clock_maxerror_us'");
	cols_expr(&c, "?1 -> '$.latency' -> '$.agent_cpu'");
	cols_fields(&c, "?1 -> '$.latency'", "$.", &fields_latency);
	if (cols_prep(r, &c, "", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ns_err_code(r->err, NS_E_INPUT, "reading the latency object: %s", sqlite3_errmsg(r->db));
		goto out;
	}
	l->relative_error = num_d(r, st, 0, "relative_error");
	int64_t cpu = num_i(r, st, 1, "client_cpu");
	l->client_cpu = cpu >= INT32_MIN && cpu <= INT32_MAX ? (int32_t)cpu : -1;
	copy_text(l->one_way_why, sizeof(l->one_way_why), st, 2);
	l->client_clock_synced = is_true(st, 3);
	l->client_clock_maxerror_us = num_d(r, st, 4, "client_clock_maxerror_us");
	int64_t acpu = sqlite3_column_type(st, 5) == SQLITE_NULL ? -1 : num_i(r, st, 5, "agent_cpu");
	l->agent_cpu = acpu >= INT32_MIN && acpu <= INT32_MAX ? (int32_t)acpu : -1;
	if (row_fields(r, st, &col, &fields_latency, &l->sum) < 0 ||
	    lat_histogram(r, "$.latency.histogram", &l->histogram) < 0 ||
	    lat_series(r, "$.latency.intervals", &l->intervals, &l->n_intervals) < 0)
		goto out;
	l->present = true;
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

/* "latency_under_load": the probe's test, sizes and windows, then "idle" and "loaded" with
 * their histograms and the loaded window's series. */
static int lul(struct rp *r, struct probe_result *res)
{
	struct probe_lul *l = &res->lul;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (prep(r, "SELECT ?1 -> '$.latency_under_load', "
		    "?1 -> '$.latency_under_load' -> '$.idle', "
		    "?1 -> '$.latency_under_load' -> '$.loaded'", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		ns_err_code(r->err, NS_E_INPUT, "reading latency_under_load: %s", sqlite3_errmsg(r->db));
	else if (sum_object(r, sqlrow_text(st, 0), &fields_lul, l, sizeof(*l), "latency_under_load") >= 0 &&
		 sum_object(r, sqlrow_text(st, 1), &fields_latency, &l->idle, sizeof(l->idle), "idle") >= 0 &&
		 sum_object(r, sqlrow_text(st, 2), &fields_latency, &l->loaded, sizeof(l->loaded),
			    "loaded") >= 0 &&
		 lat_histogram(r, "$.latency_under_load.idle.histogram", &l->idle_histogram) == 0 &&
		 lat_histogram(r, "$.latency_under_load.loaded.histogram", &l->loaded_histogram) == 0 &&
		 lat_series(r, "$.latency_under_load.loaded.intervals", &l->intervals,
			    &l->n_intervals) == 0)
		rc = 0;
	l->present = rc == 0;
	sqlite3_finalize(st);
	return rc;
}

/* "responsiveness": its figures and the search's goodputs. */
static int rpm(struct rp *r, struct probe_result *res)
{
	struct probe_rpm *m = &res->rpm;
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (prep(r, "SELECT ?1 -> '$.responsiveness', (SELECT json_group_array(json_extract(value,"
		    " '$.goodput_bps')) FROM json_each(?1, '$.responsiveness.search'))", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		ns_err_code(r->err, NS_E_INPUT, "reading responsiveness: %s", sqlite3_errmsg(r->db));
	else if (sum_object(r, sqlrow_text(st, 0), &fields_rpm, m, sizeof(*m), "responsiveness") >= 0)
		rc = 0;
	const char *arr = rc == 0 ? sqlrow_text(st, 1) : NULL;
	for (const char *s = arr; s && *s && m->n_search < PROBE_RPM_MAX_SEARCH;) {
		while (*s == '[' || *s == ',' || *s == ' ')
			s++;
		char *end;
		double v = strtod(s, &end);
		if (end == s)
			break;
		m->search_bps[m->n_search++] = v;
		s = end;
	}
	m->present = rc == 0;
	sqlite3_finalize(st);
	return rc;
}

/* The latency objects, where the result has them (else they stay absent). */
static int latency_objects(struct rp *r, struct probe_result *res)
{
	sqlite3_stmt *st = NULL;
	if (prep(r, "SELECT json_type(?1, '$.latency') = 'object', "
		    "json_type(?1, '$.latency_under_load') = 'object'", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	bool has_lat = false, has_lul = false;
	if (sqlite3_step(st) == SQLITE_ROW) {
		has_lat = sqlite3_column_int(st, 0) == 1;
		has_lul = sqlite3_column_int(st, 1) == 1;
	}
	sqlite3_finalize(st);
	if ((has_lat && latency(r, res) < 0) || (has_lul && lul(r, res) < 0))
		return -1;
	if (prep(r, "SELECT json_type(?1, '$.responsiveness') = 'object'", &st) < 0)
		return -1;
	sqlite3_bind_text(st, 1, r->json, -1, SQLITE_STATIC);
	bool has_rpm = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	return has_rpm ? rpm(r, res) : 0;
}

int probe_result_from_json(const char *json, struct probe_result *res, struct ns_err *err)
{
	struct rp r = {.json = json, .err = err};
	sqlite3_stmt *fig = NULL;
	bool has_rev = false;
	int64_t n_streams = 0;
	memset(res, 0, sizeof(*res));
	res->status = -1;
	if (!json)
		return ns_err_code(err, NS_E_INPUT, "no probe result");
	if (jsonr_open(&r.reader, err) < 0)
		goto err;
	r.db = jsonr_sql(r.reader);
	if (!jsonr_valid_object(r.reader, json)) {
		ns_err_code(err, NS_E_INPUT, "the probe result is not a JSON object");
		goto err;
	}
	if (top_level(&r, res, &has_rev, &n_streams) < 0 || warnings(&r, res) < 0)
		goto err;
	/* A test that never started has no streams and a zero "sum": no direction at all. */
	res->n_dirs = has_rev ? 2 : (res->status == 0 || n_streams > 0) ? 1 : 0;
	if (fig_stmt(&r, &fig) < 0 || sums(&r, fig, res) < 0 ||
	    streams(&r, fig, res, n_streams) < 0 || intervals(&r, res) < 0 ||
	    latency_objects(&r, res) < 0)
		goto err;
	if (r.bad) {
		ns_err_code(err, NS_E_INPUT, "probe result: '%s' is not a number in range", r.bad_key);
		goto err;
	}
	sqlite3_finalize(fig);
	jsonr_close(r.reader);
	return 0;
err:
	sqlite3_finalize(fig);
	jsonr_close(r.reader);
	probe_result_free(res);
	res->status = -1;
	snprintf(res->error, sizeof(res->error), "%s", err && err->msg[0] ? err->msg : "bad result");
	return -1;
}
