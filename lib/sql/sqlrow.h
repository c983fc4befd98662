/* sqlrow: the few SQLite habits every reader and writer of the store shares, written once —
 * a C string bound as TEXT or NULL, a column's text copied or borrowed, a column's number with
 * NULL as NaN (the report's "missing", never a 0 that reads as a measurement), and the one way
 * a private in-memory database is opened (the JSON reader's connection, the report's migrated
 * copy of an older store: layout_deps.sh lets no other file open one). */
#ifndef NS_SQLROW_H
#define NS_SQLROW_H

#include <stddef.h>

#include "lib/err.h"

struct sqlite3;
struct sqlite3_stmt;

/* A new, empty in-memory database of this connection's own: 0, or -1 with NS_E_NOMEM and
 * "WHAT: SQLite's words" in err (*db NULL). */
int sqlrow_open_memory(struct sqlite3 **db, const char *what, struct ns_err *err);

/* Binds v as TEXT (copied), or NULL when v is NULL. Returns SQLite's code. */
int sqlrow_bind_text(struct sqlite3_stmt *st, int i, const char *v);

/* The indexes of a statement's result columns by name (a column's AS alias, else its own
 * name): idx[i] for names[i], so that a reader reads by name, not by position. 0, or -1 with
 * NS_E_INPUT naming the first column the statement lacks. */
int sqlrow_cols(struct sqlite3_stmt *st, const char *const *names, size_t n, int *idx,
		struct ns_err *err);

/* The column's text, borrowed until the next step, reset or finalize; NULL for SQL NULL. */
const char *sqlrow_text(struct sqlite3_stmt *st, int i);

/* A malloc'd copy of the column's text; NULL for SQL NULL (or out of memory). */
char *sqlrow_dup(struct sqlite3_stmt *st, int i);

/* The same with "" for SQL NULL, for a reader that never holds NULL strings (NULL only when
 * out of memory). */
char *sqlrow_dup_or_empty(struct sqlite3_stmt *st, int i);

/* The column's text into dst (cap bytes, always terminated when cap > 0); "" for SQL NULL.
 * Returns the text's length, as snprintf does, so a cut copy shows as >= cap. */
size_t sqlrow_copy(char *dst, size_t cap, struct sqlite3_stmt *st, int i);

/* The column as a double; NaN for SQL NULL. */
double sqlrow_num(struct sqlite3_stmt *st, int i);

#endif
