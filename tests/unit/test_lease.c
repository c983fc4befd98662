/* lease: a runner's claim on a (case, repeat) — refused to another live runner, free at once
 * when its holder on this host is gone, given back when the result is stored, never taken
 * on a stored case (unless failed, with --retry-failed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runner/store/lease.h"
#include "tests/lib/store_db.h"

static int setup(void **state)
{
	(void)state;
	store_db_fresh("test-lease");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_db_remove();
	return 0;
}

/* Leases: a case claimed by one runner is refused to another live one, given back when its
 * result is stored, and a stored case is never claimed again (unless failed, on request). */
static void leases_keep_two_runners_apart(void **state)
{
	(void)state;
	struct store *s = store_db_open();
	struct ns_err err = {0};
	int64_t run, case_id;
	store_db_one_case(s, &run, &case_id);

	char me[LEASE_HOLDER_MAX], other[LEASE_HOLDER_MAX] = "";
	lease_holder(me);
	/* pid 1 of this host: alive, and not us */
	char host[256] = "";
	gethostname(host, sizeof(host) - 1);
	char init[LEASE_HOLDER_MAX];
	snprintf(init, sizeof(init), "%s 1", host);
	assert_int_equal(lease_claim(s, case_id, 0, init, 60, false, other, sizeof(other), &err),
			 LEASE_TAKEN);
	assert_int_equal(lease_claim(s, case_id, 0, me, 60, false, other, sizeof(other), &err),
			 LEASE_HELD);
	assert_string_equal(other, init);
	/* a holder of this host that no longer runs holds nothing */
	char gone[LEASE_HOLDER_MAX];
	snprintf(gone, sizeof(gone), "%s 2147483646", host);
	assert_int_equal(lease_release(s, case_id, 0, init, &err), 0);
	assert_int_equal(lease_claim(s, case_id, 0, gone, 60, false, other, sizeof(other), &err),
			 LEASE_TAKEN);
	assert_int_equal(lease_claim(s, case_id, 0, me, 60, false, other, sizeof(other), &err),
			 LEASE_TAKEN);
	assert_int_equal(store_db_int("SELECT count(*) FROM case_leases"), 1);

	struct store_result fail = {.case_id = case_id, .repeat = 0, .started_at = "a",
				    .finished_at = "b", .ok = false, .error = "agent down"};
	assert_int_equal(store_put_result(s, &fail, NULL, &err), 0);
	assert_int_equal(lease_release(s, case_id, 0, me, &err), 0);
	assert_int_equal(store_db_int("SELECT count(*) FROM case_leases"), 0);
	assert_int_equal(lease_claim(s, case_id, 0, me, 60, false, other, sizeof(other), &err),
			 LEASE_STORED);
	/* --retry-failed: the failed result is claimed again and replaced */
	assert_int_equal(lease_claim(s, case_id, 0, me, 60, true, other, sizeof(other), &err),
			 LEASE_TAKEN);
	struct store_result ok = {.case_id = case_id, .repeat = 0, .started_at = "c",
				  .finished_at = "d", .ok = true, .replace_failed = true};
	assert_int_equal(store_put_result(s, &ok, NULL, &err), 0);
	assert_int_equal(store_db_int("SELECT count(*) FROM results WHERE status = 'ok'"), 1);
	assert_int_equal(store_db_int("SELECT count(*) FROM results"), 1);
	assert_int_equal(lease_claim(s, case_id, 0, me, 60, true, other, sizeof(other), &err),
			 LEASE_STORED);
	assert_int_equal(lease_release_all(s, me, &err), 0);
	assert_int_equal(store_db_int("SELECT count(*) FROM case_leases"), 0);
	/* --retry-failed resumes the newest run even when it is done */
	assert_int_equal(store_run_set_status(s, run, "done", NULL, &err), 0);
	int64_t found = 0;
	assert_int_equal(store_run_find_unfinished(s, "h", &found, NULL, &err), 0);
	assert_int_equal(store_run_find_latest(s, "h", &found, NULL, &err), 1);
	assert_int_equal(found, run);
	store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(leases_keep_two_runners_apart, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
