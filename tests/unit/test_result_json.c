/* runner/proto/result_json: probe_result_json, the stable contract of `netsweep probe --json`,
 * parsed back with SQLite's JSON functions (an in-memory connection) so that validity and keys
 * are checked by a real parser, not by string matching. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner/proto/probe.h"

static sqlite3 *db;

static int setup(void **state)
{
	(void)state;
	return sqlite3_open(":memory:", &db) == SQLITE_OK ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sqlite3_close(db);
	return 0;
}

static bool valid(const char *json)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT json_valid(?1)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	bool ok = sqlite3_column_int(st, 0) == 1;
	sqlite3_finalize(st);
	return ok;
}

/* json_extract(json, path) as text ("" for SQL NULL = missing key or JSON null); the type
 * is json_type's answer ("" when missing). */
static void extract(const char *json, const char *path, char *out, size_t cap, char *type,
		    size_t tcap)
{
	sqlite3_stmt *st;
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT json_extract(?1, ?2), json_type(?1, ?2)",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	const unsigned char *v = sqlite3_column_text(st, 0), *t = sqlite3_column_text(st, 1);
	snprintf(out, cap, "%s", v ? (const char *)v : "");
	snprintf(type, tcap, "%s", t ? (const char *)t : "");
	sqlite3_finalize(st);
}

static void want_value(const char *json, const char *path, const char *want)
{
	char v[256], t[32];
	extract(json, path, v, sizeof(v), t, sizeof(t));
	if (strcmp(v, want) != 0)
		fail_msg("%s is '%s', wanted '%s'", path, v, want);
}

static void want_type(const char *json, const char *path, const char *want)
{
	char v[256], t[32];
	extract(json, path, v, sizeof(v), t, sizeof(t));
	if (strcmp(t, want) != 0)
		fail_msg("%s has type '%s', wanted '%s'", path, t, want);
}

/* jsonw writes whole doubles without a fraction, so a number may parse as either. */
static void want_number(const char *json, const char *path)
{
	char v[256], t[32];
	extract(json, path, v, sizeof(v), t, sizeof(t));
	if (strcmp(t, "integer") != 0 && strcmp(t, "real") != 0)
		fail_msg("%s has type '%s', wanted a number", path, t);
}

static void fill_direction(struct probe_direction *d, enum ns_dir dir, uint32_t n)
{
	d->dir = dir;
	d->n_streams = n;
	d->streams = calloc(n, sizeof(*d->streams));
	d->n_intervals = 1 + n;
	d->intervals = calloc(1 + n, sizeof(*d->intervals));
	assert_non_null(d->streams);
	assert_non_null(d->intervals);
	for (uint32_t i = 0; i < n; i++) {
		d->streams[i].id = i;
		d->streams[i].cpu = -1;
		d->streams[i].sender.bytes = 1000;
		d->streams[i].receiver.bytes = 990;
		d->intervals[1 + i].stream = (int32_t)i;
	}
	d->intervals[0].stream = -1;
	d->intervals[0].end_s = 1;
	d->intervals[0].bytes = 1000u * n;
	d->sender.bytes = 1000u * n;
	d->sender.bits_per_second = 8000.0 * n;
	d->receiver.bytes = 990u * n;
	d->receiver.bits_per_second = 7920.0 * n;
	d->receiver.lost = 3;
	d->receiver.lost_percent = 0.3;
	d->receiver.kernel_drops = 2;
	d->sender.retransmits = 4;
}

