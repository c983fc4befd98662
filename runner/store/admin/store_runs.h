/* store_runs: the runs a database holds, one row each — id, matrix, label, start, status,
 * results ok and failed, and the cost (the instances' billed time at the run's prices, and
 * the measured seconds' cost) — for `netsweep runs` (runner/store/admin/cmd_runs.c). The database
 * is read as `report` reads it (lib/sql/store_read.h): never written, an older one migrated
 * on a copy in memory, so a read-only file, folder or medium lists as well as any. */
#ifndef NS_STORE_RUNS_H
#define NS_STORE_RUNS_H

#include <stdint.h>

#include "lib/err.h"

struct store_runs_row {
	int64_t id;
	const char *matrix, *label, *started_at, *status; /* label "" when none */
	int64_t results_ok, results_failed;
	double billed_usd, measured_usd;   /* NaN: no price */
};

/* Calls fn for every run (of matrix; NULL = all) in the order they started; the row's
 * strings last until fn returns, and fn's non-zero return stops the walk (and is returned).
 * -1 with err: the database cannot be read (NS_E_INPUT: missing, not ours, newer). */
int store_runs_each(const char *db, const char *matrix,
		    int (*fn)(const struct store_runs_row *r, void *ctx), void *ctx,
		    struct ns_err *err);

#endif
