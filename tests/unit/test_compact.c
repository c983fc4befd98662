/* Long-run cases (issue 11) stored compactly: compact_long_run keeps the sums only, the first
 * minute as measured and ten-second buckets after it, with every byte accounted for; and an
 * hour's result at the default interval, put through the store API into a real database,
 * grows it by less than the bound README states (COMPACT_HOUR_BOUND below). */
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

#include "runner/sweep/compact.h"
#include "runner/store/store.h"

/* README and schemas/store.sql: a 1-hour long-run case at the default 1 s interval costs
 * under 200 KB of database, whatever its stream count (measured: ~110 KB). */
#define COMPACT_HOUR_BOUND 200000
/* ... and its longest at 10 ms intervals (1000 s: the protocol's 100,000 intervals), under
 * 300 KB (measured: ~200 KB; its first minute is kept in 600 rows, not 100). */
#define COMPACT_FINE_BOUND 300000

/* A forward TCP result of secs at interval ivl over n streams: per-stream rows and sums,
 * 100 Mbit/s per stream for the first 600 s, then 20. */
static void synth(struct probe_result *res, double secs, double ivl, uint32_t n, bool long_run)
{
	memset(res, 0, sizeof(*res));
	probe_params_init(&res->params);
	res->params.streams = n;
	res->params.duration_s = secs;
	res->params.interval_s = ivl;
	if (long_run) {
		snprintf(res->params.until, sizeof(res->params.until), "sustained");
		res->params.steady_s = 60;
		snprintf(res->ended, sizeof(res->ended), "duration");
	}
	res->n_dirs = 1;
	res->duration_s = secs;
	struct probe_direction *d = &res->dirs[0];
	uint32_t k = (uint32_t)(secs / ivl + 0.5);
	d->intervals = calloc((size_t)k * (n + 1), sizeof(*d->intervals));
	assert_non_null(d->intervals);
	d->streams = calloc(n, sizeof(*d->streams));
	assert_non_null(d->streams);
	d->n_streams = n;
	for (uint32_t i = 0; i < k; i++) {
		double t0 = i * ivl, rate = t0 < 600 ? 100e6 : 20e6;
		for (int32_t s = -1; s < (int32_t)n; s++) {
			struct probe_interval *v = &d->intervals[d->n_intervals++];
			double r = s == -1 ? rate * n : rate;
			*v = (struct probe_interval){.start_s = t0, .end_s = t0 + ivl, .stream = s,
						     .bytes = (uint64_t)(r * ivl / 8), .bits_per_second = r,
						     .packets = (uint64_t)(r * ivl / 8 / 1448),
						     .retransmits = i % 7, .cwnd_bytes = 64000 + i,
						     .rtt_ms = 0.2 + (i % 5) * 0.01};
		}
	}
	d->receiver.bits_per_second = d->sender.bits_per_second = 20e6 * n;
}

static uint64_t sum_bytes(const struct probe_direction *d)
{
	uint64_t b = 0;
	for (uint32_t i = 0; i < d->n_intervals; i++)
		if (d->intervals[i].stream == -1)
			b += d->intervals[i].bytes;
	return b;
}

static void sums_and_buckets(void **state)
{
	(void)state;
	struct probe_result res;
	synth(&res, 3600, 0.1, 4, true);
	uint64_t before = sum_bytes(&res.dirs[0]);
	compact_long_run(&res);
	const struct probe_direction *d = &res.dirs[0];
	/* 600 sums of the first minute, then 354 ten-second buckets */
	assert_int_equal(d->n_intervals, 600 + 354);
	for (uint32_t i = 0; i < d->n_intervals; i++)
		assert_int_equal(d->intervals[i].stream, -1);
	assert_true(sum_bytes(d) == before);
	const struct probe_interval *b = &d->intervals[600 + 60]; /* 660..670 s */
	assert_true(b->start_s > 659.99 && b->start_s < 660.01 && b->end_s > 669.99);
	assert_true(b->bits_per_second > 0.999 * 80e6 && b->bits_per_second < 1.001 * 80e6);
	assert_int_equal(b->cwnd_bytes, 64000 + 6699); /* the bucket's last */
	/* a case that is not long-run is left whole */
	probe_result_free(&res);
	synth(&res, 120, 0.1, 4, false);
	compact_long_run(&res);
	assert_int_equal(res.dirs[0].n_intervals, 1200 * 5);
	probe_result_free(&res);
}

