#include "jsonr.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "sqlrow.h"

enum { ST_VALID, ST_VALID_OBJECT, ST_GET, ST_EACH, ST_N };

static const char *const sql[ST_N] = {
	[ST_VALID] = "SELECT json_valid(?1)",
	[ST_VALID_OBJECT] = "SELECT json_valid(?1) AND json_type(?1) = 'object'",
	/* a number as its JSON text (->), so nothing is lost on the way to a double */
	[ST_GET] = "SELECT json_type(?1, ?2), CASE json_type(?1, ?2) WHEN 'text' THEN ?1 ->> ?2"
		   " ELSE ?1 -> ?2 END",
	/* json_each's value of a number is SQLite's double: a real (or an integer past 64 bits)
	 * is fetched as its text by its full path instead */
	[ST_EACH] = "SELECT key, type, CASE type WHEN 'text' THEN value WHEN 'null' THEN NULL"
		    " WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'"
		    " WHEN 'integer' THEN CASE typeof(value) WHEN 'integer' THEN CAST(value AS TEXT)"
		    " ELSE ?1 -> fullkey END WHEN 'real' THEN ?1 -> fullkey ELSE value END"
		    " FROM json_each(?1, ?2) ORDER BY id",
};

struct jsonr {
	sqlite3 *db;
	sqlite3_stmt *st[ST_N];
};

int jsonr_open(struct jsonr **r, struct ns_err *err)
{
	*r = calloc(1, sizeof(**r));
	if (!*r)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	if (sqlrow_open_memory(&(*r)->db, "reading JSON", err) < 0) {
		jsonr_close(*r);
		*r = NULL;
		return -1;
	}
	return 0;
}

void jsonr_close(struct jsonr *r)
{
	if (!r)
		return;
	for (int i = 0; i < ST_N; i++)
		sqlite3_finalize(r->st[i]);
	sqlite3_close(r->db);
	free(r);
}

struct sqlite3 *jsonr_sql(struct jsonr *r)
{
	return r->db;
}

/* The statement, prepared on first use, reset and cleared of its last values. */
static sqlite3_stmt *stmt(struct jsonr *r, int id, struct ns_err *err)
{
	if (!r->st[id] && sqlite3_prepare_v2(r->db, sql[id], -1, &r->st[id], NULL) != SQLITE_OK) {
		ns_err_code(err, sqlite3_errcode(r->db) == SQLITE_NOMEM ? NS_E_NOMEM : NS_E_FAIL,
			    "reading JSON: SQLite: %s", sqlite3_errmsg(r->db));
		return NULL;
	}
	sqlite3_reset(r->st[id]);
	sqlite3_clear_bindings(r->st[id]);
	return r->st[id];
}

static bool valid(struct jsonr *r, int id, const char *text)
{
	sqlite3_stmt *st = text ? stmt(r, id, NULL) : NULL;
	if (!st)
		return false;
	sqlite3_bind_text(st, 1, text, -1, SQLITE_STATIC);
	bool ok = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
	sqlite3_reset(st);
	return ok;
}

bool jsonr_valid(struct jsonr *r, const char *text)
{
	return valid(r, ST_VALID, text);
}

bool jsonr_valid_object(struct jsonr *r, const char *text)
{
	return valid(r, ST_VALID_OBJECT, text);
}

bool jsonr_is_json(const char *text)
{
	struct jsonr *r;
	if (jsonr_open(&r, NULL) < 0)
		return false;
	bool ok = jsonr_valid(r, text);
	jsonr_close(r);
	return ok;
}

static enum jsonr_type type_of(const unsigned char *name)
{
	static const struct { const char *name; enum jsonr_type t; } names[] = {
		{"null", JSONR_NULL},       {"true", JSONR_TRUE}, {"false", JSONR_FALSE},
		{"integer", JSONR_INTEGER}, {"real", JSONR_REAL}, {"text", JSONR_TEXT},
		{"array", JSONR_ARRAY},     {"object", JSONR_OBJECT},
	};
	for (size_t i = 0; name && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp((const char *)name, names[i].name))
			return names[i].t;
	return JSONR_MISSING;
}

