/* auth: key files, nonces and the HMAC-SHA256 proofs of the control protocol's handshake.
 * Each proof is HMAC-SHA256(key, label || na || nc) with a label per role, so that neither
 * end's proof can be reflected back as the other's, and both nonces in each, so that a
 * recorded exchange proves nothing to an agent or a client that picked a new nonce. */
#include "auth.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "lib/atomicfile.h"

#define AUTH_LABEL_CLIENT "netsweep client proof"
#define AUTH_LABEL_AGENT "netsweep agent proof"
#define AUTH_FILE_MAX 512             /* a key file is one short line */

void auth_key_clear(struct auth_key *key)
{
	OPENSSL_cleanse(key, sizeof(*key));
}

int auth_random(uint8_t *p, size_t n, struct ns_err *err)
{
	if (n > (size_t)0x7fffffff || RAND_bytes(p, (int)n) != 1)
		return ns_err_code(err, NS_E_FAIL, "no random bytes from OpenSSL (RAND_bytes)");
	return 0;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A Kubernetes Secret's file as a pod's non-root user sees it: owned by root, readable by the
 * pod's fsGroup (mode 0440 or 0640), nothing for others. That group is one of this process's
 * own and not root's, so no other account reads the key through it; a root process keeps the
 * strict rule (0600 or 0400). */
static bool group_secret(const struct stat *st)
{
	if (st->st_uid != 0 || geteuid() == 0 || st->st_gid == 0 ||
	    (st->st_mode & (S_IRWXG | S_IRWXO)) != S_IRGRP)
		return false;
	if (st->st_gid == getegid())
		return true;
	gid_t groups[256];
	int n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == st->st_gid)
			return true;
	return false;
}

