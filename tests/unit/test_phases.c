/* phases_detect on synthetic rate series: a step down with its knee inside an interval, no
 * step, one slow interval (in the middle and at the end), noise, a slow start. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "lib/phases.h"

#define N 40

static double rate[N], t0[N], t1[N];

/* 0.5 s intervals */
static void times(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		t0[i] = i * 0.5;
		t1[i] = (i + 1) * 0.5;
	}
}

/* A repeatable noise in [-1, 1]. */
static double noise(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return ((*seed >> 8) & 0xffff) / 32767.5 - 1.0;
}

static bool near(double got, double want, double rel)
{
	return fabs(got - want) <= rel * fabs(want);
}

/* 150 Mbit/s until 7.2 s, then 38 Mbit/s, as tbf with a 100 MB bucket gave; 2 % noise. */
static void step_is_found_with_its_knee(void **state)
{
	(void)state;
	uint32_t seed = 1;
	times(N);
	for (uint32_t i = 0; i < N; i++) {
		double a = t0[i], b = t1[i], knee = 7.2;
		double hi = a < knee ? (b < knee ? b : knee) - a : 0;
		rate[i] = (150e6 * hi + 38e6 * (0.5 - hi)) / 0.5 * (1 + 0.02 * noise(&seed));
	}
	struct phases p;
	assert_true(phases_detect(rate, t0, t1, N, &p));
	assert_true(near(p.burst_bps, 150e6, 0.03));
	assert_true(near(p.sustained_bps, 38e6, 0.03));
	assert_true(fabs(p.burst_s - 7.2) < 0.1);
	assert_int_equal(p.knee, 14);
}

static void flat_series_has_no_step(void **state)
{
	(void)state;
	times(N);
	for (uint32_t i = 0; i < N; i++)
		rate[i] = 940e6;
	struct phases p;
	assert_false(phases_detect(rate, t0, t1, N, &p));
	assert_false(p.found);
	assert_true(p.burst_bps == 0 && p.sustained_bps == 0 && p.burst_s == 0);
}

/* One interval at a fifth of the rate is a dip, wherever it is. */
static void single_dip_is_not_a_step(void **state)
{
	(void)state;
	times(N);
	struct phases p;
	for (uint32_t at = 0; at < N; at++) {
		for (uint32_t i = 0; i < N; i++)
			rate[i] = i == at ? 200e6 : 1e9;
		if (phases_detect(rate, t0, t1, N, &p))
			fail_msg("a dip at interval %u taken for a step", at);
	}
	/* two slow intervals near the end are not a sustained phase either */
	for (uint32_t i = 0; i < N; i++)
		rate[i] = i == N - 3 || i == N - 1 ? 200e6 : 1e9;
	assert_false(phases_detect(rate, t0, t1, N, &p));
}

/* +-25 % noise around one level: no step, for any of many seeds. */
static void noise_is_not_a_step(void **state)
{
	(void)state;
	times(N);
	struct phases p;
	for (uint32_t s = 1; s <= 200; s++) {
		uint32_t seed = s;
		for (uint32_t i = 0; i < N; i++)
			rate[i] = 500e6 * (1 + 0.25 * noise(&seed));
		if (phases_detect(rate, t0, t1, N, &p))
			fail_msg("noise (seed %u) taken for a step at %u", s, p.knee);
	}
}

/* A step up (TCP's slow start on a long path) is not shaping. */
static void step_up_is_not_a_step_down(void **state)
{
	(void)state;
	times(N);
	for (uint32_t i = 0; i < N; i++)
		rate[i] = i < 5 ? 100e6 : 900e6;
	struct phases p;
	assert_false(phases_detect(rate, t0, t1, N, &p));
}

/* Too short a series, a NaN, and a step too small to tell from TCP's own swings. */
static void what_cannot_be_judged(void **state)
{
	(void)state;
	times(N);
	struct phases p;
	for (uint32_t i = 0; i < N; i++)
		rate[i] = i < 20 ? 100e6 : 30e6;
	assert_true(phases_detect(rate, t0, t1, N, &p));
	assert_false(phases_detect(rate, t0, t1, 5, &p));
	assert_false(phases_detect(NULL, t0, t1, N, &p));
	rate[3] = NAN;
	assert_false(phases_detect(rate, t0, t1, N, &p));
	for (uint32_t i = 0; i < N; i++)
		rate[i] = i < 20 ? 100e6 : 85e6;
	assert_false(phases_detect(rate, t0, t1, N, &p));
	/* the step right before the last PHASES_MIN_AFTER intervals is still found */
	for (uint32_t i = 0; i < N; i++)
		rate[i] = i < N - PHASES_MIN_AFTER ? 100e6 : 30e6;
	assert_true(phases_detect(rate, t0, t1, N, &p));
	assert_int_equal(p.knee, N - PHASES_MIN_AFTER);
	assert_true(near(p.burst_s, (N - PHASES_MIN_AFTER) * 0.5, 1e-9));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(step_is_found_with_its_knee),
		cmocka_unit_test(flat_series_has_no_step),
		cmocka_unit_test(single_dip_is_not_a_step),
		cmocka_unit_test(noise_is_not_a_step),
		cmocka_unit_test(step_up_is_not_a_step_down),
		cmocka_unit_test(what_cannot_be_judged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
