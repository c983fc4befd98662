/* result_rows: every result of a run as results.csv has it — the case's parameters, the
 * measured figures exactly as SQLite renders them and the cost figures (v_results joined
 * with v_endpoint_prices), in the run's order; a run with emulated pairs also has emulated
 * (0/1) and lab_scale. The rows go to a callback, so a writer never holds the run. */
#ifndef RP_RESULT_ROWS_H
#define RP_RESULT_ROWS_H

#include <sqlite3.h>
#include <stdbool.h>

#include "lib/err.h"

/* Called first with the column names, then once per row (a NULL cell for SQL NULL); the
 * cells live until it returns. A negative return stops with that error. */
typedef int (*rp_row_fn)(void *ctx, int ncols, const char *const *cells, struct ns_err *err);

int rp_result_rows(sqlite3 *db, long long run_id, bool emulated, rp_row_fn fn, void *ctx,
		   struct ns_err *err);

#endif
