/* fairness: how evenly a group case's clients shared the path — Jain's fairness index over
 * their rates, the slowest client's share, and how long the shares took to settle. Pure
 * arithmetic on rates; the one place it is computed (the runner stores the figures, the report
 * and the views read them). */
#ifndef NS_GROUP_FAIRNESS_H
#define NS_GROUP_FAIRNESS_H

#include <stddef.h>

/* Jain's index over the rates counted as "converged" once every interval from there on has at
 * least this index: equal TCP flows through one bottleneck settle above it within seconds. */
#define FAIR_CONVERGED_JAIN 0.9
/* "starved" (a client with less than half of its fair share, total / clients) has one home:
 * the store's view v_group_fairness (schemas/store.sql), which the report reads. */

/* (sum x)^2 / (n sum x^2): 1 when all are equal, 1/n when one client has everything. NaN for
 * n = 0 or when every rate is 0 (nothing was shared). */
double fair_jain(const double *x, size_t n);

/* The slowest client's rate over the total (1/n when equal); NaN as fair_jain. */
double fair_min_share(const double *x, size_t n);

/* The slowest client's rate over its fair share, total / n (1 when equal). NaN as fair_jain. */
double fair_min_of_fair(const double *x, size_t n);

/* The time the clients' shares converged: rates[c * n_ivl + k] is client c's rate in
 * interval k, t_start[k] that interval's start (seconds from the common start). Returns
 * t_start of the first interval from which every interval's Jain index is at least
 * FAIR_CONVERGED_JAIN; NaN when the last interval is below it (never converged) or there are
 * no intervals. Intervals where every rate is 0 count as not converged. */
double fair_converge_s(const double *rates, size_t n_clients, size_t n_ivl,
		       const double *t_start);

#endif
