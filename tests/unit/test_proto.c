/* runner/proto/proto, the control protocol: framing over a socketpair, message round trips, and
 * every bound a hostile or broken peer could hit (truncated, oversized, unknown type, bad
 * version, bad strings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <netinet/in.h>
#include <pthread.h>

#include "runner/agent/agent.h"
#include "runner/client/client.h"
#include "runner/proto/proto.h"
#include "runner/session/session.h"
#include "lib/settings.h"

static uint8_t buf[PROTO_MAX_PAYLOAD + 1];

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void frame_round_trip(void **state)
{
	(void)state;
	int sv[2];
	pair(sv);
	struct probe_params p, q;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "agent.example");
	p.proto = NS_PROTO_UDP;
	p.streams = 17;
	p.threads = 3;
	p.length = 1200;
	p.rate_bps = 2500000000ULL;
	p.fq_rate_bps = 800000000ULL;
	p.duration_s = 12.5;
	p.interval_s = 0.5;
	p.omit_s = 2;
	p.dir = NS_DIR_BIDIR;
	snprintf(p.affinity, sizeof(p.affinity), "0-1");
	p.window = 4 << 20;
	p.gso = true;
	p.connect_timeout_s = 3;
	p.timeout_s = 60;
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_params(&b, &p);
	assert_int_equal(proto_send_buf(sv[0], PROTO_TEST_REQUEST, &b, proto_now() + 2, NULL), 0);
	proto_buf_free(&b);
	uint16_t type;
	uint32_t len;
	bool eof;
	assert_int_equal(proto_recv(sv[1], &type, buf, &len, proto_now() + 2, -1, &eof, NULL), 0);
	assert_int_equal(type, PROTO_TEST_REQUEST);
	assert_int_equal(proto_dec_params(buf, len, &q, NULL), 0);
	assert_string_equal(q.host, "agent.example");
	assert_int_equal(q.proto, NS_PROTO_UDP);
	assert_int_equal(q.streams, 17);
	assert_int_equal(q.threads, 3);
	assert_int_equal(q.length, 1200);
	assert_int_equal(q.rate_bps, 2500000000ULL);
	assert_int_equal(q.fq_rate_bps, 800000000ULL);
	assert_true(q.duration_s == 12.5 && q.interval_s == 0.5 && q.omit_s == 2);
	assert_int_equal(q.dir, NS_DIR_BIDIR);
	assert_string_equal(q.affinity, "0-1");
	assert_int_equal(q.window, 4 << 20);
	assert_true(q.gso);
	assert_true(q.connect_timeout_s == 3 && q.timeout_s == 60);
	/* an empty frame too */
	assert_int_equal(proto_send(sv[0], PROTO_STOP, NULL, 0, proto_now() + 2, NULL), 0);
	assert_int_equal(proto_recv(sv[1], &type, buf, &len, proto_now() + 2, -1, &eof, NULL), 0);
	assert_int_equal(type, PROTO_STOP);
	assert_int_equal(len, 0);
	close(sv[0]);
	close(sv[1]);
}

static void truncated_frame_is_an_error(void **state)
{
	(void)state;
	int sv[2];
	pair(sv);
	uint8_t hdr[PROTO_HDR_LEN];
	proto_header_pack(hdr, PROTO_HOSTINFO, 100);
	assert_int_equal(write(sv[0], hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
	assert_int_equal(write(sv[0], "0123456789", 10), 10);
	close(sv[0]);
	uint16_t type;
	uint32_t len;
	bool eof = false;
	struct ns_err err = {0};
	assert_int_equal(proto_recv(sv[1], &type, buf, &len, proto_now() + 2, -1, &eof, &err), -1);
	assert_true(eof);
	assert_non_null(strstr(err.msg, "truncated"));
	close(sv[1]);

	/* half a header */
	pair(sv);
	assert_int_equal(write(sv[0], hdr, 3), 3);
	close(sv[0]);
	assert_int_equal(proto_recv(sv[1], &type, buf, &len, proto_now() + 2, -1, &eof, &err), -1);
	assert_true(eof);
	close(sv[1]);
}

static void silent_peer_times_out(void **state)
{
	(void)state;
	int sv[2];
	pair(sv);
	uint16_t type;
	uint32_t len;
	struct ns_err err = {0};
	double t0 = proto_now();
	assert_int_equal(proto_recv(sv[1], &type, buf, &len, t0 + 0.1, -1, NULL, &err), -1);
	assert_true(proto_now() - t0 < 5.0); /* 0.1 s asked; a loaded machine wakes late */
	assert_non_null(strstr(err.msg, "timed out"));
	close(sv[0]);
	close(sv[1]);
}

static void oversized_frame_is_refused_before_reading(void **state)
{
	(void)state;
	uint8_t hdr[PROTO_HDR_LEN];
	uint16_t type;
	uint32_t len;
	struct ns_err err = {0};
	proto_header_pack(hdr, PROTO_HOSTINFO, PROTO_MAX_PAYLOAD + 1);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), -1);
	assert_non_null(strstr(err.msg, "exceeds"));
	proto_header_pack(hdr, PROTO_HOSTINFO, 0xffffffffu);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), -1);
	proto_header_pack(hdr, PROTO_HOSTINFO, PROTO_MAX_PAYLOAD);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), 0);
	assert_int_equal(len, PROTO_MAX_PAYLOAD);
	/* and the sender refuses to build one */
	assert_int_equal(proto_send(-1, PROTO_HOSTINFO, buf, PROTO_MAX_PAYLOAD + 1, 0, &err), -1);
}

