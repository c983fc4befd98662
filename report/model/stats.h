/* stats: the statistics the report states — median and quantiles over repeats, and Welch's
 * two-sample t-test (two-sided) used for the baseline comparison. Pure functions on arrays. */
#ifndef RP_STATS_H
#define RP_STATS_H

#include <stddef.h>

/* Quantile q in [0,1] of v[0..n) by linear interpolation between order statistics (the
 * "type 7" rule of R and numpy). Sorts v in place. NAN when n == 0. */
double rp_quantile(double *v, size_t n, double q);
double rp_median(double *v, size_t n);
double rp_mean(const double *v, size_t n);
/* Sample variance (n - 1 denominator); 0 when n < 2. */
double rp_variance(const double *v, size_t n);

/* Survival function of Student's t distribution: P(T > t) with df degrees of freedom
 * (df > 0, may be fractional). */
double rp_student_t_sf(double t, double df);

struct rp_welch {
	double t;      /* (mean_b - mean_a) / se */
	double df;     /* Welch-Satterthwaite degrees of freedom */
	double p;      /* two-sided p-value */
};

/* Welch's t-test of a (baseline) against b (current). Needs n >= 2 on both sides; returns
 * -1 otherwise. When both variances are 0, p is 1 for equal means and 0 otherwise. */
int rp_welch_test(const double *a, size_t na, const double *b, size_t nb, struct rp_welch *out);

/* The t quantile: x with P(T <= x) = p (GSL's gsl_cdf_tdist_Pinv); NAN outside (0, 1). */
double rp_student_t_quantile(double p, double df);

#endif
