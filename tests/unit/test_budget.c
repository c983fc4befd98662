/* budget: the shared token bucket of an agent's --max-rate (runner/engine/budget.h). Time is
 * passed in, so every bound here is exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>

#include "runner/engine/budget.h"

#define RATE 10000000ull             /* 10 Mbit/s: 1.25 bytes a microsecond */
#define MS 1000000ull

static void starts_with_one_small_burst(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	/* 10 ms of 10 Mbit/s is 12,500 bytes: a 128 KiB write gets that, in whole 1448s */
	uint64_t g = budget_take(&b, 0, 131072, 1448);
	assert_int_equal(g, 12500 / 1448 * 1448);
	assert_true(budget_held(&b) == 1);
	/* what is left is less than a step: nothing, and the wait says when */
	assert_int_equal(budget_take(&b, 0, 1448, 1448), 0);
	uint64_t w = budget_wait_ns(&b, 0, 1448);
	assert_true(w > 0 && w <= 1448 * 8 * 1000000000ull / RATE + 1);
	assert_int_equal(budget_take(&b, w, 1448, 1448), 1448);
	budget_destroy(&b);
}

/* However a greedy sender draws (big and small writes, refunds, a long idle time that
 * does not bank credit), no window moves more than rate x time + the burst. */
static void no_window_exceeds_rate_times_time(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	uint64_t total = 0, now = 0, from = 0;
	for (int i = 0; i < 20000; i++) {
		now += (i % 7) * 50000ull;                  /* 0..300 us between tries */
		if (i == 10000)
			from = now += 5000 * MS;            /* 5 s idle: at most a burst banked */
		uint64_t want = (i % 3) ? 65536 : 1448;
		uint64_t g = budget_take(&b, now, want, i % 3 == 1 ? 1460 : want);
		if (g && i % 5 == 0) {                      /* a partial send gives some back */
			budget_refund(&b, g / 2);
			g -= g / 2;
		}
		total += g;
		if (i == 9999) {
			assert_true(total <= RATE / 8 * now / 1000000000ull + 12500 + 65536);
			assert_true(total >= RATE / 8 * now / 1000000000ull / 2);
			total = 0;
		}
	}
	/* the window after the idle time: its start banked one burst, not 5 s of rate */
	assert_true(total <= RATE / 8 * (now - from) / 1000000000ull + 12500 + 65536);
	assert_true(total >= RATE / 8 * (now - from) / 1000000000ull / 2);
	budget_destroy(&b);
}

/* A datagram larger than the burst still goes, one at a time, at the rate. */
static void a_step_larger_than_the_burst_accrues(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, RATE, 0, &err), 0);
	assert_int_equal(budget_take(&b, 0, 60000, 60000), 0);
	uint64_t t = 60000ull * 8 * 1000000000ull / RATE; /* 48 ms */
	assert_int_equal(budget_take(&b, t, 120000, 60000), 60000);
	/* a long idle time banks one step, not two */
	assert_int_equal(budget_take(&b, t + 1000 * MS, 120000, 60000), 60000);
	budget_destroy(&b);
}

static void a_rate_of_zero_is_refused(void **state)
{
	(void)state;
	struct budget b;
	struct ns_err err = {0};
	assert_int_equal(budget_init(&b, 0, 0, &err), -1);
	assert_int_equal(err.code, NS_E_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(starts_with_one_small_burst),
		cmocka_unit_test(no_window_exceeds_rate_times_time),
		cmocka_unit_test(a_step_larger_than_the_burst_accrues),
		cmocka_unit_test(a_rate_of_zero_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
