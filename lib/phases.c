#include "phases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Duration-weighted mean of x[a..b). */
static double mean_of(const double *x, const double *s, const double *e, uint32_t a, uint32_t b)
{
	double sum = 0, dt = 0;
	for (uint32_t i = a; i < b; i++) {
		double d = e[i] - s[i];
		sum += x[i] * d;
		dt += d;
	}
	return dt > 0 ? sum / dt : 0;
}

/* Share of an interval at rate x spent at level hi rather than lo, within [0, 1]. */
static double level_share(double x, double hi, double lo)
{
	double f = (x - lo) / (hi - lo);
	return f < 0 ? 0 : f > 1 ? 1 : f;
}

/* The split k (x[0..k) | x[k..n)) with the smallest two-level squared error, from prefix sums:
 * SSE(a,b) = sum x^2 - (sum x)^2 / (b - a). */
static uint32_t best_split(const double *x, uint32_t n, uint32_t lo, uint32_t hi)
{
	double s1 = 0, q1 = 0, st = 0, qt = 0;
	for (uint32_t i = 0; i < n; i++) {
		st += x[i];
		qt += x[i] * x[i];
	}
	uint32_t best = 0;
	double best_sse = INFINITY;
	for (uint32_t k = 1; k < n; k++) {
		s1 += x[k - 1];
		q1 += x[k - 1] * x[k - 1];
		if (k < lo || k > hi)
			continue;
		double s2 = st - s1, q2 = qt - q1;
		double sse = q1 - s1 * s1 / k + q2 - s2 * s2 / (n - k);
		if (sse < best_sse) {
			best_sse = sse;
			best = k;
		}
	}
	return best;
}

bool phases_detect(const double *rate_bps, const double *start_s, const double *end_s,
		   uint32_t n, struct phases *p)
{
	memset(p, 0, sizeof(*p));
	if (!rate_bps || !start_s || !end_s || n < 2 + PHASES_MIN_AFTER)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!isfinite(rate_bps[i]) || !(end_s[i] >= start_s[i]))
			return false;
	/* at least two intervals of burst: one fast interval is not a phase either */
	uint32_t k = best_split(rate_bps, n, 2, n - PHASES_MIN_AFTER);
	if (!k)
		return false;
	double m1 = mean_of(rate_bps, start_s, end_s, 0, k);
	double m2 = mean_of(rate_bps, start_s, end_s, k, n);
	if (!(m1 > 0) || !(m2 < (1.0 - PHASES_MIN_DROP) * m1))
		return false;
	double mid = (m1 + m2) / 2;
	uint32_t stray_before = 0, stray_after = 0;
	for (uint32_t i = 0; i < k; i++)
		stray_before += rate_bps[i] < mid;
	/* the interval that holds the knee is half and half: not held against either level */
	for (uint32_t i = k + 1; i < n; i++)
		stray_after += rate_bps[i] > mid;
	if (stray_before > PHASES_MAX_STRAY * k || stray_after > PHASES_MAX_STRAY * (n - k - 1))
		return false;
	/* The knee lies in interval k-1 or k, whichever holds both levels: each of the two
	 * counts the share of its time spent at the burst level, read off its mean. */
	double f_prev = level_share(rate_bps[k - 1], m1, m2);
	double f_k = level_share(rate_bps[k], m1, m2);
	double knee = start_s[k] - (1 - f_prev) * (end_s[k - 1] - start_s[k - 1]) +
		      f_k * (end_s[k] - start_s[k]);
	p->found = true;
	p->knee = k;
	p->burst_bps = m1;
	p->burst_s = knee - start_s[0];
	/* without the knee's interval, which may still hold some burst */
	p->sustained_bps = mean_of(rate_bps, start_s, end_s, k + 1, n);
	return true;
}
