/* sha256: the digest behind a run's matrix hash (the resume key) and every case's stable key.
 * A small self-contained implementation (FIPS 180-4), so netsweep needs no crypto library. */
#ifndef NS_SHA256_H
#define NS_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_HEX_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t total;
	uint8_t buf[64];
	size_t used;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, uint8_t out[32]);
/* One-shot digest as lower-case hex; hex must hold 2 * hexlen_bytes + 1 (at most 65) chars.
 * nbytes < 32 truncates the digest (case keys use the first 8 bytes). */
void sha256_hex(const void *data, size_t len, size_t nbytes, char *hex);

#endif