static void unknown_type_is_refused(void **state)
{
	(void)state;
	uint8_t hdr[PROTO_HDR_LEN];
	uint16_t type;
	uint32_t len;
	struct ns_err err = {0};
	proto_header_pack(hdr, 0, 0);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), -1);
	proto_header_pack(hdr, PROTO_TYPE_MAX + 1, 0);
	assert_int_equal(proto_header_parse(hdr, &type, &len, &err), -1);
	assert_non_null(strstr(err.msg, "unknown"));
	assert_string_equal(proto_type_name(999), "UNKNOWN");
	assert_string_equal(proto_type_name(PROTO_BUSY), "BUSY");
}

static void hello_checks_magic_and_version(void **state)
{
	(void)state;
	struct proto_buf b;
	struct proto_hello h = {.version = PROTO_VERSION}, out;
	struct ns_err err = {0};
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	assert_int_equal(proto_dec_hello(b.p, b.len, &out, &err), 0);
	assert_int_equal(out.version, PROTO_VERSION);
	proto_buf_free(&b);

	h.version = PROTO_VERSION + 1;
	proto_enc_hello(&b, &h);
	assert_int_equal(proto_dec_hello(b.p, b.len, &out, &err), -1);
	assert_non_null(strstr(err.msg, "version"));
	b.p[0] ^= 0xff; /* bad magic */
	assert_int_equal(proto_dec_hello(b.p, b.len, &out, &err), -1);
	assert_int_equal(proto_dec_hello(b.p, b.len - 1, &out, &err), -1); /* short */
	proto_buf_free(&b);
}

