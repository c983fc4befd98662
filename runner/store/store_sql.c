/* store_sql: see store_sql.h. */
#include "store_sql.h"

enum ns_err_code store_sql_code(sqlite3 *db)
{
	int rc = sqlite3_errcode(db) & 0xff;
	enum ns_err_code code = NS_E_FAIL;
	if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
		code = NS_E_BUSY;
	else if (rc == SQLITE_NOMEM)
		code = NS_E_NOMEM;
	else if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB)
		code = NS_E_INPUT;
	else if (rc == SQLITE_IOERR || rc == SQLITE_FULL || rc == SQLITE_CANTOPEN ||
		 rc == SQLITE_READONLY || rc == SQLITE_PERM)
		code = NS_E_IO;
	return code;
}

int store_sql_err(sqlite3 *db, struct ns_err *err, const char *what)
{
	return ns_err_code(err, store_sql_code(db), "database: %s: %s", what, sqlite3_errmsg(db));
}

int store_sql_step_done(sqlite3 *db, sqlite3_stmt *st, struct ns_err *err, const char *what)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : store_sql_err(db, err, what);
}
