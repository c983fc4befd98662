/* jsonr: the one JSON reader. SQLite's JSON functions (json_valid, json_type, ->, ->>,
 * json_each) on one private in-memory connection, behind a small API: whether a text is JSON,
 * a value by path, typed getters with bounds, an array's or object's members in order. Numbers
 * come back as their JSON text (the `->` operator), so 17-digit doubles and 64-bit counters
 * convert bit for bit. A reader whose reading is itself SQL (a field table's column list, a
 * price list turned into rows) runs it on jsonr_sql()'s connection: no other file opens a
 * database of its own to parse JSON. One reader serves one thread at a time. */
#ifndef NS_JSONR_H
#define NS_JSONR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

struct jsonr;
struct sqlite3;
struct sqlite3_stmt;

enum jsonr_type {
	JSONR_MISSING, /* no such path (or not JSON, for jsonr_type) */
	JSONR_NULL,
	JSONR_TRUE,
	JSONR_FALSE,
	JSONR_INTEGER,
	JSONR_REAL,
	JSONR_TEXT,
	JSONR_ARRAY,
	JSONR_OBJECT,
};

/* A reader: -1 with NS_E_NOMEM when SQLite cannot open its in-memory connection. */
int jsonr_open(struct jsonr **r, struct ns_err *err);
void jsonr_close(struct jsonr *r);

/* Whether text is exactly one JSON value (object: and that value an object). */
bool jsonr_valid(struct jsonr *r, const char *text);
bool jsonr_valid_object(struct jsonr *r, const char *text);
/* The same with a reader of its own, for a caller that checks one text now and then. */
bool jsonr_is_json(const char *text);

/* The type of the value at path ("$.a.b[2]") of json; JSONR_MISSING when json is not JSON. */
enum jsonr_type jsonr_type(struct jsonr *r, const char *json, const char *path);

/* The value at path into buf: a string unquoted, anything else as its JSON text (numbers as
 * written, true/false, an object or array whole). Returns 1 got it, 0 missing or null (buf
 * ""), 2 longer than len (buf "": never a cut value that reads as a whole one), -1 with err
 * when json is not JSON or the path is not a path (NS_E_INPUT). */
int jsonr_get(struct jsonr *r, const char *json, const char *path, char *buf, size_t len,
	      struct ns_err *err);
/* jsonr_get with a reader of its own, for a caller that reads one value now and then. */
int jsonr_get_once(const char *json, const char *path, char *buf, size_t len,
		   struct ns_err *err);
/* The same value malloc'd into *out (NULL when missing or null): 1, 0 or -1. */
int jsonr_dup(struct jsonr *r, const char *json, const char *path, char **out,
	      struct ns_err *err);

/* Typed values at path: 1 read, 0 missing or null (*v untouched), -1 with err naming the path
 * and the text when the value is not a number of that kind in [min, max] (NS_E_INPUT). */
int jsonr_u64(struct jsonr *r, const char *json, const char *path, uint64_t max, uint64_t *v,
	      struct ns_err *err);
int jsonr_i64(struct jsonr *r, const char *json, const char *path, int64_t min, int64_t max,
	      int64_t *v, struct ns_err *err);
/* A finite number (an integer too). */
int jsonr_double(struct jsonr *r, const char *json, const char *path, double *v,
		 struct ns_err *err);
/* true/false: 1 read, 0 missing or null, -1 another type. */
int jsonr_bool(struct jsonr *r, const char *json, const char *path, bool *v, struct ns_err *err);

/* The text of one JSON number as jsonr_get gives it, converted with its bounds: 0, or -1 with
 * err naming what (the key or path) — for readers that fetched the text themselves. */
int jsonr_num_u64(const char *text, const char *what, uint64_t max, uint64_t *v,
		  struct ns_err *err);
int jsonr_num_i64(const char *text, const char *what, int64_t min, int64_t max, int64_t *v,
		  struct ns_err *err);
int jsonr_num_double(const char *text, const char *what, double *v, struct ns_err *err);

/* The members of the array or object at path, in order. key is the member's name (an array
 * element's: its index as text), value as jsonr_get gives it (NULL for null); both valid until
 * the next call. A missing path or a scalar has no members. A real member's text is looked up
 * by its path (SQLite's json_each gives only its double): for thousands of reals, read them by
 * SQL on jsonr_sql()'s connection, as result_parse.c reads its intervals. */
struct jsonr_each {
	struct sqlite3_stmt *st;
	struct ns_err *err;
	const char *key, *value;
	enum jsonr_type type;
};
int jsonr_each_begin(struct jsonr *r, const char *json, const char *path, struct jsonr_each *it,
		     struct ns_err *err);
/* 1 a member, 0 the end, -1 with err (not JSON). */
int jsonr_each_next(struct jsonr_each *it);
void jsonr_each_end(struct jsonr_each *it);

/* The reader's connection, for JSON read by SQL of the caller's (bound parameters only). */
struct sqlite3 *jsonr_sql(struct jsonr *r);

#endif
