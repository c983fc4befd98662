/* quic_hex: a certificate fingerprint in words (see quic.h), in every build. */
#include "quic.h"

#include <stdio.h>

void quic_sha256_hex(const uint8_t d[QUIC_SHA256_LEN], char out[2 * QUIC_SHA256_LEN + 1])
{
	for (int i = 0; i < QUIC_SHA256_LEN; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}
