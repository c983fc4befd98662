#include "store_read.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "lib/sql/sqlrow.h"
#include "lib/sql/store_schema.h"

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
	if (sqlrow_open_memory(&mem, path, err) < 0) {
		ns_err_prefix(err, "an in-memory copy to migrate");
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

int ns_store_open_read(const char *path, sqlite3 **db, struct ns_err *err)
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
