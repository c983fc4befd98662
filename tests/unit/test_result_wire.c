/* The binary result of a delegated run (runner/proto/result_wire.h): DELEGATE_RESULT,
 * DELEGATE_STREAMS, DELEGATE_INTERVALS and DONE through a socket pair — every field of the
 * result's tables back equal, a result whose JSON passes the 16 MiB the JSON transfer had, the
 * record sizes the protocol document states — and every bound the reader keeps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "runner/proto/fields.h"
#include "runner/proto/proto.h"
#include "runner/proto/result_wire.h"

static uint8_t buf[PROTO_MAX_PAYLOAD + 1];

/* Every field of a table (fields.h), whatever its flags. */
static void table_equal(const struct field_table *t, const void *a, const void *b)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct field *f = &t->f[i];
		const char *pa = (const char *)a + f->off, *pb = (const char *)b + f->off;
		if (f->type == FT_STR ? strcmp(pa, pb) != 0 : memcmp(pa, pb, f->size) != 0)
			fail_msg("%s.%s differs", t->name, f->name);
	}
}

/* Everything a delegated result carries (not params: the runner keeps its own). */
static void same_text(const char *a, const char *b)
{
	if (a || b)
		assert_string_equal(a ? a : "(none)", b ? b : "(none)");
}

static void same_series(const struct probe_latency_interval *a, uint32_t na,
			const struct probe_latency_interval *b, uint32_t nb)
{
	assert_int_equal(na, nb);
	for (uint32_t i = 0; i < na; i++) {
		assert_true(a[i].start_s == b[i].start_s && a[i].end_s == b[i].end_s);
		assert_int_equal(a[i].omitted, b[i].omitted);
		table_equal(&fields_latency, &a[i].f, &b[i].f);
	}
}

static void same_as_sent(const struct probe_result *a, const struct probe_result *b)
{
	assert_int_equal(a->status, b->status);
	assert_string_equal(a->error, b->error);
	assert_string_equal(a->warnings, b->warnings);
	table_equal(&fields_result, a, b);
	assert_int_equal(a->n_dirs, b->n_dirs);
	for (uint32_t d = 0; d < a->n_dirs; d++) {
		const struct probe_direction *x = &a->dirs[d], *y = &b->dirs[d];
		assert_int_equal(x->dir, y->dir);
		table_equal(&fields_figures, &x->sender, &y->sender);
		table_equal(&fields_figures, &x->receiver, &y->receiver);
		assert_int_equal(x->shaping.found, y->shaping.found);
		table_equal(&fields_shaping, &x->shaping, &y->shaping);
		table_equal(&fields_limit, &x->limit, &y->limit);
		assert_int_equal(x->n_streams, y->n_streams);
		for (uint32_t i = 0; i < x->n_streams; i++) {
			table_equal(&fields_stream, &x->streams[i], &y->streams[i]);
			table_equal(&fields_figures, &x->streams[i].sender, &y->streams[i].sender);
			table_equal(&fields_figures, &x->streams[i].receiver, &y->streams[i].receiver);
		}
		assert_int_equal(x->n_intervals, y->n_intervals);
		for (uint32_t i = 0; i < x->n_intervals; i++)
			table_equal(&fields_interval, &x->intervals[i], &y->intervals[i]);
	}
	/* the latency objects (issue 24), their histograms and series (issue 34) */
	assert_int_equal(a->latency.present, b->latency.present);
	if (a->latency.present) {
		table_equal(&fields_latency, &a->latency.sum, &b->latency.sum);
		assert_true(a->latency.relative_error == b->latency.relative_error);
		assert_int_equal(a->latency.client_cpu, b->latency.client_cpu);
		assert_int_equal(a->latency.agent_cpu, b->latency.agent_cpu);
		assert_int_equal(a->latency.client_clock_synced, b->latency.client_clock_synced);
		assert_true(a->latency.client_clock_maxerror_us == b->latency.client_clock_maxerror_us);
		assert_string_equal(a->latency.one_way_why, b->latency.one_way_why);
		same_text(a->latency.histogram, b->latency.histogram);
		same_series(a->latency.intervals, a->latency.n_intervals, b->latency.intervals,
			    b->latency.n_intervals);
	}
	assert_int_equal(a->lul.present, b->lul.present);
	if (a->lul.present) {
		table_equal(&fields_lul, &a->lul, &b->lul);
		table_equal(&fields_latency, &a->lul.idle, &b->lul.idle);
		table_equal(&fields_latency, &a->lul.loaded, &b->lul.loaded);
		same_text(a->lul.idle_histogram, b->lul.idle_histogram);
		same_text(a->lul.loaded_histogram, b->lul.loaded_histogram);
		same_series(a->lul.intervals, a->lul.n_intervals, b->lul.intervals,
			    b->lul.n_intervals);
	}
}

