/* quic_none: QUIC in a build without ngtcp2 (mk/quic.mk): every call says so. */
#include "quic.h"

#include <stdio.h>
#include <string.h>

#define QUIC_MISSING "QUIC is unavailable: netsweep was built without ngtcp2 " \
		     "(libngtcp2-dev, libngtcp2-crypto-gnutls-dev, libgnutls28-dev)"

int quic_cert_new(struct quic_cert **out, struct ns_err *err)
{
	*out = NULL;
	return ns_err_code(err, NS_E_UNSUPPORTED, "%s", QUIC_MISSING);
}

void quic_cert_sha256(const struct quic_cert *c, uint8_t out[QUIC_SHA256_LEN])
{
	(void)c;
	memset(out, 0, QUIC_SHA256_LEN);
}

void quic_cert_free(struct quic_cert *c)
{
	(void)c;
}

bool quic_cert_matches(const uint8_t *der, size_t len, const uint8_t want[QUIC_SHA256_LEN])
{
	return false;
}

const struct engine_transport *quic_transport(void)
{
	return NULL;
}

bool quic_available(char *why, size_t n)
{
	if (why && n)
		snprintf(why, n, "%s", QUIC_MISSING);
	return false;
}
