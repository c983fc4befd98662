/* codec: the big-endian write buffer and bounded read cursor (see codec.h). */
#include "codec.h"

#include <endian.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- write buffer ---- */

void proto_buf_init(struct proto_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void proto_buf_free(struct proto_buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void proto_put_bytes(struct proto_buf *b, const void *p, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *np = realloc(b->p, cap);
		if (!np) {
			b->oom = true;
			return;
		}
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void proto_put_u8(struct proto_buf *b, uint8_t v) { proto_put_bytes(b, &v, 1); }

void proto_put_u16(struct proto_buf *b, uint16_t v)
{
	v = htobe16(v);
	proto_put_bytes(b, &v, 2);
}

void proto_put_u32(struct proto_buf *b, uint32_t v)
{
	v = htobe32(v);
	proto_put_bytes(b, &v, 4);
}

void proto_put_u64(struct proto_buf *b, uint64_t v)
{
	v = htobe64(v);
	proto_put_bytes(b, &v, 8);
}

void proto_put_f64(struct proto_buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof(u));
	proto_put_u64(b, u);
}

void proto_put_str(struct proto_buf *b, const char *s)
{
	size_t n = s ? strnlen(s, UINT16_MAX) : 0;
	proto_put_u16(b, (uint16_t)n);
	proto_put_bytes(b, s, n);
}

/* ---- read cursor ---- */

void proto_rd_init(struct proto_rd *r, const void *p, size_t len)
{
	r->p = p;
	r->len = len;
	r->off = 0;
	r->bad = false;
}

void proto_get_bytes(struct proto_rd *r, void *p, size_t n)
{
	if (r->bad || r->len - r->off < n) {
		r->bad = true;
		memset(p, 0, n);
		return;
	}
	memcpy(p, r->p + r->off, n);
	r->off += n;
}

uint8_t proto_get_u8(struct proto_rd *r)
{
	uint8_t v;
	proto_get_bytes(r, &v, 1);
	return v;
}

uint16_t proto_get_u16(struct proto_rd *r)
{
	uint16_t v;
	proto_get_bytes(r, &v, 2);
	return be16toh(v);
}

uint32_t proto_get_u32(struct proto_rd *r)
{
	uint32_t v;
	proto_get_bytes(r, &v, 4);
	return be32toh(v);
}

uint64_t proto_get_u64(struct proto_rd *r)
{
	uint64_t v;
	proto_get_bytes(r, &v, 8);
	return be64toh(v);
}

double proto_get_f64(struct proto_rd *r)
{
	uint64_t u = proto_get_u64(r);
	double v;
	memcpy(&v, &u, sizeof(v));
	if (!isfinite(v)) { /* no NaN or infinity ever enters from the wire */
		r->bad = true;
		return 0;
	}
	return v;
}

void proto_get_str(struct proto_rd *r, char *dst, size_t cap)
{
	uint16_t n = proto_get_u16(r);
	dst[0] = '\0';
	if (r->bad || n >= cap || r->len - r->off < n) {
		r->bad = true;
		return;
	}
	memcpy(dst, r->p + r->off, n);
	dst[n] = '\0';
	if (strlen(dst) != n)
		r->bad = true;
	r->off += n;
}

int proto_rd_end(const struct proto_rd *r, const char *what, struct ns_err *err)
{
	if (r->bad)
		return ns_err_set(err, "malformed %s message", what);
	if (r->off != r->len)
		return ns_err_set(err, "malformed %s message: %zu trailing bytes", what,
				  r->len - r->off);
	return 0;
}
