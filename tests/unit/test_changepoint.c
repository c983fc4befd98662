/* Change points on run series: a drop at run 6 of 10 is found there and only there; ±1 %
 * noise finds nothing; two steps are both found, in order; gaps (NAN) are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <cmocka.h>

#include "report/analyze/changepoint.h"

static const double noise[10] = {1.000, 1.005, 0.995, 1.010, 0.990, 1.003, 0.997, 1.008, 0.992, 1.001};

static void drop_at_run_6(void **state)
{
	(void)state;
	double v[10];
	for (int i = 0; i < 10; i++)
		v[i] = 730e6 * noise[i] * (i >= 5 ? 0.6 : 1);
	struct rp_step s[4];
	assert_int_equal(rp_changepoints(v, 10, 0.05, 5, s, 4), 1);
	assert_int_equal(s[0].at, 5);
	assert_true(fabs(s[0].change_pct + 40) < 1);
	assert_true(s[0].p < 1e-6);
}

static void noise_alone_is_no_step(void **state)
{
	(void)state;
	double v[10];
	for (int i = 0; i < 10; i++)
		v[i] = 436e6 * noise[i];
	struct rp_step s[4];
	assert_int_equal(rp_changepoints(v, 10, 0.05, 5, s, 4), 0);
	/* A slow drift under the threshold is not a step either. */
	for (int i = 0; i < 10; i++)
		v[i] = 436e6 * (1 - 0.004 * i) * noise[i];
	assert_int_equal(rp_changepoints(v, 10, 0.05, 5, s, 4), 0);
}

static void two_steps_in_order(void **state)
{
	(void)state;
	double v[12];
	for (int i = 0; i < 12; i++)
		v[i] = 1e9 * noise[i % 10] * (i >= 8 ? 1.5 : i >= 4 ? 0.5 : 1);
	struct rp_step s[4];
	assert_int_equal(rp_changepoints(v, 12, 0.05, 5, s, 4), 2);
	assert_int_equal(s[0].at, 4);
	assert_int_equal(s[1].at, 8);
	assert_true(s[0].change_pct < 0 && s[1].change_pct > 0);
}

static void gaps_are_skipped(void **state)
{
	(void)state;
	double v[10];
	for (int i = 0; i < 10; i++)
		v[i] = 730e6 * noise[i] * (i >= 5 ? 0.6 : 1);
	v[2] = NAN;
	v[7] = NAN;
	struct rp_step s[4];
	assert_int_equal(rp_changepoints(v, 10, 0.05, 5, s, 4), 1);
	assert_int_equal(s[0].at, 5);
	/* Too few runs on a side: nothing can be said. */
	assert_int_equal(rp_changepoints(v, 3, 0.05, 5, s, 4), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drop_at_run_6),
		cmocka_unit_test(noise_alone_is_no_step),
		cmocka_unit_test(two_steps_in_order),
		cmocka_unit_test(gaps_are_skipped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
