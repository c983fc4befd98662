#include "steady.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phases.h"

/* A new decision after this share of steady_s of new series: each is O(series). */
#define STEADY_RECHECK_SHARE 0.05

void steady_init(struct steady *s, double steady_s)
{
	memset(s, 0, sizeof(*s));
	s->steady_s = steady_s;
}

void steady_free(struct steady *s)
{
	free(s->rate);
	free(s->t0);
	free(s->t1);
	memset(s, 0, sizeof(*s));
}

static bool grow(double **v, uint32_t cap)
{
	double *n = realloc(*v, cap * sizeof(**v));
	if (!n)
		return false;
	*v = n;
	return true;
}

int steady_add(struct steady *s, double start_s, double end_s, double bps)
{
	if (!isfinite(start_s) || !isfinite(end_s) || !isfinite(bps) || end_s < start_s)
		return -1;
	if (s->n == s->cap) {
		if (s->cap >= STEADY_MAX_INTERVALS)
			return -1;
		uint32_t cap = s->cap ? s->cap * 2 : 256;
		if (cap > STEADY_MAX_INTERVALS)
			cap = STEADY_MAX_INTERVALS;
		if (!grow(&s->rate, cap) || !grow(&s->t0, cap) || !grow(&s->t1, cap))
			return -1;
		s->cap = cap;
	}
	s->rate[s->n] = bps;
	s->t0[s->n] = start_s;
	s->t1[s->n] = end_s;
	s->n++;
	return 0;
}

/* Duration-weighted mean of rate[a..b). */
static double mean(const struct steady *s, uint32_t a, uint32_t b)
{
	double sum = 0, dt = 0;
	for (uint32_t i = a; i < b; i++) {
		sum += s->rate[i] * (s->t1[i] - s->t0[i]);
		dt += s->t1[i] - s->t0[i];
	}
	return dt > 0 ? sum / dt : 0;
}

bool steady_reached(struct steady *s)
{
	if (s->reached || s->n == 0 || !(s->steady_s > 0))
		return s->reached;
	double end = s->t1[s->n - 1];
	if (end - s->checked_to < STEADY_RECHECK_SHARE * s->steady_s)
		return false;
	s->checked_to = end;
	struct phases ph;
	if (!phases_detect(s->rate, s->t0, s->t1, s->n, &ph))
		return false;
	/* the window: from the interval that holds end - steady_s to the end, wholly after the
	 * interval that holds the knee */
	uint32_t w = s->n - 1;
	while (w > 0 && s->t0[w] > end - s->steady_s + 1e-9)
		w--;
	if (w <= ph.knee || s->t0[w] > end - s->steady_s + 1e-9 || s->n - w < STEADY_MIN_INTERVALS)
		return false; /* not steady_s of series after the step yet */
	uint32_t half = w + (s->n - w) / 2;
	double m = mean(s, w, s->n), a = mean(s, w, half), b = mean(s, half, s->n);
	if (!(m > 0) || fabs(a - b) > STEADY_TOLERANCE * m)
		return false;
	/* still the level after the step, not a return to the burst */
	if (m >= (1.0 - PHASES_MIN_DROP) * ph.burst_bps)
		return false;
	s->reached = true;
	s->knee_s = s->t0[0] + ph.burst_s;
	return true;
}