/* Latency figures a request/response test or a latency probe gives, each field its own. */
static void fill_latency(struct probe_latency_figures *f, double base)
{
	*f = (struct probe_latency_figures){.transactions = 1ull << 33,
					    .transactions_per_second = base / 3, .lost = 17,
					    .min_us = base, .mean_us = base * 1.5, .p50_us = base * 1.4,
					    .p90_us = base * 2, .p99_us = base * 3, .p999_us = base * 4,
					    .max_us = base * 5};
}

/* A result with every field of its tables set, streams x intervals records per direction. */
static void make_result(struct probe_result *r, uint32_t n_dirs, uint32_t streams,
			uint32_t ivls)
{
	memset(r, 0, sizeof(*r));
	probe_params_init(&r->params);
	snprintf(r->params.host, sizeof(r->params.host), "192.0.2.1");
	r->params.proto = NS_PROTO_UDP;
	r->params.dir = n_dirs > 1 ? NS_DIR_BIDIR : NS_DIR_REVERSE;
	r->params.streams = streams;
	r->duration_s = 1.0 / 3.0;
	r->gso_active = r->zerocopy_active = r->shaped_by_provider = true;
	snprintf(r->engine_mode, sizeof(r->engine_mode), "sender xdp tx copy, receiver socket");
	r->tos_applied = 0xb8;
	r->dscp_applied = 46;
	r->zerocopy_sends = 1ull << 40;
	r->zerocopy_completions = 7;
	r->zerocopy_copied = 3;
	snprintf(r->ended, sizeof(r->ended), "sustained");
	snprintf(r->nic_client.ifname, sizeof(r->nic_client.ifname), "ens5");
	r->nic_client.allowance_counters = 5;
	r->nic_client.pps_allowance_exceeded = 12345678901ull;
	snprintf(r->nic_agent.ifname, sizeof(r->nic_agent.ifname), "eth1");
	r->nic_agent.linklocal_allowance_exceeded = 9;
	r->nic_agent.rx_packets = 77;
	snprintf(r->warnings, sizeof(r->warnings), "first; second");
	r->n_dirs = n_dirs;
	for (uint32_t d = 0; d < n_dirs; d++) {
		struct probe_direction *pd = &r->dirs[d];
		pd->dir = d ? NS_DIR_FORWARD : NS_DIR_REVERSE;
		struct probe_figures f = {.bytes = 123456789012345ull + d, .packets = 99,
					  .bits_per_second = 0.1 + 0.2, .packets_per_second = 1e-300,
					  .cpu_percent = 12.5, .retransmits = 4, .rtt_ms = 0.25,
					  .cwnd_bytes = 1u << 20, .lost = 7, .lost_percent = 100.0 / 7,
					  .out_of_order = 3, .duplicates = 2, .jitter_ms = 0.0123456789,
					  .kernel_drops = 1ull << 63, .socket_drops = 5};
		pd->sender = f;
		pd->receiver = f;
		pd->receiver.bytes--;
		pd->shaping = (struct probe_shaping){.found = d == 0, .burst_bps = 1e9 / 3,
						     .burst_s = 9.5, .sustained_bps = 2.5e8};
		pd->limit = (struct probe_limit){.asked_bps = 5e7, .offered_bps = 3.7e7 + d,
						 .shortfall_pct = 26, .sender_limited = true,
						 .cause = "pacer_late", .limited_by = "sender_cpu",
						 .sender_thread_cpu = 19.5, .receiver_thread_cpu = 7.25,
						 .sender_steal_pct = 39.8, .receiver_steal_pct = 0.5,
						 .sender_blocked_pct = 1.0 / 3, .pace_lost_pct = 25.5,
						 .sender_runq_pct = 30.25, .receiver_runq_pct = 2,
						 .sender_sched = "realtime_dropped",
						 .receiver_sched = "not_permitted"};
		pd->n_streams = streams;
		pd->streams = calloc(streams, sizeof(*pd->streams));
		assert_non_null(pd->streams);
		for (uint32_t i = 0; i < streams; i++) {
			pd->streams[i].id = i;
			pd->streams[i].cpu = (int)(i % 3) - 1;
			pd->streams[i].sender = f;
			pd->streams[i].receiver = f;
			pd->streams[i].receiver.jitter_ms = 1.0 / (i + 7);
		}
		pd->n_intervals = ivls;
		pd->intervals = calloc(ivls, sizeof(*pd->intervals));
		assert_non_null(pd->intervals);
		for (uint32_t i = 0; i < ivls; i++) {
			struct probe_interval *v = &pd->intervals[i];
			v->stream = (int32_t)(i % (streams + 1)) - 1;
			v->start_s = (i / (streams + 1)) * 0.01;
			v->end_s = v->start_s + 0.01;
			v->bytes = 1000 + i;
			v->bits_per_second = 8e4 / 3;
			v->packets = i;
			v->retransmits = i / 2;
			v->cwnd_bytes = i * 1448ull;
			v->rtt_ms = 0.001 * i;
			v->lost = i * 2;
			v->jitter_ms = 0.001 * i;
			v->omitted = i == 0;
		}
	}
}

