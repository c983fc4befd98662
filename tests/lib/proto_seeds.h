/* proto_seeds: the proto fuzzer's generated seeds — one valid, realistic message per decoder
 * case of tests/lib/proto_case.h (a paced UDP bidir test with 4 streams and a latency probe,
 * a TCP request/response test, a long-run test, an AF_XDP one, the agent's results and a
 * delegated result with both directions' limits), written by the real encoders so that they
 * follow the protocol as it is now. tests/fuzz/fuzz_seeds.c writes them for `make fuzz`;
 * test_fuzz_seeds holds each to decoding whole. */
#ifndef NS_TEST_PROTO_SEEDS_H
#define NS_TEST_PROTO_SEEDS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lathist.h"
#include "runner/proto/proto.h"
#include "runner/proto/result_wire.h"
#include "tests/lib/proto_case.h"

#define PROTO_SEEDS_MAX 40
#define SEEDS_STREAMS 4   /* streams of each direction of the UDP result */
#define SEEDS_IVLS 3      /* intervals of each stream, and as many sums */

struct proto_seed {
	const char *name;     /* its file name */
	unsigned expect;      /* PROTO_CASE_* bits proto_case_run must answer for it */
	struct proto_buf b;   /* the input: the case byte, then the payload */
};

struct proto_seeds {
	struct proto_seed s[PROTO_SEEDS_MAX];
	size_t n;
	bool full;            /* more seeds than PROTO_SEEDS_MAX were made */
	struct proto_buf spare; /* where they went */
};

/* A new seed of case c, its case byte written: the caller appends the payload. */
static inline struct proto_buf *seeds_add(struct proto_seeds *S, const char *name,
					  enum proto_case c, unsigned expect)
{
	struct proto_buf *b = &S->spare;
	if (S->n == PROTO_SEEDS_MAX) {
		S->full = true;
	} else {
		struct proto_seed *s = &S->s[S->n++];
		s->name = name;
		s->expect = expect;
		b = &s->b;
	}
	proto_buf_init(b);
	proto_put_u8(b, (uint8_t)c);
	return b;
}

/* -b 2G -u -P 4 --bidir -l 1400 --gso, marked EF, from a bound source, with a UDP latency
 * probe: most options of a TEST_REQUEST set. */
static inline void seeds_udp_params(struct probe_params *p)
{
	probe_params_init(p);
	snprintf(p->host, sizeof(p->host), "10.0.0.2");
	p->port = 5301;
	p->proto = NS_PROTO_UDP;
	p->streams = SEEDS_STREAMS;
	p->threads = 4;
	p->length = 1400;
	p->rate_bps = 2000000000ull;
	p->fq_rate_bps = 600000000ull;
	p->duration_s = 30.0;
	p->interval_s = 1.0;
	p->omit_s = 2.0;
	p->dir = NS_DIR_BIDIR;
	snprintf(p->affinity, sizeof(p->affinity), "2-5");
	p->window = 4u << 20;
	p->gso = true;
	p->connect_timeout_s = 5.0;
	p->timeout_s = 60.0;
	snprintf(p->engine, sizeof(p->engine), "socket");
	snprintf(p->bind, sizeof(p->bind), "10.0.0.1");
	p->cport = 40000;
	p->family = 4;
	p->tos = 46u << 2;
	p->dont_fragment = true;
	snprintf(p->lat_probe, sizeof(p->lat_probe), "udp");
	p->lat_rate = 200.0;
	p->lat_size = 64;
	p->lat_idle_s = 2.0;
}

/* TCP_RR over IPv6: 2 streams, 64-byte requests, 1 KiB answers, 5000 transactions/s. */
static inline void seeds_rr_params(struct probe_params *p)
{
	probe_params_init(p);
	snprintf(p->host, sizeof(p->host), "fd00::2");
	p->port = 5301;
	p->streams = 2;
	p->duration_s = 10.0;
	p->interval_s = 0.5;
	p->omit_s = 1.0;
	p->nodelay = true;
	p->mss = 1448;
	snprintf(p->congestion, sizeof(p->congestion), "bbr");
	snprintf(p->bind, sizeof(p->bind), "fd00::1");
	p->family = 6;
	snprintf(p->rr, sizeof(p->rr), "rr");
	p->rr_request = 64;
	p->rr_response = 1024;
	p->rr_rate = 5000.0;
}

