/* store_prune: see store_prune.h. */
#include "store_prune.h"

#include <sqlite3.h>

#include "lib/sql/store_schema.h"
#include "runner/store/store_int.h"

/* The runs to prune, as a subquery on ?1 (matrix or NULL) and ?2 (how many to keep). */
#define PRUNED_RUNS \
	"(SELECT id FROM (SELECT id, row_number() OVER (PARTITION BY matrix_name" \
	" ORDER BY started_at DESC, id DESC) AS k FROM runs WHERE status IN ('done', 'failed')" \
	" AND finished_at IS NOT NULL AND (?1 IS NULL OR matrix_name = ?1)) WHERE k > ?2)"
#define PRUNED_RESULTS \
	"(SELECT r.id FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id IN " \
	PRUNED_RUNS ")"
/* the probe JSON's interval arrays (schemas/probe-result.md) */
#define JSON_SERIES "'$.intervals', '$.latency.intervals', '$.latency_under_load.loaded.intervals'"

enum { Q_RUNS, Q_KEPT, Q_SAMPLES, Q_JSON, D_SAMPLES, D_GROUP, D_JSON, Q_N };
static const char *const sql[Q_N] = {
	[Q_RUNS] = "SELECT count(*) FROM " PRUNED_RUNS,
	[Q_KEPT] = "SELECT count(*) FROM runs WHERE status IN ('done', 'failed') AND finished_at"
		   " IS NOT NULL AND (?1 IS NULL OR matrix_name = ?1) AND ?2 >= 0 AND id NOT IN "
		   PRUNED_RUNS,
	[Q_SAMPLES] = "SELECT count(*) FROM samples WHERE result_id IN " PRUNED_RESULTS,
	[Q_JSON] = "SELECT count(*) FROM results WHERE id IN " PRUNED_RESULTS
		   " AND probe_json IS NOT NULL AND json_remove(probe_json, " JSON_SERIES
		   ") <> probe_json",
	[D_SAMPLES] = "DELETE FROM samples WHERE result_id IN " PRUNED_RESULTS,
	[D_GROUP] = "DELETE FROM group_samples WHERE result_id IN " PRUNED_RESULTS,
	[D_JSON] = "UPDATE results SET probe_json = json_remove(probe_json, " JSON_SERIES ")"
		   " WHERE id IN " PRUNED_RESULTS " AND probe_json IS NOT NULL"
		   " AND json_remove(probe_json, " JSON_SERIES ") <> probe_json",
};

/* Runs one statement with the two parameters; *count gets a query's number (NULL: none). */
static int run(sqlite3 *db, int q, long long keep, const char *matrix, long long *count,
	       struct ns_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql[q], -1, &st, NULL) != SQLITE_OK)
		return store_sql_err(db, err, "prune");
	if (matrix)
		sqlite3_bind_text(st, 1, matrix, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, keep);
	int rc = sqlite3_step(st);
	if (count && rc == SQLITE_ROW)
		*count = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return store_sql_err(db, err, "prune");
	return 0;
}

int store_prune(struct store *s, long long keep, const char *matrix, int dry_run,
		struct store_prune_stats *st, struct ns_err *err)
{
	sqlite3 *db = store_db(s);
	*st = (struct store_prune_stats){0};
	store_lock(s);
	int rc = ns_store_exec(db, "BEGIN IMMEDIATE", err);
	if (rc < 0) {
		store_unlock(s);
		return -1;
	}
	if (run(db, Q_RUNS, keep, matrix, &st->runs, err) < 0 ||
	    run(db, Q_KEPT, keep, matrix, &st->kept, err) < 0 ||
	    run(db, Q_SAMPLES, keep, matrix, &st->samples, err) < 0 ||
	    run(db, Q_JSON, keep, matrix, &st->probe_json, err) < 0 ||
	    (!dry_run && (run(db, D_SAMPLES, keep, matrix, NULL, err) < 0 ||
			  run(db, D_GROUP, keep, matrix, NULL, err) < 0 ||
			  run(db, D_JSON, keep, matrix, NULL, err) < 0)))
		rc = -1;
	if (rc == 0 && !dry_run)
		rc = ns_store_exec(db, "COMMIT", err);
	if (rc < 0 || dry_run)
		ns_store_exec(db, "ROLLBACK", NULL);
	store_unlock(s);
	return rc;
}

int store_vacuum(struct store *s, struct ns_err *err)
{
	store_lock(s);
	int rc = ns_store_exec(store_db(s), "VACUUM", err);
	store_unlock(s);
	return rc;
}
