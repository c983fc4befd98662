/* iperf3_json and iperf3_text: a made-up result in iperf3's layout (intervals grouped with
 * their streams, sums by direction, rtt in microseconds), -f's units, the hints for iperf3
 * options, and logout's timestamps. Compared with iperf3's own output by
 * tests/integration/probe_iperf3.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sys/logout.h"
#include "runner/client/iperf3_text.h"
#include "runner/proto/iperf3_json.h"

/* json_extract(text, path) as text, through SQLite as the project reads JSON. */
static char *jx(const char *json, const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	char *out = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "select json_extract(?1, ?2)", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

static void expect(const char *json, const char *path, const char *want)
{
	char *got = jx(json, path);
	if (!got || strcmp(got, want))
		fail_msg("%s: got %s, want %s", path, got ? got : "(null)", want);
	free(got);
}

/* Two TCP streams, two intervals each, forward. */
static void make_result(struct probe_result *r)
{
	memset(r, 0, sizeof(*r));
	probe_params_init(&r->params);
	strcpy(r->params.host, "192.0.2.7");
	r->params.port = 5301;
	r->params.streams = 2;
	r->duration_s = 2;
	r->n_dirs = 1;
	struct probe_direction *d = &r->dirs[0];
	d->dir = NS_DIR_FORWARD;
	d->sender.bytes = d->receiver.bytes = 4000;
	d->sender.bits_per_second = d->receiver.bits_per_second = 16000;
	d->sender.retransmits = 3;
	d->sender.cpu_percent = 12.5;
	d->receiver.cpu_percent = 7.5;
	d->n_streams = 2;
	d->streams = calloc(2, sizeof(*d->streams));
	for (uint32_t i = 0; i < 2; i++) {
		d->streams[i].id = i;
		d->streams[i].sender.bytes = d->streams[i].receiver.bytes = 2000;
		d->streams[i].sender.rtt_ms = 0.5;
	}
	d->n_intervals = 6;
	d->intervals = calloc(6, sizeof(*d->intervals));
	for (uint32_t k = 0; k < 2; k++)
		for (int32_t s = -1; s < 2; s++) {
			struct probe_interval *v = &d->intervals[k * 3 + (uint32_t)(s + 1)];
			v->start_s = k;
			v->end_s = k + 1;
			v->stream = s;
			v->bytes = s < 0 ? 2000 : 1000;
			v->rtt_ms = s < 0 ? 0 : 0.25 + 0.5 * k + s; /* stream 0: 0.25, 0.75; stream 1: 1.25, 1.75 */
			v->cwnd_bytes = 100 * (k + 1);
		}
}

static void test_layout(void **state)
{
	(void)state;
	struct probe_result r;
	make_result(&r);
	struct iperf3_ctx c = {.start_unix = 1796159670, .system_info = "Linux x",
			       .host_user_pct = 1, .host_system_pct = 2};
	char *t = iperf3_json(&r, &c, false);
	assert_non_null(t);
	expect(t, "$.start.connected[1].socket", "6");
	expect(t, "$.start.connected[0].remote_host", "192.0.2.7");
	expect(t, "$.start.timestamp.timesecs", "1796159670");
	expect(t, "$.start.test_start.protocol", "TCP");
	expect(t, "$.start.test_start.num_streams", "2");
	expect(t, "$.intervals[1].sum.start", "1");
	expect(t, "$.intervals[1].sum.bytes", "2000");
	expect(t, "$.intervals[1].streams[1].socket", "6");
	expect(t, "$.intervals[1].streams[1].rtt", "1750"); /* microseconds */
	expect(t, "$.intervals[0].streams[0].snd_cwnd", "100");
	expect(t, "$.end.sum_sent.retransmits", "3");
	expect(t, "$.end.sum_received.bytes", "4000");
	expect(t, "$.end.sum_received.sender", "1");
	expect(t, "$.end.streams[1].sender.max_rtt", "1750");
	expect(t, "$.end.streams[1].sender.min_rtt", "1250");
	expect(t, "$.end.streams[1].sender.mean_rtt", "1500");
	expect(t, "$.end.streams[0].sender.max_snd_cwnd", "200");
	expect(t, "$.end.cpu_utilization_percent.host_total", "3");
	expect(t, "$.end.cpu_utilization_percent.remote_total", "7.5");
	expect(t, "$.netsweep.sum.sender.bytes", "4000");
	char *n = jx(t, "$.intervals[2]");
	assert_null(n);
	free(t);
	probe_result_free(&r);
}

static void test_udp_reverse(void **state)
{
	(void)state;
	struct probe_result r;
	make_result(&r);
	r.params.proto = NS_PROTO_UDP;
	r.params.dir = r.dirs[0].dir = NS_DIR_REVERSE;
	r.dirs[0].receiver.packets = 90;
	r.dirs[0].receiver.lost = 10;
	r.dirs[0].receiver.lost_percent = 10;
	r.dirs[0].intervals[0].packets = 45;
	r.dirs[0].intervals[0].lost = 5;
	char *t = iperf3_json(&r, NULL, false);
	assert_non_null(t);
	expect(t, "$.end.sum.lost_packets", "10");
	expect(t, "$.end.sum.packets", "100");       /* sent: received + lost, as iperf3 */
	expect(t, "$.end.sum_received.sender", "0");
	expect(t, "$.end.sum_sent.sender", "0");     /* the agent sent */
	expect(t, "$.intervals[0].sum.lost_packets", "5");
	expect(t, "$.intervals[0].sum.lost_percent", "10");
	expect(t, "$.start.test_start.reverse", "1");
	free(t);
	t = iperf3_json_event_interval(&r.params, &r.dirs[0].intervals[0], &r.dirs[0].intervals[1], 2, NS_DIR_REVERSE);
	expect(t, "$.event", "interval");
	expect(t, "$.data.sum.packets", "45");
	expect(t, "$.data.streams[1].socket", "6");
	expect(t, "$.data.streams[0].bytes", "1000");
	free(t);
	probe_result_free(&r);
}

static void test_units_and_hints(void **state)
{
	(void)state;
	char buf[256], u = 0;
	assert_int_equal(iperf3_unit_parse("m", &u, NULL), 0);
	assert_int_equal(u, 'm');
	assert_int_equal(iperf3_unit_parse("x", &u, NULL), -1);
	assert_int_equal(iperf3_unit_parse("mm", &u, NULL), -1);
	iperf3_format_rate(9.42e9, 'g', buf, sizeof(buf));
	assert_string_equal(buf, "9.42 Gbits/sec");
	iperf3_format_rate(8.0 * 1024 * 1024 * 300, 'M', buf, sizeof(buf));
	assert_string_equal(buf, "300 MBytes/sec");
	iperf3_format_rate(25.5e6, 0, buf, sizeof(buf));
	assert_string_equal(buf, "25.5 Mbits/sec");
	iperf3_format_bytes(1.1 * 1024 * 1024 * 1024, buf, sizeof(buf));
	assert_string_equal(buf, "1.10 GBytes");
	char *a1[] = {"probe", "h", "-s", NULL};
	assert_non_null(iperf3_hint(3, a1, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "netsweep agent"));
	char *a2[] = {"probe", "h", "-k", "100", NULL};
	assert_null(iperf3_hint(4, a2, buf, sizeof(buf)));
	char *a3[] = {"probe", "h", "-k", "x.key", NULL};
	assert_non_null(iperf3_hint(4, a3, buf, sizeof(buf)));
	assert_non_null(strstr(buf, "--psk-file x.key"));
	char *a4[] = {"probe", "h", "--title=x", NULL};
	assert_non_null(iperf3_hint(3, a4, buf, sizeof(buf)));
	char *a5[] = {"probe", "h", "--timestamps", NULL};
	assert_null(iperf3_hint(3, a5, buf, sizeof(buf)));
}

static void test_stamp(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(logout_stamp("%Y-", 1796159670, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "2026-");
	struct logout_opts o = {.time_format = "%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y%Y"};
	struct ns_err err = {0};
	assert_null(logout_open(&o, &err));
	assert_int_equal(err.code, NS_E_USAGE);
	struct logout_opts bad = {.logfile = "/nonexistent-dir/x.log"};
	assert_null(logout_open(&bad, &err));
	assert_int_equal(err.code, NS_E_IO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_udp_reverse),
		cmocka_unit_test(test_units_and_hints),
		cmocka_unit_test(test_stamp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
