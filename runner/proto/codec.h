/* codec: the byte level of the control protocol — a growing write buffer and a bounded read
 * cursor, field by field, big-endian. proto.c (messages) and fields.c (the field tables)
 * both build on it. */
#ifndef NS_CODEC_H
#define NS_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

/* A growing write buffer and a bounded read cursor; field-by-field, big-endian. */
struct proto_buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};
void proto_buf_init(struct proto_buf *b);
void proto_buf_free(struct proto_buf *b);
void proto_put_u8(struct proto_buf *b, uint8_t v);
void proto_put_u16(struct proto_buf *b, uint16_t v);
void proto_put_u32(struct proto_buf *b, uint32_t v);
void proto_put_u64(struct proto_buf *b, uint64_t v);
void proto_put_f64(struct proto_buf *b, double v);
void proto_put_bytes(struct proto_buf *b, const void *p, size_t n);
void proto_put_str(struct proto_buf *b, const char *s); /* u16 length + bytes */

struct proto_rd {
	const uint8_t *p;
	size_t len, off;
	bool bad;             /* read past the end or a bound violated: the message is rejected */
};
void proto_rd_init(struct proto_rd *r, const void *p, size_t len);
uint8_t proto_get_u8(struct proto_rd *r);
uint16_t proto_get_u16(struct proto_rd *r);
uint32_t proto_get_u32(struct proto_rd *r);
uint64_t proto_get_u64(struct proto_rd *r);
double proto_get_f64(struct proto_rd *r);
void proto_get_bytes(struct proto_rd *r, void *p, size_t n);
/* Copies a string of at most cap-1 bytes (longer or with a NUL inside: bad). */
void proto_get_str(struct proto_rd *r, char *dst, size_t cap);
/* Rejects a message with trailing bytes or an earlier bound violation. */
int proto_rd_end(const struct proto_rd *r, const char *what, struct ns_err *err);

#endif
