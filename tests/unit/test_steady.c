/* steady_reached (long-run mode's stop rule) fed synthetic series one interval at a time, as
 * the client gets them: it must stop steady_s after a step down, not before, not on a flat
 * series, not while the rate after the step still falls, and not on one slow interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "lib/steady.h"

#define IVL 0.25

/* A repeatable noise in [-1, 1]. */
static double noise(uint32_t *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return ((*seed >> 8) & 0xffff) / 32767.5 - 1.0;
}

typedef double (*rate_fn)(double t);

/* Feeds rate(t) with 3 % noise until steady_reached or t_max; returns the series time it
 * stopped at (t_max + IVL when it never did). */
static double run(rate_fn rate, double steady_s, double t_max, struct steady *s)
{
	uint32_t seed = 7;
	steady_init(s, steady_s);
	for (double t = 0; t < t_max; t += IVL) {
		assert_int_equal(steady_add(s, t, t + IVL, rate(t) * (1 + 0.03 * noise(&seed))), 0);
		if (steady_reached(s))
			return t + IVL;
	}
	return t_max + IVL;
}

static double burst_then_base(double t) { return t < 2.0 ? 190e6 : 38e6; }
static double flat(double t) { (void)t; return 100e6; }
static double still_falling(double t) { return t < 2.0 ? 190e6 : 60e6 - 5e6 * (t - 2.0); }
static double one_dip(double t) { return t >= 5.0 && t < 5.25 ? 10e6 : 100e6; }

static void stops_steady_s_after_the_step(void **state)
{
	(void)state;
	struct steady s;
	double at = run(burst_then_base, 3.0, 60.0, &s);
	/* the knee at 2 s, then 3 s of level: decided within a few intervals of 5 s */
	assert_true(at >= 5.0 && at <= 5.0 + 4 * IVL);
	assert_true(fabs(s.knee_s - 2.0) <= IVL);
	assert_true(steady_reached(&s)); /* sticky */
	steady_free(&s);
}

static void runs_to_the_bound_without_a_step(void **state)
{
	(void)state;
	struct steady s;
	assert_true(run(flat, 3.0, 30.0, &s) > 30.0);
	steady_free(&s);
	assert_true(run(one_dip, 3.0, 30.0, &s) > 30.0);
	steady_free(&s);
}

static void a_falling_rate_is_not_steady(void **state)
{
	(void)state;
	struct steady s;
	/* 5 Mbit/s less every second after the step: the halves of any 3 s differ by 7.5 Mbit/s,
	 * over 10 % of any mean it passes (60 down to 10 Mbit/s) */
	assert_true(run(still_falling, 3.0, 12.0, &s) > 12.0);
	steady_free(&s);
}

static void bounded_and_refuses_nonsense(void **state)
{
	(void)state;
	struct steady s;
	steady_init(&s, 1.0);
	assert_int_equal(steady_add(&s, 1.0, 0.5, 1e6), -1);
	assert_int_equal(steady_add(&s, 0, 1, NAN), -1);
	for (uint32_t i = 0; i < STEADY_MAX_INTERVALS; i++)
		assert_int_equal(steady_add(&s, i, i + 1, 1e6), 0);
	assert_int_equal(steady_add(&s, 1e6, 1e6 + 1, 1e6), -1);
	assert_int_equal(s.n, STEADY_MAX_INTERVALS);
	steady_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stops_steady_s_after_the_step),
		cmocka_unit_test(runs_to_the_bound_without_a_step),
		cmocka_unit_test(a_falling_rate_is_not_steady),
		cmocka_unit_test(bounded_and_refuses_nonsense),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
