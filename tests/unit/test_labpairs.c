/* labpairs: run --lab FILE points a matrix's pairs at a lab — by pair name first, else by
 * instance type — clears their client and driver check, keeps each lab pair's emulation JSON,
 * takes the key its agent was started with (psk_file), and refuses what it cannot use (no lab
 * pair for a pair, not JSON, no agent, a key file that does not load); --provision
 * lab turns every pair's hooks into data/provision/lab.sh's and drops the run's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/proto/auth.h"
#include "runner/pairs/labpairs.h"

static const char mx[] =
	"<matrix name=\"t\">\n"
	"  <setup>launch-everything</setup>\n"
	"  <pairs>\n"
	"    <pair name=\"a\" instance-type=\"m4.large\" agent=\"192.0.2.1:5301\" client=\"192.0.2.9:5301\"\n"
	"          expected-driver=\"ixgbevf\"/>\n"
	"    <pair name=\"b\" instance-type=\"m4.xlarge\" agent=\"192.0.2.2:5301\"/>\n"
	"  </pairs>\n"
	"</matrix>\n";

static char path[64];

static void write_lab(const char *json)
{
	snprintf(path, sizeof(path), "/tmp/ns-test-labpairs-%d.json", (int)getpid());
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);
}

static void load(struct matrix *m)
{
	struct ns_err err = {0};
	assert_int_equal(matrix_load_mem(m, "t.xml", mx, strlen(mx), &err), 0);
}

static void by_name_then_type(void **state)
{
	(void)state;
	/* "a" by its name; "b" by its type (the lab names its pair after the type) */
	write_lab("{\"lab\": {}, \"pairs\": ["
		  "{\"pair\": \"m4.xlarge\", \"instance_type\": \"m4.xlarge\", \"agent\": \"198.18.2.2:5301\","
		  " \"emulation\": {\"scale\": 0.5}},"
		  "{\"pair\": \"a\", \"instance_type\": \"x\", \"agent\": \"198.18.1.2:5301\","
		  " \"emulation\": {\"scale\": 1}}]}");
	struct matrix m;
	struct ns_err err = {0};
	char **em = NULL;
	load(&m);
	assert_int_equal(labpairs_apply(&m, path, &em, &err), 0);
	assert_string_equal(m.pairs[0].agent_host, "198.18.1.2");
	assert_int_equal(m.pairs[0].agent_port, 5301);
	assert_string_equal(m.pairs[0].client, "");
	assert_string_equal(m.pairs[0].client_host, "");
	assert_string_equal(m.pairs[0].expected_driver, "");
	assert_string_equal(m.pairs[1].agent_host, "198.18.2.2");
	assert_string_equal(em[0], "{\"scale\":1}");
	assert_string_equal(em[1], "{\"scale\":0.5}");
	labpairs_free(em, m.n_pairs);
	matrix_free(&m);
	unlink(path);
}

static void one_hook_object(void **state)
{
	(void)state;
	write_lab("{\"pair\": \"a\", \"agent\": \"198.18.7.2:5301\", \"emulation\": {\"scale\": 1}}");
	struct matrix m;
	struct ns_err err = {0};
	char **em = NULL;
	load(&m);
	/* the hook's one pair serves "a"; "b" has none */
	assert_int_equal(labpairs_apply(&m, path, &em, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "no lab pair for pair b"));
	assert_null(em);
	matrix_free(&m);
	unlink(path);
}

static void refused(void **state)
{
	(void)state;
	const char *bad[] = {
		"not json",
		"{\"pairs\": [{\"pair\": \"a\", \"emulation\": {}}, {\"pair\": \"b\", \"agent\": \"h:1\", \"emulation\": {}}]}",
		"{\"pairs\": [{\"pair\": \"a\", \"agent\": \"h:1\", \"emulation\": 3}, {\"pair\": \"b\", \"agent\": \"h:1\", \"emulation\": {}}]}",
		"{\"pairs\": [{\"pair\": \"a\", \"agent\": \"h\", \"emulation\": {}}, {\"pair\": \"b\", \"agent\": \"h:1\", \"emulation\": {}}]}",
		"{\"pairs\": [{\"pair\": \"a\", \"agent\": \"h:99999\", \"emulation\": {}}, {\"pair\": \"b\", \"agent\": \"h:1\", \"emulation\": {}}]}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_lab(bad[i]);
		struct matrix m;
		struct ns_err err = {0};
		char **em = NULL;
		load(&m);
		assert_int_equal(labpairs_apply(&m, path, &em, &err), -1);
		assert_int_equal(err.code, NS_E_INPUT);
		assert_null(em);
		matrix_free(&m);
	}
	struct matrix m;
	struct ns_err err = {0};
	char **em = NULL;
	load(&m);
	assert_int_equal(labpairs_apply(&m, "/nonexistent/lab.json", &em, &err), -1);
	matrix_free(&m);
	unlink(path);
}

static void lab_key(void **state)
{
	(void)state;
	char key[64], json[512];
	struct ns_err err = {0};
	snprintf(key, sizeof(key), "/tmp/ns-test-labpairs-%d.psk", (int)getpid());
	unlink(key);
	assert_int_equal(auth_key_create(key, &err), 0);
	/* "a" has the lab's key over the matrix's none; "b"'s lab pair names no key */
	snprintf(json, sizeof(json), "{\"pairs\": [{\"pair\": \"a\", \"agent\": \"198.18.1.2:5301\","
		 " \"psk_file\": \"%s\", \"emulation\": {}}, {\"pair\": \"b\", \"agent\": \"198.18.2.2:5301\","
		 " \"emulation\": {}}]}", key);
	write_lab(json);
	struct matrix m;
	char **em = NULL;
	load(&m);
	assert_int_equal(labpairs_apply(&m, path, &em, &err), 0);
	assert_string_equal(m.pairs[0].psk_file, key);
	assert_string_equal(m.pairs[1].psk_file, "");
	labpairs_free(em, m.n_pairs);
	matrix_free(&m);
	/* a key that does not load stops the run before it starts */
	unlink(key);
	write_lab(json);
	load(&m);
	assert_int_equal(labpairs_apply(&m, path, &em, &err), -1);
	assert_non_null(strstr(err.msg, "psk_file"));
	assert_null(em);
	matrix_free(&m);
	unlink(path);
}

static void provision_hooks(void **state)
{
	(void)state;
	struct matrix m;
	struct ns_err err = {0};
	load(&m);
	assert_int_equal(labpairs_hooks(&m, "/opt/it's data", &err), 1); /* the run's setup dropped */
	assert_string_equal(m.setup.command, "");
	for (size_t i = 0; i < m.n_pairs; i++) {
		/* the path single-quoted for /bin/sh, its own quote escaped */
		assert_string_equal(m.pairs[i].setup.command, "'/opt/it'\\''s data/provision/lab.sh' setup");
		assert_string_equal(m.pairs[i].teardown.command,
				    "'/opt/it'\\''s data/provision/lab.sh' teardown");
		assert_true(m.pairs[i].setup.timeout_s > 0 && m.pairs[i].setup.wait_s > 0);
		assert_string_equal(m.pairs[i].client, "");
	}
	matrix_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_name_then_type), cmocka_unit_test(one_hook_object),
		cmocka_unit_test(refused),           cmocka_unit_test(provision_hooks),
		cmocka_unit_test(lab_key),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
