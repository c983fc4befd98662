/* pricecheck: before a run (and in --dry-run), every pair with an instance type must have a
 * price in the catalog for its region, or the report's cost figures are missing after a whole
 * night on real instances. A missing price is a warning naming the pair (and the nearest known
 * type, for a typo); with the matrix's strict="true" it is an error. */
#ifndef NS_PRICECHECK_H
#define NS_PRICECHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "runner/matrix/expand.h"
#include "runner/matrix/matrix.h"
#include "lib/catalog/catalog.h"

/* Loads the default catalog (a missing or broken default is a warning) and the given
 * files into cat (catalog_init'ed by the caller). A bad --catalog file is an error. */
int pricecheck_load(struct catalog *cat, const char *const *files, size_t n_files,
		    void (*warn)(void *ctx, const char *msg), void *ctx, struct ns_err *err);

/* Calls warn once per pair without a price; returns the number of such pairs, or -1 when the
 * matrix is strict and one is missing (err names the matrix file and line of the pair). */
int pricecheck_pairs(const struct matrix *m, const struct catalog *cat,
		     void (*warn)(void *ctx, const char *msg), void *ctx, struct ns_err *err);

/* What a run would cost at the catalog's prices: each pair's expected seconds (its cases'
 * omit + duration and the cooldowns, times the repeats: the measured time, not the
 * instances' provisioning) at its hourly price (both ends for price-basis "pair"). */
#define PRICECHECK_MAX_PAIRS 256
struct pricecheck_pair {
	char name[MX_NAME_MAX];
	double seconds;
	double per_hour;           /* on-demand, in currency; < 0: no price */
	char currency[4];
	double cost;
};
struct pricecheck_estimate {
	struct pricecheck_pair pairs[PRICECHECK_MAX_PAIRS];
	size_t n;                  /* pairs listed (the first PRICECHECK_MAX_PAIRS) */
	size_t unpriced;
	double total;              /* of the priced pairs, in currency (meaningless if mixed) */
	char currency[4];
	bool mixed;                /* pairs priced in several currencies: no total */
};
void pricecheck_estimate(const struct matrix *m, const struct sweep_cases *cs,
			 const struct catalog *cat, struct pricecheck_estimate *e);

#endif
