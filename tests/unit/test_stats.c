/* Statistics of the report: quantiles (R type 7), Student's t tail and Welch's t-test against
 * values computed independently (closed forms for df 1 and 2, a numerically integrated t
 * density for the others, and the worked example of Welch's test on Wikipedia). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "report/model/stats.h"

static void close_to(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.12g, want %.12g (tolerance %g)", got, want, tol);
}

static void test_median_odd_even(void **state)
{
	(void)state;
	double odd[] = {5, 1, 3};
	close_to(rp_median(odd, 3), 3, 0);
	double even[] = {4, 1, 3, 2};
	close_to(rp_median(even, 4), 2.5, 0);
	double one[] = {7};
	close_to(rp_median(one, 1), 7, 0);
	assert_true(isnan(rp_median(NULL, 0)));
}

static void test_quantiles_type7(void **state)
{
	(void)state;
	double v[] = {4, 2, 3, 1};
	close_to(rp_quantile(v, 4, 0.25), 1.75, 1e-12);
	close_to(rp_quantile(v, 4, 0.75), 3.25, 1e-12);
	close_to(rp_quantile(v, 4, 0), 1, 0);
	close_to(rp_quantile(v, 4, 1), 4, 0);
	double w[] = {10, 20, 30, 40, 50};
	close_to(rp_quantile(w, 5, 0.25), 20, 1e-12); /* numpy.percentile(w, 25) */
	close_to(rp_quantile(w, 5, 0.9), 46, 1e-12);
}

static void test_mean_variance(void **state)
{
	(void)state;
	double v[] = {2, 4, 4, 4, 5, 5, 7, 9};
	close_to(rp_mean(v, 8), 5, 1e-12);
	close_to(rp_variance(v, 8), 32.0 / 7.0, 1e-12);
	close_to(rp_variance(v, 1), 0, 0);
}

static void test_student_t_tail(void **state)
{
	(void)state;
	close_to(rp_student_t_sf(0, 7), 0.5, 1e-12);
	close_to(rp_student_t_sf(1, 1), 0.25, 1e-10);                 /* Cauchy */
	close_to(rp_student_t_sf(1, 2), 0.5 - 1 / (2 * sqrt(3)), 1e-10); /* closed form, df 2 */
	close_to(rp_student_t_sf(-1, 2), 0.5 + 1 / (2 * sqrt(3)), 1e-10);
	close_to(rp_student_t_sf(2.228138852, 10), 0.025, 1e-8);       /* t table, 97.5 % */
	close_to(rp_student_t_sf(40, 3), 1.7190340394546144e-05, 1e-12); /* closed form, df 3 */
	assert_true(rp_student_t_sf(1e6, 5) < 1e-20);
}

static void test_welch_wikipedia(void **state)
{
	(void)state;
	/* Welch's t-test, Wikipedia example 1 */
	double a[] = {27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0,
		      21.7, 21.4};
	double b[] = {27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9,
		      20.5, 24.4};
	struct rp_welch w;
	assert_int_equal(rp_welch_test(a, 15, b, 15, &w), 0);
	close_to(w.t, 2.45535639828601, 1e-9);
	close_to(w.df, 24.98852929023142, 1e-9);
	close_to(w.p, 0.021378001, 1e-6);
}

static void test_welch_edges(void **state)
{
	(void)state;
	double one[] = {1};
	double two[] = {1, 2};
	struct rp_welch w;
	assert_int_equal(rp_welch_test(one, 1, two, 2, &w), -1);
	double same[] = {5, 5, 5};
	assert_int_equal(rp_welch_test(same, 3, same, 3, &w), 0);
	close_to(w.p, 1, 0);
	double other[] = {4, 4, 4};
	assert_int_equal(rp_welch_test(same, 3, other, 3, &w), 0);
	close_to(w.p, 0, 0);
	assert_true(w.t < 0);
	/* Identical samples: t = 0, p = 1. */
	double x[] = {10, 11, 12, 13};
	assert_int_equal(rp_welch_test(x, 4, x, 4, &w), 0);
	close_to(w.t, 0, 1e-12);
	close_to(w.p, 1, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_odd_even),
		cmocka_unit_test(test_quantiles_type7),
		cmocka_unit_test(test_mean_variance),
		cmocka_unit_test(test_student_t_tail),
		cmocka_unit_test(test_welch_wikipedia),
		cmocka_unit_test(test_welch_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
