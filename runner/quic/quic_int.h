/* quic_int: what quic_cert.c shares with quic_engine.c (runner/quic only). */
#ifndef NS_QUIC_INT_H
#define NS_QUIC_INT_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "quic.h"

struct quic_cert {
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_certificate_credentials_t cred; /* the server's: its certificate and key */
	uint8_t sha256[QUIC_SHA256_LEN];
};

#endif
