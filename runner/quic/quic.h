/* quic: the QUIC engine (ngtcp2 with GnuTLS), behind runner/engine's struct engine_transport:
 * one QUIC connection per data socket (a connected UDP socket, set up as a UDP test's are),
 * one unidirectional stream on each carrying the sender's bytes to the receiver. The agent's
 * end is the QUIC server with a self-signed certificate made per test (quic_cert_new, in
 * memory); its SHA-256 fingerprint travels over the authenticated control connection and the
 * client's end refuses a server whose certificate does not have it. Sending is paced by
 * ngtcp2's congestion controller (its pacing: a send quantum, then the next packet's time),
 * below that by the test's --bitrate and the agent's --max-rate; a batch of packets leaves
 * as one UDP GSO (UDP_SEGMENT) send where the kernel takes it. A build without ngtcp2 has
 * quic_none.c: quic_available() says why, quic_transport() is NULL. */
#ifndef NS_QUIC_H
#define NS_QUIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/engine/engine.h"

#define QUIC_SHA256_LEN 32
#define QUIC_ALPN "netsweep"
/* A sender that reached its end waits this long at most for its FIN to be acknowledged
 * before it closes the connection anyway; a handshake gives up after QUIC_HANDSHAKE_NS. */
#define QUIC_END_NS 3000000000ull
#define QUIC_HANDSHAKE_NS 10000000000ull

/* A self-signed certificate (ECDSA P-256, CN=netsweep) and its key, made for one test. */
struct quic_cert;
int quic_cert_new(struct quic_cert **out, struct ns_err *err);
/* SHA-256 of the certificate's DER. */
void quic_cert_sha256(const struct quic_cert *c, uint8_t out[QUIC_SHA256_LEN]);
void quic_cert_free(struct quic_cert *c);
/* Whether der (a certificate) has the fingerprint want. */
bool quic_cert_matches(const uint8_t *der, size_t len, const uint8_t want[QUIC_SHA256_LEN]);
/* The fingerprint as 64 lowercase hex digits and a NUL. */
void quic_sha256_hex(const uint8_t d[QUIC_SHA256_LEN], char out[2 * QUIC_SHA256_LEN + 1]);

/* engine_cfg.transport_arg: which end of the handshake, the server's certificate, the
 * fingerprint the client expects. */
struct quic_side {
	bool server;
	const struct quic_cert *cert;          /* server */
	uint8_t peer_sha256[QUIC_SHA256_LEN];  /* client */
};

/* NULL in a build without ngtcp2. */
const struct engine_transport *quic_transport(void);
/* Whether QUIC was built in; if not, why not (one line) in why. */
bool quic_available(char *why, size_t n);

#endif
