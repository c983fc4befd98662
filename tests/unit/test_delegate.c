/* runner/client/delegate (with the agent's side and result_parse), delegated runs: the
 * DELEGATE_REQUEST / HOSTINFO_REQUEST-with-peer messages, probe_result_from_json (a real
 * probe_result through probe_result_json and back), and probe_run_from through embedded agents
 * on loopback (the result comes in binary messages with every key of a direct one, delegation
 * off unless asked for, no chaining, no target). The binary result's messages on their own:
 * test_result_wire.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runner/agent/agent.h"
#include "runner/client/ctl.h"
#include "runner/client/client.h"
#include "runner/proto/proto.h"
#include "runner/proto/result_wire.h"
#include "lib/settings.h"

static uint8_t buf[PROTO_MAX_PAYLOAD + 1];

/* ---- messages ---- */

static void delegate_request_round_trip_and_bounds(void **state)
{
	(void)state;
	struct probe_params p, q;
	struct ns_err err = {0};
	struct proto_buf b;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "10.0.0.2");
	p.port = 6000;
	p.proto = NS_PROTO_UDP;
	p.streams = 4;
	p.rate_bps = 300000000;
	p.duration_s = 2.5;
	p.dir = NS_DIR_BIDIR;
	snprintf(p.affinity, sizeof(p.affinity), "0-1");
	proto_buf_init(&b);
	proto_enc_delegate(&b, &p);
	assert_false(b.oom);
	assert_int_equal(proto_dec_delegate(b.p, b.len, &q, &err), 0);
	assert_string_equal(q.host, "10.0.0.2");
	assert_int_equal(q.port, 6000);
	assert_int_equal(q.proto, NS_PROTO_UDP);
	assert_int_equal(q.streams, 4);
	assert_true(q.rate_bps == 300000000);
	assert_true(q.duration_s == 2.5);
	assert_int_equal(q.dir, NS_DIR_BIDIR);
	assert_string_equal(q.affinity, "0-1");
	/* cut short, or one byte too many */
	assert_int_equal(proto_dec_delegate(b.p, b.len - 1, &q, &err), -1);
	uint8_t *longer = calloc(1, b.len + 1);
	memcpy(longer, b.p, b.len);
	assert_int_equal(proto_dec_delegate(longer, b.len + 1, &q, &err), -1);
	assert_non_null(strstr(err.msg, "trailing"));
	free(longer);
	proto_buf_free(&b);
	/* no target, or a key file on the agent's host */
	p.host[0] = '\0';
	proto_buf_init(&b);
	proto_enc_delegate(&b, &p);
	assert_int_equal(proto_dec_delegate(b.p, b.len, &q, &err), -1);
	assert_non_null(strstr(err.msg, "no target"));
	proto_buf_free(&b);
	snprintf(p.host, sizeof(p.host), "10.0.0.2");
	snprintf(p.psk_file, sizeof(p.psk_file), "/etc/shadow");
	proto_buf_init(&b);
	proto_enc_delegate(&b, &p);
	/* the sender's key file path never goes on the wire */
	assert_int_equal(proto_dec_delegate(b.p, b.len, &q, &err), 0);
	assert_string_equal(q.psk_file, "");
	/* a peer that appends one anyway is refused */
	proto_put_str(&b, "/etc/shadow");
	assert_int_equal(proto_dec_delegate(b.p, b.len, &q, &err), -1);
	proto_buf_free(&b);
}