/* A long-run TCP reverse test of 8 zero-copy streams that ends once the rate held steady. */
static inline void seeds_until_params(struct probe_params *p)
{
	probe_params_init(p);
	snprintf(p->host, sizeof(p->host), "agent-7.example.net");
	p->port = 15301;
	p->streams = 8;
	p->length = 131072;
	p->duration_s = 3600.0;
	p->interval_s = 1.0;
	p->dir = NS_DIR_REVERSE;
	snprintf(p->affinity, sizeof(p->affinity), "0,2,4,6");
	snprintf(p->congestion, sizeof(p->congestion), "cubic");
	p->zerocopy = true;
	p->connect_timeout_s = 10.0;
	snprintf(p->until, sizeof(p->until), "sustained");
	p->steady_s = 300.0;
}

/* AF_XDP both ends (sockets where it cannot), 10 GB at 10 Gbit/s, 0.1 s intervals. */
static inline void seeds_xdp_params(struct probe_params *p)
{
	probe_params_init(p);
	snprintf(p->host, sizeof(p->host), "192.168.50.2");
	p->proto = NS_PROTO_UDP;
	p->streams = 2;
	p->length = 1472;
	p->rate_bps = 10000000000ull;
	p->duration_s = 20.0;
	p->interval_s = 0.1;
	snprintf(p->engine, sizeof(p->engine), "xdp-rx,socket");
	p->tos = 10u << 2;
	p->dont_fragment = true;
	p->bytes = 10000000000ull;
}

/* One end's figures of secs at bps: a sender's writes, or what a receiver got of them. */
static inline void seeds_figures(struct probe_figures *f, double bps, double secs, bool recv,
				 uint32_t k)
{
	memset(f, 0, sizeof(*f));
	f->bytes = (uint64_t)(bps * secs / 8) + k * 1400;
	f->packets = f->bytes / 1400;
	f->bits_per_second = f->bytes * 8 / secs;
	f->packets_per_second = f->packets / secs;
	f->cpu_percent = recv ? 41.5 + k : 63.25 + k;
	if (recv) {
		f->lost = 1289 + 17 * k;
		f->lost_percent = 100.0 * f->lost / (f->packets + f->lost);
		f->out_of_order = 12 + k;
		f->duplicates = k;
		f->jitter_ms = 0.0183 + 0.001 * k;
		f->kernel_drops = 311;
		f->socket_drops = 97 + k;
	}
}

static inline void seeds_nic(struct probe_nic *n, uint64_t moved, uint64_t held)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->ifname, sizeof(n->ifname), "ens5");
	n->allowance_counters = 5;
	n->bw_out_allowance_exceeded = held;
	n->pps_allowance_exceeded = held / 7;
	n->drops = 3;
	n->rx_packets = moved / 1400 + 1021;
	n->tx_packets = moved / 1400 + 877;
	n->rx_bytes = moved + 1021 * 66;
	n->tx_bytes = moved + 877 * 66;
}

