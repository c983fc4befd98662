/* store_sql: the statement habits every file of runner/store/ shares, below them all — a
 * write stepped to its end, and SQLite's error turned into one of ours with the code it
 * means (binding and reading columns: lib/sql/sqlrow.h). For runner/store/ only. */
#ifndef NS_STORE_SQL_H
#define NS_STORE_SQL_H

#include <sqlite3.h>

#include "lib/err.h"

/* The code the connection's last error means: busy, out of memory, a damaged or foreign
 * file: input, a failed open, read or write: I/O, else fail. */
enum ns_err_code store_sql_code(sqlite3 *db);
/* "database: WHAT: SQLite's message" into err with that code. Returns -1. */
int store_sql_err(sqlite3 *db, struct ns_err *err, const char *what);

/* Steps a write statement to its end, then resets it: 0, or -1 with err saying what. */
int store_sql_step_done(sqlite3 *db, sqlite3_stmt *st, struct ns_err *err, const char *what);

#endif