static void hostinfo_request_peer(void **state)
{
	(void)state;
	struct proto_buf b;
	struct ns_err err = {0};
	char peer[PROTO_MAX_PEER + 1];
	proto_buf_init(&b);
	proto_enc_hostinfo_request(&b, NULL);
	assert_int_equal(b.len, 0);
	assert_int_equal(proto_dec_hostinfo_request(b.p, b.len, peer, sizeof(peer), &err), 0);
	assert_string_equal(peer, "");
	proto_enc_hostinfo_request(&b, "fe80::1%eth0");
	assert_int_equal(proto_dec_hostinfo_request(b.p, b.len, peer, sizeof(peer), &err), 0);
	assert_string_equal(peer, "fe80::1%eth0");
	proto_buf_free(&b);
	static const char *const bad[] = {"a b", "x;rm", "", "\n"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		proto_buf_init(&b);
		proto_put_str(&b, bad[i]);
		assert_int_equal(proto_dec_hostinfo_request(b.p, b.len, peer, sizeof(peer), &err), -1);
		proto_buf_free(&b);
	}
	char longp[PROTO_MAX_PEER + 2];
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = '\0';
	proto_buf_init(&b);
	proto_put_str(&b, longp);
	assert_int_equal(proto_dec_hostinfo_request(b.p, b.len, peer, sizeof(peer), &err), -1);
	proto_buf_free(&b);
}

/* ---- probe_result_from_json ---- */

static void same_figures(const struct probe_figures *a, const struct probe_figures *b)
{
	assert_memory_equal(a, b, sizeof(*a)); /* no padding: all 8- and 4-byte fields */
}

static void same_result(const struct probe_result *a, const struct probe_result *b)
{
	assert_int_equal(a->status, b->status);
	assert_string_equal(a->error, b->error);
	assert_string_equal(a->warnings, b->warnings);
	assert_true(a->duration_s == b->duration_s);
	assert_int_equal(a->gso_active, b->gso_active);
	assert_int_equal(a->n_dirs, b->n_dirs);
	assert_string_equal(a->params.host, b->params.host);
	assert_int_equal(a->params.port, b->params.port);
	assert_int_equal(a->params.proto, b->params.proto);
	assert_int_equal(a->params.dir, b->params.dir);
	assert_int_equal(a->params.streams, b->params.streams);
	assert_true(a->params.duration_s == b->params.duration_s);
	assert_true(a->params.interval_s == b->params.interval_s);
	assert_true(a->params.rate_bps == b->params.rate_bps);
	for (uint32_t d = 0; d < a->n_dirs; d++) {
		const struct probe_direction *x = &a->dirs[d], *y = &b->dirs[d];
		assert_int_equal(x->dir, y->dir);
		same_figures(&x->sender, &y->sender);
		same_figures(&x->receiver, &y->receiver);
		assert_int_equal(x->n_streams, y->n_streams);
		for (uint32_t i = 0; i < x->n_streams; i++) {
			assert_int_equal(x->streams[i].id, y->streams[i].id);
			assert_int_equal(x->streams[i].cpu, y->streams[i].cpu);
			same_figures(&x->streams[i].sender, &y->streams[i].sender);
			same_figures(&x->streams[i].receiver, &y->streams[i].receiver);
		}
		assert_int_equal(x->n_intervals, y->n_intervals);
		for (uint32_t i = 0; i < x->n_intervals; i++) {
			const struct probe_interval *u = &x->intervals[i], *v = &y->intervals[i];
			assert_int_equal(u->stream, v->stream);
			assert_true(u->start_s == v->start_s && u->end_s == v->end_s);
			assert_true(u->bytes == v->bytes && u->packets == v->packets);
			assert_true(u->bits_per_second == v->bits_per_second);
			assert_true(u->retransmits == v->retransmits && u->cwnd_bytes == v->cwnd_bytes);
			assert_true(u->rtt_ms == v->rtt_ms && u->lost == v->lost);
			assert_true(u->jitter_ms == v->jitter_ms && u->omitted == v->omitted);
		}
	}
	if (a->agent_hostinfo || b->agent_hostinfo) {
		assert_non_null(a->agent_hostinfo);
		assert_non_null(b->agent_hostinfo);
	}
}

