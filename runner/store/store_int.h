/* store_int: for runner/store/ only — the connection behind a struct store, the mutex that
 * serialises every use of it, and the statement habits the store's files share. Nothing
 * outside runner/store/ includes it: whoever needs SQL gets a function of the store. */
#ifndef NS_STORE_INT_H
#define NS_STORE_INT_H

#include <sqlite3.h>

#include "lib/err.h"
#include "store.h"

sqlite3 *store_db(struct store *s);
void store_lock(struct store *s);
void store_unlock(struct store *s);

/* "database: WHAT: SQLite's message" into err, with the code SQLite's error means (busy,
 * out of memory, a damaged or foreign file: input, else I/O). Returns -1. */
int store_db_err(sqlite3 *db, struct ns_err *err, const char *what);

/* Binds v as TEXT (copied), or NULL when v is NULL. */
void store_bind_text(sqlite3_stmt *st, int i, const char *v);

/* Steps a write statement to its end, then resets it: 0, or -1 with err saying what. */
int store_step_done(sqlite3 *db, sqlite3_stmt *st, struct ns_err *err, const char *what);

#endif