/* Direction d of the UDP bidir result: figures, shaping, limit, streams and intervals. */
static inline int seeds_udp_dir(struct probe_direction *pd, uint32_t d, const char *sched[2])
{
	double bps = d ? 0.87e9 : 0.98e9, secs = 30.0004;
	memset(pd, 0, sizeof(*pd));
	pd->dir = d ? NS_DIR_REVERSE : NS_DIR_FORWARD;
	seeds_figures(&pd->sender, bps, secs, false, 0);
	seeds_figures(&pd->receiver, bps * 0.999, secs, true, 0);
	pd->shaping.found = d == 0;
	pd->shaping.burst_bps = d ? 0 : 1.21e9;
	pd->shaping.burst_s = d ? 0 : 8.5;
	pd->shaping.sustained_bps = d ? 0 : 0.97e9;
	struct probe_limit *l = &pd->limit;
	l->asked_bps = 1e9;
	l->offered_bps = pd->sender.bits_per_second;
	l->shortfall_pct = 100.0 * (l->asked_bps - l->offered_bps) / l->asked_bps;
	l->sender_limited = d == 1;
	snprintf(l->cause, sizeof(l->cause), "%s", d ? "pacer_late" : "");
	snprintf(l->limited_by, sizeof(l->limited_by), "%s", d ? "sender_cpu" : "network");
	l->sender_thread_cpu = d ? 99.1 : 71.4;
	l->receiver_thread_cpu = 38.2;
	l->sender_steal_pct = d ? 4.75 : 0.5;
	l->receiver_steal_pct = 0.25;
	l->sender_blocked_pct = 1.5;
	l->pace_lost_pct = d ? 12.5 : 0.125;
	l->sender_runq_pct = d ? 22.0 : 0.75;
	l->receiver_runq_pct = 1.25;
	snprintf(l->sender_sched, sizeof(l->sender_sched), "%s", sched[0]);
	snprintf(l->receiver_sched, sizeof(l->receiver_sched), "%s", sched[1]);

	pd->streams = calloc(SEEDS_STREAMS, sizeof(*pd->streams));
	pd->intervals = calloc(SEEDS_IVLS * (SEEDS_STREAMS + 1), sizeof(*pd->intervals));
	if (!pd->streams || !pd->intervals)
		return -1;
	pd->n_streams = SEEDS_STREAMS;
	for (uint32_t s = 0; s < SEEDS_STREAMS; s++) {
		struct probe_stream_result *sr = &pd->streams[s];
		sr->id = s;
		sr->cpu = 2 + (int)s;
		seeds_figures(&sr->sender, bps / SEEDS_STREAMS, secs, false, s);
		seeds_figures(&sr->receiver, bps / SEEDS_STREAMS * 0.999, secs, true, s);
	}
	for (int32_t s = -1; s < SEEDS_STREAMS; s++)
		for (uint32_t i = 0; i < SEEDS_IVLS; i++) {
			struct probe_interval *v = &pd->intervals[pd->n_intervals++];
			double share = s < 0 ? 1.0 : 1.0 / SEEDS_STREAMS;
			v->stream = s;
			v->start_s = i;
			v->end_s = i + 1.00002;
			v->bytes = (uint64_t)(bps * share / 8) + 1400 * i;
			v->bits_per_second = v->bytes * 8 / (v->end_s - v->start_s);
			v->packets = v->bytes / 1400;
			v->lost = 40 + i;
			v->jitter_ms = 0.017 + 0.002 * i;
			v->omitted = false;
		}
	return 0;
}

/* Latency figures around p50 us. */
static inline void seeds_latency(struct probe_latency_figures *f, double p50, double secs)
{
	f->transactions = (uint64_t)(1e6 / (p50 * 1.2) * secs);
	f->transactions_per_second = f->transactions / secs;
	f->lost = 2;
	f->min_us = p50 * 0.4;
	f->mean_us = p50 * 1.1;
	f->p50_us = p50;
	f->p90_us = p50 * 1.9;
	f->p99_us = p50 * 4.2;
	f->p999_us = p50 * 9.5;
	f->max_us = p50 * 31;
}

/* A histogram's text of n samples around base ns, a tail at 30 x (NULL out of memory). */
static inline char *seeds_hist(uint64_t base, uint32_t n)
{
	struct lathist *h = malloc(sizeof(*h));
	if (!h)
		return NULL;
	lathist_init(h);
	for (uint64_t i = 0; i < n; i++)
		lathist_record(h, base / 2 + (i * 7919) % base + (i % 50 == 0 ? 30 * base : 0));
	char *t = lathist_encode(h);
	free(h);
	return t;
}

