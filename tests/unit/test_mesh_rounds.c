/* mesh_rounds (runner/mesh/mesh_rounds.c), with the <mesh> loader it reads
 * (runner/matrix/matrix_mesh.c): every ordered pair of n hosts, rounds of a round-robin
 * tournament (n - 1 for n even, n for n odd), no host twice in a round, both directions of a
 * host pair in one round; pairs="per-zone" one pair per ordered zone pair; errors name the
 * line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner/matrix/matrix.h"
#include "runner/mesh/mesh_rounds.h"

/* A matrix of one mesh of n hosts h0..h(n-1), zones z(i % zones), mode "all" or "per-zone". */
static int load(struct matrix *m, size_t n, size_t zones, const char *mode, struct ns_err *e)
{
	char xml[8192];
	int o = snprintf(xml, sizeof(xml), "<matrix name=\"t\"><pairs><mesh name=\"m\" pairs=\"%s\">\n",
			 mode);
	for (size_t i = 0; i < n; i++)
		o += snprintf(xml + o, sizeof(xml) - (size_t)o,
			      "<host name=\"h%zu\" agent=\"10.0.0.%zu:5301\" zone=\"z%zu\"/>\n", i,
			      i + 1, i % zones);
	snprintf(xml + o, sizeof(xml) - (size_t)o, "</mesh></pairs></matrix>\n");
	return matrix_load_mem(m, "t.xml", xml, strlen(xml), e);
}

/* Checks the tournament's rules; returns the number of rounds. */
static int check_rounds(const struct matrix *m)
{
	int round[1024];
	struct ns_err e;
	int n = mesh_rounds(m, round, &e);
	assert_true(n > 0);
	for (size_t i = 0; i < m->n_pairs; i++) {
		assert_true(round[i] >= 0 && round[i] < n);
		for (size_t j = 0; j < m->n_pairs; j++) {
			if (i == j)
				continue;
			const struct matrix_pair *a = &m->pairs[i], *b = &m->pairs[j];
			bool reverse = !strcmp(a->client_name, b->agent_name) &&
				       !strcmp(a->agent_name, b->client_name);
			if (reverse) /* both directions in one round */
				assert_int_equal(round[i], round[j]);
			else if (round[i] == round[j]) /* else no host in two of a round's pairs */
				assert_false(mesh_shares_host(a, b));
		}
	}
	for (int r = 0; r < n; r++) { /* no empty round */
		bool any = false;
		for (size_t i = 0; i < m->n_pairs; i++)
			any |= round[i] == r;
		assert_true(any);
	}
	return n;
}

static void four_hosts_three_rounds(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err e;
	assert_int_equal(load(&m, 4, 2, "all", &e), 0);
	assert_int_equal(m.n_pairs, 12);
	assert_string_equal(m.pairs[0].name, "h0--h1");
	assert_string_equal(m.pairs[0].client_zone, "z0");
	assert_string_equal(m.pairs[0].agent_zone, "z1");
	assert_int_equal(m.pairs[0].zone_rel, MX_ZONE_CROSS);
	assert_string_equal(m.pairs[0].client_host, "10.0.0.1");
	assert_string_equal(m.pairs[0].agent_host, "10.0.0.2");
	assert_int_equal(check_rounds(&m), 3);
	matrix_free(&m);
}

/* 4 hosts, 10 s a pair: 3 rounds of 2 host pairs of 20 s; --jobs 1 runs a round's two one
 * after the other (40 s), --jobs 2 or more side by side (20 s). */
static void estimate(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err e;
	int round[12];
	double per_pair[12];
	assert_int_equal(load(&m, 4, 2, "all", &e), 0);
	for (size_t i = 0; i < 12; i++)
		per_pair[i] = 10;
	int n = mesh_rounds(&m, round, &e);
	assert_true(fabs(mesh_estimate(&m, round, n, per_pair, 1) - 120) < 1e-9);
	assert_true(fabs(mesh_estimate(&m, round, n, per_pair, 2) - 60) < 1e-9);
	assert_true(fabs(mesh_estimate(&m, round, n, per_pair, 8) - 60) < 1e-9);
	matrix_free(&m);
}

/* A shuffled run orders the rounds by their first slots: round 1 first, then 2, then 0. */
static void reorder(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err e;
	int round[12], before[12];
	assert_int_equal(load(&m, 4, 2, "all", &e), 0);
	assert_int_equal(mesh_rounds(&m, round, &e), 3);
	memcpy(before, round, sizeof(round));
	size_t first[3] = {5, 1, 3};
	assert_int_equal(mesh_rounds_reorder(&m, round, 3, first), 0);
	for (size_t i = 0; i < 12; i++)
		assert_int_equal(round[i], before[i] == 1 ? 0 : before[i] == 2 ? 1 : 2);
	matrix_free(&m);
}

static void sizes(void **state)
{
	(void)state;
	for (size_t n = 2; n <= 9; n++) {
		struct matrix m;
		struct ns_err e;
		assert_int_equal(load(&m, n, 3, "all", &e), 0);
		assert_int_equal(m.n_pairs, n * (n - 1));
		assert_int_equal(check_rounds(&m), n % 2 ? (int)n : (int)n - 1);
		matrix_free(&m);
	}
}

static void per_zone(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err e;
	/* zones z0 {h0, h2, h4}, z1 {h1, h3}: h0->h1, h1->h0, h0->h2, h1->h3 */
	assert_int_equal(load(&m, 5, 2, "per-zone", &e), 0);
	assert_int_equal(m.n_pairs, 4);
	const char *want[] = {"h0--h1", "h0--h2", "h1--h0", "h1--h3"};
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(m.pairs[i].name, want[i]);
	check_rounds(&m);
	matrix_free(&m);
}

static void errors(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err e;
	const char *dup = "<matrix name=\"t\"><pairs><mesh name=\"m\">\n"
			  "<host name=\"a\" agent=\"10.0.0.1\"/>\n"
			  "<host name=\"a\" agent=\"10.0.0.2\"/>\n</mesh></pairs></matrix>";
	assert_int_equal(matrix_load_mem(&m, "d.xml", dup, strlen(dup), &e), -1);
	assert_non_null(strstr(e.msg, "d.xml:3: mesh host name"));
	const char *nozone = "<matrix name=\"t\"><pairs><mesh name=\"m\" pairs=\"per-zone\">\n"
			     "<host name=\"a\" agent=\"10.0.0.1\" zone=\"x\"/>\n"
			     "<host name=\"b\" agent=\"10.0.0.2\"/>\n</mesh></pairs></matrix>";
	assert_int_equal(matrix_load_mem(&m, "z.xml", nozone, strlen(nozone), &e), -1);
	assert_non_null(strstr(e.msg, "z.xml:3: mesh host zone"));
	const char *clash = "<matrix name=\"t\"><pairs><pair name=\"a--b\" agent=\"10.0.0.9\"/>\n"
			    "<mesh name=\"m\"><host name=\"a\" agent=\"10.0.0.1\"/>\n"
			    "<host name=\"b\" agent=\"10.0.0.2\"/>\n</mesh></pairs></matrix>";
	assert_int_equal(matrix_load_mem(&m, "c.xml", clash, strlen(clash), &e), -1);
	assert_non_null(strstr(e.msg, "'a--b' has the name of the pair on line 1"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(four_hosts_three_rounds),
		cmocka_unit_test(sizes),
		cmocka_unit_test(estimate),
		cmocka_unit_test(reorder),
		cmocka_unit_test(per_zone),
		cmocka_unit_test(errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