static void strings_and_numbers_are_bounded(void **state)
{
	(void)state;
	struct probe_params p, q;
	struct proto_buf b;
	struct ns_err err = {0};
	probe_params_init(&p);
	proto_buf_init(&b);
	proto_enc_params(&b, &p);
	/* trailing garbage */
	proto_put_u8(&b, 0);
	assert_int_equal(proto_dec_params(b.p, b.len, &q, &err), -1);
	assert_non_null(strstr(err.msg, "trailing"));
	proto_buf_free(&b);

	/* a host string longer than the field: the first field is u16 length + bytes */
	proto_put_u16(&b, 300);
	for (int i = 0; i < 300; i++)
		proto_put_u8(&b, 'a');
	assert_int_equal(proto_dec_params(b.p, b.len, &q, &err), -1);
	proto_buf_free(&b);

	/* a NUL inside a string */
	proto_put_str(&b, "ab");
	b.p[2] = '\0';
	struct proto_rd r;
	char s[8];
	proto_rd_init(&r, b.p, b.len);
	proto_get_str(&r, s, sizeof(s));
	assert_true(r.bad);
	proto_buf_free(&b);

	/* NaN never comes in from the wire */
	proto_put_f64(&b, NAN);
	proto_rd_init(&r, b.p, b.len);
	proto_get_f64(&r);
	assert_true(r.bad);
	proto_buf_free(&b);

	/* a READY that lists more ports than streams can exist */
	proto_put_u16(&b, 1);
	for (int i = 0; i < PROTO_COOKIE_LEN; i++)
		proto_put_u8(&b, 0);
	proto_put_u32(&b, PROTO_MAX_UDP_PORTS + 1);
	struct proto_ready *rd = malloc(sizeof(*rd));
	assert_non_null(rd);
	assert_int_equal(proto_dec_ready(b.p, b.len, rd, &err), -1);
	free(rd);
	proto_buf_free(&b);

	/* an ERROR text is cut to its bound, and decodes back */
	char big[4000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	uint16_t code;
	char text[PROTO_MAX_TEXT];
	proto_enc_error(&b, PROTO_E_BAD_REQUEST, big);
	assert_int_equal(proto_dec_error(b.p, b.len, &code, text, sizeof(text), &err), 0);
	assert_int_equal(code, PROTO_E_BAD_REQUEST);
	assert_int_equal(strlen(text), PROTO_MAX_TEXT - 1);
	proto_buf_free(&b);
}

static void results_round_trip_and_chunk_bounds(void **state)
{
	(void)state;
	struct proto_results r = {.n_dirs = 2}, o;
	r.dirs[0] = (struct proto_dir_summary){.dir = NS_DIR_FORWARD, .role = ENGINE_RECV,
					       .n_streams = 3, .n_intervals = 2, .duration_s = 9.5,
					       .cpu_percent = 42.5, .kernel_drops = 7};
	r.dirs[1] = (struct proto_dir_summary){.dir = NS_DIR_REVERSE, .role = ENGINE_SEND,
					       .n_streams = 3, .gso_active = 1};
	struct proto_buf b;
	struct ns_err err = {0};
	proto_buf_init(&b);
	proto_enc_results(&b, &r);
	assert_int_equal(proto_dec_results(b.p, b.len, &o, &err), 0);
	assert_int_equal(o.n_dirs, 2);
	assert_int_equal(o.dirs[0].kernel_drops, 7);
	assert_true(o.dirs[0].cpu_percent == 42.5 && o.dirs[0].duration_s == 9.5);
	assert_int_equal(o.dirs[1].gso_active, 1);
	proto_buf_free(&b);
	r.dirs[0].n_streams = NS_MAX_STREAMS + 1;
	proto_enc_results(&b, &r);
	assert_int_equal(proto_dec_results(b.p, b.len, &o, &err), -1);
	proto_buf_free(&b);

	struct proto_stream_rec recs[3], back[3];
	memset(recs, 0, sizeof(recs));
	memset(back, 0, sizeof(back));
	for (int i = 0; i < 3; i++) {
		recs[i].cpu = i - 1;
		recs[i].end.bytes = 1000u * (unsigned)(i + 1);
		recs[i].end.lost = (uint64_t)i;
		recs[i].end.jitter_ms = 0.25 * i;
		recs[i].end.cwnd_bytes = 65536 + ((uint64_t)i << 32); /* past 32 bits */
		recs[i].end.finished = true;
		recs[i].omit.bytes = 10;
	}
	proto_enc_streams(&b, NS_DIR_FORWARD, 1, recs + 1, 2);
	assert_int_equal(b.len, 9 + 2 * (4 + 2 * PROTO_SNAP_WIRE_LEN));
	uint8_t dir;
	uint32_t first, count;
	assert_int_equal(proto_dec_streams(b.p, b.len, &dir, &first, &count, back, 3, &err), 0);
	assert_int_equal(first, 1);
	assert_int_equal(count, 2);
	assert_int_equal(back[2].cpu, 1);
	assert_int_equal(back[2].end.bytes, 3000);
	assert_true(back[2].end.jitter_ms == 0.5);
	assert_true(back[1].end.finished);
	assert_int_equal(back[1].omit.bytes, 10);
	assert_true(back[2].end.cwnd_bytes == 65536 + (2ull << 32));
	/* a chunk that would land past the receiver's array */
	assert_int_equal(proto_dec_streams(b.p, b.len, &dir, &first, &count, back, 2, &err), -1);
	proto_buf_free(&b);

	struct probe_interval iv[2] = {{.start_s = -1, .end_s = 0, .bytes = 5, .omitted = true},
				       {.start_s = 0, .end_s = 1, .bytes = 9, .lost = 3,
					.cwnd_bytes = 6000000000ull}};
	struct probe_interval ib[2];
	proto_enc_intervals(&b, NS_DIR_REVERSE, 0, iv, 2);
	assert_int_equal(b.len, 9 + 2 * PROTO_IVL_WIRE_LEN);
	assert_int_equal(proto_dec_intervals(b.p, b.len, &dir, &first, &count, ib, 2, &err), 0);
	assert_int_equal(dir, NS_DIR_REVERSE);
	assert_true(ib[0].omitted && ib[0].start_s == -1 && ib[0].stream == -1);
	assert_int_equal(ib[1].lost, 3);
	assert_true(ib[1].cwnd_bytes == 6000000000ull);
	assert_int_equal(proto_dec_intervals(b.p, b.len, &dir, &first, &count, ib, 1, &err), -1);
	proto_buf_free(&b);
	/* long-run mode: a live chunk far into the series lands at the start of a small array;
	 * one past the protocol's bound on intervals is refused */
	proto_enc_intervals(&b, NS_DIR_FORWARD, 5000, iv, 2);
	memset(ib, 0, sizeof(ib));
	assert_int_equal(proto_dec_live_intervals(b.p, b.len, &dir, &first, &count, ib, 2, &err), 0);
	assert_int_equal(first, 5000);
	assert_int_equal(count, 2);
	assert_int_equal(ib[1].lost, 3);
	assert_int_equal(proto_dec_live_intervals(b.p, b.len, &dir, &first, &count, ib, 1, &err), -1);
	assert_int_equal(proto_dec_intervals(b.p, b.len, &dir, &first, &count, ib, 2, &err), -1);
	proto_buf_free(&b);
	proto_enc_intervals(&b, NS_DIR_FORWARD, PROTO_MAX_INTERVALS - 1, iv, 2);
	assert_int_equal(proto_dec_live_intervals(b.p, b.len, &dir, &first, &count, ib, 2, &err), -1);
	proto_buf_free(&b);
	/* a full chunk fits in one frame */
	assert_true(9 + PROTO_STREAMS_PER_CHUNK * (4 + 2 * PROTO_SNAP_WIRE_LEN) <= PROTO_MAX_PAYLOAD);
	assert_true(9 + PROTO_IVLS_PER_CHUNK * PROTO_IVL_WIRE_LEN <= PROTO_MAX_PAYLOAD);
}

/* UDP loss from both ends: sent - unique received over the whole test, minus the gaps already
 * seen during the omit period; out-of-order and duplicates are the receiver's deltas. */
static void udp_figures_count_loss_from_both_ends(void **state)
{
	(void)state;
	struct engine_stream_snap s0[2] = {{0}}, s1[2] = {{0}}, r0[2] = {{0}}, r1[2] = {{0}};
	s0[0].packets = 100; s1[0].packets = 1100; s1[0].bytes = 1100 * 1000; s0[0].bytes = 100 * 1000;
	r0[0].packets = 95;  r0[0].lost = 5;       r1[0].packets = 1080;      r1[0].lost = 12;
	r1[0].bytes = 1080 * 1000; r0[0].bytes = 95 * 1000;
	r1[0].out_of_order = 4; r1[0].duplicates = 2; r1[0].jitter_ms = 0.5;
	s1[1].packets = 500; s1[1].bytes = 500 * 1000;
	r1[1].packets = 500; r1[1].bytes = 500 * 1000; r1[1].jitter_ms = 1.5;
	struct probe_direction d;
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(s0, s1, r0, r1, 2, 2.0, NS_PROTO_UDP, &d, NULL), 0);
	/* stream 0: 1100 sent, 1080 arrived: 20 missing, 5 of them in the omit period */
	assert_int_equal(d.streams[0].receiver.lost, 15);
	assert_int_equal(d.streams[0].receiver.packets, 985);
	assert_int_equal(d.streams[0].sender.packets, 1000);
	assert_int_equal(d.streams[0].receiver.out_of_order, 4);
	assert_int_equal(d.streams[1].receiver.lost, 0);
	assert_int_equal(d.receiver.lost, 15);
	assert_int_equal(d.receiver.packets, 1485);
	assert_true(fabs(d.receiver.lost_percent - 100.0 * 15 / 1500) < 1e-9);
	assert_true(fabs(d.receiver.jitter_ms - 1.0) < 1e-9);
	assert_true(fabs(d.sender.bits_per_second - 1500.0 * 1000 * 8 / 2.0) < 1e-6);
	free(d.streams);

	/* without the sender's figures, the sequence gaps are all there is */
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(NULL, NULL, r0, r1, 2, 2.0, NS_PROTO_UDP, &d, NULL), 0);
	assert_int_equal(d.receiver.lost, 7);
	assert_int_equal(d.sender.bytes, 0);
	free(d.streams);
}