static char path[64];

static long long db_bytes(void)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT (SELECT page_count FROM pragma_page_count) "
					    "* (SELECT page_size FROM pragma_page_size) - "
					    "(SELECT freelist_count FROM pragma_freelist_count) * "
					    "(SELECT page_size FROM pragma_page_size)", -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void remove_db(void)
{
	char p[80];
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
}

/* Bytes one result adds to a database holding its run, pair and case, stored as run.c does:
 * compacted when long-run, the probe JSON beside the samples. */
static long long stored_bytes(struct probe_result *res)
{
	struct ns_err err = {0};
	int64_t run, ep, case_id;
	snprintf(path, sizeof(path), "/tmp/test-compact-%d.db", (int)getpid());
	remove_db();
	struct store *s = store_open(path, &err);
	if (!s)
		fail_msg("store_open: %s", err.msg);
	struct store_run r = {.matrix_name = "m", .matrix_text = "<matrix/>", .matrix_hash = "h",
			      .version = "0", .order = "as-written", .repeats = 1};
	struct store_endpoint e = {.name = "p", .agent_addr = "192.0.2.1:5301"};
	struct store_case c = {.case_key = "0011223344556677", .p = &res->params,
			       .affinity = "none", .params_json = "{}"};
	assert_int_equal(store_run_create(s, &r, &run, &err), 0);
	assert_int_equal(store_endpoint_put(s, run, &e, &ep, &err), 0);
	c.endpoint_id = ep;
	assert_int_equal(store_case_put(s, run, &c, &case_id, &err), 0);
	store_close(s);
	long long before = db_bytes();
	compact_long_run(res);
	char *json = probe_result_json(res, false);
	assert_non_null(json);
	struct store_result sr = {.case_id = case_id, .started_at = "a", .finished_at = "b",
				  .res = res, .ok = true, .probe_json = json};
	s = store_open(path, &err);
	assert_non_null(s);
	if (store_put_result(s, &sr, NULL, &err) != 0)
		fail_msg("store_put_result: %s", err.msg);
	store_close(s);
	free(json);
	long long grown = db_bytes() - before;
	remove_db();
	return grown;
}

static void an_hour_stays_under_the_bound(void **state)
{
	(void)state;
	struct probe_result res;
	long long hour[2];
	uint32_t streams[2] = {1, 8};
	for (int i = 0; i < 2; i++) {
		synth(&res, 3600, 1.0, streams[i], true);
		hour[i] = stored_bytes(&res);
		probe_result_free(&res);
		print_message("1 h long-run at 1 s, %u stream(s): %lld bytes\n", streams[i], hour[i]);
		assert_true(hour[i] > 0 && hour[i] < COMPACT_HOUR_BOUND);
	}
	/* the same hour of 8 streams stored whole, as a short case is: what compacting saves */
	synth(&res, 3600, 1.0, 8, false);
	long long whole = stored_bytes(&res);
	probe_result_free(&res);
	print_message("1 h at 1 s, 8 streams, not compacted: %lld bytes\n", whole);
	assert_true(whole > 5 * hour[1]);
	/* 10 ms intervals: the protocol's 100,000 intervals bound a test to 1000 s */
	synth(&res, 1000, 0.01, 1, true);
	long long fine = stored_bytes(&res);
	probe_result_free(&res);
	print_message("1000 s long-run at 10 ms, 1 stream: %lld bytes\n", fine);
	assert_true(fine < COMPACT_FINE_BOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sums_and_buckets),
		cmocka_unit_test(an_hour_stays_under_the_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
