/* proc_run: exit status, captured output, environment, the time limit, and a command that
 * leaves a background process holding its output open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <time.h>

#include "lib/sys/proc.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *const env[] = {"GREETING=hello", "PATH=/usr/bin:/bin", NULL};

static void exit_status_and_output(void **state)
{
	(void)state;
	struct proc_exec x;
	proc_run("echo \"$GREETING\"; echo oops >&2; exit 3", env, 10, &x);
	assert_int_equal(x.status, PROC_FAILED);
	assert_int_equal(x.exit_code, 3);
	assert_string_equal(x.out, "hello\n");
	assert_string_equal(x.errout, "oops\n");
	assert_string_equal(x.error, "exit status 3");
	proc_exec_free(&x);
	proc_run("printf '{\"agent\": \"h:1\"}'", env, 10, &x);
	assert_int_equal(x.status, PROC_OK);
	assert_int_equal(x.exit_code, 0);
	assert_string_equal(x.out, "{\"agent\": \"h:1\"}");
	assert_string_equal(x.error, "");
	proc_exec_free(&x);
}

static void time_limit(void **state)
{
	(void)state;
	struct proc_exec x;
	double t0 = now_s();
	proc_run("echo started; sleep 30", env, 0.3, &x);
	double took = now_s() - t0;
	assert_int_equal(x.status, PROC_TIMEOUT);
	assert_int_equal(x.exit_code, -1);
	assert_string_equal(x.out, "started\n");
	assert_true(took < 10); /* SIGTERM to the group ends the sleep long before its 30 s */
	proc_exec_free(&x);
}

/* An agent started in the background keeps the pipe open: the hook is over when the
 * command itself exits. */
static void background_child(void **state)
{
	(void)state;
	struct proc_exec x;
	double t0 = now_s();
	proc_run("sleep 4 & echo done", env, 20, &x);
	assert_int_equal(x.status, PROC_OK);
	assert_string_equal(x.out, "done\n");
	assert_true(now_s() - t0 < 3.5);
	proc_exec_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(exit_status_and_output),
		cmocka_unit_test(time_limit),
		cmocka_unit_test(background_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