/* TCP after an omit period: the receiver's bytes count from the sender's baseline, so what
 * was in flight at the omit mark is not counted as measured; the acknowledged bytes where the
 * kernel gives them, else what the sender had written. */
static void tcp_receiver_counts_from_the_senders_baseline(void **state)
{
	(void)state;
	struct engine_stream_snap s0 = {.bytes = 1000}, s1 = {.bytes = 5000};
	struct engine_stream_snap r0 = {.bytes = 600}, r1 = {.bytes = 5000};
	struct probe_direction d;
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(&s0, &s1, &r0, &r1, 1, 1.0, NS_PROTO_TCP, &d, NULL), 0);
	assert_int_equal(d.sender.bytes, 4000);
	assert_int_equal(d.receiver.bytes, 4000); /* not 4400 */
	free(d.streams);
	/* without the sender's figures, the receiver's own baseline */
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(NULL, NULL, &r0, &r1, 1, 1.0, NS_PROTO_TCP, &d, NULL), 0);
	assert_int_equal(d.receiver.bytes, 4400);
	free(d.streams);
	/* with the sender's acknowledged bytes: what the peer got between the sender's marks.
	 * Behind a slow link with a deep queue the sender had written more by its omit mark
	 * (300,000) than the receiver got in the whole test (230,000): written minus that read
	 * 0; acknowledged, 150,000 - 40,000 */
	s0 = (struct engine_stream_snap){.bytes = 300000, .acked = 40000};
	s1 = (struct engine_stream_snap){.bytes = 420000, .acked = 150000};
	r0 = (struct engine_stream_snap){.bytes = 30000};
	r1 = (struct engine_stream_snap){.bytes = 230000};
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(&s0, &s1, &r0, &r1, 1, 1.0, NS_PROTO_TCP, &d, NULL), 0);
	assert_int_equal(d.sender.bytes, 120000);
	assert_int_equal(d.receiver.bytes, 110000);
	free(d.streams);
	/* never more than the receiver's own total after the sender's baseline */
	r1.bytes = 100000;
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(&s0, &s1, &r0, &r1, 1, 1.0, NS_PROTO_TCP, &d, NULL), 0);
	assert_int_equal(d.receiver.bytes, 60000);
	free(d.streams);
}

