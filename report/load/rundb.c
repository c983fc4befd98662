/* rundb: see rundb.h. */
#include "report/load/rundb.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/store_read.h"
#include "report/load/data.h"

int rp_db_prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct ns_err *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	return 0;
}

int rp_db_case_rows(sqlite3 *db, const char *sql, struct rp_data *d,
		    void (*fn)(struct rp_case *c, sqlite3_stmt *st), const char *what,
		    struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	sqlite3_bind_int64(st, 1, d->run.id);
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		long long id = sqlite3_column_int64(st, 0);
		for (size_t i = 0; i < d->n_cases; i++)
			if (d->cases[i].id == id)
				fn(&d->cases[i], st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: reading %s: %s", what, sqlite3_errmsg(db));
	return 0;
}

int rp_db_open(const char *path, sqlite3 **db, struct ns_err *err)
{
	return ns_store_open_read(path, db, err);
}

static int parse_id(const char *s, long long *id)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v <= 0)
		return -1;
	*id = v;
	return 0;
}

static int run_exists(sqlite3 *db, long long id, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT 1 FROM runs WHERE id = ?", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	int found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found ? 0 : ns_err_code(err, NS_E_INPUT, "run %lld: no such run in the database", id);
}

/* A run named by its label: the newest run carrying it. Returns 1 found, 0 none, -1 error. */
static int run_by_label(sqlite3 *db, const char *label, long long *id, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT id FROM runs WHERE label = ?1 ORDER BY started_at DESC, id DESC LIMIT 1",
		 &st, err) < 0)
		return -1;
	sqlite3_bind_text(st, 1, label, -1, SQLITE_STATIC);
	int found = sqlite3_step(st) == SQLITE_ROW;
	if (found)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return found;
}

/* The run of the same matrix just before run_id; *id = 0 when there is none. */
static int run_previous(sqlite3 *db, long long run_id, long long *id, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db,
		 "SELECT p.id FROM runs p JOIN runs c ON c.id = ?1 "
		 "WHERE p.matrix_name = c.matrix_name AND p.id <> c.id AND "
		 "(p.started_at < c.started_at OR (p.started_at = c.started_at AND p.id < c.id)) "
		 "ORDER BY p.started_at DESC, p.id DESC LIMIT 1",
		 &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	*id = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	return 0;
}

/* A run id that exists, else a label (a label may be all digits too). */
static int run_named(sqlite3 *db, const char *opt, const char *spec, long long *id,
		     struct ns_err *err)
{
	struct ns_err none;
	if (parse_id(spec, id) == 0 && run_exists(db, *id, &none) == 0)
		return 0;
	int found = run_by_label(db, spec, id, err);
	if (found < 0)
		return -1;
	if (!found)
		return ns_err_code(err, NS_E_USAGE, "%s %s: no run with that id or label in the database "
				  "(netsweep runs lists them)", opt, spec);
	return 0;
}

int rp_run_resolve(sqlite3 *db, const char *spec, long long *id, struct ns_err *err)
{
	bool previous = strcmp(spec, "previous") == 0;
	if (strcmp(spec, "latest") != 0 && !previous)
		return run_named(db, "--run", spec, id, err);
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT id FROM runs ORDER BY started_at DESC, id DESC LIMIT 1", &st, err) < 0)
		return -1;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return ns_err_code(err, NS_E_INPUT, "the database holds no runs yet");
	if (!previous)
		return 0;
	long long latest = *id;
	if (run_previous(db, latest, id, err) < 0)
		return -1;
	return *id ? 0 : ns_err_code(err, NS_E_USAGE, "--run previous: run %lld is the first of "
				     "its matrix", latest);
}

int rp_baseline_resolve(sqlite3 *db, const char *spec, long long run_id, long long *id,
			struct ns_err *err)
{
	if (strcmp(spec, "previous") == 0)
		return run_previous(db, run_id, id, err);
	if (run_named(db, "--baseline", spec, id, err) < 0)
		return -1;
	if (*id == run_id)
		return ns_err_code(err, NS_E_USAGE, "--baseline %s is the run being reported", spec);
	return 0;
}

int rp_runs_last(sqlite3 *db, uint64_t n, long long **ids, size_t *count, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (rp_db_prep(db, "SELECT id FROM (SELECT id, started_at FROM runs ORDER BY started_at "
			   "DESC, id DESC LIMIT ?1) ORDER BY started_at, id", &st, err) < 0)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)n);
	*ids = calloc(n, sizeof(**ids));
	*count = 0;
	if (!*ids) {
		sqlite3_finalize(st);
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	}
	while (*count < n && sqlite3_step(st) == SQLITE_ROW)
		(*ids)[(*count)++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!*count)
		return ns_err_code(err, NS_E_INPUT, "the database holds no runs");
	return 0;
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

int rp_nights_list(sqlite3 *db, const char *matrix, struct rp_night_ref **out, size_t *n,
		   struct ns_err *err)
{
	sqlite3_stmt *st;
	*out = NULL;
	*n = 0;
	if (rp_db_prep(db, "SELECT id, uuid, label, matrix_name, started_at, finished_at, status "
			   "FROM runs WHERE status IN ('done', 'failed') AND finished_at IS NOT NULL "
			   "AND (?1 IS NULL OR matrix_name = ?1) ORDER BY started_at, id", &st, err) < 0)
		return -1;
	if (matrix)
		sqlite3_bind_text(st, 1, matrix, -1, SQLITE_TRANSIENT);
	size_t cap = 0;
	int rc;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			struct rp_night_ref *nv = realloc(*out, ncap * sizeof(*nv));
			if (!nv)
				goto nomem;
			*out = nv;
			cap = ncap;
		}
		struct rp_night_ref *r = &(*out)[(*n)++];
		*r = (struct rp_night_ref){.id = sqlite3_column_int64(st, 0), .uuid = col_dup(st, 1),
			.label = col_dup(st, 2), .matrix = col_dup(st, 3), .started_at = col_dup(st, 4),
			.finished_at = col_dup(st, 5), .status = col_dup(st, 6)};
		if (!r->matrix || !r->started_at || !r->finished_at || !r->status)
			goto nomem;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return ns_err_code(err, NS_E_INPUT, "database: %s", sqlite3_errmsg(db));
	return 0;
nomem:
	sqlite3_finalize(st);
	rp_nights_free(*out, *n);
	*out = NULL;
	*n = 0;
	return ns_err_code(err, NS_E_NOMEM, "out of memory");
}

void rp_nights_free(struct rp_night_ref *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].uuid);
		free(v[i].label);
		free(v[i].matrix);
		free(v[i].started_at);
		free(v[i].finished_at);
		free(v[i].status);
	}
	free(v);
}

void rp_db_close(sqlite3 *db)
{
	sqlite3_close(db);
}
