/* The report's limits (report/load/limits.c) from a database built through the real migration
 * ladder: a case whose repeat was sender_limited gets the note and a finding that says its
 * figure is the sender's; a case whose sender thread used a whole core gets "the tool's core,
 * add threads"; steal is named; the --fail-on-regression gate leaves a limited case out
 * (rp_cmp_gate counts it as limited, not as a regression); a case with nothing to say, and
 * results stored without limits, get nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <sqlite3.h>

#include "lib/sql/store_schema.h"
#include "report/analyze/compare.h"
#include "report/load/data.h"
#include "report/analyze/findings.h"
#include "report/load/limits.h"
#include "tests/lib/report_db.h"

/* Run 1 on pair p: 'paced' (udp -b 50M, two repeats, one offered 37 Mbit/s: sender_limited,
 * pacer_late), 'core' (tcp 1 stream, the sender thread at 99 % CPU and 12 % steal) and
 * 'plain' (delivered what it asked). */
static const char rows[] =
	REPORT_DB_RUN_PAIR
	"INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol, streams,"
	"  rate_bps, direction, duration_s, params) VALUES"
	"  (10, 1, 1, 'paced', 1, 'udp', 1, 50000000, 'forward', 10, '{}'),"
	"  (11, 1, 1, 'core', 2, 'tcp', 1, 0, 'forward', 10, '{}'),"
	"  (12, 1, 1, 'plain', 3, 'udp', 2, 10000000, 'forward', 10, '{}');"
	"INSERT INTO results(id, case_id, repeat, started_at, finished_at, status, fwd_rcv_bps)"
	"  VALUES (100, 10, 0, 't', 't', 'ok', 37e6), (101, 10, 1, 't', 't', 'ok', 49.9e6),"
	"  (102, 11, 0, 't', 't', 'ok', 9e9), (103, 12, 0, 't', 't', 'ok', 1e7);"
	"INSERT INTO result_limits VALUES"
	"  (100, 'fwd', 50e6, 37e6, 26, 1, 'pacer_late', 'sender_cpu', 19, 7, 0, 0, 0, 25),"
	"  (101, 'fwd', 50e6, 49.9e6, 0.2, 0, NULL, 'pacing', 20, 7, 0, 0, 0, 0),"
	"  (102, 'fwd', 0, 9e9, 0, 0, NULL, 'sender_cpu', 99.2, 40, 12, 1, 5, 0),"
	"  (103, 'fwd', 1e7, 1e7, 0, 0, NULL, 'pacing', 3, 2, 0, 0, 0, 0);";

static const char *finding(const struct rp_findings *f, const char *what)
{
	for (size_t i = 0; i < f->n; i++)
		if (strstr(f->items[i].text, what))
			return f->items[i].text;
	return NULL;
}

/* A database through the real ladder with rows, then extra SQL; d and f loaded from it. */
static sqlite3 *load(const char *extra, struct rp_data *d, struct rp_findings *f)
{
	sqlite3 *db;
	struct ns_err err = {0};
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	if (ns_store_migrate(db, &err) < 0)
		fail_msg("migrate: %s", err.msg);
	exec(db, rows);
	exec(db, extra);
	if (rp_data_load(db, 1, d, &err) < 0)
		fail_msg("rp_data_load: %s", err.msg);
	if (rp_findings_build(d, NULL, 0, NULL, NULL, NULL, f, &err) < 0)
		fail_msg("rp_findings_build: %s", err.msg);
	return db;
}

static const struct rp_case *by_id(const struct rp_data *d, long long id)
{
	for (size_t i = 0; i < d->n_cases; i++)
		if (d->cases[i].id == id)
			return &d->cases[i];
	fail_msg("no case %lld", id);
	return NULL;
}