static void intervals_sum_streams(void **state)
{
	(void)state;
	struct engine_stream_snap a[2] = {{0}}, b[2] = {{0}};
	b[0].bytes = 1000; b[0].packets = 10; b[0].retransmits = 2; b[0].rtt_ms = 1; b[0].cwnd_bytes = 10;
	b[1].bytes = 3000; b[1].packets = 30; b[1].retransmits = 1; b[1].rtt_ms = 3; b[1].cwnd_bytes = 20;
	b[0].cwnd_bytes += 3000000000ull; /* the sum passes 32 bits */
	b[1].cwnd_bytes += 3000000000ull;
	a[1].bytes = 1000; a[1].packets = 10;
	struct probe_interval v;
	session_interval(a, b, 2, -1, 0, 1, 0.5, false, &v);
	assert_int_equal(v.bytes, 3000);
	assert_int_equal(v.packets, 30);
	assert_int_equal(v.retransmits, 3);
	assert_true(v.cwnd_bytes == 6000000030ull);
	assert_true(v.rtt_ms == 2);
	assert_true(v.bits_per_second == 3000 * 8 / 0.5);
	session_interval(a, b, 2, 1, 0, 1, 1, false, &v);
	assert_int_equal(v.bytes, 2000);
	assert_int_equal(v.stream, 1);
	struct probe_direction d;
	memset(&d, 0, sizeof(d));
	assert_int_equal(session_figures(a, b, a, b, 2, 1.0, NS_PROTO_TCP, &d, NULL), 0);
	assert_true(d.sender.cwnd_bytes == 6000000030ull);
	free(d.streams);
}

/* Interval boundaries are the phase's start plus whole intervals: no interval of zero width
 * (rounding once left one a hair before the end), and exactly ceil(omit / interval) +
 * ceil(duration / interval) of them whatever the start time, since the agent's and the client's
 * series are paired by position. */