int auth_key_load(const char *path, struct auth_key *key, struct ns_err *err)
{
	char text[AUTH_FILE_MAX + 1];
	struct stat st;
	ssize_t n;
	int rc = -1;
	memset(key, 0, sizeof(*key));
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return ns_err_sys(err, "key file %s", path);
	if (fstat(fd, &st) < 0) {
		ns_err_sys(err, "key file %s", path);
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ns_err_code(err, NS_E_INPUT, "key file %s: not a regular file", path);
		goto out;
	}
	/* as OpenSSH's: another account that owns the file may change its mode or contents */
	if (st.st_uid != geteuid() && st.st_uid != 0) {
		ns_err_code(err, NS_E_INPUT,
			    "key file %s: owned by uid %u, not by this user (uid %u) or root; "
			    "run 'chown %u %s' or make a new one with 'netsweep key'",
			    path, (unsigned)st.st_uid, (unsigned)geteuid(), (unsigned)geteuid(),
			    path);
		goto out;
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) && !group_secret(&st)) {
		ns_err_code(err, NS_E_INPUT,
			    "key file %s: group or others may read it (mode %04o); "
			    "run 'chmod 600 %s' or make a new one with 'netsweep key'",
			    path, (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	n = read(fd, text, AUTH_FILE_MAX + 1);
	if (n < 0) {
		ns_err_sys(err, "key file %s", path);
		goto out;
	}
	if (n > AUTH_FILE_MAX) {
		ns_err_code(err, NS_E_INPUT, "key file %s: line 1: longer than %d bytes", path,
			    AUTH_FILE_MAX);
		goto out;
	}
	while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r' || text[n - 1] == ' ' ||
			 text[n - 1] == '\t'))
		n--;
	if (n % 2 || n < 2 * AUTH_KEY_MIN || n > 2 * AUTH_KEY_MAX) {
		ns_err_code(err, NS_E_INPUT,
			    "key file %s: line 1: the key must be %d to %d hex digits, an even "
			    "number (found %zd characters)", path, 2 * AUTH_KEY_MIN, 2 * AUTH_KEY_MAX,
			    n);
		goto out;
	}
	for (ssize_t i = 0; i < n; i += 2) {
		int hi = hexval((unsigned char)text[i]), lo = hexval((unsigned char)text[i + 1]);
		if (hi < 0 || lo < 0) {
			ns_err_code(err, NS_E_INPUT, "key file %s: line 1: column %zd: not a hex digit",
				    path, hi < 0 ? i + 1 : i + 2);
			goto out;
		}
		key->k[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	key->len = (size_t)n / 2;
	rc = 0;
out:
	OPENSSL_cleanse(text, sizeof(text));
	if (rc < 0)
		auth_key_clear(key);
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int auth_key_create(const char *path, struct ns_err *err)
{
	static const char hex[] = "0123456789abcdef";
	uint8_t k[AUTH_KEY_NEW];
	char line[2 * AUTH_KEY_NEW + 1];
	int rc = -1;
	if (auth_random(k, sizeof(k), err) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(k); i++) {
		line[2 * i] = hex[k[i] >> 4];
		line[2 * i + 1] = hex[k[i] & 15];
	}
	line[2 * AUTH_KEY_NEW] = '\n';
	/* written whole under a temporary name, then linked in: an existing file is never
	 * replaced, and a full disk leaves no empty or partial key behind */
	if (atomicfile_write(path, line, sizeof(line), 0600, ATOMICFILE_NO_REPLACE, err) < 0) {
		ns_err_prefix(err, "key file");
		goto out;
	}
	rc = 0;
out:
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(line, sizeof(line));
	return rc;
}

static int proof(const struct auth_key *key, const char *label, const uint8_t na[AUTH_NONCE_LEN],
		 const uint8_t nc[AUTH_NONCE_LEN], uint8_t out[AUTH_MAC_LEN], struct ns_err *err)
{
	uint8_t msg[sizeof(AUTH_LABEL_CLIENT) + 2 * AUTH_NONCE_LEN];
	size_t ll = strlen(label);
	unsigned int outlen = 0;
	if (key->len < AUTH_KEY_MIN || ll > sizeof(AUTH_LABEL_CLIENT))
		return ns_err_code(err, NS_E_AUTH, "authentication failed: no key");
	memcpy(msg, label, ll);
	memcpy(msg + ll, na, AUTH_NONCE_LEN);
	memcpy(msg + ll + AUTH_NONCE_LEN, nc, AUTH_NONCE_LEN);
	if (!HMAC(EVP_sha256(), key->k, (int)key->len, msg, ll + 2 * AUTH_NONCE_LEN, out, &outlen) ||
	    outlen != AUTH_MAC_LEN)
		return ns_err_code(err, NS_E_FAIL, "HMAC-SHA256 failed (OpenSSL)");
	return 0;
}

void auth_enc_challenge(struct proto_buf *b, const uint8_t na[AUTH_NONCE_LEN])
{
	proto_put_bytes(b, na, AUTH_NONCE_LEN);
}

int auth_agent_check(const struct auth_key *key, const uint8_t na[AUTH_NONCE_LEN],
		     const uint8_t *p, size_t len, uint8_t agent_proof[AUTH_MAC_LEN],
		     struct ns_err *err)
{
	struct proto_rd r;
	uint8_t nc[AUTH_NONCE_LEN], got[AUTH_MAC_LEN], want[AUTH_MAC_LEN];
	proto_rd_init(&r, p, len);
	proto_get_bytes(&r, nc, sizeof(nc));
	proto_get_bytes(&r, got, sizeof(got));
	if (proto_rd_end(&r, "AUTH_RESPONSE", err) < 0) {
		if (err)
			err->code = NS_E_AUTH;
		return -1;
	}
	if (proof(key, AUTH_LABEL_CLIENT, na, nc, want, err) < 0)
		return -1;
	int same = CRYPTO_memcmp(got, want, AUTH_MAC_LEN) == 0;
	OPENSSL_cleanse(want, sizeof(want));
	if (!same)
		return ns_err_code(err, NS_E_AUTH, "authentication failed");
	return proof(key, AUTH_LABEL_AGENT, na, nc, agent_proof, err);
}

int auth_client_answer(const struct auth_key *key, const uint8_t *p, size_t len,
		       uint8_t na[AUTH_NONCE_LEN], uint8_t nc[AUTH_NONCE_LEN],
		       struct proto_buf *out, struct ns_err *err)
{
	struct proto_rd r;
	uint8_t mac[AUTH_MAC_LEN];
	proto_rd_init(&r, p, len);
	proto_get_bytes(&r, na, AUTH_NONCE_LEN);
	if (proto_rd_end(&r, "AUTH_CHALLENGE", err) < 0)
		return -1;
	if (auth_random(nc, AUTH_NONCE_LEN, err) < 0 ||
	    proof(key, AUTH_LABEL_CLIENT, na, nc, mac, err) < 0)
		return -1;
	proto_put_bytes(out, nc, AUTH_NONCE_LEN);
	proto_put_bytes(out, mac, AUTH_MAC_LEN);
	return 0;
}

int auth_client_verify(const struct auth_key *key, const uint8_t na[AUTH_NONCE_LEN],
		       const uint8_t nc[AUTH_NONCE_LEN], const uint8_t *p, size_t len,
		       struct ns_err *err)
{
	struct proto_rd r;
	uint8_t got[AUTH_MAC_LEN], want[AUTH_MAC_LEN];
	proto_rd_init(&r, p, len);
	proto_get_bytes(&r, got, sizeof(got));
	if (proto_rd_end(&r, "AUTH_RESPONSE", err) < 0 ||
	    proof(key, AUTH_LABEL_AGENT, na, nc, want, err) < 0)
		return -1;
	int same = CRYPTO_memcmp(got, want, AUTH_MAC_LEN) == 0;
	if (!same)
		return ns_err_code(err, NS_E_AUTH,
				   "authentication failed: the agent did not prove the key");
	return 0;
}