/* A latency series of four 1 s intervals around p50 us, the first in the omit. */
static inline int seeds_lat_series(struct probe_latency_interval **v, uint32_t *n, double p50)
{
	*v = calloc(4, sizeof(**v));
	if (!*v)
		return -1;
	*n = 4;
	for (uint32_t i = 0; i < 4; i++) {
		(*v)[i].start_s = (double)i - 1;
		(*v)[i].end_s = (double)i;
		(*v)[i].omitted = i == 0;
		seeds_latency(&(*v)[i].f, p50 * (1 + i / 8.0), 1.0);
	}
	return 0;
}

/* The UDP bidir test's result as a delegated run's client agent has it. */
static inline int seeds_udp_result(struct probe_result *r)
{
	static const char *sched[2][2] = {{"realtime", "normal"},
					  {"realtime_dropped", "not_permitted"}};
	memset(r, 0, sizeof(*r));
	seeds_udp_params(&r->params);
	snprintf(r->warnings, sizeof(r->warnings), "UDP --fq-rate without the fq qdisc on ens5; "
		 "the agent's receive buffer is capped at 212992 bytes");
	r->duration_s = 30.0004;
	r->gso_active = true;
	snprintf(r->engine_mode, sizeof(r->engine_mode), "socket gso");
	r->tos_applied = 46 << 2;
	r->dscp_applied = 46;
	seeds_nic(&r->nic_client, 3675000000ull, 412);
	seeds_nic(&r->nic_agent, 3260000000ull, 0);
	r->shaped_by_provider = true;
	r->n_dirs = 2;
	for (uint32_t d = 0; d < 2; d++)
		if (seeds_udp_dir(&r->dirs[d], d, sched[d]) < 0)
			return -1;
	struct probe_lul *u = &r->lul;
	u->present = true;
	snprintf(u->test, sizeof(u->test), "udp_rr");
	u->request = u->response = 64;
	u->rate = 200.0;
	u->idle_s = 2.0;
	u->loaded_s = 30.0;
	seeds_latency(&u->idle, 48.5, u->idle_s);
	seeds_latency(&u->loaded, 812.0, u->loaded_s);
	u->added_p50_us = u->loaded.p50_us - u->idle.p50_us;
	u->added_p90_us = u->loaded.p90_us - u->idle.p90_us;
	u->added_p99_us = u->loaded.p99_us - u->idle.p99_us;
	u->added_p999_us = u->loaded.p999_us - u->idle.p999_us;
	u->idle_histogram = seeds_hist(48500, 400);
	u->loaded_histogram = seeds_hist(812000, 6000);
	return seeds_lat_series(&u->intervals, &u->n_intervals, 812.0) < 0 ||
	       !u->idle_histogram || !u->loaded_histogram ? -1 : 0;
}

/* The TCP_RR test's result: a latency object with its histogram. */
static inline int seeds_rr_result(struct probe_result *r)
{
	memset(r, 0, sizeof(*r));
	seeds_rr_params(&r->params);
	r->duration_s = 10.0001;
	snprintf(r->engine_mode, sizeof(r->engine_mode), "socket");
	r->tos_applied = r->dscp_applied = 0;
	r->n_dirs = 1;
	struct probe_direction *pd = &r->dirs[0];
	seeds_figures(&pd->sender, 2.6e6, r->duration_s, false, 0);
	seeds_figures(&pd->receiver, 41.0e6, r->duration_s, false, 1);
	pd->sender.rtt_ms = 0.062;
	pd->sender.cwnd_bytes = 14480;
	snprintf(pd->limit.limited_by, sizeof(pd->limit.limited_by), "network");
	snprintf(pd->limit.sender_sched, sizeof(pd->limit.sender_sched), "normal");
	snprintf(pd->limit.receiver_sched, sizeof(pd->limit.receiver_sched), "normal");
	struct probe_latency *l = &r->latency;
	l->present = true;
	seeds_latency(&l->sum, 61.0, r->duration_s);
	l->sum.lost = 0;
	l->relative_error = LATHIST_REL_ERROR;
	l->client_cpu = 1;
	l->agent_cpu = 3;
	l->client_clock_synced = true;
	l->client_clock_maxerror_us = 16250.0;
	snprintf(l->one_way_why, sizeof(l->one_way_why),
		 "the agent's clock is not known to be synchronized");
	struct lathist *h = malloc(sizeof(*h));
	if (!h)
		return -1;
	lathist_init(h);
	for (uint64_t i = 0; i < 500; i++) /* a body near 60 us and a tail to 2 ms */
		lathist_record(h, 24000 + (i * 7919) % 60000 + (i % 50 == 0 ? 1900000 : 0));
	l->histogram = lathist_encode(h);
	free(h);
	return l->histogram ? seeds_lat_series(&l->intervals, &l->n_intervals, 61.0) : -1;
}

