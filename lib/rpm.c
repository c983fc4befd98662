/* rpm: see rpm.h. */
#include "rpm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rpm_sat_init(struct rpm_sat *s)
{
	memset(s, 0, sizeof(*s));
}

bool rpm_sat_add(struct rpm_sat *s, double goodput_bps)
{
	if (s->saturated || s->n >= RPM_MNP)
		return s->saturated;
	uint32_t i = s->n++;
	s->goodput[i] = goodput_bps;
	if (s->n < RPM_MAD)
		return false;
	double sum = 0;
	for (uint32_t k = s->n - RPM_MAD; k < s->n; k++)
		sum += s->goodput[k];
	s->ma[i] = sum / RPM_MAD;
	if (s->n < 2 * RPM_MAD - 1) /* RPM_MAD moving averages are needed */
		return false;
	double mean = 0, var = 0;
	for (uint32_t k = s->n - RPM_MAD; k < s->n; k++)
		mean += s->ma[k];
	mean /= RPM_MAD;
	for (uint32_t k = s->n - RPM_MAD; k < s->n; k++)
		var += (s->ma[k] - mean) * (s->ma[k] - mean);
	double sd = sqrt(var / RPM_MAD);
	s->saturated = mean > 0 && sd <= mean * RPM_SDT_PCT / 100.0;
	return s->saturated;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* How many of n values a single-sided trim of trim_pct % keeps (at least one). */
static uint64_t kept(uint64_t n, double trim_pct)
{
	uint64_t k = (uint64_t)floor((double)n * (100.0 - trim_pct) / 100.0);
	return k ? k : (n ? 1 : 0);
}

double rpm_trimmed_mean(double *v, size_t n, double trim_pct)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	uint64_t k = kept(n, trim_pct);
	double sum = 0;
	for (uint64_t i = 0; i < k; i++)
		sum += v[i];
	return sum / (double)k;
}

double rpm_hist_trimmed_mean_ns(const struct lathist *h, double trim_pct)
{
	uint64_t n = atomic_load(&h->count);
	uint64_t want = kept(n, trim_pct), got = 0;
	double sum = 0;
	for (uint32_t i = 0; i < LATHIST_BUCKETS && got < want; i++) {
		uint64_t c = atomic_load(&h->b[i]);
		if (!c)
			continue;
		if (c > want - got)
			c = want - got;
		uint64_t lo, hi;
		lathist_bucket_range(i, &lo, &hi);
		sum += (double)c * ((double)lo + (double)hi) / 2.0;
		got += c;
	}
	return got ? sum / (double)got : 0;
}

double rpm_of(double foreign_s, double self_s)
{
	if (foreign_s > 0 && self_s > 0)
		return 60.0 / ((foreign_s + self_s) / 2.0);
	if (foreign_s > 0)
		return 60.0 / foreign_s;
	return self_s > 0 ? 60.0 / self_s : 0;
}
