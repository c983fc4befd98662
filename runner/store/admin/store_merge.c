/* store_merge: see store_merge.h. Row ids are renumbered through temporary maps (old id ->
 * new id), table by table. Case leases are not merged: they are one runner's claims on work
 * in flight, meaningless in another database. */
#include "store_merge.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lib/atomicfile.h"
#include "lib/err.h"
#include "lib/sql/store_schema.h"
#include "runner/store/store.h"
#include "runner/store/store_sql.h"

/* A table below runs: the columns pointing to renumbered rows (fk, mapped by fk_map), and for
 * tables that are themselves pointed to, the map to fill and the natural key that finds a
 * copied row again (its first column is fk[0]). Every other column is copied as it is. */
struct merge_table {
	const char *name;
	const char *fk[2], *fk_map[2];
	const char *map, *key2;           /* map NULL: nothing points to this table */
};

static const struct merge_table tables[] = {
	{"endpoints", {"run_id"}, {"map_runs"}, "map_endpoints", "name"},
	{"cases", {"run_id", "endpoint_id"}, {"map_runs", "map_endpoints"}, "map_cases", "case_key"},
	{"results", {"case_id"}, {"map_cases"}, "map_results", "repeat"},
	{"samples", {"result_id"}, {"map_results"}, NULL, NULL},
	{"searches", {"result_id"}, {"map_results"}, NULL, NULL},
	{"result_phases", {"result_id"}, {"map_results"}, NULL, NULL},
	{"result_nics", {"result_id"}, {"map_results"}, NULL, NULL},
	{"result_limits", {"result_id"}, {"map_results"}, NULL, NULL},
	{"result_rpm", {"result_id"}, {"map_results"}, NULL, NULL},
	{"group_results", {"result_id"}, {"map_results"}, NULL, NULL},
	{"group_clients", {"result_id"}, {"map_results"}, NULL, NULL},
	{"group_samples", {"result_id"}, {"map_results"}, NULL, NULL},
	{"run_instance_types", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_prices", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_price_quotes", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_pricing", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_fx", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_transfer_prices", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_transfer_volume", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"run_included_transfer", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"hooks", {"run_id"}, {"map_runs"}, NULL, NULL},
	{"endpoint_emulation", {"endpoint_id"}, {"map_endpoints"}, NULL, NULL},
	{"endpoint_ends", {"endpoint_id"}, {"map_endpoints"}, NULL, NULL},
};

struct sbuf {
	char s[8192];
	size_t n;
	bool over;
};

static void sb_add(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->s + b->n, sizeof(b->s) - b->n, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(b->s) - b->n)
		b->over = true;
	else
		b->n += (size_t)n;
}

static bool is_fk(const struct merge_table *t, const char *col, int *which)
{
	for (int i = 0; i < 2; i++)
		if (t->fk[i] && strcmp(t->fk[i], col) == 0) {
			*which = i;
			return true;
		}
	return false;
}

/* Copies the rows of one table whose parents were copied. The column list comes from the
 * output database's own schema (identifiers, never values); values move by INSERT ... SELECT. */
