/* test_fuzz_seeds: the proto fuzzer's seeds (tests/lib/proto_seeds.h) against the decoders as
 * they are now, through the fuzzer's own input format (tests/lib/proto_case.h). Every
 * generated seed must decode whole, so that a field change that breaks the generator or
 * leaves its messages stale fails here rather than leaving the fuzzer at the decoders' early
 * exits; the committed seeds in tests/fuzz/proto (malformed starts among them) must not crash. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/lib/proto_seeds.h"

#define COMMITTED_SEEDS NETSWEEP_SCHEMADIR "/../tests/fuzz/proto"

static int setup(void **state)
{
	struct proto_seeds *S = calloc(1, sizeof(*S));
	struct ns_err err = {0};
	if (!S || proto_seeds_build(S, &err) < 0) {
		print_error("proto_seeds_build: %s\n", err.msg);
		if (S)
			proto_seeds_free(S);
		free(S);
		return -1;
	}
	*state = S;
	return 0;
}

static int teardown(void **state)
{
	proto_seeds_free(*state);
	free(*state);
	return 0;
}

static void test_every_seed_decodes(void **state)
{
	const struct proto_seeds *S = *state;
	unsigned stale = 0;
	assert_true(S->n >= PROTO_CASES);
	for (size_t i = 0; i < S->n; i++) {
		const struct proto_seed *s = &S->s[i];
		struct ns_err err;
		unsigned got = proto_case_run(s->b.p, s->b.len, &err);
		if ((got & s->expect) != s->expect) {
			print_error("seed %s (case %u, %zu bytes): %s refused: %s\n", s->name,
				    s->b.p[0] % PROTO_CASES, s->b.len,
				    s->expect & PROTO_CASE_BODY_OK ? "its body" : "its header",
				    s->expect & PROTO_CASE_BODY_OK ? err.msg : "-");
			stale++;
		}
	}
	assert_int_equal(stale, 0);
}

/* One seed at least for each decoder case, and one that is a valid frame header. */
static void test_every_case_has_a_seed(void **state)
{
	const struct proto_seeds *S = *state;
	unsigned header = 0, body[PROTO_CASES] = {0};
	for (size_t i = 0; i < S->n; i++) {
		const struct proto_seed *s = &S->s[i];
		assert_true(s->b.len >= 1);
		if (s->expect & PROTO_CASE_BODY_OK)
			body[s->b.p[0] % PROTO_CASES]++;
		if (s->expect & PROTO_CASE_HEADER_OK)
			header++;
		for (size_t j = 0; j < i; j++)
			if (!strcmp(S->s[j].name, s->name))
				fail_msg("two seeds named %s", s->name);
	}
	assert_true(header >= 1);
	for (unsigned c = 0; c < PROTO_CASES; c++)
		if (!body[c])
			fail_msg("no generated seed for case %u", c);
}

/* The seeds reach the fields added last: a delegated result's sched strings come back. */
static void test_delegated_seed_reaches_the_last_fields(void **state)
{
	const struct proto_seeds *S = *state;
	const struct proto_seed *s = NULL;
	for (size_t i = 0; i < S->n; i++)
		if (!strcmp(S->s[i].name, "delegate_latency"))
			s = &S->s[i];
	assert_non_null(s);
	struct probe_result res;
	struct proto_result_rd rd;
	struct ns_err err;
	memset(&res, 0, sizeof(res));
	proto_result_rd_init(&rd, &res);
	size_t h = (size_t)s->b.p[1] << 8 | s->b.p[2];
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_RESULT, s->b.p + 3, h, &err), 0);
	assert_int_equal(res.n_dirs, 2);
	assert_string_equal(res.dirs[0].limit.sender_sched, "realtime");
	assert_string_equal(res.dirs[1].limit.receiver_sched, "not_permitted");
	assert_string_equal(res.dirs[1].limit.cause, "pacer_late");
	probe_result_free(&res);
}

static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *p = malloc(PROTO_MAX_PAYLOAD + 2);
	*len = p ? fread(p, 1, PROTO_MAX_PAYLOAD + 2, f) : 0;
	fclose(f);
	return p;
}

/* The committed seeds: hand-made starts, malformed ones among them, go through every decoder
 * of their case without a crash (make asan-unit runs this under the sanitizers). */
static void test_committed_seeds_run(void **state)
{
	(void)state;
	DIR *d = opendir(COMMITTED_SEEDS);
	assert_non_null(d);
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		size_t len;
		snprintf(path, sizeof(path), "%s/%s", COMMITTED_SEEDS, e->d_name);
		uint8_t *p = slurp(path, &len);
		if (!p)
			fail_msg("cannot read %s", path);
		struct ns_err err;
		(void)proto_case_run(p, len, &err);
		free(p);
		n++;
	}
	closedir(d);
	assert_true(n >= PROTO_CASES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_seed_decodes),
		cmocka_unit_test(test_every_case_has_a_seed),
		cmocka_unit_test(test_delegated_seed_reaches_the_last_fields),
		cmocka_unit_test(test_committed_seeds_run),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
