/* clockbound: the reason a request/response test gives round trips only names the client's
 * unsynchronised clock, or its error bound against the round trip, or else the agent's missing
 * bound; adjtimex is read without changing anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "runner/host/clockbound.h"

static void reasons(void **state)
{
	(void)state;
	char b[256];
	struct clock_bound c = {.synced = false, .maxerror_us = 16e6};
	clock_round_trip_why(&c, 15, b, sizeof(b));
	assert_non_null(strstr(b, "not synchronised"));
	c = (struct clock_bound){.synced = true, .maxerror_us = 500};
	clock_round_trip_why(&c, 100, b, sizeof(b));
	assert_non_null(strstr(b, "more than half the round trip"));
	c.maxerror_us = 10;
	clock_round_trip_why(&c, 100, b, sizeof(b));
	assert_non_null(strstr(b, "agent does not report"));
	assert_int_equal(strncmp(b, "round trips only: ", 18), 0);
}

static void reads_the_kernel(void **state)
{
	(void)state;
	struct clock_bound c;
	struct ns_err err = {0};
	assert_int_equal(clock_bound_read(&c, &err), 0);
	assert_true(c.maxerror_us >= 0 && c.esterror_us >= 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reasons),
		cmocka_unit_test(reads_the_kernel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