static int copy_table(sqlite3 *db, const struct merge_table *t, struct ns_err *err)
{
	struct sbuf cols = {0}, sel = {0}, joins = {0}, sql = {0};
	sqlite3_stmt *st;
	bool has_id = false;
	if (sqlite3_prepare_v2(db, "SELECT name, pk FROM pragma_table_info(?1, 'main')", -1, &st,
			       NULL) != SQLITE_OK)
		return ns_err_code(err, store_sql_code(db), "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, t->name, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		int which;
		if (!c || strchr(c, '"'))
			continue;
		if (strcmp(c, "id") == 0 && sqlite3_column_int(st, 1)) {
			has_id = true; /* renumbered, in the input's order */
			continue;
		}
		sb_add(&cols, "%s\"%s\"", cols.n ? ", " : "", c);
		if (is_fk(t, c, &which))
			sb_add(&sel, "%sm%d.new", sel.n ? ", " : "", which);
		else
			sb_add(&sel, "%ss.\"%s\"", sel.n ? ", " : "", c);
	}
	sqlite3_finalize(st);
	for (int i = 0; i < 2 && t->fk[i]; i++)
		sb_add(&joins, " JOIN temp.%s m%d ON m%d.old = s.%s", t->fk_map[i], i, i, t->fk[i]);
	sb_add(&sql, "INSERT INTO main.\"%s\" (%s) SELECT %s FROM src.\"%s\" s%s%s;", t->name,
	       cols.s, sel.s, t->name, joins.s, has_id ? " ORDER BY s.id" : "");
	if (t->map)
		sb_add(&sql, "INSERT INTO temp.%s SELECT s.id, n.id FROM src.\"%s\" s JOIN temp.%s m0"
		       " ON m0.old = s.%s JOIN main.\"%s\" n ON n.%s = m0.new AND n.\"%s\" = s.\"%s\";",
		       t->map, t->name, t->fk_map[0], t->fk[0], t->name, t->fk[0], t->key2, t->key2);
	if (cols.over || sel.over || joins.over || sql.over)
		return ns_err_code(err, NS_E_LIMIT, "table %s: too many columns to merge", t->name);
	if (ns_store_exec(db, sql.s, err) < 0) {
		ns_err_prefix(err, "merging %s", t->name);
		return -1;
	}
	return 0;
}

/* The input as a database at the current schema version: itself, or a migrated private copy
 * in tmp (never the user's file). Returns 0, or -1 (refused or unreadable; err says why). */
static int reconcile(const char *in, const char *tmp, const char **use, struct ns_err *err)
{
	sqlite3 *src = NULL, *dst = NULL;
	int rc = -1;
	if (sqlite3_open_v2(in, &src, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		ns_err_code(err, NS_E_USAGE, "%s: %s", in, src ? sqlite3_errmsg(src) : "cannot open");
		goto out;
	}
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(src, "SELECT count(*) FROM runs JOIN results ON 0", -1, &st, NULL) !=
	    SQLITE_OK) {
		ns_err_code(err, NS_E_USAGE, "%s: not a netsweep database (%s)", in,
			    sqlite3_errmsg(src));
		goto out;
	}
	sqlite3_finalize(st);
	int v = ns_store_user_version(src);
	if (v > STORE_SCHEMA_VERSION || v < 1) {
		ns_err_code(err, NS_E_USAGE, "%s: schema version %d, this netsweep merges versions 1 to "
			    "%d: merge it with the netsweep that wrote it", in, v, STORE_SCHEMA_VERSION);
		goto out;
	}
	*use = in;
	if (v == STORE_SCHEMA_VERSION) {
		rc = 0;
		goto out;
	}
	/* older: copy, then let the store's own ladder bring the copy up */
	if (sqlite3_open(tmp, &dst) != SQLITE_OK) {
		ns_err_code(err, store_sql_code(dst), "%s: %s", tmp, sqlite3_errmsg(dst));
		goto out;
	}
	sqlite3_backup *bk = sqlite3_backup_init(dst, "main", src, "main");
	if (!bk || sqlite3_backup_step(bk, -1) != SQLITE_DONE) {
		ns_err_code(err, store_sql_code(dst), "%s: copying for migration: %s", in,
			    sqlite3_errmsg(dst));
		sqlite3_backup_finish(bk);
		goto out;
	}
	sqlite3_backup_finish(bk);
	sqlite3_close(dst);
	dst = NULL;
	struct store *s = store_open(tmp, err);
	if (!s) {
		ns_err_prefix(err, "%s: migrating a copy", in);
		goto out;
	}
	store_close(s);
	*use = tmp;
	rc = 0;
out:
	sqlite3_close(dst);
	sqlite3_close(src);
	return rc;
}

/* The quoted column list of main.runs, with or without its id. */
static int runs_columns(sqlite3 *db, bool with_id, struct sbuf *cols, struct ns_err *err)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT name, pk FROM pragma_table_info('runs', 'main')", -1,
			       &st, NULL) != SQLITE_OK)
		return ns_err_code(err, store_sql_code(db), "database: %s", sqlite3_errmsg(db));
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 0);
		if (c && !strchr(c, '"') && (with_id || sqlite3_column_int(st, 1) == 0))
			sb_add(cols, "%s\"%s\"", cols->n ? ", " : "", c);
	}
	sqlite3_finalize(st);
	return 0;
}