static void interval_boundaries_are_whole_multiples(void **state)
{
	(void)state;
	static const double t0s[] = { 12345.678901, 98765.4321, 3.3, 200000.17, 1e6 + 0.1 };
	static const struct { double omit, interval, duration; } cases[] = {
		{ 0, 0.1, 2 }, { 0, 0.3, 3 }, { 0, 0.7, 7 }, { 0, 0.2, 2.9 }, { 1, 0.1, 2 },
		{ 0.3, 0.1, 1 }, { 0, 0.1, 10 },
	};
	for (size_t a = 0; a < sizeof(t0s) / sizeof(t0s[0]); a++) {
		for (size_t b = 0; b < sizeof(cases) / sizeof(cases[0]); b++) {
			struct probe_params p;
			probe_params_init(&p);
			p.omit_s = cases[b].omit;
			p.interval_s = cases[b].interval;
			p.duration_s = cases[b].duration;
			struct session_clock c;
			session_clock_init(&c, t0s[a], &p);
			uint32_t n = 0;
			double prev = c.last, now = t0s[a], narrowest = 1e9;
			while (!c.ended && n < 100000) {
				double next = session_tick(&c, NULL, 0, now);
				if (c.last > prev) {
					if (c.last - prev < narrowest)
						narrowest = c.last - prev;
					prev = c.last;
					n++;
				}
				now = next;
			}
			uint32_t want = (uint32_t)ceil(p.omit_s / p.interval_s - 1e-9) +
					(uint32_t)ceil(p.duration_s / p.interval_s - 1e-9);
			if (n != want || narrowest < p.interval_s / 2 - 1e-6)
				fail_msg("t0 %.6f omit %g interval %g duration %g: %u intervals (want %u), "
					 "narrowest %.3g s", t0s[a], p.omit_s, p.interval_s, p.duration_s,
					 (unsigned)n, (unsigned)want, narrowest);
		}
	}
}

static void *serve(void *arg)
{
	agent_serve(arg, NULL);
	return NULL;
}

/* The agent.h API as the runner embeds it: port 0 picks a free port; probe_hostinfo gets
 * valid JSON back; garbage and a wrong version are answered with ERROR, not a crash;
 * agent_stop ends agent_serve. */
static void embedded_agent_answers_and_stops(void **state)
{
	(void)state;
	struct agent_opts o;
	struct ns_err err = {0};
	settings_set(&(struct ns_settings){.imds_off = true}); /* the agent's hostinfo must not query 169.254.169.254 */
	agent_opts_init(&o);
	snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
	o.port = 0;
	o.quiet = 1;
	struct agent *a = agent_create(&o, &err);
	assert_non_null(a);
	uint16_t port = agent_port(a);
	assert_true(port != 0);
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, serve, a), 0);

	char *json = NULL;
	if (probe_hostinfo("127.0.0.1", port, NULL, 10, &json, &err) < 0)
		fail_msg("probe_hostinfo: %s", err.msg);
	assert_non_null(json);
	assert_true(json[0] == '{');
	free(json);

	/* a HELLO of a later version, or an oversized frame, gets ERROR with the reason */
	for (int k = 0; k < 2; k++) {
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port),
					  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
		struct proto_buf b;
		struct proto_hello h = {.version = PROTO_VERSION + 1};
		proto_buf_init(&b);
		proto_enc_hello(&b, &h);
		if (k == 0) {
			assert_int_equal(proto_send_buf(fd, PROTO_HELLO, &b, proto_now() + 2, NULL), 0);
		} else {
			uint8_t hdr[PROTO_HDR_LEN];
			proto_header_pack(hdr, PROTO_HELLO, 1u << 30);
			assert_int_equal(write(fd, hdr, sizeof(hdr)), (ssize_t)sizeof(hdr));
		}
		proto_buf_free(&b);
		uint16_t type, code;
		uint32_t len;
		char text[PROTO_MAX_TEXT];
		assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 5, -1, NULL, NULL), 0);
		assert_int_equal(type, PROTO_ERROR);
		assert_int_equal(proto_dec_error(buf, len, &code, text, sizeof(text), NULL), 0);
		assert_int_equal(code, k == 0 ? PROTO_E_VERSION : PROTO_E_BAD_REQUEST);
		assert_non_null(strstr(text, k == 0 ? "version" : "exceeds"));
		close(fd);
	}

	/* and a whole test through the embedded agent */
	struct probe_params p;
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = port;
	p.duration_s = 0.3;
	p.interval_s = 0.1;
	struct probe_result res;
	assert_int_equal(probe_run(&p, &res, &err), 0);
	assert_int_equal(res.status, 0);
	assert_int_equal(res.n_dirs, 1);
	assert_true(res.dirs[0].receiver.bytes > 0);
	assert_true(res.dirs[0].sender.bytes == res.dirs[0].receiver.bytes);
	assert_true(res.dirs[0].n_intervals >= 2);
	probe_result_free(&res);

	agent_stop(a);
	assert_int_equal(pthread_join(tid, NULL), 0);
	agent_destroy(a);
}

/* The payloads of a HELLO of our version and of a TEST_REQUEST for p. */
static void request_frames(const struct probe_params *p, struct proto_buf *req,
			   struct proto_buf *hello)
{
	struct proto_hello h = {.version = PROTO_VERSION};
	proto_buf_init(req);
	proto_buf_init(hello);
	proto_enc_params(req, p);
	proto_enc_hello(hello, &h);
}