struct sender {
	int fd;
	const struct probe_result *r;
	int rc;
};

/* Deadlines are generous: the biggest result is 28.8 MB, which an ASan build on a busy
 * machine takes over 30 s to send; a test of the wire, not of speed. */
static void *send_result(void *arg)
{
	struct sender *w = arg;
	struct ns_err err = {0};
	w->rc = proto_send_delegate_result(w->fd, w->r, proto_now() + 300, &err);
	if (w->rc == 0)
		w->rc = proto_send(w->fd, PROTO_DONE, NULL, 0, proto_now() + 5, &err);
	return NULL;
}

/* r through a socket pair as a client agent sends it, read back as a runner reads it. */
static void binary_round_trip(const struct probe_result *r, uint32_t *n_msgs)
{
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	struct sender w = {sv[0], r, -1};
	pthread_t tid;
	assert_int_equal(pthread_create(&tid, NULL, send_result, &w), 0);
	struct probe_result back;
	struct proto_result_rd rd;
	struct ns_err err = {0};
	memset(&back, 0, sizeof(back));
	back.params = r->params;
	proto_result_rd_init(&rd, &back);
	int rc = 0;
	*n_msgs = 0;
	while (rc == 0) {
		uint16_t type;
		uint32_t len;
		if (proto_recv(sv[1], &type, buf, &len, proto_now() + 300, -1, NULL, &err) < 0)
			fail_msg("proto_recv: %s", err.msg);
		++*n_msgs;
		rc = proto_result_rd_msg(&rd, type, buf, len, &err);
		if (rc < 0)
			fail_msg("proto_result_rd_msg: %s", err.msg);
	}
	pthread_join(tid, NULL);
	assert_int_equal(w.rc, 0);
	close(sv[0]);
	close(sv[1]);
	same_as_sent(r, &back);
	probe_result_free(&back);
}

