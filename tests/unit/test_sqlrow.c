/* lib/sql/sqlrow: NULL binds as NULL and reads back as NULL/NaN/"", text is copied whole or cut
 * with its length told, numbers come back as numbers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sql/sqlrow.h"

static void null_and_text_round_trip(void **state)
{
	(void)state;
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open_v2("file:sqlrow?mode=memory", &db,
					 SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT ?1, ?2, ?2 IS NULL, 2.5, NULL", -1, &st,
					    NULL), SQLITE_OK);
	char word[] = "night-1";
	assert_int_equal(sqlrow_bind_text(st, 1, word), SQLITE_OK);
	assert_int_equal(sqlrow_bind_text(st, 2, NULL), SQLITE_OK);
	word[0] = 'X'; /* bound as a copy: the caller's buffer may change */
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal(sqlrow_text(st, 0), "night-1");
	assert_null(sqlrow_text(st, 1));
	assert_int_equal(sqlite3_column_int(st, 2), 1);
	char *d = sqlrow_dup(st, 0);
	assert_string_equal(d, "night-1");
	free(d);
	assert_null(sqlrow_dup(st, 1));
	d = sqlrow_dup_or_empty(st, 1);
	assert_string_equal(d, "");
	free(d);
	char small[4];
	assert_int_equal(sqlrow_copy(small, sizeof(small), st, 0), strlen("night-1"));
	assert_string_equal(small, "nig");
	assert_int_equal(sqlrow_copy(small, sizeof(small), st, 1), 0);
	assert_string_equal(small, "");
	assert_true(sqlrow_num(st, 3) == 2.5);
	assert_true(isnan(sqlrow_num(st, 4)));
	assert_true(sqlrow_num(st, 0) == 0); /* text that is no number reads as SQLite's 0 */
	sqlite3_finalize(st);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(null_and_text_round_trip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
