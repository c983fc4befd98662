/* store_schema: the results database's schema (schemas/store.sql, compiled in) and its
 * migration ladder by PRAGMA user_version, shared by the runner, which migrates its database
 * in place, and the report, which migrates an in-memory copy of an older one. */
#ifndef NS_STORE_SCHEMA_H
#define NS_STORE_SCHEMA_H

#include "lib/err.h"
#include "lib/sql/store_version.h"

struct sqlite3;

extern const char NS_STORE_SQL[]; /* schemas/store.sql (mk/lib.mk embeds it) */

/* The user_version of db's main database, or -1 when it cannot be read (not a database). */
int ns_store_user_version(struct sqlite3 *db);

/* Runs sql (any number of statements); -1 with "database: " and SQLite's message in err. */
int ns_store_exec(struct sqlite3 *db, const char *sql, struct ns_err *err);

/* Brings db from its user_version (0: empty) to NS_STORE_SCHEMA_VERSION in one IMMEDIATE
 * transaction, so two writers opening a fresh file never both apply the schema. A newer
 * version is refused without a change. Returns 0 or -1 with err set. */
int ns_store_migrate(struct sqlite3 *db, struct ns_err *err);

#endif