static void binary_result_round_trips(void **state)
{
	(void)state;
	struct probe_result r;
	uint32_t n;
	/* the record sizes and chunk counts schemas/control-protocol.md states */
	assert_int_equal(PROTO_DSTREAM_WIRE_LEN, 280);
	assert_int_equal(PROTO_DIVL_WIRE_LEN, 85);
	assert_int_equal(PROTO_DSTREAMS_PER_CHUNK, 234);
	assert_int_equal(PROTO_DIVLS_PER_CHUNK, 770);
	assert_int_equal(PROTO_DLATIVL_WIRE_LEN, 97);
	assert_int_equal(PROTO_DLATIVLS_PER_CHUNK, 675);
	make_result(&r, 2, 3, 40);
	binary_round_trip(&r, &n);
	assert_int_equal(n, 1 + 2 * 2 + 1); /* sums, streams and intervals per direction, DONE */
	probe_result_free(&r);
	/* a request/response result and a latency probe's: one DELEGATE_LATENCY more */
	make_result(&r, 1, 1, 2);
	r.latency.present = true;
	fill_latency(&r.latency.sum, 13.25);
	r.latency.relative_error = 0.0078125;
	r.latency.client_cpu = 5;
	r.latency.agent_cpu = -1;
	r.latency.client_clock_synced = true;
	r.latency.client_clock_maxerror_us = 16000.5;
	snprintf(r.latency.one_way_why, sizeof(r.latency.one_way_why), "the agent's clock");
	r.latency.histogram = strdup("LH1 n=3 sum=99 min=10 max=50 b=10:1,20:1,20:1");
	r.lul.present = true;
	snprintf(r.lul.test, sizeof(r.lul.test), "udp_rr");
	r.lul.request = 8;
	r.lul.response = 64;
	r.lul.rate = 100;
	r.lul.idle_s = 1.0 / 3;
	r.lul.loaded_s = 9.75;
	fill_latency(&r.lul.idle, 55.5);
	fill_latency(&r.lul.loaded, 40123.5);
	r.lul.added_p50_us = r.lul.loaded.p50_us - r.lul.idle.p50_us;
	r.lul.added_p99_us = -1.0 / 7;
	binary_round_trip(&r, &n);
	assert_int_equal(n, 1 + 2 + 1 + 1 + 1); /* and the latency's histogram */
	/* every histogram and both series, the long one in several chunks */
	r.lul.idle_histogram = strdup("LH1 n=1 sum=7 min=7 max=7 b=7:1");
	r.lul.loaded_histogram = strdup("LH1 n=2 sum=90 min=40 max=50 b=40:1,10:1");
	r.latency.n_intervals = 2 * PROTO_DLATIVLS_PER_CHUNK + 5;
	r.latency.intervals = calloc(r.latency.n_intervals, sizeof(*r.latency.intervals));
	r.lul.n_intervals = 3;
	r.lul.intervals = calloc(3, sizeof(*r.lul.intervals));
	for (uint32_t i = 0; i < r.latency.n_intervals; i++) {
		struct probe_latency_interval *v = &r.latency.intervals[i];
		v->start_s = i / 10.0;
		v->end_s = (i + 1) / 10.0;
		v->omitted = i < 3;
		fill_latency(&v->f, 10.0 + i);
		if (i < 3)
			r.lul.intervals[i] = *v;
	}
	binary_round_trip(&r, &n);
	assert_int_equal(n, 1 + 2 + 1 + 3 + 3 + 1 + 1);
	r.latency.present = false; /* only the probe's */
	binary_round_trip(&r, &n);
	assert_int_equal(n, 1 + 2 + 1 + 2 + 1 + 1);
	/* a second DELEGATE_LATENCY, or unknown flags, are refused */
	struct proto_buf lb;
	struct probe_result lback;
	struct proto_result_rd lrd;
	struct ns_err lerr = {0};
	proto_buf_init(&lb);
	proto_enc_delegate_result(&lb, &r);
	memset(&lback, 0, sizeof(lback));
	proto_result_rd_init(&lrd, &lback);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_RESULT, lb.p, lb.len, &lerr), 0);
	lb.len = 0;
	proto_enc_delegate_latency(&lb, &r);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LATENCY, lb.p, lb.len, &lerr), 0);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LATENCY, lb.p, lb.len, &lerr), -1);
	/* a histogram of an object that did not come (the latency's), a second loaded one; a
	 * series chunk out of order; DONE before the series came */
	lb.len = 0;
	proto_enc_delegate_lat_histogram(&lb, 1, "LH1 n=0 sum=0 min=0 max=0 b=");
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LAT_HISTOGRAM, lb.p, lb.len, &lerr), -1);
	lb.len = 0;
	proto_enc_delegate_lat_histogram(&lb, 3, r.lul.loaded_histogram);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LAT_HISTOGRAM, lb.p, lb.len, &lerr), 0);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LAT_HISTOGRAM, lb.p, lb.len, &lerr), -1);
	lb.len = 0;
	proto_enc_delegate_lat_intervals(&lb, 2, 1, r.lul.intervals + 1, 2);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LAT_INTERVALS, lb.p, lb.len, &lerr), -1);
	lb.len = 0;
	proto_enc_delegate_lat_intervals(&lb, 2, 0, r.lul.intervals, 2);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LAT_INTERVALS, lb.p, lb.len, &lerr), 0);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DONE, NULL, 0, &lerr), -1);
	lb.len = 0;
	proto_enc_delegate_lat_intervals(&lb, 2, 2, r.latency.intervals, 2); /* past the count */
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LAT_INTERVALS, lb.p, lb.len, &lerr), -1);
	probe_result_free(&lback);
	memset(&lback, 0, sizeof(lback));
	proto_result_rd_init(&lrd, &lback);
	lb.len = 0;
	proto_enc_delegate_result(&lb, &r);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_RESULT, lb.p, lb.len, &lerr), 0);
	lb.len = 0;
	proto_put_u8(&lb, 4);
	assert_int_equal(proto_result_rd_msg(&lrd, PROTO_DELEGATE_LATENCY, lb.p, lb.len, &lerr), -1);
	proto_buf_free(&lb);
	probe_result_free(&lback);
	probe_result_free(&r);
	/* a failed test that never started: no direction, the error kept */
	memset(&r, 0, sizeof(r));
	probe_params_init(&r.params);
	r.status = -1;
	r.tos_applied = r.dscp_applied = -1;
	snprintf(r.error, sizeof(r.error), "no test with the target agent: unreachable");
	binary_round_trip(&r, &n);
	assert_int_equal(n, 2);
	/* every stream and a per-stream series whose JSON passes the 16 MiB the JSON transfer
	 * had (it then left the per-stream intervals out): all of it comes, in many chunks */
	make_result(&r, 1, NS_MAX_STREAMS, PROTO_MAX_RESULT_INTERVALS);
	char *json = probe_result_json(&r, false);
	assert_non_null(json);
	assert_true(strlen(json) > 16u * 1024 * 1024);
	free(json);
	binary_round_trip(&r, &n);
	assert_true(n == 1 + (NS_MAX_STREAMS + PROTO_DSTREAMS_PER_CHUNK - 1) / PROTO_DSTREAMS_PER_CHUNK +
			     (PROTO_MAX_RESULT_INTERVALS + PROTO_DIVLS_PER_CHUNK - 1) /
				     PROTO_DIVLS_PER_CHUNK + 1);
	probe_result_free(&r);
	/* non-finite figures go as 0 (a reader refuses NaN), as JSON writes them as null */
	make_result(&r, 1, 1, 1);
	double nan = 0.0 / 0.0;
	r.dirs[0].sender.jitter_ms = nan;
	struct proto_buf b;
	struct probe_result back;
	struct proto_result_rd rd;
	struct ns_err err = {0};
	proto_buf_init(&b);
	proto_enc_delegate_result(&b, &r);
	memset(&back, 0, sizeof(back));
	proto_result_rd_init(&rd, &back);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_RESULT, b.p, b.len, &err), 0);
	assert_true(back.dirs[0].sender.jitter_ms == 0);
	proto_buf_free(&b);
	probe_result_free(&back);
	probe_result_free(&r);
}