/* A delegated result: the u16 length of its DELEGATE_RESULT, that, then each chunk: its kind
 * byte, with PROTO_CASE_CHUNK_MORE and a u16 length but for the last. */
static inline void seeds_delegated(struct proto_seeds *S, const char *name,
				   const struct probe_result *r, const uint8_t *kinds,
				   const struct proto_buf *chunks, uint32_t n)
{
	struct proto_buf sums;
	proto_buf_init(&sums);
	proto_enc_delegate_result(&sums, r);
	struct proto_buf *b = seeds_add(S, name, PROTO_CASE_DELEGATE_RESULT, PROTO_CASE_BODY_OK);
	proto_put_u16(b, (uint16_t)sums.len);
	proto_put_bytes(b, sums.p, sums.len);
	for (uint32_t i = 0; i < n; i++) {
		bool last = i + 1 == n;
		proto_put_u8(b, (uint8_t)(kinds[i] | (last ? 0 : PROTO_CASE_CHUNK_MORE)));
		if (!last)
			proto_put_u16(b, (uint16_t)chunks[i].len);
		proto_put_bytes(b, chunks[i].p, chunks[i].len);
		if (chunks[i].oom)
			b->oom = true;
	}
	if (sums.oom)
		b->oom = true;
	proto_buf_free(&sums);
}

/* A latency object's chunks after its DELEGATE_LATENCY (kind 2): each histogram (kind 3) and
 * each series (kind 4) it has. Returns the chunks in c[]. */
static inline uint32_t seeds_latency_chunks(const struct probe_result *r, uint8_t *kinds,
					    struct proto_buf *c)
{
	const char *hist[3] = {r->latency.present ? r->latency.histogram : NULL,
			       r->lul.present ? r->lul.idle_histogram : NULL,
			       r->lul.present ? r->lul.loaded_histogram : NULL};
	uint32_t n = 0;
	proto_buf_init(&c[n]);
	proto_enc_delegate_latency(&c[n], r);
	kinds[n++] = 2;
	for (uint8_t k = 0; k < 3; k++)
		if (hist[k]) {
			proto_buf_init(&c[n]);
			proto_enc_delegate_lat_histogram(&c[n], (uint8_t)(k + 1), hist[k]);
			kinds[n++] = 3;
		}
	if (r->latency.present && r->latency.n_intervals) {
		proto_buf_init(&c[n]);
		proto_enc_delegate_lat_intervals(&c[n], 1, 0, r->latency.intervals,
						 r->latency.n_intervals);
		kinds[n++] = 4;
	}
	if (r->lul.present && r->lul.n_intervals) {
		proto_buf_init(&c[n]);
		proto_enc_delegate_lat_intervals(&c[n], 2, 0, r->lul.intervals, r->lul.n_intervals);
		kinds[n++] = 4;
	}
	return n;
}