static void round_trip(const struct probe_result *res)
{
	struct probe_result back;
	struct ns_err err = {0};
	char *json = probe_result_json(res, false);
	assert_non_null(json);
	if (probe_result_from_json(json, &back, &err) < 0)
		fail_msg("probe_result_from_json: %s", err.msg);
	same_result(res, &back);
	/* and once more: the text is the same too */
	char *again = probe_result_json(&back, false);
	assert_string_equal(json, again);
	free(again);
	free(json);
	probe_result_free(&back);
}

static void from_json_keeps_every_udp_figure(void **state)
{
	(void)state;
	struct probe_result r;
	memset(&r, 0, sizeof(r));
	probe_params_init(&r.params);
	snprintf(r.params.host, sizeof(r.params.host), "192.0.2.1");
	r.params.proto = NS_PROTO_UDP;
	r.params.dir = NS_DIR_BIDIR;
	r.params.streams = 2;
	r.params.rate_bps = 18446744073709551615ull; /* the largest counter survives */
	r.status = 0;
	r.duration_s = 1.0 / 3.0;
	r.gso_active = true;
	snprintf(r.warnings, sizeof(r.warnings), "first; second \"quoted\" \\ one");
	r.agent_hostinfo = strdup("{\"hostname\":\"x\",\"n\":[1,2]}");
	r.n_dirs = 2;
	for (uint32_t d = 0; d < 2; d++) {
		struct probe_direction *pd = &r.dirs[d];
		pd->dir = d ? NS_DIR_REVERSE : NS_DIR_FORWARD;
		struct probe_figures f = {.bytes = 123456789012345ull + d, .packets = 99,
					  .bits_per_second = 0.1 + 0.2, .packets_per_second = 1e-300,
					  .cpu_percent = 12.5, .lost = 7, .lost_percent = 100.0 / 7,
					  .out_of_order = 3, .duplicates = 2, .jitter_ms = 0.0123456789,
					  .kernel_drops = 1ull << 63};
		pd->sender = f;
		pd->receiver = f;
		pd->receiver.bytes--;
		pd->n_streams = 2;
		pd->streams = calloc(2, sizeof(*pd->streams));
		for (uint32_t i = 0; i < 2; i++) {
			pd->streams[i].id = i;
			pd->streams[i].cpu = i ? 1 : -1;
			pd->streams[i].sender = f;
			pd->streams[i].receiver = f;
			pd->streams[i].receiver.jitter_ms = 1.0 / (i + 7);
		}
		pd->n_intervals = 6;
		pd->intervals = calloc(6, sizeof(*pd->intervals));
		for (uint32_t i = 0; i < 6; i++) {
			struct probe_interval *v = &pd->intervals[i];
			v->stream = (int32_t)(i % 3) - 1;
			v->start_s = (i / 3) * 0.1;
			v->end_s = v->start_s + 0.1;
			v->bytes = 1000 + i;
			v->bits_per_second = 8e4 / 3;
			v->packets = i;
			v->lost = i * 2;
			v->jitter_ms = 0.001 * i;
			v->omitted = i == 0;
		}
	}
	round_trip(&r);
	/* a failed test that never started: no direction, the error kept */
	struct probe_result e;
	memset(&e, 0, sizeof(e));
	probe_params_init(&e.params);
	snprintf(e.params.host, sizeof(e.params.host), "h");
	e.status = -1;
	snprintf(e.error, sizeof(e.error), "agent refused: busy");
	round_trip(&e);
	probe_result_free(&r);
}

/* Latency figures around base microseconds. */
static void lat_figures(struct probe_latency_figures *f, double base)
{
	*f = (struct probe_latency_figures){.transactions = 1000, .transactions_per_second = 1e3 / 3,
					    .lost = 2, .min_us = base, .mean_us = base * 1.25,
					    .p50_us = base * 1.2, .p90_us = base * 1.7,
					    .p99_us = base * 2.9, .p999_us = base * 4.1,
					    .max_us = base * 5};
}

