/* auth: key files (mode, owner, format, never replaced), the proofs against HMAC-SHA256 values
 * computed outside this code (Python's hmac module), wrong keys and replays refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner/proto/auth.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_auth.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

static void new_key_is_private_and_never_replaced(void **state)
{
	(void)state;
	char path[128];
	struct stat st;
	struct auth_key k1, k2;
	struct ns_err err = {0};
	snprintf(path, sizeof(path), "%s/new.key", dir);
	mode_t old = umask(0);
	int rc = auth_key_create(path, &err);
	umask(old);
	assert_int_equal(rc, 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_size, 2 * AUTH_KEY_NEW + 1);
	assert_int_equal(auth_key_load(path, &k1, &err), 0);
	assert_int_equal(k1.len, AUTH_KEY_NEW);
	/* an existing file is kept as it was */
	assert_int_equal(auth_key_create(path, &err), -1);
	assert_int_equal(auth_key_load(path, &k2, &err), 0);
	assert_memory_equal(k1.k, k2.k, AUTH_KEY_NEW);
	/* two new keys differ */
	snprintf(path, sizeof(path), "%s/other.key", dir);
	assert_int_equal(auth_key_create(path, &err), 0);
	assert_int_equal(auth_key_load(path, &k2, &err), 0);
	assert_memory_not_equal(k1.k, k2.k, AUTH_KEY_NEW);
}

static void key_files_are_checked(void **state)
{
	(void)state;
	char path[128];
	struct auth_key k;
	struct ns_err err = {0};
	const char *hex32 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n";
	snprintf(path, sizeof(path), "%s/k", dir);
	write_file(path, hex32, 0600);
	assert_int_equal(auth_key_load(path, &k, &err), 0);
	assert_int_equal(k.len, 32);
	assert_int_equal(k.k[0], 0);
	assert_int_equal(k.k[31], 0x1f);
	/* readable by others or the group: refused, saying how to fix it */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "chmod 600"));
	assert_int_equal(chmod(path, 0640), 0);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
	/* not hex, too short, odd */
	write_file(path, "zz0102030405060708090a0b0c0d0e0f\n", 0600);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
	assert_non_null(strstr(err.msg, "column 1"));
	write_file(path, "0001020304050607\n", 0600);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
	assert_non_null(strstr(err.msg, "hex digits"));
	write_file(path, "000102030405060708090a0b0c0d0e0f1\n", 0600);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
	/* a directory, a missing file */
	assert_int_equal(auth_key_load(dir, &k, &err), -1);
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
}

/* Owned by another account (nobody), mode 0600: refused even by root, as OpenSSH does; owned
 * by root, accepted. Needs root to give the file away. */