/* Adds the runs of one input that OUT does not hold yet; *added counts them. */
static int merge_one(sqlite3 *db, const char *path, long long *added, struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;
	if (sqlite3_prepare_v2(db, "ATTACH ?1 AS src", -1, &st, NULL) != SQLITE_OK)
		return ns_err_code(err, store_sql_code(db), "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return ns_err_code(err, store_sql_code(db), "%s: %s", path, sqlite3_errmsg(db));
	if (ns_store_exec(db, "BEGIN IMMEDIATE;"
		 "CREATE TEMP TABLE map_runs (old INTEGER PRIMARY KEY, new INTEGER);"
		 "CREATE TEMP TABLE map_endpoints (old INTEGER PRIMARY KEY, new INTEGER);"
		 "CREATE TEMP TABLE map_cases (old INTEGER PRIMARY KEY, new INTEGER);"
		 "CREATE TEMP TABLE map_results (old INTEGER PRIMARY KEY, new INTEGER);"
		 "CREATE TEMP TABLE new_runs (old INTEGER PRIMARY KEY);"
		 "INSERT INTO temp.new_runs SELECT id FROM src.runs"
		 " WHERE uuid NOT IN (SELECT uuid FROM main.runs);",
		 err) < 0)
		goto rollback;
	/* runs first: every other table hangs below it */
	static const struct merge_table runs = {"runs", {NULL}, {NULL}, NULL, NULL};
	struct sbuf cols = {0}, sql = {0};
	if (runs_columns(db, false, &cols, err) < 0)
		goto rollback;
	sb_add(&sql, "INSERT INTO main.runs (%s) SELECT %s FROM src.runs WHERE id IN"
	       " (SELECT old FROM temp.new_runs) ORDER BY started_at, id;"
	       "INSERT INTO temp.map_runs SELECT s.id, m.id FROM src.runs s JOIN main.runs m"
	       " ON m.uuid = s.uuid WHERE s.id IN (SELECT old FROM temp.new_runs);",
	       cols.s, cols.s);
	if (cols.over || sql.over) {
		ns_err_code(err, NS_E_LIMIT, "%s: too many columns to merge", runs.name);
		goto rollback;
	}
	if (ns_store_exec(db, sql.s, err) < 0)
		goto rollback;
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (copy_table(db, &tables[i], err) < 0)
			goto rollback;
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM temp.map_runs", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		*added = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (ns_store_exec(db, "COMMIT", err) < 0)
		goto rollback;
	rc = 0;
	goto detach;
rollback:
	ns_store_exec(db, "ROLLBACK", NULL);
detach:
	ns_store_exec(db, "DROP TABLE IF EXISTS temp.map_runs; DROP TABLE IF EXISTS temp.map_endpoints;"
	     "DROP TABLE IF EXISTS temp.map_cases; DROP TABLE IF EXISTS temp.map_results;"
	     "DROP TABLE IF EXISTS temp.new_runs; DETACH src", NULL);
	if (rc < 0)
		ns_err_prefix(err, "%s", path);
	return rc;
}

/* A database file and the sidecars SQLite may have left beside it. */
static void unlink_db(const char *path)
{
	static const char *const side[] = {"", "-wal", "-shm", "-journal"};
	char p[4200];
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, side[i]);
		unlink(p);
	}
}

/* OUT's runs (their rows alone) copied into the staging database: merging an input into it
 * then adds, and counts, only the runs OUT lacks; merging it into OUT skips them again. */
static int seed_runs(sqlite3 *db, const char *out, struct ns_err *err)
{
	sqlite3_stmt *st = NULL;
	struct sbuf cols = {0}, sql = {0};
	if (sqlite3_prepare_v2(db, "ATTACH ?1 AS o", -1, &st, NULL) != SQLITE_OK)
		return ns_err_code(err, store_sql_code(db), "database: %s", sqlite3_errmsg(db));
	sqlite3_bind_text(st, 1, out, -1, SQLITE_STATIC);
	int step = sqlite3_step(st);
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return ns_err_code(err, store_sql_code(db), "%s: %s", out, sqlite3_errmsg(db));
	int rc = -1;
	if (runs_columns(db, true, &cols, err) < 0)
		goto detach;
	sb_add(&sql, "INSERT INTO main.runs (%s) SELECT %s FROM o.runs", cols.s, cols.s);
	if (cols.over || sql.over)
		ns_err_code(err, NS_E_LIMIT, "runs: too many columns to merge");
	else if (ns_store_exec(db, sql.s, err) == 0)
		rc = 0;
detach:
	ns_store_exec(db, "DETACH o", NULL);
	if (rc < 0)
		ns_err_prefix(err, "%s", out);
	return rc;
}