static void limited_cases_are_marked_and_not_gated(void **state)
{
	(void)state;
	struct ns_err err = {0};
	struct rp_data d;
	struct rp_findings f;
	sqlite3 *db = load("", &d, &f);
	const struct rp_case *paced = by_id(&d, 10), *core = by_id(&d, 11), *plain = by_id(&d, 12);
	assert_int_equal(paced->n_sender_limited, 1);
	assert_string_equal(paced->limit_cause, "pacer_late");
	struct rp_buf b;
	rp_buf_init(&b);
	assert_true(rp_limits_note(paced, &b));
	assert_string_equal(rp_buf_str(&b), "sender-limited in 1 of 2 repeats: offered 37.0 of "
			    "50.0 Mbit/s asked (26 % short, pacer_late)");
	rp_buf_reset(&b);
	assert_false(rp_limits_note(core, &b));
	assert_false(rp_limits_note(plain, &b));
	rp_buf_free(&b);
	const char *s = finding(&f, "sender-limited in 1 of 2");
	assert_non_null(s);
	assert_non_null(strstr(s, "not the path's"));
	s = finding(&f, "one sender thread at 99 % CPU: the figure is the tool's core, add threads.");
	assert_non_null(s);
	assert_non_null(strstr(s, "stole up to 12 %"));
	assert_null(finding(&f, "10 Mbit/s")); /* the plain case has nothing to say */

	/* the gate against itself as the baseline: the limited case is left out, and said so */
	struct rp_cmp cmp;
	struct rp_gate g;
	if (rp_compare(&d, &d, 0.05, 5, &cmp, &err) < 0)
		fail_msg("rp_compare: %s", err.msg);
	rp_cmp_gate(&cmp, &d, &d, 5, &g);
	assert_int_equal(g.limited, 1);
	rp_cmp_free(&cmp);
	rp_findings_free(&f);
	rp_data_free(&d);
	sqlite3_close(db);
}

/* A receiver limited by its CPU without a busy thread: for UDP its own socket buffers
 * dropped what was lost; a TCP case has no such drops — it waited for a CPU, and never gets
 * the UDP buffer advice. */
static void receiver_limit_words_follow_the_protocol(void **state)
{
	(void)state;
	struct rp_data d;
	struct rp_findings f;
	sqlite3 *db = load("INSERT INTO cases(id, run_id, endpoint_id, case_key, ordinal, protocol,"
			   "  streams, rate_bps, direction, duration_s, params) VALUES"
			   "  (13, 1, 1, 'tcpq', 4, 'tcp', 1, 0, 'forward', 10, '{}'),"
			   "  (14, 1, 1, 'udpq', 5, 'udp', 1, 9e8, 'forward', 10, '{}');"
			   "INSERT INTO results(id, case_id, repeat, started_at, finished_at, status,"
			   "  fwd_rcv_bps) VALUES (104, 13, 0, 't', 't', 'ok', 3e9),"
			   "  (105, 14, 0, 't', 't', 'ok', 6e8);"
			   "INSERT INTO result_limits VALUES"
			   "  (104, 'fwd', 0, 3.3e9, 9, 0, NULL, 'receiver_cpu', 30, 40, 0, 0, 0, 0),"
			   "  (105, 'fwd', 9e8, 9e8, 33, 0, NULL, 'receiver_cpu', 30, 40, 0, 0, 0, 0);",
			   &d, &f);
	struct rp_buf b;
	rp_buf_init(&b);
	for (size_t i = 0; i < d.n_cases; i++) {
		rp_buf_reset(&b);
		if (d.cases[i].id == 13) {
			assert_true(rp_limits_finding(&d, i, &b));
			assert_non_null(strstr(rp_buf_str(&b), "waited for a CPU"));
			assert_null(strstr(rp_buf_str(&b), "socket buffers"));
		} else if (d.cases[i].id == 14) {
			assert_true(rp_limits_finding(&d, i, &b));
			assert_non_null(strstr(rp_buf_str(&b), "socket buffers dropped"));
		}
	}
	rp_buf_free(&b);
	rp_findings_free(&f);
	rp_data_free(&d);
	sqlite3_close(db);
}

/* Results stored before version 16 have no result_limits rows: nothing is marked. */
static void results_without_limits_say_nothing(void **state)
{
	(void)state;
	struct rp_data d;
	struct rp_findings f;
	sqlite3 *db = load("DELETE FROM result_limits;", &d, &f);
	assert_int_equal(by_id(&d, 10)->n_sender_limited, 0);
	assert_null(finding(&f, "sender-limited"));
	rp_findings_free(&f);
	rp_data_free(&d);
	sqlite3_close(db);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limited_cases_are_marked_and_not_gated),
		cmocka_unit_test(results_without_limits_say_nothing),
		cmocka_unit_test(receiver_limit_words_follow_the_protocol),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
