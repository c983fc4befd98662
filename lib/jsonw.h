/* jsonw: a small streaming JSON writer into a growing buffer.
 * It owns the commas, nesting and string escaping, and never writes NaN or infinity
 * (they become null), so whatever it produces is valid JSON. */
#ifndef NS_JSONW_H
#define NS_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSONW_MAX_DEPTH 32

struct jsonw {
	char *buf;
	size_t len, cap;
	int depth;
	bool need_comma[JSONW_MAX_DEPTH];
	bool oom;    /* an allocation failed: output is truncated, jsonw_finish returns NULL */
	bool pretty; /* newlines and two-space indentation */
	bool after_key; /* the next value follows a key: no separator */
};

void jsonw_init(struct jsonw *w, bool pretty);
void jsonw_free(struct jsonw *w);
/* Returns the NUL-terminated text (owned by w) or NULL after an allocation failure. */
const char *jsonw_finish(struct jsonw *w);
/* Hands the malloc'd text to the caller (w is emptied), or NULL after a failure. */
char *jsonw_steal(struct jsonw *w);

void jsonw_obj_open(struct jsonw *w);
void jsonw_obj_close(struct jsonw *w);
void jsonw_arr_open(struct jsonw *w);
void jsonw_arr_close(struct jsonw *w);

/* Object members: the key, then exactly one value call (or an open). */
void jsonw_key(struct jsonw *w, const char *key);

void jsonw_str(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_uint(struct jsonw *w, uint64_t v);
void jsonw_double(struct jsonw *w, double v); /* non-finite -> null */
void jsonw_bool(struct jsonw *w, bool v);
void jsonw_null(struct jsonw *w);
/* Inserts already-valid JSON text as a value (e.g. a hostinfo object received from an agent). */
void jsonw_raw(struct jsonw *w, const char *json);

/* Shorthands for "key": value. */
void jsonw_kv_str(struct jsonw *w, const char *key, const char *s);
void jsonw_kv_int(struct jsonw *w, const char *key, int64_t v);
void jsonw_kv_uint(struct jsonw *w, const char *key, uint64_t v);
void jsonw_kv_double(struct jsonw *w, const char *key, double v);
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v);

#endif