static struct probe_latency_interval *lat_series(uint32_t n, double base)
{
	struct probe_latency_interval *v = calloc(n, sizeof(*v));
	for (uint32_t i = 0; i < n; i++) {
		v[i].start_s = i * 0.25;
		v[i].end_s = (i + 1) * 0.25;
		v[i].omitted = i == 0;
		lat_figures(&v[i].f, base + i / 3.0);
	}
	return v;
}

/* A request/response result and a latency probe's: their figures, histograms and interval
 * series come back from the JSON whole (JSON out, in, out: the same text). */
static void from_json_keeps_latency_whole(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct probe_result r, back;
		struct ns_err err = {0};
		memset(&r, 0, sizeof(r));
		probe_params_init(&r.params);
		snprintf(r.params.host, sizeof(r.params.host), "192.0.2.1");
		r.status = 0;
		r.duration_s = 2;
		r.n_dirs = 1;
		r.dirs[0].dir = NS_DIR_FORWARD;
		if (k == 0) {
			snprintf(r.params.rr, sizeof(r.params.rr), "rr");
			struct probe_latency *l = &r.latency;
			l->present = true;
			lat_figures(&l->sum, 31.5);
			l->relative_error = 0.0078125;
			l->client_cpu = 1;
			l->agent_cpu = 0;
			snprintf(l->one_way_why, sizeof(l->one_way_why), "no \"clock\" agreement");
			l->histogram = strdup("LH1 n=3 sum=99 min=10 max=50 b=10:1,20:1,20:1");
			l->n_intervals = 9;
			l->intervals = lat_series(9, 31.5);
		} else {
			snprintf(r.params.lat_probe, sizeof(r.params.lat_probe), "udp");
			struct probe_lul *u = &r.lul;
			u->present = true;
			snprintf(u->test, sizeof(u->test), "udp_rr");
			u->request = u->response = 8;
			u->rate = 100;
			u->idle_s = 1;
			u->loaded_s = 2;
			lat_figures(&u->idle, 20);
			lat_figures(&u->loaded, 900.25);
			u->added_p50_us = u->loaded.p50_us - u->idle.p50_us;
			u->idle_histogram = strdup("LH1 n=1 sum=7 min=7 max=7 b=7:1");
			u->loaded_histogram = strdup("LH1 n=2 sum=90 min=40 max=50 b=40:1,10:1");
			u->n_intervals = 8;
			u->intervals = lat_series(8, 900.25);
		}
		round_trip(&r);
		char *json = probe_result_json(&r, false);
		assert_int_equal(probe_result_from_json(json, &back, &err), 0);
		if (k == 0) {
			assert_true(back.latency.present);
			assert_string_equal(back.latency.histogram, r.latency.histogram);
			assert_int_equal(back.latency.n_intervals, 9);
			assert_true(back.latency.intervals[8].f.p99_us == r.latency.intervals[8].f.p99_us);
		} else {
			assert_true(back.lul.present);
			assert_string_equal(back.lul.idle_histogram, r.lul.idle_histogram);
			assert_string_equal(back.lul.loaded_histogram, r.lul.loaded_histogram);
			assert_int_equal(back.lul.n_intervals, 8);
			assert_true(back.lul.intervals[7].f.p50_us == r.lul.intervals[7].f.p50_us);
		}
		free(json);
		probe_result_free(&back);
		probe_result_free(&r);
	}
}

static void from_json_refuses_what_is_not_a_result(void **state)
{
	(void)state;
	struct probe_result r;
	struct ns_err err = {0};
	static const char *const bad[] = {
		"", "not json", "[1,2]", "{\"version\":2,\"status\":\"ok\"}",
		"{\"version\":1,\"status\":\"ok\",\"params\":{\"direction\":\"sideways\"}}",
		"{\"version\":1,\"status\":\"ok\",\"params\":{\"direction\":\"forward\",\"streams\":-1},"
		"\"sum\":{\"direction\":\"forward\"}}",
		"{\"version\":1,\"status\":\"ok\",\"params\":{\"direction\":\"forward\"},"
		"\"sum\":{\"direction\":\"forward\",\"sender\":{\"bytes\":\"x\"}}}",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(probe_result_from_json(bad[i], &r, &err), -1);
		assert_int_equal(r.status, -1);
		assert_true(r.error[0] != '\0');
		probe_result_free(&r);
	}
}

