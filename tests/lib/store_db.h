/* store_db: what the store's unit tests share (include after cmocka.h) — a database file of
 * the test's own under /tmp, removed with its WAL sidecars, the store opened on it, and one
 * number read back on a separate connection (what a report would see). */
#ifndef NS_TEST_STORE_DB_H
#define NS_TEST_STORE_DB_H

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

#include "runner/store/store.h"

static char store_db_path[64];

/* A fresh path for this test program: /tmp/s3-NAME-PID.db, nothing there. */
static inline void store_db_fresh(const char *name)
{
	snprintf(store_db_path, sizeof(store_db_path), "/tmp/s3-%s-%d.db", name, (int)getpid());
	unlink(store_db_path);
}

static inline void store_db_remove(void)
{
	static const char *const side[] = {"", "-wal", "-shm"};
	char p[80];
	for (size_t i = 0; i < sizeof(side) / sizeof(side[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", store_db_path, side[i]);
		unlink(p);
	}
}

static inline struct store *store_db_open(void)
{
	struct ns_err err = {0};
	struct store *s = store_open(store_db_path, &err);
	if (!s)
		fail_msg("store_open: %s", err.msg);
	return s;
}

static inline double store_db_double(const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	double v = -1;
	assert_int_equal(sqlite3_open(store_db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static inline long long store_db_int(const char *sql)
{
	return (long long)store_db_double(sql);
}

/* A run of matrix hash "h" with one endpoint and one case (key "k"): its ids. */
static inline void store_db_one_case(struct store *s, int64_t *run, int64_t *case_id)
{
	struct ns_err err = {0};
	int64_t ep;
	struct store_run r = {.matrix_name = "m", .matrix_text = "<matrix/>", .matrix_hash = "h",
			      .version = "0.1.0", .order = "as-written", .repeats = 1};
	assert_int_equal(store_run_create(s, &r, run, &err), 0);
	struct store_endpoint e = {.name = "lo", .agent_addr = "127.0.0.1:1"};
	assert_int_equal(store_endpoint_put(s, *run, &e, &ep, &err), 0);
	static struct probe_params p = {.streams = 1, .duration_s = 1};
	struct store_case c = {.endpoint_id = ep, .case_key = "k", .p = &p, .affinity = "none",
			       .params_json = "{}"};
	if (store_case_put(s, *run, &c, case_id, &err) < 0)
		fail_msg("%s", err.msg);
}

#endif