/* Steps ST_GET on (json, path): 1 with the row (type, value), 0 missing or null, -1 error. */
static int get_row(struct jsonr *r, const char *json, const char *path, sqlite3_stmt **out,
		   enum jsonr_type *type, struct ns_err *err)
{
	*type = JSONR_MISSING;
	if (!json)
		return 0;
	sqlite3_stmt *st = stmt(r, ST_GET, err);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW) {
		ns_err_code(err, NS_E_INPUT, "JSON at %s: %s", path, sqlite3_errmsg(r->db));
		sqlite3_reset(st);
		return -1;
	}
	*type = type_of(sqlite3_column_text(st, 0));
	*out = st;
	if (*type == JSONR_MISSING || *type == JSONR_NULL || sqlite3_column_type(st, 1) == SQLITE_NULL) {
		sqlite3_reset(st);
		return 0;
	}
	return 1;
}

enum jsonr_type jsonr_type(struct jsonr *r, const char *json, const char *path)
{
	sqlite3_stmt *st;
	enum jsonr_type t;
	if (get_row(r, json, path, &st, &t, NULL) == 1)
		sqlite3_reset(st);
	return t;
}

int jsonr_get(struct jsonr *r, const char *json, const char *path, char *buf, size_t len,
	      struct ns_err *err)
{
	sqlite3_stmt *st;
	enum jsonr_type t;
	if (len)
		buf[0] = '\0';
	int rc = get_row(r, json, path, &st, &t, err);
	if (rc != 1)
		return rc;
	const unsigned char *v = sqlite3_column_text(st, 1);
	size_t n = (size_t)sqlite3_column_bytes(st, 1);
	rc = !v ? 0 : n < len ? 1 : 2;
	if (rc == 1)
		memcpy(buf, v, n + 1);
	sqlite3_reset(st);
	return rc;
}

int jsonr_get_once(const char *json, const char *path, char *buf, size_t len,
		   struct ns_err *err)
{
	struct jsonr *r;
	if (len)
		buf[0] = '\0';
	if (!json)
		return 0;
	if (jsonr_open(&r, err) < 0)
		return -1;
	int rc = jsonr_get(r, json, path, buf, len, err);
	jsonr_close(r);
	return rc;
}

int jsonr_dup(struct jsonr *r, const char *json, const char *path, char **out,
	      struct ns_err *err)
{
	sqlite3_stmt *st;
	enum jsonr_type t;
	*out = NULL;
	int rc = get_row(r, json, path, &st, &t, err);
	if (rc != 1)
		return rc;
	const unsigned char *v = sqlite3_column_text(st, 1);
	if (v && !(*out = strdup((const char *)v)))
		rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
	sqlite3_reset(st);
	return rc;
}

int jsonr_num_u64(const char *text, const char *what, uint64_t max, uint64_t *v,
		  struct ns_err *err)
{
	char *end;
	errno = 0;
	unsigned long long u = text ? strtoull(text, &end, 10) : 0;
	if (!text || end == text || *end || text[0] == '-' || text[0] == '+' || text[0] == ' ' ||
	    errno || u > max)
		return ns_err_code(err, NS_E_INPUT, "%s: '%s' is not a whole number in 0..%llu", what,
				   text ? text : "", (unsigned long long)max);
	*v = u;
	return 0;
}

int jsonr_num_i64(const char *text, const char *what, int64_t min, int64_t max, int64_t *v,
		  struct ns_err *err)
{
	char *end;
	errno = 0;
	long long i = text ? strtoll(text, &end, 10) : 0;
	if (!text || end == text || *end || text[0] == '+' || text[0] == ' ' || errno || i < min ||
	    i > max)
		return ns_err_code(err, NS_E_INPUT, "%s: '%s' is not a whole number in %lld..%lld",
				   what, text ? text : "", (long long)min, (long long)max);
	*v = i;
	return 0;
}

