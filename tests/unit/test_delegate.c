/* Delegated runs: the DELEGATE_REQUEST / DELEGATE_RESULT / HOSTINFO_REQUEST-with-peer messages
 * (round trips, oversized, every bound), probe_result_from_json (a real probe_result through
 * probe_result_json and back: every figure and interval survives), and probe_run_from through
 * two embedded agents on loopback (results, delegation off unless asked for, no chaining, no target). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runner/agent/agent.h"
#include "runner/client/ctl.h"
#include "runner/client/client.h"
#include "runner/proto/proto.h"

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

struct sender {
	int fd;
	struct proto_buf *b;
	int rc;
};

static void *send_frame(void *arg)
{
	struct sender *w = arg;
	w->rc = proto_send_buf(w->fd, PROTO_DELEGATE_RESULT, w->b, proto_now() + 5, NULL);
	return NULL;
}

static void result_chunks_are_bounded(void **state)
{
	(void)state;
	struct proto_buf b;
	struct ns_err err = {0};
	uint32_t total, off, n;
	const uint8_t *data;
	proto_buf_init(&b);
	proto_enc_result_chunk(&b, 10, 4, "abcdef", 6);
	assert_int_equal(proto_dec_result_chunk(b.p, b.len, &total, &off, &data, &n, &err), 0);
	assert_int_equal(total, 10);
	assert_int_equal(off, 4);
	assert_int_equal(n, 6);
	assert_memory_equal(data, "abcdef", 6);
	proto_buf_free(&b);
	/* past the total */
	proto_buf_init(&b);
	proto_enc_result_chunk(&b, 10, 5, "abcdef", 6);
	assert_int_equal(proto_dec_result_chunk(b.p, b.len, &total, &off, &data, &n, &err), -1);
	proto_buf_free(&b);
	/* a total over 16 MiB: refused before anything is allocated for it */
	proto_buf_init(&b);
	proto_enc_result_chunk(&b, PROTO_MAX_DELEGATE_JSON + 1, 0, "x", 1);
	assert_int_equal(proto_dec_result_chunk(b.p, b.len, &total, &off, &data, &n, &err), -1);
	assert_non_null(strstr(err.msg, "exceeds"));
	proto_buf_free(&b);
	/* too short for its header */
	assert_int_equal(proto_dec_result_chunk((const uint8_t *)"abc", 3, &total, &off, &data, &n,
						&err), -1);
	/* a full chunk fits one frame; the new types pass the header check, the next does not */
	static char big[PROTO_DELEGATE_CHUNK];
	memset(big, 'x', sizeof(big));
	proto_buf_init(&b);
	proto_enc_result_chunk(&b, sizeof(big), 0, big, sizeof(big));
	assert_int_equal(b.len, PROTO_MAX_PAYLOAD);
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct sender w = {sv[0], &b, -1};
	pthread_t tid; /* the socket buffer may be smaller than a frame */
	assert_int_equal(pthread_create(&tid, NULL, send_frame, &w), 0);
	uint16_t t0;
	uint32_t l0;
	assert_int_equal(proto_recv(sv[1], &t0, buf, &l0, proto_now() + 5, -1, NULL, &err), 0);
	pthread_join(tid, NULL);
	assert_int_equal(w.rc, 0);
	assert_int_equal(t0, PROTO_DELEGATE_RESULT);
	assert_int_equal(proto_dec_result_chunk(buf, l0, &total, &off, &data, &n, &err), 0);
	assert_int_equal(n, PROTO_DELEGATE_CHUNK);
	proto_buf_free(&b);
	close(sv[0]);
	close(sv[1]);
	uint8_t hdr[PROTO_HDR_LEN];
	uint16_t type;
	uint32_t len;
	proto_header_pack(hdr, PROTO_DELEGATE_RESULT, PROTO_MAX_PAYLOAD);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), 0);
	assert_int_equal(type, PROTO_DELEGATE_RESULT);
	proto_header_pack(hdr, PROTO_DELEGATE_RESULT + 1, 0);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), -1);
	proto_header_pack(hdr, PROTO_DELEGATE_RESULT, PROTO_MAX_PAYLOAD + 1);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), -1);
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
	setenv("NETSWEEP_IMDS", "0", 1);
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
	setenv("NETSWEEP_IMDS", "0", 1);
	start_agent(&c, 0);
	start_agent(&s, 0);
	start_agent(&nd, 1);
	struct probe_params p;
	struct probe_result res;
	struct ns_err err = {0};
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = s.port;
	p.duration_s = 0.3;
	p.interval_s = 0.1;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(delegate_request_round_trip_and_bounds),
		cmocka_unit_test(result_chunks_are_bounded),
		cmocka_unit_test(hostinfo_request_peer),
		cmocka_unit_test(from_json_keeps_every_udp_figure),
		cmocka_unit_test(from_json_refuses_what_is_not_a_result),
		cmocka_unit_test(real_results_survive_json),
		cmocka_unit_test(run_from_goes_through_the_client_agent),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
