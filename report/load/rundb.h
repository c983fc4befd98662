/* rundb: the results database as the report reads it — opened read-only, never created —
 * and the runs in it named as the command line names them (latest, previous, id, label). */
#ifndef RP_RUNDB_H
#define RP_RUNDB_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"

/* Opens the database read-only; a missing file or a file without the netsweep tables is an
 * error (the runner creates databases, the report never does), and so is a newer schema
 * version. An older one is copied into memory and migrated there (lib/sql/store_schema.h): *db is
 * then the copy, and the file is never written. */
int rp_db_open(const char *path, sqlite3 **db, struct ns_err *err);
/* Closes what rp_db_open opened (NULL: nothing). */
void rp_db_close(sqlite3 *db);
/* The last n runs by start time, oldest first, into *ids (malloc'd, *count of them); no run
 * at all is NS_E_INPUT. */
int rp_runs_last(sqlite3 *db, uint64_t n, long long **ids, size_t *count, struct ns_err *err);

/* A finished run as `netsweep site` lists it: one night of the series. */
struct rp_night_ref {
	long long id;
	char *uuid, *label, *matrix, *started_at, *finished_at, *status;
};
/* The finished runs (status done or failed: a running or interrupted run may still change),
 * of matrix when it is not NULL, oldest first, into *out (malloc'd, *n of them; none is no
 * error). */
int rp_nights_list(sqlite3 *db, const char *matrix, struct rp_night_ref **out, size_t *n,
		   struct ns_err *err);
void rp_nights_free(struct rp_night_ref *v, size_t n);

/* "latest", "previous" (the run of the latest's matrix before it), a run id or a label (the
 * newest run with it) -> the run's id. */
int rp_run_resolve(sqlite3 *db, const char *spec, long long *id, struct ns_err *err);
/* Baseline "previous" (the run of the same matrix just before run_id; *id = 0 when there is
 * none), a run id or a label. */
int rp_baseline_resolve(sqlite3 *db, const char *spec, long long run_id, long long *id,
			struct ns_err *err);

/* sqlite3_prepare_v2 with "database: " and SQLite's message in err on failure. */
int rp_db_prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct ns_err *err);

struct rp_data;
struct rp_case;
/* Runs a per-case query over d's run (?1: the run id; column 0: a case id) and hands each
 * row to fn with its case. A query that does not prepare — a database older than the table
 * or column it reads — has no rows, and is no error. what names the query in err. */
int rp_db_case_rows(sqlite3 *db, const char *sql, struct rp_data *d,
		    void (*fn)(struct rp_case *c, sqlite3_stmt *st), const char *what,
		    struct ns_err *err);

#endif