/* DELEGATE_RESULT with one chunk of each kind: the result cut to what that chunk completes. */
static inline void seeds_delegated_all(struct proto_seeds *S, const struct probe_result *udp,
				       const struct probe_result *rr)
{
	struct proto_buf c[8];
	uint8_t kinds[8] = {0};
	struct probe_result cut = *udp; /* shares udp's arrays: never freed */

	proto_buf_init(&c[0]);
	cut.n_dirs = 1;
	cut.dirs[0].n_intervals = 0;
	cut.lul.present = false;
	proto_enc_delegate_streams(&c[0], 0, 0, cut.dirs[0].streams, cut.dirs[0].n_streams);
	seeds_delegated(S, "delegate_streams", &cut, kinds, c, 1);
	proto_buf_free(&c[0]);

	proto_buf_init(&c[0]);
	cut = *udp;
	cut.n_dirs = 2;
	cut.dirs[0].n_streams = cut.dirs[1].n_streams = cut.dirs[0].n_intervals = 0;
	cut.lul.present = false;
	proto_enc_delegate_intervals(&c[0], 1, 0, cut.dirs[1].intervals, cut.dirs[1].n_intervals);
	kinds[0] = 1;
	seeds_delegated(S, "delegate_intervals", &cut, kinds, c, 1);
	proto_buf_free(&c[0]);

	/* both directions' limits and schedulers, and the latency probe's figures, histograms
	 * and loaded series */
	cut = *udp;
	for (uint32_t d = 0; d < 2; d++)
		cut.dirs[d].n_streams = cut.dirs[d].n_intervals = 0;
	uint32_t n = seeds_latency_chunks(&cut, kinds, c);
	seeds_delegated(S, "delegate_latency", &cut, kinds, c, n);
	for (uint32_t i = 0; i < n; i++)
		proto_buf_free(&c[i]);

	n = seeds_latency_chunks(rr, kinds, c);
	seeds_delegated(S, "delegate_rr", rr, kinds, c, n);
	for (uint32_t i = 0; i < n; i++)
		proto_buf_free(&c[i]);
}

/* The agent's end of the UDP bidir test: it received forward and sent reverse. */
static inline void seeds_results(struct proto_results *r)
{
	memset(r, 0, sizeof(*r));
	r->n_dirs = 2;
	for (uint32_t i = 0; i < 2; i++) {
		struct proto_dir_summary *d = &r->dirs[i];
		d->dir = i ? NS_DIR_REVERSE : NS_DIR_FORWARD;
		d->role = i ? ENGINE_SEND : ENGINE_RECV;
		d->n_streams = SEEDS_STREAMS;
		d->n_intervals = 32;
		d->duration_s = 30.0003;
		d->cpu_percent = i ? 88.5 : 41.25;
		d->kernel_drops = i ? 0 : 311;
		d->gso_active = 1;
		snprintf(d->mode, sizeof(d->mode), "socket gso");
		seeds_nic(&d->nic, 3260000000ull, 0);
		d->held_by_cap = i;
		d->busiest_cpu_pct = i ? 99.1 : 38.2;
		d->blocked_pct = i ? 1.5 : 0;
		d->pace_lost_pct = i ? 12.5 : 0;
		d->steal_pct = 0.25;
		d->runq_pct = i ? 22.0 : 1.25;
		d->last_cpu = 3;
		d->sched = i ? ENGINE_SCHED_REALTIME_DROPPED : ENGINE_SCHED_NOT_PERMITTED;
	}
}