int jsonr_num_double(const char *text, const char *what, double *v, struct ns_err *err)
{
	char *end;
	double d = text ? strtod(text, &end) : 0;
	if (!text || end == text || *end || text[0] == ' ' || !isfinite(d))
		return ns_err_code(err, NS_E_INPUT, "%s: '%s' is not a finite number", what,
				   text ? text : "");
	*v = d;
	return 0;
}

/* The value at path when it is a number: 1 with its text in buf, 0 missing or null, -1. */
static int number_at(struct jsonr *r, const char *json, const char *path, char *buf, size_t len,
		     struct ns_err *err)
{
	sqlite3_stmt *st;
	enum jsonr_type t;
	int rc = get_row(r, json, path, &st, &t, err);
	if (rc != 1)
		return rc;
	const char *v = (const char *)sqlite3_column_text(st, 1);
	rc = (t == JSONR_INTEGER || t == JSONR_REAL) &&
	     (size_t)snprintf(buf, len, "%s", v ? v : "") < len ? 1 : -1;
	if (rc < 0)
		ns_err_code(err, NS_E_INPUT, "%s: '%.40s' is not a number", path, v ? v : "");
	sqlite3_reset(st);
	return rc;
}

int jsonr_u64(struct jsonr *r, const char *json, const char *path, uint64_t max, uint64_t *v,
	      struct ns_err *err)
{
	char buf[64];
	int rc = number_at(r, json, path, buf, sizeof(buf), err);
	return rc == 1 && jsonr_num_u64(buf, path, max, v, err) < 0 ? -1 : rc;
}

int jsonr_i64(struct jsonr *r, const char *json, const char *path, int64_t min, int64_t max,
	      int64_t *v, struct ns_err *err)
{
	char buf[64];
	int rc = number_at(r, json, path, buf, sizeof(buf), err);
	return rc == 1 && jsonr_num_i64(buf, path, min, max, v, err) < 0 ? -1 : rc;
}

int jsonr_double(struct jsonr *r, const char *json, const char *path, double *v,
		 struct ns_err *err)
{
	char buf[64];
	int rc = number_at(r, json, path, buf, sizeof(buf), err);
	return rc == 1 && jsonr_num_double(buf, path, v, err) < 0 ? -1 : rc;
}

int jsonr_bool(struct jsonr *r, const char *json, const char *path, bool *v, struct ns_err *err)
{
	enum jsonr_type t = jsonr_type(r, json, path);
	if (t == JSONR_TRUE || t == JSONR_FALSE) {
		*v = t == JSONR_TRUE;
		return 1;
	}
	if (t == JSONR_MISSING && json && !jsonr_valid(r, json))
		return ns_err_code(err, NS_E_INPUT, "JSON at %s: not JSON", path);
	if (t == JSONR_MISSING || t == JSONR_NULL)
		return 0;
	return ns_err_code(err, NS_E_INPUT, "%s: not true or false", path);
}

int jsonr_each_begin(struct jsonr *r, const char *json, const char *path, struct jsonr_each *it,
		     struct ns_err *err)
{
	memset(it, 0, sizeof(*it));
	it->err = err;
	if (!json)
		return 0;
	/* a statement of its own, so that the caller can get values while it iterates */
	if (sqlite3_prepare_v2(r->db, sql[ST_EACH], -1, &it->st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_FAIL, "reading JSON: SQLite: %s", sqlite3_errmsg(r->db));
	sqlite3_bind_text(it->st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(it->st, 2, path, -1, SQLITE_STATIC);
	return 0;
}

int jsonr_each_next(struct jsonr_each *it)
{
	if (!it->st)
		return 0;
	int rc = sqlite3_step(it->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return ns_err_code(it->err, NS_E_INPUT, "JSON: reading the members: %s",
				   sqlite3_errmsg(sqlite3_db_handle(it->st)));
	it->key = (const char *)sqlite3_column_text(it->st, 0);
	it->type = type_of(sqlite3_column_text(it->st, 1));
	it->value = (const char *)sqlite3_column_text(it->st, 2);
	return 1;
}

void jsonr_each_end(struct jsonr_each *it)
{
	sqlite3_finalize(it->st);
	it->st = NULL;
}