/* Feeds the sums of r to a new reader; returns what the reader said. */
static int feed_sums(struct proto_result_rd *rd, struct probe_result *back,
		     const struct proto_buf *b)
{
	struct ns_err err = {0};
	probe_result_free(back);
	memset(back, 0, sizeof(*back));
	proto_result_rd_init(rd, back);
	return proto_result_rd_msg(rd, PROTO_DELEGATE_RESULT, b->p, b->len, &err);
}

static void binary_result_reader_refuses(void **state)
{
	(void)state;
	struct probe_result r, back;
	struct proto_result_rd rd;
	struct proto_buf sums, b;
	struct ns_err err = {0};
	memset(&back, 0, sizeof(back));
	make_result(&r, 2, 2, 3);
	proto_buf_init(&sums);
	proto_enc_delegate_result(&sums, &r);
	/* anything before DELEGATE_RESULT */
	proto_result_rd_init(&rd, &back);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DONE, NULL, 0, &err), -1);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_RESULTS, sums.p, sums.len, &err), -1);
	/* the sums: a second time, cut short, one byte too many */
	assert_int_equal(feed_sums(&rd, &back, &sums), 0);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_RESULT, sums.p, sums.len, &err), -1);
	sums.len--;
	assert_int_equal(feed_sums(&rd, &back, &sums), -1);
	sums.len++;
	proto_put_u8(&sums, 0);
	assert_int_equal(feed_sums(&rd, &back, &sums), -1);
	sums.len--;
	/* a status, a direction count, a stream count, an interval count out of range */
	uint8_t keep = sums.p[0];
	sums.p[0] = 2;
	assert_int_equal(feed_sums(&rd, &back, &sums), -1);
	sums.p[0] = keep;
	struct probe_result big = r;
	big.n_dirs = 3;
	proto_buf_init(&b);
	proto_enc_delegate_result(&b, &big);
	assert_int_equal(feed_sums(&rd, &back, &b), 0); /* the encoder sends at most 2 */
	proto_buf_free(&b);
	big.n_dirs = 1;
	big.dirs[0].n_streams = NS_MAX_STREAMS + 1;
	proto_buf_init(&b);
	proto_enc_delegate_result(&b, &big);
	assert_int_equal(feed_sums(&rd, &back, &b), -1);
	proto_buf_free(&b);
	big.dirs[0].n_streams = 2;
	big.dirs[0].n_intervals = PROTO_MAX_RESULT_INTERVALS + 1;
	proto_buf_init(&b);
	proto_enc_delegate_result(&b, &big);
	assert_int_equal(feed_sums(&rd, &back, &b), -1);
	proto_buf_free(&b);
	/* NaN from the wire */
	proto_buf_init(&b);
	proto_put_u8(&b, 0);
	proto_put_str(&b, "");
	proto_put_str(&b, "");
	fields_put_all(&b, &fields_result, &r);
	proto_put_u32(&b, 1);
	proto_put_u8(&b, NS_DIR_FORWARD);
	proto_put_u64(&b, 0x7ff8000000000001ull); /* sender bytes, then bits_per_second: NaN */
	proto_put_u64(&b, 0x7ff8000000000001ull);
	assert_int_equal(feed_sums(&rd, &back, &b), -1);
	proto_buf_free(&b);
	/* chunks: out of order, past the announced count, an unknown direction, the wrong size,
	 * a stream index out of range, DONE before everything came */
	assert_int_equal(feed_sums(&rd, &back, &sums), 0);
	proto_buf_init(&b);
	proto_enc_delegate_streams(&b, 0, 1, r.dirs[0].streams, 1);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_STREAMS, b.p, b.len, &err), -1);
	proto_buf_free(&b);
	assert_int_equal(feed_sums(&rd, &back, &sums), 0);
	proto_buf_init(&b);
	proto_enc_delegate_intervals(&b, 0, 0, r.dirs[0].intervals, 3);
	b.p[8] = 4; /* count 4 of 3 */
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_INTERVALS, b.p, b.len, &err), -1);
	b.p[8] = 3;
	b.p[0] = 2;
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_INTERVALS, b.p, b.len, &err), -1);
	b.p[0] = 0;
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_INTERVALS, b.p, b.len - 1, &err), -1);
	proto_buf_free(&b);
	r.dirs[0].intervals[0].stream = -2;
	proto_buf_init(&b);
	proto_enc_delegate_intervals(&b, 0, 0, r.dirs[0].intervals, 3);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_INTERVALS, b.p, b.len, &err), -1);
	proto_buf_free(&b);
	r.dirs[0].intervals[0].stream = -1;
	assert_int_equal(feed_sums(&rd, &back, &sums), 0);
	proto_buf_init(&b);
	proto_enc_delegate_streams(&b, 0, 0, r.dirs[0].streams, 2);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DELEGATE_STREAMS, b.p, b.len, &err), 0);
	assert_int_equal(proto_result_rd_msg(&rd, PROTO_DONE, NULL, 0, &err), -1);
	proto_buf_free(&b);
	proto_buf_free(&sums);
	probe_result_free(&back);
	probe_result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(binary_result_round_trips),
		cmocka_unit_test(binary_result_reader_refuses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
