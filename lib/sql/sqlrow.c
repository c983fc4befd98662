#include "sqlrow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

int sqlrow_open_memory(sqlite3 **db, const char *what, struct ns_err *err)
{
	if (sqlite3_open_v2(":memory:", db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) ==
	    SQLITE_OK)
		return 0;
	ns_err_code(err, NS_E_NOMEM, "%s: SQLite: %s", what,
		    *db ? sqlite3_errmsg(*db) : "out of memory");
	sqlite3_close(*db);
	*db = NULL;
	return -1;
}

int sqlrow_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

const char *sqlrow_text(sqlite3_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(st, i);
}

char *sqlrow_dup(sqlite3_stmt *st, int i)
{
	const char *t = sqlrow_text(st, i);
	return t ? strdup(t) : NULL;
}

char *sqlrow_dup_or_empty(sqlite3_stmt *st, int i)
{
	const char *t = sqlrow_text(st, i);
	return strdup(t ? t : "");
}

size_t sqlrow_copy(char *dst, size_t cap, sqlite3_stmt *st, int i)
{
	const char *t = sqlrow_text(st, i);
	int n = snprintf(dst, cap, "%s", t ? t : "");
	return n < 0 ? 0 : (size_t)n;
}

double sqlrow_num(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

int sqlrow_cols(struct sqlite3_stmt *st, const char *const *names, size_t n, int *idx,
		struct ns_err *err)
{
	int ncol = sqlite3_column_count(st);
	for (size_t i = 0; i < n; i++) {
		idx[i] = -1;
		for (int c = 0; c < ncol && idx[i] < 0; c++) {
			const char *name = sqlite3_column_name(st, c);
			if (name && !strcmp(name, names[i]))
				idx[i] = c;
		}
		if (idx[i] < 0)
			return ns_err_code(err, NS_E_INPUT, "database: no column %s in the result",
					   names[i]);
	}
	return 0;
}
