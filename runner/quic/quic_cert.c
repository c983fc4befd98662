/* quic_cert: a test's self-signed certificate, made in memory with GnuTLS (see quic.h). */
#include "quic.h"
#include "quic_int.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>

#include <gnutls/crypto.h>
#include <gnutls/x509.h>

int quic_cert_new(struct quic_cert **out, struct ns_err *err)
{
	struct quic_cert *c = calloc(1, sizeof(*c));
	*out = NULL;
	if (!c)
		return ns_err_code(err, NS_E_NOMEM, "QUIC certificate: out of memory");
	int rv;
	const char *what = "key";
	unsigned char serial[16];
	gnutls_datum_t der = {0};
	time_t now = time(NULL);
	if ((rv = gnutls_x509_privkey_init(&c->key)) < 0 ||
	    (rv = gnutls_x509_privkey_generate(c->key, GNUTLS_PK_ECDSA,
					       GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1),
					       0)) < 0)
		goto fail;
	what = "certificate";
	if ((rv = gnutls_rnd(GNUTLS_RND_NONCE, serial, sizeof(serial))) < 0)
		goto fail;
	serial[0] &= 0x7f; /* a positive serial */
	if ((rv = gnutls_x509_crt_init(&c->crt)) < 0 ||
	    (rv = gnutls_x509_crt_set_version(c->crt, 3)) < 0 ||
	    (rv = gnutls_x509_crt_set_serial(c->crt, serial, sizeof(serial))) < 0 ||
	    (rv = gnutls_x509_crt_set_activation_time(c->crt, now - 3600)) < 0 ||
	    (rv = gnutls_x509_crt_set_expiration_time(c->crt, now + 2 * 86400)) < 0 ||
	    (rv = gnutls_x509_crt_set_dn(c->crt, "CN=netsweep", NULL)) < 0 ||
	    (rv = gnutls_x509_crt_set_key(c->crt, c->key)) < 0 ||
	    (rv = gnutls_x509_crt_sign2(c->crt, c->crt, c->key, GNUTLS_DIG_SHA256, 0)) < 0 ||
	    (rv = gnutls_x509_crt_export2(c->crt, GNUTLS_X509_FMT_DER, &der)) < 0)
		goto fail;
	rv = gnutls_hash_fast(GNUTLS_DIG_SHA256, der.data, der.size, c->sha256);
	gnutls_free(der.data);
	if (rv < 0)
		goto fail;
	what = "credentials";
	if ((rv = gnutls_certificate_allocate_credentials(&c->cred)) < 0 ||
	    (rv = gnutls_certificate_set_x509_key(c->cred, &c->crt, 1, c->key)) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	quic_cert_free(c);
	return ns_err_code(err, NS_E_FAIL, "QUIC certificate: %s: %s", what, gnutls_strerror(rv));
}

void quic_cert_sha256(const struct quic_cert *c, uint8_t out[QUIC_SHA256_LEN])
{
	memcpy(out, c->sha256, QUIC_SHA256_LEN);
}

void quic_cert_free(struct quic_cert *c)
{
	if (!c)
		return;
	if (c->cred)
		gnutls_certificate_free_credentials(c->cred);
	if (c->crt)
		gnutls_x509_crt_deinit(c->crt);
	if (c->key)
		gnutls_x509_privkey_deinit(c->key);
	free(c);
}

bool quic_cert_matches(const uint8_t *der, size_t len, const uint8_t want[QUIC_SHA256_LEN])
{
	uint8_t got[QUIC_SHA256_LEN];
	if (!der || !len || gnutls_hash_fast(GNUTLS_DIG_SHA256, der, len, got) < 0)
		return false;
	unsigned diff = 0;
	for (size_t i = 0; i < QUIC_SHA256_LEN; i++)
		diff |= got[i] ^ want[i];
	return diff == 0;
}

bool quic_available(char *why, size_t n)
{
	if (why && n)
		why[0] = '\0';
	return true;
}
