/* store_hooks: see store_hooks.h. A few rows per run: each statement is prepared where it is
 * used, under the store's lock. */
#include "store_hooks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_int.h"
#include "lib/sql/sqlrow.h"

/* Prepares sql under the lock: the statement, or NULL with err filled (and the lock let go). */
static sqlite3_stmt *prepare(struct store *s, const char *sql, struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	store_lock(s);
	if (sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL) != SQLITE_OK) {
		store_sql_err(store_db(s), err, "hooks");
		sqlite3_finalize(st);
		store_unlock(s);
		return NULL;
	}
	return st;
}

static void bind_key(sqlite3_stmt *st, const struct store_hook_key *k)
{
	sqlite3_bind_int64(st, 1, k->run_id);
	sqlrow_bind_text(st, 2, k->pair);
	sqlrow_bind_text(st, 3, k->kind);
	sqlite3_bind_int(st, 4, k->attempt);
}

/* Runs a prepared write to its end, finalizes it and lets the lock go. */
static int finish_write(struct store *s, sqlite3_stmt *st, struct ns_err *err)
{
	int rc = store_sql_step_done(store_db(s), st, err, "hooks");
	sqlite3_finalize(st);
	store_unlock(s);
	return rc;
}

int store_hook_attempt(struct store *s, int64_t run_id, int *attempt, char *uuid,
		       size_t uuid_len, struct ns_err *err)
{
	sqlite3_stmt *st = prepare(s, "SELECT (SELECT coalesce(max(attempt), 0) + 1 FROM hooks"
				   " WHERE run_id = ?1), (SELECT uuid FROM runs WHERE id = ?1)", err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	int rc = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*attempt = sqlite3_column_int(st, 0);
		sqlrow_copy(uuid, uuid_len, st, 1);
		rc = 0;
	} else {
		store_sql_err(store_db(s), err, "hooks");
	}
	sqlite3_finalize(st);
	store_unlock(s);
	return rc;
}

int store_hook_started(struct store *s, const struct store_hook_key *k, const char *command,
		       struct ns_err *err)
{
	char now[32];
	store_now(now);
	sqlite3_stmt *st = prepare(s, "INSERT OR REPLACE INTO hooks (run_id, pair, kind, attempt,"
				   " command, started_at, status)"
				   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running')", err);
	if (!st)
		return -1;
	bind_key(st, k);
	sqlrow_bind_text(st, 5, command);
	sqlrow_bind_text(st, 6, now);
	return finish_write(s, st, err);
}

int store_hook_finished(struct store *s, const struct store_hook_key *k,
			const struct store_hook_end *e, struct ns_err *err)
{
	char now[32];
	store_now(now);
	sqlite3_stmt *st = prepare(s, "UPDATE hooks SET finished_at = ?5, status = ?6, exit_code = ?7,"
				   " error = ?8, stdout = ?9, stderr = ?10, output = ?11 WHERE run_id = ?1"
				   " AND pair = ?2 AND kind = ?3 AND attempt = ?4", err);
	if (!st)
		return -1;
	bind_key(st, k);
	sqlrow_bind_text(st, 5, now);
	sqlrow_bind_text(st, 6, e->status);
	if (e->exit_code >= 0)
		sqlite3_bind_int(st, 7, e->exit_code);
	sqlrow_bind_text(st, 8, e->error);
	sqlrow_bind_text(st, 9, e->out);
	sqlrow_bind_text(st, 10, e->errout);
	sqlrow_bind_text(st, 11, e->output);
	return finish_write(s, st, err);
}

int store_hook_leftovers(struct store *s, int64_t run_id, int attempt,
			 struct store_hook_left **out, size_t *nout, struct ns_err *err)
{
	struct store_hook_left *v = NULL;
	size_t n = 0, cap = 0;
	*out = NULL;
	*nout = 0;
	sqlite3_stmt *st = prepare(s, "SELECT s.pair, s.attempt, s.output FROM hooks s WHERE"
				   " s.run_id = ?1 AND s.kind = 'setup' AND s.attempt < ?2 AND NOT EXISTS"
				   " (SELECT 1 FROM hooks t WHERE t.run_id = s.run_id AND t.pair = s.pair"
				   " AND t.attempt = s.attempt AND t.kind = 'teardown'"
				   " AND t.status <> 'running') ORDER BY s.pair = '', s.attempt, s.pair",
				   err);
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, attempt);
	int step, rc = 0;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap) {
			void *g = realloc(v, (cap = cap ? cap * 2 : 8) * sizeof(*v));
			if (!g) {
				rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
				break;
			}
			v = g;
		}
		const char *p = sqlrow_text(st, 0), *o = sqlrow_text(st, 2);
		v[n].pair = strdup(p ? p : "");
		v[n].attempt = sqlite3_column_int(st, 1);
		v[n].output = o ? strdup(o) : NULL;
		if (!v[n].pair || (o && !v[n].output)) {
			free(v[n].pair);
			free(v[n].output);
			rc = ns_err_code(err, NS_E_NOMEM, "out of memory");
			break;
		}
		n++;
	}
	if (rc == 0 && step != SQLITE_DONE)
		rc = store_sql_err(store_db(s), err, "hooks");
	sqlite3_finalize(st);
	store_unlock(s);
	if (rc < 0) {
		store_hook_left_free(v, n);
		return -1;
	}
	*out = v;
	*nout = n;
	return 0;
}

void store_hook_left_free(struct store_hook_left *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].pair);
		free(v[i].output);
	}
	free(v);
}