/* ---- embedded agents ---- */

static void *serve(void *a)
{
	struct ns_err err;
	agent_serve(a, &err);
	return NULL;
}

struct running {
	struct agent *a;
	pthread_t tid;
	uint16_t port;
};

static void start_agent(struct running *r, int no_delegate)
{
	struct agent_opts o;
	struct ns_err err = {0};
	agent_opts_init(&o);
	snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
	o.port = 0;
	o.quiet = 1;
	o.delegate = !no_delegate;
	r->a = agent_create(&o, &err);
	assert_non_null(r->a);
	r->port = agent_port(r->a);
	assert_int_equal(pthread_create(&r->tid, NULL, serve, r->a), 0);
}

static void stop_agent(struct running *r)
{
	agent_stop(r->a);
	pthread_join(r->tid, NULL);
	agent_destroy(r->a);
}

static void real_results_survive_json(void **state)
{
	(void)state;
	struct running t;
	settings_set(&(struct ns_settings){.imds_off = true});
	start_agent(&t, 0);
	for (int k = 0; k < 2; k++) {
		struct probe_params p;
		struct probe_result res;
		struct ns_err err = {0};
		probe_params_init(&p);
		snprintf(p.host, sizeof(p.host), "127.0.0.1");
		p.port = t.port;
		p.duration_s = 0.3;
		p.interval_s = 0.1;
		p.streams = 2;
		p.dir = k ? NS_DIR_FORWARD : NS_DIR_BIDIR;
		p.proto = k ? NS_PROTO_UDP : NS_PROTO_TCP;
		p.rate_bps = k ? 50000000 : 0;
		if (probe_run(&p, &res, &err) < 0)
			fail_msg("probe_run: %s", err.msg);
		assert_true(res.n_dirs == (k ? 1u : 2u));
		assert_true(res.dirs[0].n_intervals >= 3);
		assert_true(res.dirs[0].receiver.bytes > 0);
		round_trip(&res);
		probe_result_free(&res);
	}
	stop_agent(&t);
}

