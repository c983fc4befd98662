/* fields: the tables of fields.h as data, and the binary and JSON walks over them. */
#include "fields.h"

#include <math.h>
#include <string.h>

#include "codec.h"
#include "proto.h" /* struct proto_dir_summary */

/* A member must have the size its type says (FT_STR: any char array). */
#define FT_SIZE_OK_FT_BOOL(n) ((n) == sizeof(bool))
#define FT_SIZE_OK_FT_U8(n) ((n) == 1)
#define FT_SIZE_OK_FT_U16(n) ((n) == 2)
#define FT_SIZE_OK_FT_U32(n) ((n) == 4)
#define FT_SIZE_OK_FT_U64(n) ((n) == 8)
#define FT_SIZE_OK_FT_I32(n) ((n) == 4)
#define FT_SIZE_OK_FT_F64(n) ((n) == sizeof(double))
#define FT_SIZE_OK_FT_STR(n) ((n) > 1)
#define FT_SIZE_OK_FT_PROTO(n) ((n) == sizeof(enum ns_proto))
#define FT_SIZE_OK_FT_DIR(n) ((n) == sizeof(enum ns_dir))
#define FT_SIZE_OK_FT_ERRNO(n) ((n) == sizeof(int))

/* Each table is built from its list with FIELD_STRUCT naming the struct at that point. */
#define MEMBER_SIZE(m) sizeof(((FIELD_STRUCT *)0)->m)
#define FIELD_ROW(t, m, k, fl) {#m, k, offsetof(FIELD_STRUCT, m), MEMBER_SIZE(m), t, fl},
#define FIELD_CHECK(t, m, k, fl) \
	_Static_assert(FT_SIZE_OK_##t(MEMBER_SIZE(m)), #m " does not fit " #t);
#define DEFINE_TABLE(var, name, LIST) \
	LIST(FIELD_CHECK) \
	static const struct field var##_rows[] = {LIST(FIELD_ROW)}; \
	const struct field_table var = {name, var##_rows, sizeof(var##_rows) / sizeof(var##_rows[0])};

#define FIELD_STRUCT struct probe_params
DEFINE_TABLE(fields_params, "probe_params", PROBE_PARAMS_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_result
DEFINE_TABLE(fields_result, "probe_result", PROBE_RESULT_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_figures
DEFINE_TABLE(fields_figures, "probe_figures", PROBE_FIGURES_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_stream_result
DEFINE_TABLE(fields_stream, "probe_stream_result", PROBE_STREAM_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_interval
DEFINE_TABLE(fields_interval, "probe_interval", PROBE_INTERVAL_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct engine_stream_snap
DEFINE_TABLE(fields_snap, "engine_stream_snap", ENGINE_SNAP_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_shaping
DEFINE_TABLE(fields_shaping, "probe_shaping", PROBE_SHAPING_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_latency_figures
DEFINE_TABLE(fields_latency, "probe_latency_figures", PROBE_LATENCY_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_lul
DEFINE_TABLE(fields_lul, "probe_lul", PROBE_LUL_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_rpm
DEFINE_TABLE(fields_rpm, "probe_rpm", PROBE_RPM_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct probe_limit
DEFINE_TABLE(fields_limit, "probe_limit", PROBE_LIMIT_FIELDS)
#undef FIELD_STRUCT
#define FIELD_STRUCT struct proto_dir_summary
DEFINE_TABLE(fields_dir_summary, "proto_dir_summary", PROTO_DIR_SUMMARY_FIELDS)
#undef FIELD_STRUCT

bool field_in_json(const struct field *f, enum ns_proto proto)
{
	if (!(f->flags & F_JSON) || !f->key)
		return false;
	if ((f->flags & F_TCP) && proto != NS_PROTO_TCP && proto != NS_PROTO_QUIC)
		return false; /* QUIC: retransmits are the packets ngtcp2 declared lost */
	if ((f->flags & F_UDP) && proto != NS_PROTO_UDP)
		return false;
	return true;
}

/* The binary walks: the fields with any of the flags in mask. */
static void put(struct proto_buf *b, const struct field_table *t, const void *src, unsigned mask)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		const void *p = (const char *)src + f->off;
		if (!(f->flags & mask))
			continue;
		switch (f->type) {
		case FT_BOOL: proto_put_u8(b, *(const bool *)p); break;
		case FT_U8: proto_put_u8(b, *(const uint8_t *)p); break;
		case FT_U16: proto_put_u16(b, *(const uint16_t *)p); break;
		case FT_U32: proto_put_u32(b, *(const uint32_t *)p); break;
		case FT_U64: proto_put_u64(b, *(const uint64_t *)p); break;
		case FT_I32: proto_put_u32(b, (uint32_t)*(const int32_t *)p); break;
		case FT_F64: { /* a receiver refuses NaN and infinities: they go as 0 (JSON: null) */
			double v = *(const double *)p;
			proto_put_f64(b, isfinite(v) ? v : 0);
			break;
		}
		case FT_STR: { /* never past the array, even if unterminated */
			size_t n = strnlen(p, f->size - 1);
			proto_put_u16(b, (uint16_t)n);
			proto_put_bytes(b, p, n);
			break;
		}
		case FT_PROTO: proto_put_u8(b, (uint8_t)*(const enum ns_proto *)p); break;
		case FT_DIR: proto_put_u8(b, (uint8_t)*(const enum ns_dir *)p); break;
		case FT_ERRNO: proto_put_u32(b, (uint32_t)*(const int *)p); break;
		}
	}
}

static const struct field *get(struct proto_rd *r, const struct field_table *t, void *dst,
			       unsigned mask)
{
	const struct field *bad = NULL;
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		void *p = (char *)dst + f->off;
		if (!(f->flags & mask))
			continue;
		switch (f->type) {
		case FT_BOOL: *(bool *)p = proto_get_u8(r) != 0; break;
		case FT_U8: *(uint8_t *)p = proto_get_u8(r); break;
		case FT_U16: *(uint16_t *)p = proto_get_u16(r); break;
		case FT_U32: *(uint32_t *)p = proto_get_u32(r); break;
		case FT_U64: *(uint64_t *)p = proto_get_u64(r); break;
		case FT_I32: *(int32_t *)p = (int32_t)proto_get_u32(r); break;
		case FT_F64: *(double *)p = proto_get_f64(r); break;
		case FT_STR: proto_get_str(r, p, f->size); break;
		case FT_PROTO: {
			uint8_t v = proto_get_u8(r);
			if (v > NS_PROTO_QUIC && !bad)
				bad = f;
			*(enum ns_proto *)p = v > NS_PROTO_QUIC ? NS_PROTO_TCP : (enum ns_proto)v;
			break;
		}
		case FT_DIR: {
			uint8_t v = proto_get_u8(r);
			if (v > NS_DIR_BIDIR && !bad)
				bad = f;
			*(enum ns_dir *)p = v > NS_DIR_BIDIR ? NS_DIR_FORWARD : (enum ns_dir)v;
			break;
		}
		case FT_ERRNO: *(int *)p = (int)(proto_get_u32(r) & 0xffff); break;
		}
	}
	return bad;
}

void fields_put(struct proto_buf *b, const struct field_table *t, const void *src)
{
	put(b, t, src, F_WIRE);
}

const struct field *fields_get(struct proto_rd *r, const struct field_table *t, void *dst)
{
	return get(r, t, dst, F_WIRE);
}

void fields_put_all(struct proto_buf *b, const struct field_table *t, const void *src)
{
	put(b, t, src, F_WIRE | F_JSON);
}

const struct field *fields_get_all(struct proto_rd *r, const struct field_table *t, void *dst)
{
	return get(r, t, dst, F_WIRE | F_JSON);
}

void fields_json(struct jsonw *w, const struct field_table *t, const void *src,
		 enum ns_proto proto)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		const void *p = (const char *)src + f->off;
		if (!field_in_json(f, proto))
			continue;
		switch (f->type) {
		case FT_BOOL: jsonw_kv_bool(w, f->key, *(const bool *)p); break;
		case FT_U8: jsonw_kv_uint(w, f->key, *(const uint8_t *)p); break;
		case FT_U16: jsonw_kv_uint(w, f->key, *(const uint16_t *)p); break;
		case FT_U32: jsonw_kv_uint(w, f->key, *(const uint32_t *)p); break;
		case FT_U64: jsonw_kv_uint(w, f->key, *(const uint64_t *)p); break;
		case FT_I32: jsonw_kv_int(w, f->key, *(const int32_t *)p); break;
		case FT_F64: jsonw_kv_double(w, f->key, *(const double *)p); break;
		case FT_STR: jsonw_kv_str(w, f->key, memchr(p, '\0', f->size) ? p : ""); break;
		case FT_PROTO: jsonw_kv_str(w, f->key, ns_proto_name(*(const enum ns_proto *)p)); break;
		case FT_DIR: jsonw_kv_str(w, f->key, ns_dir_name(*(const enum ns_dir *)p)); break;
		case FT_ERRNO: jsonw_kv_int(w, f->key, *(const int *)p); break;
		}
	}
}
