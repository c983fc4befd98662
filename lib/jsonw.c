#include "jsonw.h"
#include "textesc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void jsonw_init(struct jsonw *w, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->pretty = pretty;
}

void jsonw_free(struct jsonw *w)
{
	free(w->buf);
	w->buf = NULL;
	w->len = w->cap = 0;
}

static void put(struct jsonw *w, const char *s, size_t n)
{
	if (w->oom)
		return;
	if (w->len + n + 1 > w->cap) {
		size_t cap = w->cap ? w->cap : 256;
		while (cap < w->len + n + 1)
			cap *= 2;
		char *nb = realloc(w->buf, cap);
		if (!nb) {
			w->oom = true;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
	w->buf[w->len] = '\0';
}

static void puts_(struct jsonw *w, const char *s)
{
	put(w, s, strlen(s));
}

static void indent(struct jsonw *w)
{
	if (!w->pretty)
		return;
	put(w, "\n", 1);
	for (int i = 0; i < w->depth; i++)
		put(w, "  ", 2);
}

/* Called before every value or key: writes the separator that belongs before it. */
static void before_item(struct jsonw *w)
{
	if (w->depth == 0)
		return;
	if (w->need_comma[w->depth])
		put(w, ",", 1);
	w->need_comma[w->depth] = true;
	indent(w);
}

static void before_value(struct jsonw *w)
{
	if (w->after_key)
		w->after_key = false;
	else
		before_item(w);
}

static void open_(struct jsonw *w, char c)
{
	before_value(w);
	put(w, &c, 1);
	if (w->depth + 1 < JSONW_MAX_DEPTH) {
		w->depth++;
		w->need_comma[w->depth] = false;
	} else {
		w->oom = true;
	}
}

static void close_(struct jsonw *w, char c)
{
	bool had_items = w->need_comma[w->depth];
	if (w->depth > 0)
		w->depth--;
	if (had_items)
		indent(w);
	put(w, &c, 1);
}

void jsonw_obj_open(struct jsonw *w) { open_(w, '{'); }
void jsonw_obj_close(struct jsonw *w) { close_(w, '}'); }
void jsonw_arr_open(struct jsonw *w) { open_(w, '['); }
void jsonw_arr_close(struct jsonw *w) { close_(w, ']'); }

static void write_string(struct jsonw *w, const char *s)
{
	put(w, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		char esc[8];
		switch (*p) {
		case '"': puts_(w, "\\\""); break;
		case '\\': puts_(w, "\\\\"); break;
		case '\n': puts_(w, "\\n"); break;
		case '\r': puts_(w, "\\r"); break;
		case '\t': puts_(w, "\\t"); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", *p);
				puts_(w, esc);
			} else if (*p < 0x80) {
				put(w, (const char *)p, 1);
			} else {
				/* UTF-8 as it is; a byte that is not UTF-8 becomes the text \xNN
				 * (lib/textesc.h), so that the output is UTF-8 as JSON must be; a C1
				 * control or U+FFFE/U+FFFF its JSON escape \uNNNN (the same character) */
				size_t n = textesc_step((const char *)p, esc, 0);
				if (esc[0] == '\\' && esc[1] == 'x') {
					puts_(w, "\\");
					puts_(w, esc);
				} else if (esc[0] == '\\' && esc[1] == 'u') {
					puts_(w, esc);
				} else {
					put(w, (const char *)p, n);
				}
				p += n - 1;
			}
		}
	}
	put(w, "\"", 1);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	before_item(w);
	write_string(w, key);
	put(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
	w->after_key = true;
}

void jsonw_str(struct jsonw *w, const char *s)
{
	before_value(w);
	if (s)
		write_string(w, s);
	else
		puts_(w, "null");
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	char b[32];
	before_value(w);
	snprintf(b, sizeof(b), "%" PRId64, v);
	puts_(w, b);
}

void jsonw_uint(struct jsonw *w, uint64_t v)
{
	char b[32];
	before_value(w);
	snprintf(b, sizeof(b), "%" PRIu64, v);
	puts_(w, b);
}

void jsonw_double(struct jsonw *w, double v)
{
	char b[64];
	before_value(w);
	if (!isfinite(v)) {
		puts_(w, "null");
		return;
	}
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(b, sizeof(b), "%.0f", v);
	else
		snprintf(b, sizeof(b), "%.17g", v);
	puts_(w, b);
}

void jsonw_bool(struct jsonw *w, bool v)
{
	before_value(w);
	puts_(w, v ? "true" : "false");
}

void jsonw_null(struct jsonw *w)
{
	before_value(w);
	puts_(w, "null");
}

void jsonw_raw(struct jsonw *w, const char *json)
{
	before_value(w);
	puts_(w, json && *json ? json : "null");
}

void jsonw_kv_str(struct jsonw *w, const char *key, const char *s) { jsonw_key(w, key); jsonw_str(w, s); }
void jsonw_kv_int(struct jsonw *w, const char *key, int64_t v) { jsonw_key(w, key); jsonw_int(w, v); }
void jsonw_kv_uint(struct jsonw *w, const char *key, uint64_t v) { jsonw_key(w, key); jsonw_uint(w, v); }
void jsonw_kv_double(struct jsonw *w, const char *key, double v) { jsonw_key(w, key); jsonw_double(w, v); }
void jsonw_kv_bool(struct jsonw *w, const char *key, bool v) { jsonw_key(w, key); jsonw_bool(w, v); }

const char *jsonw_finish(struct jsonw *w)
{
	if (w->oom)
		return NULL;
	if (!w->buf)
		put(w, "", 0);
	return w->oom ? NULL : w->buf;
}

char *jsonw_steal(struct jsonw *w)
{
	if (!jsonw_finish(w)) {
		jsonw_free(w);
		return NULL;
	}
	char *b = w->buf;
	w->buf = NULL;
	w->len = w->cap = 0;
	return b;
}
