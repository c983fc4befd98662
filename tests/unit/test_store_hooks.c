/* store_hooks: a run's hook rows — the attempt counts up from 1 with each set of hooks a run
 * starts, a row is 'running' until the hook ends and then holds its status, exit code and
 * output, and what a killed attempt left (setups without a finished teardown, pairs before the
 * run's own) comes back for --resume. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/store/store_hooks.h"
#include "tests/lib/store_db.h"

static int setup(void **state)
{
	(void)state;
	store_db_fresh("test-store-hooks");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_db_remove();
	return 0;
}

static void hook(struct store *s, int64_t run, const char *pair, const char *kind, int attempt,
		 const char *status)
{
	struct ns_err err = {0};
	const struct store_hook_key k = {run, pair, kind, attempt};
	if (store_hook_started(s, &k, "true", &err) < 0)
		fail_msg("%s", err.msg);
	if (!status)
		return;
	const struct store_hook_end e = {status, 0, NULL, "{\"agent\":\"h\"}\n", "",
					 "{\"agent\":\"h\"}"};
	if (store_hook_finished(s, &k, &e, &err) < 0)
		fail_msg("%s", err.msg);
}

static void attempts_rows_and_leftovers(void **state)
{
	(void)state;
	struct store *s = store_db_open();
	struct ns_err err = {0};
	int64_t run, case_id;
	store_db_one_case(s, &run, &case_id);
	int attempt = 0;
	char uuid[64] = "x";
	assert_int_equal(store_hook_attempt(s, run, &attempt, uuid, sizeof(uuid), &err), 0);
	assert_int_equal(attempt, 1);
	assert_true(strlen(uuid) >= 32); /* the run's uuid, which every hook sees */

	/* attempt 1: the run's setup and pair a's and b's; a torn down, b's teardown killed */
	hook(s, run, "", "setup", 1, "ok");
	hook(s, run, "a", "setup", 1, "ok");
	hook(s, run, "b", "setup", 1, "ok");
	hook(s, run, "a", "teardown", 1, "ok");
	hook(s, run, "b", "teardown", 1, NULL); /* still running when the runner died */
	assert_int_equal(store_db_int("SELECT count(*) FROM hooks WHERE status = 'running'"), 1);
	assert_int_equal(store_db_int("SELECT exit_code FROM hooks WHERE pair = 'a'"
				      " AND kind = 'setup'"), 0);
	assert_int_equal(store_db_int("SELECT count(*) FROM hooks WHERE exit_code IS NULL"), 1);

	assert_int_equal(store_hook_attempt(s, run, &attempt, uuid, sizeof(uuid), &err), 0);
	assert_int_equal(attempt, 2);
	struct store_hook_left *v;
	size_t n;
	assert_int_equal(store_hook_leftovers(s, run, attempt, &v, &n, &err), 0);
	assert_int_equal(n, 2); /* b's setup, then the run's own; a's teardown finished */
	assert_string_equal(v[0].pair, "b");
	assert_int_equal(v[0].attempt, 1);
	assert_string_equal(v[0].output, "{\"agent\":\"h\"}");
	assert_string_equal(v[1].pair, "");
	store_hook_left_free(v, n);

	/* the current attempt's own setups are not leftovers */
	hook(s, run, "c", "setup", 2, "ok");
	assert_int_equal(store_hook_leftovers(s, run, 2, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	store_hook_left_free(v, n);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(attempts_rows_and_leftovers, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
