/* fuzz_seeds DIR: writes the proto fuzzer's generated seeds (tests/lib/proto_seeds.h), one
 * file each, into DIR. `make fuzz` runs it before fuzz_proto, so that the fuzzer starts from
 * messages of the protocol as it is now. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/lib/proto_seeds.h"

static int write_seed(const char *dir, const struct proto_seed *s)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, s->name);
	FILE *f = fopen(path, "wb");
	if (!f) {
		fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t w = fwrite(s->b.p, 1, s->b.len, f);
	if (fclose(f) != 0 || w != s->b.len) {
		fprintf(stderr, "fuzz_seeds: writing %s failed\n", path);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	struct proto_seeds *S = malloc(sizeof(*S));
	struct ns_err err = {0};
	int rc = 1;
	if (!S) {
		fprintf(stderr, "fuzz_seeds: out of memory\n");
		return 1;
	}
	if (proto_seeds_build(S, &err) < 0) {
		fprintf(stderr, "fuzz_seeds: %s\n", err.msg);
		goto out;
	}
	for (size_t i = 0; i < S->n; i++)
		if (write_seed(argv[1], &S->s[i]) < 0)
			goto out;
	printf("%zu proto seeds in %s\n", S->n, argv[1]);
	rc = fflush(stdout) == 0 ? 0 : 1;
out:
	proto_seeds_free(S);
	free(S);
	return rc;
}