/* RESULT_STREAMS: the agent's four receiving streams at the end of omit and of the test. */
static inline void seeds_streams(struct proto_seeds *S)
{
	struct proto_stream_rec recs[SEEDS_STREAMS];
	memset(recs, 0, sizeof(recs));
	for (uint32_t s = 0; s < SEEDS_STREAMS; s++) {
		struct proto_stream_rec *r = &recs[s];
		r->cpu = 2 + (int32_t)s;
		r->omit.bytes = 15625000ull * 2 + s * 1400;
		r->omit.packets = r->omit.bytes / 1400;
		r->omit.lost = 3 + s;
		r->omit.highest_seq_plus1 = r->omit.packets + r->omit.lost;
		r->omit.jitter_ms = 0.021;
		r->omit.sock_drops = s;
		r->end = r->omit;
		r->end.bytes = 15625000ull * 32 + s * 1400;
		r->end.packets = r->end.bytes / 1400;
		r->end.lost = 1289 + 17 * s;
		r->end.out_of_order = 12 + s;
		r->end.duplicates = s;
		r->end.highest_seq_plus1 = r->end.packets + r->end.lost;
		r->end.jitter_ms = 0.0183;
		r->end.sock_drops = 97 + s;
		r->end.finished = s == 3;
		r->end.error = s == 3 ? 104 : 0; /* ECONNRESET */
	}
	proto_enc_streams(seeds_add(S, "streams", PROTO_CASE_STREAMS, PROTO_CASE_BODY_OK),
			  NS_DIR_FORWARD, 0, recs, SEEDS_STREAMS);
	proto_enc_streams(seeds_add(S, "streams_rest", PROTO_CASE_STREAMS, PROTO_CASE_BODY_OK),
			  NS_DIR_REVERSE, 2, recs + 2, 2);
}

static inline void seeds_messages(struct proto_seeds *S)
{
	struct proto_hello h = {PROTO_VERSION, PROTO_HELLO_DELEGATED};
	proto_enc_hello(seeds_add(S, "hello", PROTO_CASE_HELLO, PROTO_CASE_BODY_OK), &h);
	h.flags = PROTO_HELLO_AUTH;
	proto_enc_hello(seeds_add(S, "hello_auth", PROTO_CASE_HELLO, PROTO_CASE_BODY_OK), &h);
	/* a whole HELLO frame, header first: its first byte (0 of a length < 2^24) is case 0 */
	struct proto_buf *b = seeds_add(S, "header", PROTO_CASE_HELLO, PROTO_CASE_HEADER_OK);
	uint8_t hdr[PROTO_HDR_LEN];
	proto_header_pack(hdr, PROTO_HELLO, 8);
	proto_put_bytes(b, hdr + 1, sizeof(hdr) - 1);
	proto_enc_hello(b, &h);

	proto_enc_error(seeds_add(S, "error", PROTO_CASE_ERROR, PROTO_CASE_BODY_OK), PROTO_E_AUTH,
			"authentication failed: the client's proof does not match this agent's key");
	proto_enc_error(seeds_add(S, "error_range", PROTO_CASE_ERROR, PROTO_CASE_BODY_OK),
			PROTO_E_BAD_REQUEST, "streams 2000 out of range: must be 1..1024");

	struct probe_params p;
	seeds_udp_params(&p);
	proto_enc_params(seeds_add(S, "params", PROTO_CASE_PARAMS, PROTO_CASE_BODY_OK), &p);
	proto_enc_delegate(seeds_add(S, "delegate", PROTO_CASE_DELEGATE, PROTO_CASE_BODY_OK), &p);
	seeds_rr_params(&p);
	proto_enc_params(seeds_add(S, "params_rr", PROTO_CASE_PARAMS, PROTO_CASE_BODY_OK), &p);
	proto_enc_delegate(seeds_add(S, "delegate_rr_request", PROTO_CASE_DELEGATE,
				     PROTO_CASE_BODY_OK), &p);
	seeds_until_params(&p);
	proto_enc_params(seeds_add(S, "params_until", PROTO_CASE_PARAMS, PROTO_CASE_BODY_OK), &p);
	seeds_xdp_params(&p);
	proto_enc_params(seeds_add(S, "params_xdp", PROTO_CASE_PARAMS, PROTO_CASE_BODY_OK), &p);

	/* UDP bidir with a latency probe: one port per data stream, the probe's last */
	struct proto_ready r;
	memset(&r, 0, sizeof(r));
	for (uint32_t i = 0; i < PROTO_COOKIE_LEN; i++)
		r.cookie[i] = (uint8_t)(0x5a ^ (i * 37));
	r.n_udp = 2 * SEEDS_STREAMS + 1;
	for (uint32_t i = 0; i < r.n_udp; i++)
		r.udp_ports[i] = (uint16_t)(41000 + i);
	proto_enc_ready(seeds_add(S, "ready", PROTO_CASE_READY, PROTO_CASE_BODY_OK), &r);
	r.data_port = 45123; /* TCP: a data listener, and a UDP latency probe's port */
	r.n_udp = 1;
	proto_enc_ready(seeds_add(S, "ready_tcp", PROTO_CASE_READY, PROTO_CASE_BODY_OK), &r);

	struct proto_results res;
	seeds_results(&res);
	proto_enc_results(seeds_add(S, "results", PROTO_CASE_RESULTS, PROTO_CASE_BODY_OK), &res);
	seeds_streams(S);

	proto_enc_hostinfo_request(seeds_add(S, "hostinfo", PROTO_CASE_HOSTINFO,
					     PROTO_CASE_BODY_OK), "10.0.0.1");
	proto_enc_hostinfo_request(seeds_add(S, "hostinfo_v6", PROTO_CASE_HOSTINFO,
					     PROTO_CASE_BODY_OK), "fe80::1%ens5");
	proto_enc_hostinfo_request(seeds_add(S, "hostinfo_any", PROTO_CASE_HOSTINFO,
					     PROTO_CASE_BODY_OK), NULL);
}