static void run_from_goes_through_the_client_agent(void **state)
{
	(void)state;
	struct running c, s, nd;
	settings_set(&(struct ns_settings){.imds_off = true});
	start_agent(&c, 0);
	start_agent(&s, 0);
	start_agent(&nd, 1);
	struct probe_params p;
	struct probe_result res;
	struct ns_err err = {0};
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = s.port;
	/* a second, not less: beside a loaded suite a 0.3 s test once moved no byte before its
	 * end (three agents and the test share two cores) */
	p.duration_s = 1.0;
	p.interval_s = 0.25;
	p.dir = NS_DIR_REVERSE;
	if (probe_run_from("127.0.0.1", c.port, &p, &res, &err) < 0)
		fail_msg("probe_run_from: %s", err.msg);
	assert_int_equal(res.status, 0);
	assert_int_equal(res.n_dirs, 1);
	assert_int_equal(res.dirs[0].dir, NS_DIR_REVERSE);
	assert_true(res.dirs[0].receiver.bytes > 0);
	assert_true(res.dirs[0].n_intervals >= 3);
	probe_result_free(&res);

	/* the client's interface towards a given peer */
	char *json = NULL;
	if (probe_hostinfo_peer("127.0.0.1", c.port, NULL, "127.0.0.1", 5, &json, &err) < 0)
		fail_msg("probe_hostinfo_peer: %s", err.msg);
	assert_non_null(strstr(json, "\"peer\":\"127.0.0.1\""));
	free(json);

	/* without --delegate */
	assert_int_equal(probe_run_from("127.0.0.1", nd.port, &p, &res, &err), -1);
	assert_non_null(strstr(err.msg, "--delegate"));
	assert_int_equal(res.n_dirs, 0);
	probe_result_free(&res);

	/* a delegated run cannot delegate again: HELLO bit 1, then DELEGATE_REQUEST */
	int fd = client_ctl_connect("127.0.0.1", c.port, proto_now() + 2, NULL, NULL, &err);
	assert_true(fd >= 0);
	assert_int_equal(client_ctl_hello(fd, buf, PROTO_HELLO_DELEGATED, NULL, proto_now() + 2, &err), 0);
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_delegate(&b, &p);
	assert_int_equal(proto_send_buf(fd, PROTO_DELEGATE_REQUEST, &b, proto_now() + 2, &err), 0);
	proto_buf_free(&b);
	uint16_t type;
	uint32_t len;
	assert_int_equal(client_ctl_recv(fd, buf, &type, &len, proto_now() + 5, &err), -1);
	assert_non_null(strstr(err.msg, "cannot delegate again"));
	close(fd);

	/* no agent at the target: the client agent's error comes back, nothing measured */
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sin);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	getsockname(l, (struct sockaddr *)&sin, &sl);
	close(l); /* a port with nothing behind it */
	p.port = ntohs(sin.sin_port);
	assert_int_equal(probe_run_from("127.0.0.1", c.port, &p, &res, &err), -1);
	assert_non_null(strstr(err.msg, "client agent"));
	assert_non_null(strstr(err.msg, "unreachable"));
	probe_result_free(&res);

	/* an unreachable client agent */
	p.port = s.port;
	assert_int_equal(probe_run_from("127.0.0.1", ntohs(sin.sin_port), &p, &res, &err), -1);
	assert_non_null(strstr(err.msg, "client agent"));
	probe_result_free(&res);

	stop_agent(&nd);
	stop_agent(&s);
	stop_agent(&c);
}

/* The JSON key paths of a result, array indices left out, one per line, sorted: what keys a
 * result carries. Warnings and the shaping found (or not) depend on the run, not the path. */
static char *key_paths(const char *json)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *out = NULL;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE k(p TEXT UNIQUE)", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_stmt *ins = NULL;
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO k VALUES(?1)", -1, &ins,
					    NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT fullkey FROM json_tree(?1)", -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		char norm[256];
		size_t n = 0;
		bool skip = false;
		for (; *k && n + 1 < sizeof(norm); k++) {
			if (*k == '"') /* SQLite quotes keys with an underscore */
				continue;
			norm[n++] = *k;
			if (*k == '[')
				while (k[1] >= '0' && k[1] <= '9')
					k++;
		}
		norm[n] = '\0';
		skip = !strncmp(norm, "$.warnings[", 11) || strstr(norm, ".shaping.");
		if (skip)
			continue;
		sqlite3_reset(ins);
		sqlite3_bind_text(ins, 1, norm, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(ins), SQLITE_DONE);
	}
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT group_concat(p, char(10)) FROM "
					    "(SELECT p FROM k ORDER BY p)", -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	out = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	return out;
}

/* A delegated result's JSON has the key paths of the direct one's, among them key. */
static void same_keys(const struct probe_result *direct, const struct probe_result *deleg,
		      const char *key)
{
	char *jd = probe_result_json(direct, false), *jg = probe_result_json(deleg, false);
	char *kd = key_paths(jd), *kg = key_paths(jg);
	if (!strstr(kd, key))
		fail_msg("no %s among the keys:\n%s", key, kd);
	assert_string_equal(kg, kd);
	free(kd);
	free(kg);
	free(jd);
	free(jg);
}

