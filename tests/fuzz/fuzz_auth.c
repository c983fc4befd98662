/* libFuzzer target: the key handshake's receiving sides (runner/proto/auth.h) on arbitrary
 * bytes — the agent checking an AUTH_RESPONSE, the client answering an AUTH_CHALLENGE and
 * checking the agent's proof — and the key file reader. What the agent accepts must be a whole
 * response, and the proof it gives back must check. */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runner/proto/auth.h"

static char key_path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ns_err err;
	struct auth_key key = {.len = 32};
	uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN], proof[AUTH_MAC_LEN];
	for (int i = 0; i < 32; i++)
		key.k[i] = (uint8_t)(i * 7 + 1);
	memset(na, 0x5a, sizeof(na));
	if (auth_agent_check(&key, na, data, size, proof, &err) == 0) {
		/* accepted: it must be a whole response, and our proof must check for its nonce */
		if (size != AUTH_RESPONSE_LEN)
			abort();
		memcpy(nc, data, AUTH_NONCE_LEN);
		if (auth_client_verify(&key, na, nc, proof, sizeof(proof), &err) != 0)
			abort();
	}
	struct proto_buf out;
	proto_buf_init(&out);
	auth_client_answer(&key, data, size, na, nc, &out, &err);
	proto_buf_free(&out);
	memset(nc, 0xa5, sizeof(nc));
	auth_client_verify(&key, na, nc, data, size, &err);

	/* the key file reader */
	if (!key_path[0])
		snprintf(key_path, sizeof(key_path), "/tmp/fuzz_auth.%d.key", (int)getpid());
	int fd = open(key_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0) {
		ssize_t w = write(fd, data, size);
		(void)w;
		close(fd);
		struct auth_key k2;
		auth_key_load(key_path, &k2, &err);
		unlink(key_path);
	}
	return 0;
}
