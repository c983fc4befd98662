/* cli: an option's number read one way for every subcommand — the range's ends taken, the
 * rest refused with the option, the text and the range named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/cli.h"

static void numbers_in_range(void **state)
{
	(void)state;
	struct ns_err e = {0};
	double v = -1;
	assert_int_equal(cli_number("--gnuplot-timeout", "0.1", 0.1, 3600, &v, &e), 0);
	assert_true(v == 0.1);
	assert_int_equal(cli_number("--gnuplot-timeout", "3600", 0.1, 3600, &v, &e), 0);
	assert_true(v == 3600);
	assert_int_equal(cli_number("--alpha", "1e-3", 1e-9, 0.5, &v, &e), 0);
	assert_true(v == 1e-3);
}

static void numbers_refused(void **state)
{
	(void)state;
	static const char *bad[] = {"", "abc", "5s", "0.09", "3600.5", "nan", "-1", "1e999"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct ns_err e = {0};
		double v = 42;
		assert_int_equal(cli_number("--gnuplot-timeout", bad[i], 0.1, 3600, &v, &e), -1);
		assert_true(v == 42); /* untouched */
		assert_int_equal(e.code, NS_E_USAGE);
		char want[128];
		snprintf(want, sizeof(want), "--gnuplot-timeout %s: expected a number in [0.1, 3600]",
			 bad[i]);
		assert_string_equal(e.msg, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(numbers_in_range),
		cmocka_unit_test(numbers_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