/* The staging database's new runs into the existing OUT, in one transaction. */
static int merge_stage(const char *out, const char *stage, struct ns_err *err)
{
	sqlite3 *db = NULL;
	long long added = 0;
	int rc = -1;
	if (sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		ns_err_code(err, store_sql_code(db), "%s: %s", out, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_busy_timeout(db, 10000);
	ns_store_exec(db, "PRAGMA foreign_keys = ON", NULL);
	rc = merge_one(db, stage, &added, err);
out:
	sqlite3_close(db);
	return rc;
}

struct store_merge {
	char out[4096];
	bool exists;                       /* OUT was there: it takes the stage in one transaction */
	char tmp[32];                      /* a migrated copy of an older input */
	struct atomicfile stage;           /* beside OUT: every input goes in here first */
	sqlite3 *db;                       /* the stage */
};

void store_merge_end(struct store_merge *mg)
{
	if (!mg)
		return;
	sqlite3_close(mg->db);
	if (mg->stage.tmp[0])
		unlink_db(mg->stage.tmp);
	atomicfile_abort(&mg->stage);
	if (mg->tmp[0])
		unlink_db(mg->tmp);
	free(mg);
}

int store_merge_begin(struct store_merge **out, const char *path, struct ns_err *err)
{
	struct stat osb;
	struct store_merge *mg = calloc(1, sizeof(*mg));
	*out = NULL;
	if (!mg)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	snprintf(mg->out, sizeof(mg->out), "%s", path);
	mg->exists = stat(path, &osb) == 0;
	if (mg->exists) {
		struct store *s = store_open(path, err); /* migrates OUT, in place as `run` does */
		if (!s)
			goto err;
		store_close(s);
	}
	snprintf(mg->tmp, sizeof(mg->tmp), "/tmp/netsweep-merge-XXXXXX");
	int fd = mkstemp(mg->tmp);
	if (fd < 0) {
		mg->tmp[0] = '\0';
		ns_err_sys(err, "a temporary file");
		goto err;
	}
	close(fd);
	if (atomicfile_open(&mg->stage, path, 0644, 0, err) < 0)
		goto err;
	struct store *s = store_open(mg->stage.tmp, err);
	if (!s)
		goto err;
	store_close(s);
	if (sqlite3_open(mg->stage.tmp, &mg->db) != SQLITE_OK) {
		ns_err_code(err, NS_E_IO, "%s: %s", mg->stage.tmp, sqlite3_errmsg(mg->db));
		goto err;
	}
	sqlite3_busy_timeout(mg->db, 10000);
	if (mg->exists && seed_runs(mg->db, path, err) < 0)
		goto err;
	ns_store_exec(mg->db, "PRAGMA foreign_keys = ON", NULL);
	*out = mg;
	return 0;
err:
	store_merge_end(mg);
	return -1;
}

int store_merge_add(struct store_merge *mg, const char *in, long long *added, struct ns_err *err)
{
	const char *use;
	*added = 0;
	unlink(mg->tmp);
	if (reconcile(in, mg->tmp, &use, err) < 0)
		return -1;
	return merge_one(mg->db, use, added, err);
}

int store_merge_commit(struct store_merge *mg, struct ns_err *err)
{
	int rc = sqlite3_close(mg->db);
	if (rc != SQLITE_OK)
		return ns_err_code(err, NS_E_IO, "%s: %s", mg->stage.tmp, sqlite3_errmsg(mg->db));
	mg->db = NULL;
	return !mg->exists ? atomicfile_commit(&mg->stage, err)
			   : merge_stage(mg->out, mg->stage.tmp, err);
}
