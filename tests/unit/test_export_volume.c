/* report/load/export_rows: export --monthly-transfer shadows the store's v_cost_total with a
 * TEMP view of the same text reading the stated volume: every run reads it, the stored volume
 * stays as it was, a second call replaces the first, and a store whose view prices no volume
 * is refused with NS_E_INPUT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "report/load/export_rows.h"

static sqlite3 *store(const char *view)
{
	sqlite3 *db = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	char sql[1024];
	snprintf(sql, sizeof(sql),
		 "CREATE TABLE runs (id INTEGER PRIMARY KEY);"
		 "CREATE TABLE run_transfer_volume (run_id INTEGER PRIMARY KEY, monthly_gb REAL);"
		 "INSERT INTO runs VALUES (1), (2);"
		 "INSERT INTO run_transfer_volume VALUES (1, 100);"
		 "CREATE VIEW IF NOT EXISTS v_cost_total AS %s;", view);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	return db;
}

static char *volumes(sqlite3 *db, const char *sql, char *out, size_t len)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

static void the_stated_volume_replaces_each_runs(void **state)
{
	(void)state;
	sqlite3 *db = store("SELECT r.id AS run_id, coalesce(v.monthly_gb, 7) AS monthly_gb "
			    "FROM runs r LEFT JOIN run_transfer_volume v ON v.run_id = r.id");
	char b[128];
	const char *q = "SELECT group_concat(run_id || '=' || monthly_gb, ' ') FROM v_cost_total";
	assert_string_equal(volumes(db, q, b, sizeof(b)), "1=100.0 2=7");
	struct ns_err err = {0};
	assert_int_equal(rp_export_monthly_volume(db, 5000, &err), 0);
	assert_string_equal(volumes(db, q, b, sizeof(b)), "1=5000.0 2=5000.0");
	assert_int_equal(rp_export_monthly_volume(db, 50000, &err), 0);
	assert_string_equal(volumes(db, q, b, sizeof(b)), "1=50000.0 2=50000.0");
	/* the store's own view and volume as they were */
	assert_string_equal(volumes(db, "SELECT group_concat(run_id || '=' || monthly_gb, ' ') "
				    "FROM main.v_cost_total", b, sizeof(b)), "1=100.0 2=7");
	assert_string_equal(volumes(db, "SELECT count(*) FROM main.run_transfer_volume", b,
				    sizeof(b)), "1");
	sqlite3_close(db);
}

static void a_view_without_a_volume_is_refused(void **state)
{
	(void)state;
	sqlite3 *db = store("SELECT id AS run_id, 7 AS monthly_gb FROM runs");
	struct ns_err err = {0};
	assert_int_equal(rp_export_monthly_volume(db, 5000, &err), -1);
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "--monthly-transfer"));
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_stated_volume_replaces_each_runs),
		cmocka_unit_test(a_view_without_a_volume_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