static void has_series(const struct probe_direction *pd, uint32_t streams)
{
	uint32_t sums = 0, per_stream = 0;
	assert_int_equal(pd->n_streams, streams);
	for (uint32_t i = 0; i < pd->n_streams; i++)
		assert_int_equal(pd->streams[i].id, i);
	for (uint32_t i = 0; i < pd->n_intervals; i++)
		pd->intervals[i].stream == -1 ? sums++ : per_stream++;
	assert_true(sums >= 3);
	assert_true(per_stream >= 3 * streams);
	assert_true(pd->sender.bytes > 0 && pd->receiver.bytes > 0);
	assert_true(pd->streams[0].receiver.bytes > 0 && pd->streams[streams - 1].sender.bytes > 0);
}

/* A delegated result comes as the binary messages (a JSON text would not decode) and carries
 * every key a direct run's result carries: intervals, sums and per stream, per-stream figures,
 * every field of the result's tables. */
static void delegated_result_is_binary_with_every_key(void **state)
{
	(void)state;
	struct running c, s;
	settings_set(&(struct ns_settings){.imds_off = true});
	start_agent(&c, 0);
	start_agent(&s, 0);
	struct probe_params p;
	struct probe_result direct, deleg;
	struct ns_err err = {0};
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = s.port;
	p.proto = NS_PROTO_UDP;
	p.dir = NS_DIR_BIDIR;
	p.streams = 2;
	p.rate_bps = 20000000;
	p.duration_s = 0.4;
	p.interval_s = 0.1;
	if (probe_run(&p, &direct, &err) < 0)
		fail_msg("probe_run: %s", err.msg);

	/* as a runner: DELEGATE_REQUEST, then the messages as they come */
	int fd = client_ctl_connect("127.0.0.1", c.port, proto_now() + 2, NULL, NULL, &err);
	assert_true(fd >= 0);
	assert_int_equal(client_ctl_hello(fd, buf, 0, NULL, proto_now() + 2, &err), 0);
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_delegate(&b, &p);
	assert_int_equal(proto_send_buf(fd, PROTO_DELEGATE_REQUEST, &b, proto_now() + 2, &err), 0);
	proto_buf_free(&b);
	memset(&deleg, 0, sizeof(deleg));
	deleg.params = p;
	struct proto_result_rd rd;
	proto_result_rd_init(&rd, &deleg);
	uint32_t seen[PROTO_TYPE_MAX + 1] = {0};
	uint16_t first = 0;
	int rc = 0;
	while (rc == 0) {
		uint16_t type;
		uint32_t len;
		if (client_ctl_recv(fd, buf, &type, &len, proto_now() + 20, &err) < 0)
			fail_msg("delegated result: %s", err.msg);
		if (!first)
			first = type;
		seen[type]++;
		rc = proto_result_rd_msg(&rd, type, buf, len, &err);
		if (rc < 0)
			fail_msg("delegated result: %s", err.msg);
	}
	close(fd);
	assert_int_equal(first, PROTO_DELEGATE_RESULT);
	assert_int_equal(seen[PROTO_DELEGATE_RESULT], 1);
	assert_int_equal(seen[PROTO_DELEGATE_STREAMS], 2);
	assert_true(seen[PROTO_DELEGATE_INTERVALS] >= 2);
	assert_int_equal(seen[PROTO_DONE], 1);

	assert_int_equal(deleg.status, 0);
	assert_int_equal(deleg.n_dirs, 2);
	for (uint32_t d = 0; d < 2; d++) {
		assert_int_equal(deleg.dirs[d].dir, direct.dirs[d].dir);
		has_series(&direct.dirs[d], p.streams);
		has_series(&deleg.dirs[d], p.streams);
	}
	assert_string_equal(deleg.engine_mode, direct.engine_mode);
	assert_int_equal(deleg.tos_applied, direct.tos_applied);
	same_keys(&direct, &deleg, "$.streams_detail[].receiver.jitter_ms");
	same_keys(&direct, &deleg, "$.intervals[].stream");
	probe_result_free(&direct);
	probe_result_free(&deleg);
	stop_agent(&s);
	stop_agent(&c);
}