static void key_files_of_another_user_are_refused(void **state)
{
	(void)state;
	char path[128];
	struct auth_key k;
	struct ns_err err = {0};
	if (geteuid() != 0) {
		print_message("SKIP key owned by another user: needs root to chown the file\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/nobody", dir);
	write_file(path, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n", 0600);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(auth_key_load(path, &k, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "owned by uid 65534, not by this user (uid 0) or root"));
	assert_int_equal(chown(path, 0, 0), 0);
	assert_int_equal(auth_key_load(path, &k, &err), 0);
}

/* A Kubernetes Secret's file for a non-root pod user: root's, mode 0440, group the pod's
 * fsGroup. Read by a child that became uid/gid 10001 (with 10002 as a supplementary group):
 * its own group or a supplementary one may read, any other group, group write, others'
 * bits, or a file that is not root's may not; root keeps the strict rule. */
static void group_secret_for_a_pod_user(void **state)
{
	(void)state;
	char path[128];
	struct auth_key k;
	struct ns_err err = {0};
	if (geteuid() != 0) {
		print_message("SKIP a Secret's group-readable key: needs root to chown and setuid\n");
		skip();
	}
	snprintf(path, sizeof(path), "%s/secret", dir);
	write_file(path, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\n", 0440);
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(chown(path, 0, 10001), 0);
	assert_int_equal(auth_key_load(path, &k, &err), -1); /* root: 0440 is not 0400 */
	struct { uid_t uid; gid_t gid; mode_t mode; int want; } cases[] = {
		{0, 10001, 0440, 0}, {0, 10001, 0640, 0}, {0, 10002, 0440, 0}, /* supplementary */
		{0, 10003, 0440, -1}, {0, 10001, 0460, -1}, {0, 10001, 0444, -1},
		{10001, 10001, 0440, -1}, {0, 0, 0440, -1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(chown(path, cases[i].uid, cases[i].gid), 0);
		assert_int_equal(chmod(path, cases[i].mode), 0);
		pid_t pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			gid_t extra[] = {10002};
			if (setgroups(1, extra) < 0 || setgid(10001) < 0 || setuid(10001) < 0)
				_exit(3);
			_exit(auth_key_load(path, &k, &err) == cases[i].want ? 0 : 1);
		}
		int status = 0;
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("case %zu (uid %u gid %u mode %o): want %d", i, (unsigned)cases[i].uid,
				 (unsigned)cases[i].gid, (unsigned)cases[i].mode, cases[i].want);
	}
	assert_int_equal(chmod(dir, 0700), 0);
}

static struct auth_key key_0_31(void)
{
	struct auth_key k = {.len = 32};
	for (int i = 0; i < 32; i++)
		k.k[i] = (uint8_t)i;
	return k;
}

static void unhex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned v;
		assert_int_equal(sscanf(s + 2 * i, "%2x", &v), 1);
		out[i] = (uint8_t)v;
	}
}

/* HMAC-SHA256(key, "netsweep client proof" || na || nc) and the agent's, from Python's hmac. */
static void proofs_match_an_outside_hmac(void **state)
{
	(void)state;
	struct auth_key k = key_0_31();
	uint8_t na[AUTH_NONCE_LEN], resp[AUTH_RESPONSE_LEN], proof[AUTH_MAC_LEN], want[AUTH_MAC_LEN];
	struct ns_err err = {0};
	memset(na, 0x11, sizeof(na));
	memset(resp, 0x22, AUTH_NONCE_LEN);
	unhex("7447ae33fe9e4a9edf721ec0c2c2839ca2211ccb833226aba7f068b0069096eb",
	      resp + AUTH_NONCE_LEN, AUTH_MAC_LEN);
	assert_int_equal(auth_agent_check(&k, na, resp, sizeof(resp), proof, &err), 0);
	unhex("05873c141d39d0d78c1074aef3cbd17640dc2cb6a06c3e04d6f3682720d95c2a", want,
	      AUTH_MAC_LEN);
	assert_memory_equal(proof, want, AUTH_MAC_LEN);
	/* one bit off */
	resp[sizeof(resp) - 1] ^= 1;
	assert_int_equal(auth_agent_check(&k, na, resp, sizeof(resp), proof, &err), -1);
	assert_int_equal(err.code, NS_E_AUTH);
	/* cut short, one byte too many */
	resp[sizeof(resp) - 1] ^= 1;
	assert_int_equal(auth_agent_check(&k, na, resp, sizeof(resp) - 1, proof, &err), -1);
	uint8_t longer[AUTH_RESPONSE_LEN + 1] = {0};
	memcpy(longer, resp, sizeof(resp));
	assert_int_equal(auth_agent_check(&k, na, longer, sizeof(longer), proof, &err), -1);
	assert_int_equal(err.code, NS_E_AUTH);
}

/* Both sides through the real messages; then a wrong key and replays each way. */
static void handshake_both_ways_and_replays(void **state)
{
	(void)state;
	struct auth_key k = key_0_31(), wrong = key_0_31();
	wrong.k[5] ^= 0x40;
	uint8_t na[AUTH_NONCE_LEN], na_seen[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN];
	uint8_t proof[AUTH_MAC_LEN];
	struct ns_err err = {0};
	struct proto_buf chal, resp;
	proto_buf_init(&chal);
	proto_buf_init(&resp);
	assert_int_equal(auth_random(na, sizeof(na), &err), 0);
	auth_enc_challenge(&chal, na);
	assert_int_equal(chal.len, AUTH_CHALLENGE_LEN);
	assert_int_equal(auth_client_answer(&k, chal.p, chal.len, na_seen, nc, &resp, &err), 0);
	assert_memory_equal(na_seen, na, AUTH_NONCE_LEN);
	assert_int_equal(resp.len, AUTH_RESPONSE_LEN);
	assert_int_equal(auth_agent_check(&k, na, resp.p, resp.len, proof, &err), 0);
	assert_int_equal(auth_client_verify(&k, na, nc, proof, sizeof(proof), &err), 0);
	/* an agent with another key refuses the client; a client with another key refuses the
	 * agent's proof */
	assert_int_equal(auth_agent_check(&wrong, na, resp.p, resp.len, proof, &err), -1);
	assert_int_equal(err.code, NS_E_AUTH);
	assert_int_equal(auth_agent_check(&k, na, resp.p, resp.len, proof, &err), 0);
	assert_int_equal(auth_client_verify(&wrong, na, nc, proof, sizeof(proof), &err), -1);
	assert_int_equal(err.code, NS_E_AUTH);
	/* the recorded response, replayed to a new challenge: refused */
	uint8_t na2[AUTH_NONCE_LEN];
	assert_int_equal(auth_random(na2, sizeof(na2), &err), 0);
	assert_memory_not_equal(na, na2, AUTH_NONCE_LEN);
	assert_int_equal(auth_agent_check(&k, na2, resp.p, resp.len, proof, &err), -1);
	assert_int_equal(err.code, NS_E_AUTH);
	/* the agent's recorded proof, replayed to a client with a new nonce: refused */
	assert_int_equal(auth_agent_check(&k, na, resp.p, resp.len, proof, &err), 0);
	struct proto_buf resp2;
	proto_buf_init(&resp2);
	uint8_t nc2[AUTH_NONCE_LEN];
	assert_int_equal(auth_client_answer(&k, chal.p, chal.len, na_seen, nc2, &resp2, &err), 0);
	assert_memory_not_equal(nc, nc2, AUTH_NONCE_LEN);
	assert_int_equal(auth_client_verify(&k, na, nc2, proof, sizeof(proof), &err), -1);
	/* the client's proof reflected back as the agent's: refused (labels differ) */
	assert_int_equal(auth_client_verify(&k, na, nc, resp.p + AUTH_NONCE_LEN, AUTH_MAC_LEN,
					    &err), -1);
	/* a challenge of the wrong size */
	assert_int_equal(auth_client_answer(&k, chal.p, chal.len - 1, na_seen, nc, &resp2, &err),
			 -1);
	proto_buf_free(&chal);
	proto_buf_free(&resp);
	proto_buf_free(&resp2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(new_key_is_private_and_never_replaced),
		cmocka_unit_test(key_files_are_checked),
		cmocka_unit_test(key_files_of_another_user_are_refused),
		cmocka_unit_test(group_secret_for_a_pod_user),
		cmocka_unit_test(proofs_match_an_outside_hmac),
		cmocka_unit_test(handshake_both_ways_and_replays),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
