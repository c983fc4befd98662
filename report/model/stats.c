/* stats: see stats.h. The t distribution is GSL's (gsl_cdf_tdist_*). */
#include "report/model/stats.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double rp_quantile(double *v, size_t n, double q)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (q <= 0)
		return v[0];
	if (q >= 1)
		return v[n - 1];
	double h = (double)(n - 1) * q;
	size_t lo = (size_t)floor(h);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	return v[lo] + (h - (double)lo) * (v[hi] - v[lo]);
}

double rp_median(double *v, size_t n)
{
	return rp_quantile(v, n, 0.5);
}

double rp_mean(const double *v, size_t n)
{
	if (n == 0)
		return NAN;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i];
	return s / (double)n;
}

double rp_variance(const double *v, size_t n)
{
	if (n < 2)
		return 0;
	double m = rp_mean(v, n), s = 0;
	for (size_t i = 0; i < n; i++)
		s += (v[i] - m) * (v[i] - m);
	return s / (double)(n - 1);
}

double rp_student_t_sf(double t, double df)
{
	if (isnan(t) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 0 : 1;
	return gsl_cdf_tdist_Q(t, df);
}

double rp_student_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || df <= 0)
		return NAN;
	return gsl_cdf_tdist_Pinv(p, df);
}

int rp_welch_test(const double *a, size_t na, const double *b, size_t nb, struct rp_welch *out)
{
	if (na < 2 || nb < 2)
		return -1;
	double ma = rp_mean(a, na), mb = rp_mean(b, nb);
	double va = rp_variance(a, na) / (double)na, vb = rp_variance(b, nb) / (double)nb;
	double se2 = va + vb;
	if (se2 <= 0) {
		out->t = ma == mb ? 0 : (mb > ma ? INFINITY : -INFINITY);
		out->df = (double)(na + nb - 2);
		out->p = ma == mb ? 1 : 0;
		return 0;
	}
	out->t = (mb - ma) / sqrt(se2);
	out->df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	out->p = 2 * rp_student_t_sf(fabs(out->t), out->df);
	if (out->p > 1)
		out->p = 1;
	return 0;
}
