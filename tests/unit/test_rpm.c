/* test_rpm: lib/rpm.c — the responsiveness test's saturation rule, trimmed means (of values and
 * of a histogram's counts) and RPM. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>

#include "lib/rpm.h"

static void saturation_needs_stable_moving_averages(void **state)
{
	(void)state;
	struct rpm_sat s;
	rpm_sat_init(&s);
	/* a flat goodput: RPM_MAD moving averages of RPM_MAD figures, 2 * MAD - 1 intervals */
	for (int i = 0; i < 2 * RPM_MAD - 2; i++)
		assert_false(rpm_sat_add(&s, 100e6));
	assert_true(rpm_sat_add(&s, 100e6));
	assert_true(rpm_sat_add(&s, 1e6)); /* stays saturated */
	assert_int_equal(s.n, 2 * RPM_MAD - 1);
	/* a goodput that keeps growing with each connection never saturates */
	rpm_sat_init(&s);
	for (int i = 1; i <= RPM_MNP; i++)
		assert_false(rpm_sat_add(&s, 100e6 * i));
	assert_int_equal(s.n, RPM_MNP);
	assert_false(rpm_sat_add(&s, 1)); /* no more than RPM_MNP figures */
	assert_int_equal(s.n, RPM_MNP);
	/* growth that levels off: saturated once the last MAD averages agree within 5 % */
	rpm_sat_init(&s);
	const double g[] = {10, 20, 40, 80, 100, 100, 100, 100, 100, 100};
	int at = -1;
	for (int i = 0; i < 10 && at < 0; i++)
		if (rpm_sat_add(&s, g[i] * 1e6))
			at = i;
	assert_true(at >= 2 * RPM_MAD - 2);
	assert_true(s.saturated);
}

static void trimmed_means(void **state)
{
	(void)state;
	/* 20 values: the slowest 5 % is one of them */
	double v[20];
	for (int i = 0; i < 20; i++)
		v[i] = 19 - i; /* unsorted, 0..19 */
	v[0] = 1000;   /* the outlier the trim drops */
	assert_true(rpm_trimmed_mean(v, 20, RPM_TRIM_PCT) == (0 + 18) * 19 / 2.0 / 19);
	double one = 7;
	assert_true(rpm_trimmed_mean(&one, 1, RPM_TRIM_PCT) == 7); /* at least one is kept */
	assert_true(rpm_trimmed_mean(NULL, 0, RPM_TRIM_PCT) == 0);
	/* the histogram's: 95 round trips of 10 ms and 5 of 1 s: the trim drops the 5 */
	struct lathist *h = malloc(sizeof(*h));
	assert_non_null(h);
	lathist_init(h);
	for (int i = 0; i < 95; i++)
		lathist_record(h, 10000000);
	for (int i = 0; i < 5; i++)
		lathist_record(h, 1000000000);
	double tm = rpm_hist_trimmed_mean_ns(h, RPM_TRIM_PCT);
	assert_true(tm > 10e6 * (1 - LATHIST_REL_ERROR) && tm < 10e6 * (1 + LATHIST_REL_ERROR));
	lathist_init(h);
	assert_true(rpm_hist_trimmed_mean_ns(h, RPM_TRIM_PCT) == 0);
	free(h);
}

static void rpm_is_round_trips_per_minute(void **state)
{
	(void)state;
	assert_true(rpm_of(0.1, 0.1) == 600);         /* 100 ms each: 600 a minute */
	assert_true(rpm_of(0.04, 0.08) == 1000);      /* the mean of the two kinds: 60 ms */
	assert_true(rpm_of(0.05, 0) == 1200);         /* one kind alone */
	assert_true(rpm_of(0, 0) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(saturation_needs_stable_moving_averages),
		cmocka_unit_test(trimmed_means),
		cmocka_unit_test(rpm_is_round_trips_per_minute),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
