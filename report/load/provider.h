/* provider (report): the cases a cloud provider shaped — an ENA allowance counter
 * (results.shaped_by_provider, result_nics; store version 9) moved during the test, so the
 * figure is the provider's limit on the instance, not what the instance can carry — and the
 * finding that says so. */
#ifndef RP_PROVIDER_H
#define RP_PROVIDER_H

#include <stdbool.h>

#include <sqlite3.h>

#include "lib/err.h"
#include "report/load/data.h"
#include "report/model/fmt.h"

/* Fills each case's n_provider_shaped and allowance sums over its flagged ok repeats. A
 * database from before version 9 has no flag: nothing is filled. */
int rp_provider_load(sqlite3 *db, struct rp_data *d, struct ns_err *err);
/* The sentence for case i into b; false (b untouched) when the provider shaped none of its
 * repeats. */
bool rp_provider_finding(const struct rp_data *d, size_t i, struct rp_buf *b);

#endif