/* RESULT_INTERVALS of the agent's sums: the first chunk, and a live one further on. */
static inline void seeds_intervals(struct proto_seeds *S, const struct probe_direction *pd)
{
	proto_enc_intervals(seeds_add(S, "intervals", PROTO_CASE_INTERVALS, PROTO_CASE_BODY_OK),
			    NS_DIR_FORWARD, 0, pd->intervals, SEEDS_IVLS);
	proto_enc_intervals(seeds_add(S, "intervals_live", PROTO_CASE_INTERVALS,
				      PROTO_CASE_BODY_OK), NS_DIR_REVERSE, 30, pd->intervals, 2);
}

static inline void seeds_json(struct proto_seeds *S, const char *name,
			      const struct probe_result *r)
{
	struct proto_buf *b = seeds_add(S, name, PROTO_CASE_JSON, PROTO_CASE_BODY_OK);
	char *j = probe_result_json(r, false);
	if (!j) {
		b->oom = true;
		return;
	}
	proto_put_bytes(b, j, strlen(j));
	free(j);
}

static inline void proto_seeds_free(struct proto_seeds *S)
{
	for (size_t i = 0; i < S->n; i++)
		proto_buf_free(&S->s[i].b);
	proto_buf_free(&S->spare);
	S->n = 0;
}

/* Every seed, in S (freed with proto_seeds_free, also after a failure). */
static inline int proto_seeds_build(struct proto_seeds *S, struct ns_err *err)
{
	struct probe_result udp, rr;
	int rc = -1;
	memset(S, 0, sizeof(*S));
	memset(&udp, 0, sizeof(udp));
	memset(&rr, 0, sizeof(rr));
	proto_buf_init(&S->spare);
	if (seeds_udp_result(&udp) < 0 || seeds_rr_result(&rr) < 0) {
		ns_err_code(err, NS_E_NOMEM, "out of memory for the seeds' results");
		goto out;
	}
	seeds_messages(S);
	seeds_intervals(S, &udp.dirs[0]);
	seeds_delegated_all(S, &udp, &rr);
	seeds_json(S, "json", &udp);
	seeds_json(S, "json_rr", &rr);
	if (S->full) {
		ns_err_set(err, "more than %d seeds: raise PROTO_SEEDS_MAX", PROTO_SEEDS_MAX);
		goto out;
	}
	for (size_t i = 0; i < S->n; i++)
		if (S->s[i].b.oom) {
			ns_err_code(err, NS_E_NOMEM, "out of memory building seed %s", S->s[i].name);
			goto out;
		}
	rc = 0;
out:
	probe_result_free(&udp);
	probe_result_free(&rr);
	return rc;
}

#endif