static int connect_local(uint16_t port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	assert_int_equal(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

/* the agent's log lines, to stderr as `netsweep agent` writes them */
static void log_to_stderr(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "%s\n", line);
}

/* A peer's words reach the agent's log and the probe's terminal with every byte outside
 * printable ASCII made '?': a congestion name with a newline once forged a log line. */
static void network_text_is_made_printable(void **state)
{
	(void)state;
	char t[] = "a\nb\x1b[2J\x80" "c";
	proto_printable(t);
	assert_string_equal(t, "a?b?[2J?c");

	char log_path[] = "/tmp/f9-agent-log.XXXXXX";
	int log_fd = mkstemp(log_path);
	assert_true(log_fd >= 0);
	fflush(stderr);
	int saved = dup(2);
	assert_true(saved >= 0 && dup2(log_fd, 2) == 2);
	struct agent_opts o;
	settings_set(&(struct ns_settings){.imds_off = true});
	agent_opts_init(&o);
	snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
	o.port = 0;
	o.log = log_to_stderr; /* the log the test reads back */
	struct agent *a = agent_create(&o, NULL);
	assert_non_null(a);
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, serve, a), 0);
	struct probe_params p;
	probe_params_init(&p);
	snprintf(p.congestion, sizeof(p.congestion), "x\n1.2.3.4: done");
	struct proto_buf req, hello;
	request_frames(&p, &req, &hello);
	int fd = connect_local(agent_port(a));
	uint16_t type = 0, code;
	uint32_t len;
	char text[PROTO_MAX_TEXT];
	assert_int_equal(proto_send_buf(fd, PROTO_HELLO, &hello, proto_now() + 2, NULL), 0);
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 5, -1, NULL, NULL), 0);
	assert_int_equal(proto_send_buf(fd, PROTO_TEST_REQUEST, &req, proto_now() + 2, NULL), 0);
	assert_int_equal(proto_recv(fd, &type, buf, &len, proto_now() + 5, -1, NULL, NULL), 0);
	assert_int_equal(type, PROTO_ERROR);
	assert_int_equal(proto_dec_error(buf, len, &code, text, sizeof(text), NULL), 0);
	close(fd);
	agent_stop(a);
	assert_int_equal(pthread_join(tid, NULL), 0);
	agent_destroy(a);
	proto_buf_free(&req);
	proto_buf_free(&hello);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	/* the probe's side: the agent's text as decoded */
	assert_non_null(strstr(text, "x?1.2.3.4: done"));
	/* the agent's side: one line saying it, none forged */
	char logbuf[8192];
	ssize_t n = pread(log_fd, logbuf, sizeof(logbuf) - 1, 0);
	close(log_fd);
	unlink(log_path);
	assert_true(n > 0);
	logbuf[n] = '\0';
	if (!strstr(logbuf, "x?1.2.3.4: done") || strstr(logbuf, "\n1.2.3.4"))
		fail_msg("agent log:\n%s", logbuf);
}

/* Mutated TEST_REQUESTs (random bytes flipped in a valid one, random lengths) never crash the
 * agent: each is refused with ERROR or, when it happens to be valid, answered with READY and
 * abandoned — and the agent then serves a real test. */