static void tcp_result_has_the_contract_keys(void **state)
{
	(void)state;
	struct probe_result r;
	memset(&r, 0, sizeof(r));
	probe_params_init(&r.params);
	snprintf(r.params.host, sizeof(r.params.host), "a\"b\\c");
	r.params.streams = 2;
	r.duration_s = 10.0;
	r.n_dirs = 1;
	fill_direction(&r.dirs[0], NS_DIR_FORWARD, 2);
	r.dirs[0].receiver.cpu_percent = NAN; /* must become null, never NaN */
	r.agent_hostinfo = strdup("{\"kernel\":\"6.1\"}");
	char *json = probe_result_json(&r, true);
	assert_non_null(json);
	assert_true(valid(json));
	want_value(json, "$.version", "1");
	want_value(json, "$.status", "ok");
	want_value(json, "$.protocol", "tcp");
	want_value(json, "$.direction", "forward");
	want_value(json, "$.streams", "2");
	want_value(json, "$.duration_s", "10");
	want_number(json, "$.duration_s");
	want_value(json, "$.params.host", "a\"b\\c");
	want_value(json, "$.params.port", "5301");
	want_type(json, "$.params.rate_bps", "integer");
	want_type(json, "$.params.affinity", "text");
	want_type(json, "$.intervals", "array");
	want_value(json, "$.intervals[0].stream", "-1");
	want_value(json, "$.intervals[0].bytes", "2000");
	want_type(json, "$.streams_detail", "array");
	want_value(json, "$.streams_detail[1].id", "1");
	want_value(json, "$.streams_detail[1].receiver.bytes", "990");
	want_value(json, "$.sum.sender.bytes", "2000");
	want_value(json, "$.sum.receiver.bytes", "1980");
	want_number(json, "$.sum.receiver.bits_per_second");
	want_type(json, "$.sum.receiver.packets", "integer");
	want_number(json, "$.sum.receiver.packets_per_second");
	want_type(json, "$.sum.receiver.cpu_percent", "null");
	want_value(json, "$.sum.sender.retransmits", "4");
	want_type(json, "$.sum.receiver.lost", ""); /* UDP keys are not in a TCP result */
	want_type(json, "$.sum_reverse", "");
	want_value(json, "$.agent_hostinfo.kernel", "6.1");
	want_type(json, "$.warnings", "array");
	free(json);
	probe_result_free(&r);
	assert_null(r.dirs[0].streams);
	assert_null(r.agent_hostinfo);
}

static void udp_bidir_result_has_both_directions(void **state)
{
	(void)state;
	struct probe_result r;
	memset(&r, 0, sizeof(r));
	probe_params_init(&r.params);
	r.params.proto = NS_PROTO_UDP;
	r.params.dir = NS_DIR_BIDIR;
	r.params.fq_rate_bps = 100000000;
	r.n_dirs = 2;
	fill_direction(&r.dirs[0], NS_DIR_FORWARD, 1);
	fill_direction(&r.dirs[1], NS_DIR_REVERSE, 1);
	snprintf(r.warnings, sizeof(r.warnings), "UDP pacing needs fq; second warning");
	char *json = probe_result_json(&r, false);
	assert_non_null(json);
	assert_true(valid(json));
	assert_null(strchr(json, '\n')); /* compact form */
	want_value(json, "$.protocol", "udp");
	want_value(json, "$.direction", "bidir");
	want_value(json, "$.sum.direction", "forward");
	want_value(json, "$.sum_reverse.direction", "reverse");
	want_value(json, "$.sum.receiver.lost", "3");
	want_value(json, "$.sum.receiver.lost_percent", "0.3");
	want_value(json, "$.sum.receiver.kernel_drops", "2");
	want_number(json, "$.sum.receiver.jitter_ms");
	want_type(json, "$.sum.receiver.out_of_order", "integer");
	want_type(json, "$.sum.receiver.duplicates", "integer");
	want_type(json, "$.sum.sender.retransmits", "");
	want_value(json, "$.streams_detail[1].direction", "reverse");
	want_value(json, "$.intervals[2].direction", "reverse");
	want_value(json, "$.warnings[0]", "UDP pacing needs fq");
	want_value(json, "$.warnings[1]", "second warning");
	want_type(json, "$.agent_hostinfo", "null");
	free(json);
	probe_result_free(&r);
}

static void failed_result_is_still_valid_json(void **state)
{
	(void)state;
	struct probe_result r;
	memset(&r, 0, sizeof(r));
	probe_params_init(&r.params);
	r.status = -1;
	snprintf(r.error, sizeof(r.error), "agent 127.0.0.1 port 1 unreachable: connect: "
		 "Connection refused\twith a \"quote\"");
	char *json = probe_result_json(&r, true);
	assert_non_null(json);
	assert_true(valid(json));
	want_value(json, "$.status", "error");
	want_value(json, "$.error", r.error);
	want_value(json, "$.sum.receiver.bytes", "0"); /* present, zero, when nothing ran */
	want_type(json, "$.intervals", "array");
	free(json);
	probe_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(tcp_result_has_the_contract_keys),
		cmocka_unit_test(udp_bidir_result_has_both_directions),
		cmocka_unit_test(failed_result_is_still_valid_json),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
