/* store_runs: see store_runs.h. */
#include "store_runs.h"

#include <sqlite3.h>

#include "lib/sql/sqlrow.h"
#include "lib/sql/store_read.h"
#include "runner/store/store_sql.h"

static const char RUNS_SQL[] =
	"SELECT r.id, r.matrix_name, coalesce(r.label, ''), r.started_at, r.status,"
	" (SELECT count(*) FROM results x JOIN cases c ON c.id = x.case_id"
	"  WHERE c.run_id = r.id AND x.status = 'ok'),"
	" (SELECT count(*) FROM results x JOIN cases c ON c.id = x.case_id"
	"  WHERE c.run_id = r.id AND x.status = 'failed'),"
	" (SELECT usd FROM v_run_billed WHERE run_id = r.id),"
	" (SELECT usd FROM v_run_cost WHERE run_id = r.id)"
	" FROM runs r WHERE ?1 IS NULL OR r.matrix_name = ?1 ORDER BY r.started_at, r.id";

int store_runs_each(const char *db, const char *matrix,
		    int (*fn)(const struct store_runs_row *r, void *ctx), void *ctx,
		    struct ns_err *err)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1, step;
	if (ns_store_open_read(db, &h, err) < 0) {
		if (err && err->code != NS_E_NOMEM)
			err->code = NS_E_INPUT; /* the file named is no database of ours to read */
		return -1;
	}
	if (sqlite3_prepare_v2(h, RUNS_SQL, -1, &st, NULL) != SQLITE_OK) {
		ns_err_code(err, store_sql_code(h), "%s: %s", db, sqlite3_errmsg(h));
		goto out;
	}
	sqlrow_bind_text(st, 1, matrix);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const struct store_runs_row r = {
			.id = sqlite3_column_int64(st, 0),
			.matrix = sqlrow_text(st, 1),
			.label = sqlrow_text(st, 2),
			.started_at = sqlrow_text(st, 3),
			.status = sqlrow_text(st, 4),
			.results_ok = sqlite3_column_int64(st, 5),
			.results_failed = sqlite3_column_int64(st, 6),
			.billed_usd = sqlrow_num(st, 7),
			.measured_usd = sqlrow_num(st, 8),
		};
		int stop = fn(&r, ctx);
		if (stop) {
			rc = stop;
			goto out;
		}
	}
	if (step != SQLITE_DONE)
		ns_err_code(err, store_sql_code(h), "%s: %s", db, sqlite3_errmsg(h));
	else
		rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc;
}