static void agent_survives_mutated_requests(void **state)
{
	(void)state;
	struct agent_opts o;
	settings_set(&(struct ns_settings){.imds_off = true});
	agent_opts_init(&o);
	snprintf(o.listen_addr, sizeof(o.listen_addr), "127.0.0.1");
	o.port = 0;
	o.quiet = 1;
	struct agent *a = agent_create(&o, NULL);
	assert_non_null(a);
	uint16_t port = agent_port(a);
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, serve, a), 0);
	struct probe_params p;
	probe_params_init(&p);
	struct proto_buf req, hello;
	request_frames(&p, &req, &hello);
	srand(12345);
	int refused = 0, ready = 0;
	for (int i = 0; i < 80; i++) {
		uint8_t msg[512];
		size_t len = req.len;
		memcpy(msg, req.p, req.len);
		for (int k = 0; k < 1 + rand() % 4; k++)
			msg[rand() % req.len] = (uint8_t)rand();
		if (rand() % 4 == 0)
			len = (size_t)rand() % req.len;
		uint16_t type = 0;
		uint32_t rlen;
		for (int tries = 0; tries < 50; tries++) { /* BUSY while the last one winds down */
			int fd = connect_local(port);
			struct ns_err e = {0};
			double t0 = proto_now();
			assert_int_equal(proto_send_buf(fd, PROTO_HELLO, &hello, proto_now() + 2, NULL), 0);
			if (proto_recv(fd, &type, buf, &rlen, proto_now() + 10, -1, NULL, &e) < 0)
				fail_msg("mutation %d try %d: %s after %.2f s", i, tries, e.msg, proto_now() - t0);
			if (type == PROTO_HELLO) {
				assert_int_equal(proto_send(fd, PROTO_TEST_REQUEST, msg, len, proto_now() + 2,
							    NULL), 0);
				if (proto_recv(fd, &type, buf, &rlen, proto_now() + 10, -1, NULL, &e) < 0)
					fail_msg("mutation %d: no answer to the request: %s", i, e.msg);
			}
			close(fd);
			if (type != PROTO_BUSY)
				break;
			usleep(10000);
		}
		if (type == PROTO_ERROR)
			refused++;
		else if (type == PROTO_READY)
			ready++;
		else
			fail_msg("mutation %d: answered %s", i, proto_type_name(type));
	}
	assert_true(refused > 0);
	proto_buf_free(&req);
	proto_buf_free(&hello);

	struct probe_result res;
	struct ns_err err = {0};
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = port;
	p.duration_s = 0.2;
	int rc = -1;
	for (int tries = 0; tries < 50 && rc < 0; tries++) {
		rc = probe_run(&p, &res, &err);
		if (rc < 0 && !strstr(err.msg, "busy"))
			fail_msg("after %d refused and %d accepted mutations: %s", refused, ready, err.msg);
		if (rc < 0) {
			probe_result_free(&res);
			usleep(20000);
		}
	}
	assert_int_equal(rc, 0);
	probe_result_free(&res);
	agent_stop(a);
	assert_int_equal(pthread_join(tid, NULL), 0);
	agent_destroy(a);
}

/* An agent that never answers the SYN: a listener whose accept queue is full drops it, so the
 * connect runs into the timeout — the probe must give up within the connect timeout. */
static void silent_agent_times_out_within_the_connect_timeout(void **state)
{
	(void)state;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sin);
	assert_int_equal(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	assert_int_equal(listen(l, 0), 0);
	assert_int_equal(getsockname(l, (struct sockaddr *)&sin, &sl), 0);
	int fill[4];
	for (int i = 0; i < 4; i++) { /* fill the queue; later SYNs are dropped */
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(fill[i], (struct sockaddr *)&sin, sizeof(sin));
	}
	usleep(100000);
	struct probe_params p;
	struct probe_result res;
	struct ns_err err = {0};
	probe_params_init(&p);
	snprintf(p.host, sizeof(p.host), "127.0.0.1");
	p.port = ntohs(sin.sin_port);
	p.connect_timeout_s = 0.5;
	double t0 = proto_now();
	assert_int_equal(probe_run(&p, &res, &err), -1);
	double took = proto_now() - t0;
	/* never before the timeout; after it by however long a loaded machine takes to wake */
	if (!(took >= 0.45 && took < 10.0))
		fail_msg("gave up after %.2f s (connect timeout 0.5 s): %s", took, err.msg);
	assert_int_equal(res.status, -1);
	assert_non_null(strstr(res.error, "timed out"));
	probe_result_free(&res);
	for (int i = 0; i < 4; i++)
		close(fill[i]);
	close(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(frame_round_trip),
		cmocka_unit_test(truncated_frame_is_an_error),
		cmocka_unit_test(silent_peer_times_out),
		cmocka_unit_test(oversized_frame_is_refused_before_reading),
		cmocka_unit_test(unknown_type_is_refused),
		cmocka_unit_test(hello_checks_magic_and_version),
		cmocka_unit_test(strings_and_numbers_are_bounded),
		cmocka_unit_test(results_round_trip_and_chunk_bounds),
		cmocka_unit_test(udp_figures_count_loss_from_both_ends),
		cmocka_unit_test(tcp_receiver_counts_from_the_senders_baseline),
		cmocka_unit_test(intervals_sum_streams),
		cmocka_unit_test(interval_boundaries_are_whole_multiples),
		cmocka_unit_test(embedded_agent_answers_and_stops),
		cmocka_unit_test(silent_agent_times_out_within_the_connect_timeout),
		cmocka_unit_test(agent_survives_mutated_requests),
		cmocka_unit_test(network_text_is_made_printable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
