/* fairness: see fairness.h. */
#include "fairness.h"

#include <math.h>

double fair_jain(const double *x, size_t n)
{
	double s = 0, s2 = 0;
	for (size_t i = 0; i < n; i++) {
		s += x[i];
		s2 += x[i] * x[i];
	}
	if (n == 0 || s2 <= 0)
		return NAN;
	return s * s / ((double)n * s2);
}

static double min_and_sum(const double *x, size_t n, double *sum)
{
	double lo = n ? x[0] : NAN;
	*sum = 0;
	for (size_t i = 0; i < n; i++) {
		*sum += x[i];
		if (x[i] < lo)
			lo = x[i];
	}
	return lo;
}

double fair_min_share(const double *x, size_t n)
{
	double sum, lo = min_and_sum(x, n, &sum);
	return n == 0 || sum <= 0 ? NAN : lo / sum;
}

double fair_min_of_fair(const double *x, size_t n)
{
	double sum, lo = min_and_sum(x, n, &sum);
	return n == 0 || sum <= 0 ? NAN : lo * (double)n / sum;
}

double fair_converge_s(const double *rates, size_t n_clients, size_t n_ivl,
		       const double *t_start)
{
	double col[256];
	if (n_ivl == 0 || n_clients == 0 || n_clients > sizeof(col) / sizeof(col[0]))
		return NAN;
	size_t from = n_ivl; /* the first interval of the converged tail */
	for (size_t k = n_ivl; k-- > 0;) {
		for (size_t c = 0; c < n_clients; c++)
			col[c] = rates[c * n_ivl + k];
		double j = fair_jain(col, n_clients);
		if (!(j >= FAIR_CONVERGED_JAIN))
			break;
		from = k;
	}
	return from == n_ivl ? NAN : t_start[from];
}
