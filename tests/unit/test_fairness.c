/* runner/group/fairness against figures worked by hand: Jain's index of equal, one-takes-all
 * and mixed rates, the slowest client's share, and when a series of shares converged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "runner/group/fairness.h"

static void jain_by_hand(void **state)
{
	(void)state;
	double eq[4] = {250, 250, 250, 250};
	assert_float_equal(fair_jain(eq, 4), 1.0, 1e-12);
	double one[4] = {1000, 0, 0, 0}; /* 1000^2 / (4 x 1000^2) */
	assert_float_equal(fair_jain(one, 4), 0.25, 1e-12);
	/* 1, 2, 3, 4: 10^2 / (4 x 30) = 100 / 120 */
	double ramp[4] = {1, 2, 3, 4};
	assert_float_equal(fair_jain(ramp, 4), 100.0 / 120.0, 1e-12);
	/* 300, 100: 400^2 / (2 x 100000) = 0.8 */
	double two[2] = {300e6, 100e6};
	assert_float_equal(fair_jain(two, 2), 0.8, 1e-12);
	double zero[3] = {0, 0, 0};
	assert_true(isnan(fair_jain(zero, 3)));
	assert_true(isnan(fair_jain(NULL, 0)));
	double single[1] = {5};
	assert_float_equal(fair_jain(single, 1), 1.0, 1e-12);
}

static void shares_by_hand(void **state)
{
	(void)state;
	double ramp[4] = {1, 2, 3, 4}; /* slowest 1 of 10; fair share 2.5 */
	assert_float_equal(fair_min_share(ramp, 4), 0.1, 1e-12);
	assert_float_equal(fair_min_of_fair(ramp, 4), 0.4, 1e-12);
	double eq[3] = {7, 7, 7};
	assert_float_equal(fair_min_share(eq, 3), 1.0 / 3, 1e-12);
	assert_float_equal(fair_min_of_fair(eq, 3), 1.0, 1e-12);
	double zero[2] = {0, 0};
	assert_true(isnan(fair_min_share(zero, 2)));
	assert_true(isnan(fair_min_of_fair(zero, 2)));
}

static void converge_by_hand(void **state)
{
	(void)state;
	/* two clients, five intervals: the first two unequal (Jain 0.8 and 0.692, below 0.9),
	 * equal or nearly from the third on: converged at its start, 2 s */
	double t[5] = {0, 1, 2, 3, 4};
	double r[2 * 5] = {300, 250, 200, 200, 210, /* client 0 */
			   100, 50, 200, 200, 190}; /* client 1 */
	/* interval 0: 400^2 / (2 x 100000) = 0.8; 1: 300^2 / (2 x 65000) = 0.692;
	 * 4: 400^2 / (2 x 80200) = 0.9975 */
	assert_float_equal(fair_converge_s(r, 2, 5, t), 2.0, 1e-12);
	/* the last interval unequal: not converged */
	double r2[2 * 3] = {100, 100, 100, 100, 100, 0};
	assert_true(isnan(fair_converge_s(r2, 2, 3, t)));
	/* equal throughout: from the start */
	double r3[2 * 2] = {5, 5, 5, 5};
	assert_float_equal(fair_converge_s(r3, 2, 2, t), 0.0, 1e-12);
	/* a dip below 0.9 in the middle resets the tail */
	double r4[2 * 4] = {100, 100, 100, 100, 100, 10, 100, 100};
	assert_float_equal(fair_converge_s(r4, 2, 4, t), 2.0, 1e-12);
	assert_true(isnan(fair_converge_s(r4, 2, 0, t)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(jain_by_hand),
		cmocka_unit_test(shares_by_hand),
		cmocka_unit_test(converge_by_hand),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
