/* rundb: see rundb.h. */
#include "rundb.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/store_schema.h"
#include "data.h"

int rp_db_prep(sqlite3 *db, const char *sql, sqlite3_stmt **st, struct ns_err *err)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) != SQLITE_OK)
		return ns_err_set(err, "database: %s", sqlite3_errmsg(db));
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
		return ns_err_set(err, "database: reading %s: %s", what, sqlite3_errmsg(db));
	return 0;
}

/* "file:" + path with the characters a URI gives meaning to escaped, + the query. */
static int db_uri(const char *path, bool immutable, char *buf, size_t len)
{
	size_t n = 0;
	const char *pre = "file:", *q = immutable ? "?mode=ro&immutable=1" : "?mode=ro";
	if (strlen(pre) >= len)
		return -1;
	memcpy(buf, pre, strlen(pre));
	n = strlen(pre);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (n + 4 >= len)
			return -1;
		if (*p == '%' || *p == '?' || *p == '#' || *p < 0x20 || *p >= 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "%%%02X", *p);
		else
			buf[n++] = (char)*p;
	}
	if (n + strlen(q) + 1 > len)
		return -1;
	memcpy(buf + n, q, strlen(q) + 1);
	return 0;
}

/* Whether the folder holding path can take new files (a WAL database's -shm, say). */
static bool dir_writable(const char *path)
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s", path);
	char *slash = strrchr(dir, '/');
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	return access(dir, W_OK) == 0;
}

/* An older database is read through the store's migration ladder, on an in-memory copy:
 * the report sees the schema and views `run` would have made of it (v_run_cost as it now
 * charges, say), and the file stays byte for byte as it was. On success *db is the copy. */
static int migrated_copy(const char *path, int version, sqlite3 **db, struct ns_err *err)
{
	sqlite3 *mem = NULL;
	if (sqlite3_open_v2(":memory:", &mem, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) !=
	    SQLITE_OK) {
		ns_err_code(err, NS_E_NOMEM, "%s: an in-memory copy to migrate: %s", path,
			    mem ? sqlite3_errmsg(mem) : "out of memory");
		goto err;
	}
	sqlite3_backup *bk = sqlite3_backup_init(mem, "main", *db, "main");
	int rc = bk ? sqlite3_backup_step(bk, -1) : SQLITE_ERROR;
	sqlite3_backup_finish(bk);
	if (rc != SQLITE_DONE) {
		ns_err_code(err, NS_E_IO, "%s: copying it into memory to migrate: %s", path,
			    sqlite3_errmsg(bk ? mem : *db));
		goto err;
	}
	if (ns_store_migrate(mem, err) < 0) {
		ns_err_prefix(err, "%s: migrating a copy from schema version %d to %d", path, version,
			      NS_STORE_SCHEMA_VERSION);
		if (err)
			err->code = NS_E_INPUT;
		goto err;
	}
	sqlite3_close(*db);
	*db = mem;
	return 0;
err:
	sqlite3_close(mem);
	return -1;
}

int rp_db_open(const char *path, sqlite3 **db, struct ns_err *err)
{
	*db = NULL;
	char uri[8192];
	if (access(path, R_OK) != 0)
		return ns_err_set(err, "%s: no such database (run `netsweep run` first or pass --db)",
				  path);
	/* Read-only, never creating a file: on read-only media or in another user's folder a
	 * WAL database cannot get its -shm, so it is read as immutable (the writer is not there
	 * either: it could not have written the folder). */
	if (db_uri(path, !dir_writable(path), uri, sizeof(uri)) < 0)
		return ns_err_code(err, NS_E_INPUT, "%s: path too long", path);
	if (sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		ns_err_set(err, "%s: %s", path, *db ? sqlite3_errmsg(*db) : "cannot open");
		goto err;
	}
	sqlite3_busy_timeout(*db, 5000);
	int version = ns_store_user_version(*db);
	if (version < 0) {
		ns_err_code(err, NS_E_INPUT,
			    "%s: not a netsweep database: cannot read its schema version (%s)", path,
			    sqlite3_errmsg(*db));
		goto err;
	}
	if (version > NS_STORE_SCHEMA_VERSION) {
		ns_err_code(err, NS_E_INPUT, "%s: schema version %d is newer than this netsweep's "
			    "(%d): use a newer netsweep to report it", path, version,
			    NS_STORE_SCHEMA_VERSION);
		goto err;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(*db, "SELECT count(*) FROM runs r JOIN results ON 0", -1, &st,
			       NULL) != SQLITE_OK) {
		ns_err_code(err, NS_E_INPUT, "%s: not a netsweep database (%s)", path,
			    sqlite3_errmsg(*db));
		goto err;
	}
	sqlite3_finalize(st);
	if (version < NS_STORE_SCHEMA_VERSION && migrated_copy(path, version, db, err) < 0)
		goto err;
	return 0;
err:
	sqlite3_close(*db);
	*db = NULL;
	return -1;
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
	return found ? 0 : ns_err_set(err, "run %lld: no such run in the database", id);
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
		return ns_err_set(err, "%s %s: no run with that id or label in the database "
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
		return ns_err_set(err, "the database holds no runs yet");
	if (!previous)
		return 0;
	long long latest = *id;
	if (run_previous(db, latest, id, err) < 0)
		return -1;
	return *id ? 0 : ns_err_set(err, "--run previous: run %lld is the first of its matrix",
				    latest);
}

int rp_baseline_resolve(sqlite3 *db, const char *spec, long long run_id, long long *id,
			struct ns_err *err)
{
	if (strcmp(spec, "previous") == 0)
		return run_previous(db, run_id, id, err);
	if (run_named(db, "--baseline", spec, id, err) < 0)
		return -1;
	if (*id == run_id)
		return ns_err_set(err, "--baseline %s is the run being reported", spec);
	return 0;
}
