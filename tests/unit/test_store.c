/* The store: schema applied once and versioned, a result and its samples round-trip, the
 * resume queries, and a duplicate (case, repeat) refused without changing anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/store/store.h"
#include "tests/lib/store_db.h"

static int setup(void **state)
{
	(void)state;
	store_db_fresh("test-store");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	store_db_remove();
	return 0;
}

static void schema_applied_once(void **state)
{
	(void)state;
	struct store *s = store_db_open();
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);
	s = store_db_open(); /* again: nothing to migrate, nothing breaks */
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);
	assert_int_equal(store_db_int("SELECT count(*) FROM sqlite_master WHERE name IN "
				   "('runs','endpoints','cases','results','samples','v_results')"), 6);
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(store_db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	/* a database from a newer netsweep is refused, not damaged */
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	struct ns_err err = {0};
	assert_null(store_open(store_db_path, &err));
	assert_non_null(strstr(err.msg, "newer"));
}

/* The bytes of a file (at most 1 MiB), NUL-terminated; *len (if not NULL) is their count. */
static char *slurp(const char *file, size_t *len)
{
	FILE *f = fopen(file, "rb");
	if (!f)
		fail_msg("cannot open %s", file);
	char *buf = malloc((1 << 20) + 1);
	assert_non_null(buf);
	size_t n = fread(buf, 1, 1 << 20, f);
	fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

/* Names of the tables, views and indexes of the database at db_path, one string. */
static void schema_names(const char *db_path, char *out, size_t cap)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_open(db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(type || ':' || name, ' ') FROM "
					    "(SELECT type, name FROM sqlite_master WHERE name NOT LIKE "
					    "'sqlite_%' ORDER BY type, name)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(out, cap, "%s", sqlite3_column_text(st, 0) ? (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* A version-1 database, made with the version-1 schema as it shipped (frozen in
 * tests/fixtures/store_v1.sql: its v_run_cost charged failed results too), holding a failed
 * result of a priced pair, is brought to the current schema: the view is replaced, the data
 * kept, and the database has every table, view and index a new one has. */
static void version_1_database_migrated(void **state)
{
	(void)state;
	sqlite3 *db;
	char *v1 = slurp(NETSWEEP_SCHEMADIR "/../tests/fixtures/store_v1.sql", NULL);
	assert_int_equal(sqlite3_open(store_db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, v1, NULL, NULL, NULL), SQLITE_OK);
	free(v1);
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO runs (id, matrix_name, matrix_text, matrix_hash,"
				      " started_at, netsweep_version) VALUES (1, 'm', '<matrix/>', 'h',"
				      " '2026-01-01T00:00:00Z', '0');"
				      "INSERT INTO endpoints (id, run_id, name, instance_type, region,"
				      " agent_addr) VALUES (1, 1, 'p', 'm4.large', 'us-east-1', 'a:1');"
				      "INSERT INTO run_prices VALUES (1, 'm4.large', 'us-east-1', 0.1,"
				      " '2026-01-01', 'test');"
				      "INSERT INTO cases (id, run_id, endpoint_id, case_key, ordinal,"
				      " protocol, streams, direction, duration_s, params) VALUES"
				      " (1, 1, 1, 'k', 0, 'tcp', 1, 'forward', 3600, '{}');"
				      "INSERT INTO results (case_id, repeat, started_at, finished_at, status,"
				      " error) VALUES (1, 0, 'a', 'b', 'failed', 'x');"
				      "PRAGMA user_version = 1;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	/* the old view charges the failed hour: 2 x $0.1 for the pair */
	assert_true(store_db_double("SELECT usd FROM v_run_cost WHERE run_id = 1") > 0.19);
	struct store *s = store_db_open();
	assert_int_equal(store_schema_version(s), STORE_SCHEMA_VERSION);
	store_close(s);
	assert_int_equal(store_db_int("SELECT count(*) FROM v_run_cost WHERE usd > 0"), 0);
	assert_int_equal(store_db_int("SELECT count(*) FROM results WHERE status = 'failed'"), 1);
	assert_int_equal(store_db_int("SELECT count(*) FROM sqlite_master WHERE name = 'v_run_cost'"
				   " AND sql LIKE '%status = ''ok''%'"), 1);
	char migrated[8192], fresh[8192], fresh_path[80];
	schema_names(store_db_path, migrated, sizeof(migrated));
	snprintf(fresh_path, sizeof(fresh_path), "%s.fresh", store_db_path);
	unlink(fresh_path);
	struct ns_err err = {0};
	struct store *f = store_open(fresh_path, &err);
	if (!f)
		fail_msg("store_open: %s", err.msg);
	store_close(f);
	schema_names(fresh_path, fresh, sizeof(fresh));
	unlink(fresh_path);
	if (strcmp(migrated, fresh) != 0)
		fail_msg("migrated: %s\nfresh:    %s", migrated, fresh);
}

static void count_done(const char *key, int repeat, void *ctx)
{
	(void)key;
	(void)repeat;
	(*(int *)ctx)++;
}

static void round_trip_and_resume(void **state)
{
	(void)state;
	struct store *s = store_db_open();
	struct ns_err err = {0};
	int64_t run, other, ep, case_id, again, found = 0, seed = 0, rid;
	struct store_run r = {.matrix_name = "m", .matrix_text = "<matrix/>", .matrix_hash = "abc",
			      .version = "0.1.0", .order = "shuffled", .has_seed = true, .seed = 7,
			      .repeats = 2};
	assert_int_equal(store_run_create(s, &r, &run, &err), 0);
	struct store_endpoint e = {.name = "loopback", .agent_addr = "127.0.0.1:5301",
				   .agent_info = "{\"interface\":{\"driver\":\"veth\","
						 "\"irq_cpus\":[0,2]}}"};
	assert_int_equal(store_endpoint_put(s, run, &e, &ep, &err), 0);
	/* resumed runs put their endpoints again: same row, refreshed */
	int64_t ep2;
	assert_int_equal(store_endpoint_put(s, run, &e, &ep2, &err), 0);
	assert_int_equal(ep, ep2);

	struct probe_params p;
	memset(&p, 0, sizeof(p));
	p.proto = NS_PROTO_TCP;
	p.streams = 2;
	p.duration_s = 3;
	struct store_case c = {.endpoint_id = ep, .case_key = "00112233aabbccdd", .ordinal = 0,
			       .p = &p, .affinity = "none", .params_json = "{\"streams\":2}"};
	assert_int_equal(store_case_put(s, run, &c, &case_id, &err), 0);
	assert_int_equal(store_case_put(s, run, &c, &again, &err), 0);
	assert_int_equal(case_id, again);

	/* a result with two sum intervals, one of them warm-up, and one stream interval */
	struct probe_interval iv[3] = {
		{.start_s = -1, .end_s = 0, .stream = -1, .bytes = 1, .bits_per_second = 8, .omitted = true},
		{.start_s = 0, .end_s = 1, .stream = -1, .bytes = 125000000, .bits_per_second = 1e9,
		 .retransmits = 3, .rtt_ms = 0.5},
		{.start_s = 0, .end_s = 1, .stream = 0, .bytes = 62500000, .bits_per_second = 5e8},
	};
	struct probe_result res;
	memset(&res, 0, sizeof(res));
	res.params = p;
	res.duration_s = 3.0;
	res.n_dirs = 1;
	res.dirs[0].intervals = iv;
	res.dirs[0].n_intervals = 3;
	res.dirs[0].sender.bits_per_second = 1.01e9;
	res.dirs[0].receiver.bits_per_second = 1e9;
	res.dirs[0].sender.retransmits = 3;
	struct store_result sr = {.case_id = case_id, .repeat = 0, .started_at = "a",
				  .finished_at = "b", .res = &res, .ok = true,
				  .probe_json = "{\"ok\":true}"};
	assert_int_equal(store_put_result(s, &sr, &rid, &err), 0);
	assert_true(store_db_double("SELECT goodput_bps FROM v_results") == 1e9);
	assert_int_equal(store_db_int("SELECT fwd_retransmits FROM results"), 3);
	assert_int_equal(store_db_int("SELECT count(*) FROM results WHERE fwd_lost IS NULL"), 1);
	assert_int_equal(store_db_int("SELECT count(*) FROM samples"), 2);
	assert_int_equal(store_db_int("SELECT count(*) FROM samples WHERE stream = -1 AND bps = 1e9"), 1);

	/* the same (case, repeat) again: refused, and the first stays as it was */
	res.dirs[0].receiver.bits_per_second = 5;
	assert_int_equal(store_put_result(s, &sr, NULL, &err), 1);
	assert_int_equal(store_db_int("SELECT count(*) FROM results"), 1);
	assert_true(store_db_double("SELECT fwd_rcv_bps FROM results") == 1e9);
	assert_int_equal(store_db_int("SELECT count(*) FROM samples"), 2);

	/* a failed case without figures */
	struct store_result fail = {.case_id = case_id, .repeat = 1, .started_at = "a",
				    .finished_at = "b", .ok = false, .error = "agent unreachable"};
	assert_int_equal(store_put_result(s, &fail, NULL, &err), 0);
	assert_int_equal(store_db_int("SELECT count(*) FROM results WHERE status = 'failed' AND "
				   "error = 'agent unreachable' AND fwd_rcv_bps IS NULL"), 1);

	/* resume: the newest run of the hash, only while it is unfinished, and what it has done */
	assert_int_equal(store_run_find_unfinished(s, "abc", &found, &seed, &err), 1);
	assert_int_equal(found, run);
	assert_int_equal(store_run_create(s, &r, &other, &err), 0);
	assert_int_equal(store_run_find_unfinished(s, "abc", &found, &seed, &err), 1);
	assert_int_equal(found, other);
	assert_int_equal(seed, 7);
	/* a newer run finished: the older interrupted one is not resumed, a new run starts */
	assert_int_equal(store_run_set_status(s, other, "done", NULL, &err), 0);
	found = 0;
	assert_int_equal(store_run_find_unfinished(s, "abc", &found, NULL, &err), 0);
	assert_int_equal(store_run_find_unfinished(s, "zzz", &found, NULL, &err), 0);
	int n = 0;
	assert_int_equal(store_results_done(s, run, false, count_done, &n, &err), 0);
	assert_int_equal(n, 2);

	store_close(s);
	assert_int_equal(store_db_int("SELECT count(*) FROM pragma_integrity_check WHERE "
				   "integrity_check = 'ok'"), 1);
}

/* results ids are reused (no AUTOINCREMENT): samples that a manual DELETE in the sqlite3 shell
 * (foreign keys off there) left behind must not make the next result's insert fail. */
static void stale_samples_replaced(void **state)
{
	(void)state;
	struct store *s = store_db_open();
	struct ns_err err = {0};
	int64_t run, ep, case_id, rid1 = 0, rid2 = 0;
	struct store_run r = {.matrix_name = "m", .matrix_text = "<matrix/>", .matrix_hash = "abc",
			      .version = "0.1.0", .order = "as-written", .repeats = 2};
	assert_int_equal(store_run_create(s, &r, &run, &err), 0);
	struct store_endpoint e = {.name = "loopback", .agent_addr = "127.0.0.1:5301"};
	assert_int_equal(store_endpoint_put(s, run, &e, &ep, &err), 0);
	struct probe_params p;
	memset(&p, 0, sizeof(p));
	p.proto = NS_PROTO_TCP;
	p.streams = 1;
	p.duration_s = 1;
	struct store_case c = {.endpoint_id = ep, .case_key = "00112233aabbccdd", .p = &p,
			       .affinity = "none", .params_json = "{}"};
	assert_int_equal(store_case_put(s, run, &c, &case_id, &err), 0);
	struct probe_interval iv[2] = {
		{.start_s = 0, .end_s = 1, .stream = -1, .bytes = 100, .bits_per_second = 800},
		{.start_s = 0, .end_s = 1, .stream = 0, .bytes = 100, .bits_per_second = 800},
	};
	struct probe_result res;
	memset(&res, 0, sizeof(res));
	res.params = p;
	res.duration_s = 1;
	res.n_dirs = 1;
	res.dirs[0].intervals = iv;
	res.dirs[0].n_intervals = 2;
	res.dirs[0].receiver.bits_per_second = 800;
	struct store_result sr = {.case_id = case_id, .repeat = 0, .started_at = "a",
				  .finished_at = "b", .res = &res, .ok = true};
	assert_int_equal(store_put_result(s, &sr, &rid1, &err), 0);

	/* the sqlite3 shell's way: foreign keys off, so the samples stay */
	sqlite3 *db;
	assert_int_equal(sqlite3_open(store_db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA foreign_keys = OFF; DELETE FROM results",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(store_db_int("SELECT count(*) FROM samples"), 2);

	iv[0].bits_per_second = iv[1].bits_per_second = 1600;
	sr.repeat = 1;
	err.msg[0] = '\0';
	if (store_put_result(s, &sr, &rid2, &err) != 0)
		fail_msg("the next result after a manual DELETE: %s", err.msg);
	assert_int_equal(rid2, rid1); /* the id was reused: the case this guards */
	assert_int_equal(store_db_int("SELECT count(*) FROM samples"), 2);
	assert_int_equal(store_db_int("SELECT count(*) FROM samples WHERE bps = 1600"), 2);
	store_close(s);
}

/* Phases and socket drops are stored per result (version 7): a row per direction whose
 * series stepped down, none for one that did not. And the NIC counters (version 9): a row per
 * end whose interface was read, none for one that was not, and the provider's flag. */
static void phases_and_socket_drops_stored(void **state)
{
	(void)state;
	struct store *s = store_db_open();
	struct ns_err err = {0};
	int64_t run, ep, case_id, rid = 0;
	struct store_run r = {.matrix_name = "m", .matrix_text = "<matrix/>", .matrix_hash = "abd",
			      .version = "0.1.0", .order = "as-written", .repeats = 1};
	assert_int_equal(store_run_create(s, &r, &run, &err), 0);
	struct store_endpoint e = {.name = "loopback", .agent_addr = "127.0.0.1:5301"};
	assert_int_equal(store_endpoint_put(s, run, &e, &ep, &err), 0);
	struct probe_params p;
	memset(&p, 0, sizeof(p));
	p.proto = NS_PROTO_UDP;
	p.streams = 1;
	p.duration_s = 20;
	p.dir = NS_DIR_BIDIR;
	struct store_case c = {.endpoint_id = ep, .case_key = "00112233aabbccee", .p = &p,
			       .affinity = "none", .params_json = "{}"};
	assert_int_equal(store_case_put(s, run, &c, &case_id, &err), 0);
	struct probe_result res;
	memset(&res, 0, sizeof(res));
	res.params = p;
	res.duration_s = 20;
	res.n_dirs = 2;
	res.dirs[0].receiver.socket_drops = 4321;
	res.dirs[0].shaping = (struct probe_shaping){true, 150e6, 7.25, 38e6};
	res.nic_agent = (struct probe_nic){.ifname = "ens5", .allowance_counters = 5,
					   .bw_in_allowance_exceeded = 11,
					   .bw_out_allowance_exceeded = 1234,
					   .pps_allowance_exceeded = 13,
					   .conntrack_allowance_exceeded = 14,
					   .linklocal_allowance_exceeded = 15,
					   .drops = 16, .rx_packets = 17, .tx_packets = 18,
					   .rx_bytes = 19ull << 32, .tx_bytes = 20};
	res.shaped_by_provider = true;
	struct store_result sr = {.case_id = case_id, .repeat = 0, .started_at = "a",
				  .finished_at = "b", .res = &res, .ok = true};
	if (store_put_result(s, &sr, &rid, &err) != 0)
		fail_msg("store_put_result: %s", err.msg);
	assert_int_equal(store_db_int("PRAGMA user_version"), STORE_SCHEMA_VERSION);
	assert_int_equal(store_db_int("SELECT fwd_socket_drops FROM results"), 4321);
	assert_int_equal(store_db_int("SELECT count(*) FROM result_phases"), 1);
	assert_true(store_db_double("SELECT burst_s FROM result_phases WHERE direction = 'fwd'") == 7.25);
	assert_true(store_db_double("SELECT sustained_bps FROM result_phases") == 38e6);
	assert_true(store_db_double("SELECT burst_bps FROM result_phases") == 150e6);
	assert_int_equal(store_db_int("SELECT shaped_by_provider FROM results"), 1);
	assert_int_equal(store_db_int("SELECT count(*) FROM result_nics"), 1); /* no client row */
	assert_int_equal(store_db_int("SELECT count(*) FROM result_nics WHERE side = 'agent' AND"
				   " ifname = 'ens5' AND allowance_counters = 5 AND"
				   " bw_in_allowance_exceeded = 11 AND bw_out_allowance_exceeded = 1234"
				   " AND pps_allowance_exceeded = 13 AND conntrack_allowance_exceeded = 14"
				   " AND linklocal_allowance_exceeded = 15 AND drops = 16 AND"
				   " rx_packets = 17 AND tx_packets = 18 AND rx_bytes = 19 << 32 AND"
				   " tx_bytes = 20"), 1);
	/* the view: the same row with its run and case */
	assert_int_equal(store_db_int("SELECT count(*) FROM v_result_nics WHERE side = 'agent' AND"
				   " rx_bytes = 19 << 32 AND tx_bytes = 20 AND rx_packets = 17 AND"
				   " run_id = 1 AND repeat = 0"), 1);
	store_close(s);
}

/* A newer database is refused before anything is changed: not even switched to WAL (its
 * header bytes 18-19 would change). NS_E_INPUT, so that run exits 2. */
static void newer_database_left_byte_identical(void **state)
{
	(void)state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(store_db_path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE future (x); PRAGMA user_version = 99",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	size_t n0, n1;
	char *before = slurp(store_db_path, &n0);
	struct ns_err err = {0};
	assert_null(store_open(store_db_path, &err));
	assert_int_equal(err.code, NS_E_INPUT);
	assert_non_null(strstr(err.msg, "schema version 99 is newer"));
	char *after = slurp(store_db_path, &n1);
	assert_int_equal(n0, n1);
	assert_memory_equal(before, after, n0);
	free(before);
	free(after);
	char wal[80];
	snprintf(wal, sizeof(wal), "%s-wal", store_db_path);
	assert_int_equal(access(wal, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(schema_applied_once, setup, teardown),
		cmocka_unit_test_setup_teardown(version_1_database_migrated, setup, teardown),
		cmocka_unit_test_setup_teardown(round_trip_and_resume, setup, teardown),
		cmocka_unit_test_setup_teardown(stale_samples_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(phases_and_socket_drops_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(newer_database_left_byte_identical, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