static void has_histogram(const char *h, uint64_t transactions)
{
	char want[40];
	assert_non_null(h);
	snprintf(want, sizeof(want), "LH1 n=%llu ", (unsigned long long)transactions);
	if (strncmp(h, want, strlen(want)))
		fail_msg("histogram '%.60s', want '%s...'", h, want);
}

/* Transactions in a latency series add up to its window's (the measured intervals). */
static void has_lat_series(const struct probe_latency_interval *v, uint32_t n, uint64_t total)
{
	uint64_t sum = 0;
	assert_true(n >= 3);
	for (uint32_t i = 0; i < n; i++)
		if (!v[i].omitted)
			sum += v[i].f.transactions;
	assert_true(sum == total);
}

/* A delegated TCP_RR test and a delegated latency probe return their percentiles, histograms
 * and interval series, with the keys a direct run's result has. */
static void delegated_latency_comes_whole(void **state)
{
	(void)state;
	struct running c, s;
	settings_set(&(struct ns_settings){.imds_off = true});
	start_agent(&c, 0);
	start_agent(&s, 0);
	for (int k = 0; k < 2; k++) {
		struct probe_params p;
		struct probe_result direct, res;
		struct ns_err err = {0};
		probe_params_init(&p);
		snprintf(p.host, sizeof(p.host), "127.0.0.1");
		p.port = s.port;
		p.duration_s = 1.0;
		p.interval_s = 0.25;
		if (k == 0) {
			snprintf(p.rr, sizeof(p.rr), "rr");
		} else {
			snprintf(p.lat_probe, sizeof(p.lat_probe), "tcp");
			p.rate_bps = 20000000;
			p.lat_idle_s = 0.3;
		}
		if (probe_run_from("127.0.0.1", c.port, &p, &res, &err) < 0)
			fail_msg("probe_run_from: %s", err.msg);
		assert_int_equal(res.status, 0);
		if (k == 0) {
			const struct probe_latency *l = &res.latency;
			assert_true(l->present);
			assert_true(l->sum.transactions > 0);
			assert_true(l->sum.p50_us > 0 && l->sum.p99_us >= l->sum.p50_us);
			has_histogram(l->histogram, l->sum.transactions);
			has_lat_series(l->intervals, l->n_intervals, l->sum.transactions);
		} else {
			const struct probe_lul *l = &res.lul;
			assert_true(l->present);
			assert_true(l->idle.transactions > 0 && l->loaded.transactions > 0);
			assert_true(l->loaded.p50_us > 0 && l->loaded.p99_us >= l->loaded.p50_us);
			has_histogram(l->idle_histogram, l->idle.transactions);
			has_histogram(l->loaded_histogram, l->loaded.transactions);
			has_lat_series(l->intervals, l->n_intervals, l->loaded.transactions);
		}
		if (probe_run(&p, &direct, &err) < 0)
			fail_msg("probe_run: %s", err.msg);
		same_keys(&direct, &res, k ? "$.latency_under_load.loaded.intervals[].p99_us"
					   : "$.latency.intervals[].p99_us");
		round_trip(&res);
		probe_result_free(&direct);
		probe_result_free(&res);
	}
	stop_agent(&s);
	stop_agent(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delegate_request_round_trip_and_bounds),
		cmocka_unit_test(hostinfo_request_peer),
		cmocka_unit_test(from_json_keeps_every_udp_figure),
		cmocka_unit_test(from_json_keeps_latency_whole),
		cmocka_unit_test(from_json_refuses_what_is_not_a_result),
		cmocka_unit_test(real_results_survive_json),
		cmocka_unit_test(run_from_goes_through_the_client_agent),
		cmocka_unit_test(delegated_result_is_binary_with_every_key),
		cmocka_unit_test(delegated_latency_comes_whole),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
