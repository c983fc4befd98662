/* auth: the pre-shared-key handshake of the control protocol (schemas/control-protocol.md,
 * "Authentication") — key files, fresh nonces, the HMAC-SHA256 proofs both ends give, and the
 * AUTH_CHALLENGE / AUTH_RESPONSE bodies. OpenSSL's libcrypto does the cryptography; this module
 * owns no socket: the agent's gate and the client's ctl drive the exchange. */
#ifndef NS_AUTH_H
#define NS_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "proto.h"

#define AUTH_NONCE_LEN 32
#define AUTH_MAC_LEN 32               /* HMAC-SHA256 */
#define AUTH_KEY_MIN 16               /* bytes: 128 bits at least */
#define AUTH_KEY_MAX 64               /* the HMAC-SHA256 block: longer keys are hashed anyway */
#define AUTH_KEY_NEW 32               /* what `netsweep key` writes */
#define AUTH_CHALLENGE_LEN AUTH_NONCE_LEN
#define AUTH_RESPONSE_LEN (AUTH_NONCE_LEN + AUTH_MAC_LEN) /* client -> agent */
#define AUTH_PROOF_LEN AUTH_MAC_LEN                      /* agent -> client */

struct auth_key {
	uint8_t k[AUTH_KEY_MAX];
	size_t len;
};

/* Reads a key file: one line of 32..128 hex digits. Refuses a file that is not a regular file,
 * that another user than this one or root owns, or that its group or others may read or
 * write (the message says how to fix it) — but for a non-root process, a root-owned file that
 * only one of its own groups (not root's) may also read: a Kubernetes Secret's volume with
 * the pod's fsGroup (0440). */
int auth_key_load(const char *path, struct auth_key *key, struct ns_err *err);
/* Writes a new random key to path, created with mode 0600; never replaces an existing file. */
int auth_key_create(const char *path, struct ns_err *err);
/* Forgets the key (the memory is cleared in a way the compiler keeps). */
void auth_key_clear(struct auth_key *key);

/* Fresh random bytes (RAND_bytes). */
int auth_random(uint8_t *p, size_t n, struct ns_err *err);

/* The agent's side: it sends AUTH_CHALLENGE(na); auth_agent_check decodes the client's
 * AUTH_RESPONSE, checks its proof (constant time) and fills the agent's own proof, which it
 * sends back as AUTH_RESPONSE. Returns -1 with NS_E_AUTH on a wrong proof. */
void auth_enc_challenge(struct proto_buf *b, const uint8_t na[AUTH_NONCE_LEN]);
int auth_agent_check(const struct auth_key *key, const uint8_t na[AUTH_NONCE_LEN],
		     const uint8_t *p, size_t len, uint8_t proof[AUTH_MAC_LEN],
		     struct ns_err *err);

/* The client's side: auth_client_answer decodes AUTH_CHALLENGE and writes the AUTH_RESPONSE
 * body (a fresh nonce of its own in nc, and its proof); auth_client_verify checks the agent's
 * proof over both nonces. */
int auth_client_answer(const struct auth_key *key, const uint8_t *p, size_t len,
		       uint8_t na[AUTH_NONCE_LEN], uint8_t nc[AUTH_NONCE_LEN],
		       struct proto_buf *out, struct ns_err *err);
int auth_client_verify(const struct auth_key *key, const uint8_t na[AUTH_NONCE_LEN],
		       const uint8_t nc[AUTH_NONCE_LEN], const uint8_t *p, size_t len,
		       struct ns_err *err);

#endif
