/* session: engines, snapshots and figures of one end of a test (see session.h). */
#include "session.h"

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lib/units.h"
#include "runner/proto/proto.h"
#include "limit.h"
#include "sockopt.h"

/* Per-stream interval records are kept at most PROTO_MAX_STREAM_RECORDS (streams x
 * intervals); beyond, sums only. */
#define SESSION_UDP_QUIET_S 0.15
#define SESSION_CLOCK_EPS_S 1e-6

static void sleep_s(double s)
{
	struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

uint32_t session_threads(const struct probe_params *p)
{
	uint32_t t = p->threads;
	if (!t) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		t = cpus > 0 ? (uint32_t)cpus : 1;
	}
	if (t > p->streams)
		t = p->streams;
	if (t > NS_MAX_THREADS)
		t = NS_MAX_THREADS;
	return t ? t : 1;
}

uint32_t session_expected_intervals(const struct probe_params *p)
{
	if (!(p->interval_s > 0))
		return 0;
	return (uint32_t)((p->omit_s + p->duration_s) / p->interval_s) + 3;
}

int session_end_init(struct session_end *s, enum ns_dir dir, enum engine_role role, uint32_t n,
		     bool per_stream, struct ns_err *err)
{
	memset(s, 0, sizeof(*s));
	s->dir = dir;
	s->role = role;
	s->n = n;
	s->per_stream = per_stream;
	s->fds = malloc(n * sizeof(int));
	s->omit = calloc(n, sizeof(*s->omit));
	s->prev = calloc(n, sizeof(*s->prev));
	s->cur = calloc(n, sizeof(*s->cur));
	if (!s->fds || !s->omit || !s->prev || !s->cur) {
		session_end_destroy(s);
		return ns_err_code(err, NS_E_NOMEM, "out of memory for %u streams", (unsigned)n);
	}
	for (uint32_t i = 0; i < n; i++)
		s->fds[i] = -1;
	s->crr_fd = -1;
	return 0;
}

int session_end_start(struct session_end *s, const struct probe_params *p, uint32_t threads,
		      const int *cpus, uint32_t n_cpus, struct ns_err *err)
{
	uint32_t rr_req, rr_resp;
	probe_rr_sizes(p, &rr_req, &rr_resp);
	struct engine_cfg cfg = {
		.rx = !strcmp(p->rx_copy, "skip")   ? ENGINE_RX_SKIP
		      : !strcmp(p->rx_copy, "mmap") ? ENGINE_RX_MMAP
						    : ENGINE_RX_COPY,
		.proto = p->proto,
		.role = s->role,
		.length = p->length,
		.rate_bps = p->rate_bps,
		.fq_rate_bps = p->fq_rate_bps,
		.budget = s->role == ENGINE_SEND ? s->budget : NULL,
		.gso = p->gso,
		.kind = probe_engine_kind(p),
		.zerocopy = p->zerocopy && probe_engine_kind(p) == ENGINE_SOCKET,
		.send_bytes = s->role == ENGINE_SEND ? probe_params_amount(p) : 0,
		.threads = threads,
		.cpus = n_cpus ? cpus : NULL,
		.n_cpus = n_cpus,
		.send_duration_s = s->role == ENGINE_SEND ? p->omit_s + p->duration_s : 0,
		.rr = !strcmp(p->rr, "crr") ? ENGINE_CRR : p->rr[0] ? ENGINE_RR : ENGINE_RR_NONE,
		.crr_addr = s->crr_addr,
		.crr_addr_len = s->crr_addr_len,
		.crr_listen_fd = s->crr_fd,
		.rr_request = rr_req,
		.rr_response = rr_resp,
		.rr_rate = p->rr_rate,
	};
	if (s->cookie)
		memcpy(cfg.crr_cookie, s->cookie, ENGINE_RR_COOKIE_LEN);
	if (p->proto == NS_PROTO_QUIC) {
		char why[NS_ERR_MAX];
		if (!(cfg.transport = quic_transport()) && !quic_available(why, sizeof(why)))
			return ns_err_code(err, NS_E_UNSUPPORTED, "%s", why);
		cfg.transport_arg = &s->quic;
	}
	/* a greeting as long as a data datagram passes the engine's length check; QUIC drops
	 * every late greeting */
	uint32_t data_len = p->rr[0] ? rr_req : p->length;
	if (s->cookie && ((p->proto == NS_PROTO_UDP && data_len == PROTO_DATA_HELLO_LEN) ||
			  p->proto == NS_PROTO_QUIC)) {
		memcpy(cfg.not_data, s->cookie, PROTO_COOKIE_LEN);
		cfg.not_data_len = PROTO_COOKIE_LEN;
	}
	s->proto = p->proto;
	s->xdp_refused[0] = '\0';
	s->eng = engine_create(&cfg, s->fds, s->n, err);
	if (!s->eng && cfg.kind != ENGINE_SOCKET && err->code == NS_E_UNSUPPORTED &&
	    probe_engine_fallback(p)) {
		snprintf(s->xdp_refused, sizeof(s->xdp_refused), "%s", err->msg);
		cfg.kind = ENGINE_SOCKET;
		s->eng = engine_create(&cfg, s->fds, s->n, err);
	}
	if (!s->eng)
		return -1; /* the fds are still ours */
	if (cfg.rr && s->role == ENGINE_SEND && !s->lat && !(s->lat = lat_end_new(err)))
		return -1;
	/* the baseline of a test without omit: taken just before the first byte can move */
	sysstat_udp_drops(&s->drops_omit, NULL);
	sysstat_cpu_read(&s->steal_omit, NULL);
	s->cpu_omit_ns = 0;
	s->prev_t = s->t_omit = proto_now();
	return engine_start(s->eng, err);
}

static bool udp_quiet(struct session_end *s, uint64_t *last_packets)
{
	uint64_t total = 0;
	engine_snapshot(s->eng, s->cur);
	for (uint32_t i = 0; i < s->n; i++)
		total += s->cur[i].packets;
	bool quiet = total == *last_packets;
	*last_packets = total;
	return quiet;
}

void session_end_finish(struct session_end *s, double max_drain_s)
{
	if (!s->eng)
		return;
	if (s->role == ENGINE_RECV) {
		/* TCP ends with EOF on every stream (the engine's threads return); UDP has no end
		 * marker, so wait until nothing arrived for a quiet time */
		double until = proto_now() + max_drain_s;
		uint64_t last = UINT64_MAX;
		while (proto_now() < until && !engine_done(s->eng)) {
			if (s->proto == NS_PROTO_UDP && udp_quiet(s, &last))
				break;
			sleep_s(s->proto == NS_PROTO_UDP ? SESSION_UDP_QUIET_S : 0.005);
		}
	}
	engine_stop(s->eng);
	engine_join(s->eng);
	if (s->proto == NS_PROTO_TCP && s->role == ENGINE_SEND)
		for (uint32_t i = 0; i < s->n; i++)
			shutdown(s->fds[i], SHUT_WR); /* still open: the engine closes them */
	engine_snapshot(s->eng, s->cur);
	s->t_end = s->t_stop > 0 ? s->t_stop : proto_now();
	s->cpu_end_ns = engine_cpu_ns(s->eng);
	sysstat_udp_drops(&s->drops_end, NULL);
	sysstat_cpu_read(&s->steal_end, NULL);
	engine_diag(s->eng, &s->diag);
}

double session_end_steal_pct(const struct session_end *s)
{
	return sysstat_steal_pct(&s->steal_omit, &s->steal_end);
}

double session_end_cpu_percent(const struct session_end *s)
{
	double wall = s->t_end - s->t_omit;
	if (!(wall > 0) || s->cpu_end_ns < s->cpu_omit_ns)
		return 0;
	return (double)(s->cpu_end_ns - s->cpu_omit_ns) / 1e9 / wall * 100.0;
}

void session_limit(const struct session_end *me, const struct proto_dir_summary *peer,
		   uint64_t asked_bps, struct probe_direction *d)
{
	static const struct proto_dir_summary none;
	const struct proto_dir_summary *as = peer ? peer : &none;
	struct probe_limit *l = &d->limit;
	bool me_sender = me->role == ENGINE_SEND;
	memset(l, 0, sizeof(*l));
	l->asked_bps = (double)asked_bps;
	l->sender_thread_cpu = me_sender ? me->diag.busiest_cpu_pct : as->busiest_cpu_pct;
	l->receiver_thread_cpu = me_sender ? as->busiest_cpu_pct : me->diag.busiest_cpu_pct;
	l->sender_steal_pct = me_sender ? session_end_steal_pct(me) : as->steal_pct;
	l->receiver_steal_pct = me_sender ? as->steal_pct : session_end_steal_pct(me);
	l->sender_blocked_pct = me_sender ? me->diag.blocked_pct : as->blocked_pct;
	l->pace_lost_pct = me_sender ? me->diag.pace_lost_pct : as->pace_lost_pct;
	l->sender_runq_pct = me_sender ? me->diag.runq_pct : as->runq_pct;
	l->receiver_runq_pct = me_sender ? as->runq_pct : me->diag.runq_pct;
	snprintf(l->sender_sched, sizeof(l->sender_sched), "%s",
		 engine_sched_name(me_sender ? me->diag.sched : as->sched));
	snprintf(l->receiver_sched, sizeof(l->receiver_sched), "%s",
		 engine_sched_name(me_sender ? as->sched : me->diag.sched));
	l->sender_tx_busy = me_sender ? me->diag.tx_busy : as->tx_busy;
	limit_judge(l, d, me->proto);
	bool held = me_sender ? session_end_held_by_cap(me, asked_bps) : as->held_by_cap;
	if (l->sender_limited && held) {
		/* the agent's --max-rate, shared by the tests running at once, held it: the cap's
		 * figure, not the host's (a delegated run's end draws from its agent's cap too) */
		snprintf(l->cause, sizeof(l->cause), "agent_max_rate");
		snprintf(l->limited_by, sizeof(l->limited_by), "max_rate");
	}
}

bool session_end_held_by_cap(const struct session_end *s, uint64_t asked_bps)
{
	if (!s->budget || s->role != ENGINE_SEND || !s->eng || !asked_bps ||
	    !engine_budget_held(s->eng))
		return false;
	uint64_t sent = 0;
	for (uint32_t k = 0; k < s->n; k++)
		sent += s->cur[k].bytes - s->omit[k].bytes;
	double asked = (double)asked_bps / 8.0 * (s->t_end - s->t_omit);
	return (double)sent < SESSION_HELD_SHARE * asked;
}

bool session_end_watch(struct session_end *s, double now)
{
	if (s->eng && s->role == ENGINE_SEND && !(s->t_stop > 0) && engine_done(s->eng)) {
		double end = engine_end_s(s->eng);
		s->t_stop = end > 0 && end <= now ? end : now;
	}
	return s->role != ENGINE_SEND || s->t_stop > 0;
}

int session_end_sender_error(struct session_end *s, const struct probe_params *p,
			     struct ns_err *err)
{
	if (s->role != ENGINE_SEND || !s->eng || !engine_done(s->eng))
		return 0;
	engine_snapshot(s->eng, s->cur);
	for (uint32_t k = 0; k < s->n; k++) {
		int error = s->cur[k].error;
		int mtu = error == EMSGSIZE ? sockopt_path_mtu(s->fds[k]) : -1;
		if (mtu > 0)
			return ns_err_set(err, "data stream %u failed: a %u-byte datagram does not fit "
					  "the path MTU of %d bytes (--dont-fragment)", (unsigned)k,
					  (unsigned)(p->length ? p->length : NS_UDP_DEFAULT_LEN), mtu);
		if (error)
			return ns_err_set(err, "data stream %u failed: %s", (unsigned)k,
					  strerror(error));
	}
	return 0;
}

const char *session_end_mode(const struct session_end *s)
{
	if (s->xdp_refused[0])
		return "socket (xdp unavailable)";
	return s->eng ? engine_mode(s->eng) : "socket";
}

void session_end_destroy(struct session_end *s)
{
	if (s->eng)
		engine_destroy(s->eng); /* closes the fds */
	else if (s->fds)
		for (uint32_t i = 0; i < s->n; i++)
			if (s->fds[i] >= 0)
				close(s->fds[i]);
	free(s->fds);
	free(s->omit);
	free(s->prev);
	free(s->cur);
	free(s->ivl);
	lat_end_free(s->lat);
	memset(s, 0, sizeof(*s));
}

static uint64_t delta(uint64_t a, uint64_t b)
{
	return b > a ? b - a : 0;
}

/* TCP packets are segments from TCP_INFO where the kernel gave them, else write/read calls. */
static uint64_t packets_delta(const struct engine_stream_snap *a, const struct engine_stream_snap *b)
{
	if (b->segs)
		return delta(a ? a->segs : 0, b->segs);
	return delta(a ? a->packets : 0, b->packets);
}

void session_interval(const struct engine_stream_snap *a, const struct engine_stream_snap *b,
		      uint32_t n, int32_t stream, double start_s, double end_s, double dt,
		      bool omitted, struct probe_interval *out)
{
	memset(out, 0, sizeof(*out));
	out->start_s = start_s;
	out->end_s = end_s;
	out->stream = stream;
	out->omitted = omitted;
	uint32_t lo = stream >= 0 ? (uint32_t)stream : 0, hi = stream >= 0 ? (uint32_t)stream + 1 : n;
	uint32_t n_rtt = 0, n_jit = 0;
	double rtt = 0, jit = 0;
	for (uint32_t i = lo; i < hi && i < n; i++) {
		out->bytes += delta(a[i].bytes, b[i].bytes);
		out->packets += packets_delta(&a[i], &b[i]);
		out->retransmits += delta(a[i].retransmits, b[i].retransmits);
		out->cwnd_bytes += b[i].cwnd_bytes;
		out->lost += delta(a[i].lost, b[i].lost);
		if (b[i].rtt_ms > 0) {
			rtt += b[i].rtt_ms;
			n_rtt++;
		}
		if (b[i].packets > a[i].packets) {
			jit += b[i].jitter_ms;
			n_jit++;
		}
	}
	out->rtt_ms = n_rtt ? rtt / n_rtt : 0;
	out->jitter_ms = n_jit ? jit / n_jit : 0;
	out->bits_per_second = dt > 0 ? (double)out->bytes * 8.0 / dt : 0;
}

static void append_interval(struct session_end *s, const struct probe_interval *v)
{
	uint32_t bound = PROTO_MAX_INTERVALS + (s->per_stream ? PROTO_MAX_STREAM_RECORDS : 0);
	if (s->n_ivl >= bound) {
		s->truncated = true;
		return;
	}
	if (s->n_ivl == s->cap_ivl) {
		uint32_t cap = s->cap_ivl ? s->cap_ivl * 2 : 64;
		struct probe_interval *nv = realloc(s->ivl, cap * sizeof(*nv));
		if (!nv) {
			s->truncated = true;
			return;
		}
		s->ivl = nv;
		s->cap_ivl = cap;
	}
	s->ivl[s->n_ivl++] = *v;
}

static void record(struct session_end *s, double start_s, double end_s, bool omitted, double now)
{
	struct probe_interval v;
	engine_snapshot(s->eng, s->cur);
	double dt = now - s->prev_t;
	session_interval(s->prev, s->cur, s->n, -1, start_s, end_s, dt, omitted, &v);
	append_interval(s, &v);
	if (s->lat)
		lat_end_interval(s->lat, s->eng, start_s, end_s, dt, omitted, v.lost);
	for (uint32_t i = 0; s->per_stream && i < s->n; i++) {
		session_interval(s->prev, s->cur, s->n, (int32_t)i, start_s, end_s, dt, omitted, &v);
		append_interval(s, &v);
	}
	memcpy(s->prev, s->cur, s->n * sizeof(*s->cur));
	s->prev_t = now;
}

/* Without an omit period the baseline is the engine's start (zero counters, the times of
 * session_end_start): the two ends start their clocks a little apart, and a snapshot taken
 * "at zero" would drop the first bytes from one end's count but not from the other's. */
static void mark_omit(struct session_end *s, double omit_s, double now)
{
	if (omit_s <= 0)
		return;
	engine_snapshot(s->eng, s->omit);
	memcpy(s->prev, s->omit, s->n * sizeof(*s->omit));
	s->prev_t = now;
	s->t_omit = now;
	s->cpu_omit_ns = engine_cpu_ns(s->eng);
	sysstat_udp_drops(&s->drops_omit, NULL);
	if (s->lat)
		lat_end_mark_omit(s->lat, s->eng);
	sysstat_cpu_read(&s->steal_omit, NULL);
}

void session_clock_init(struct session_clock *c, double t0, const struct probe_params *p)
{
	memset(c, 0, sizeof(*c));
	c->t0 = t0;
	c->omit = p->omit_s;
	c->interval = p->interval_s;
	c->duration = p->duration_s;
	c->last = t0;
}

/* Boundaries are the phase's start plus k whole intervals: adding the interval again and again
 * drifts, and left a boundary picoseconds before the stop, an interval of zero width that put
 * the two ends' series out of step. One within SESSION_CLOCK_EPS_S of the stop is the stop. */
static double next_boundary(const struct session_clock *c)
{
	double base = c->omit_done ? c->t0 + c->omit : c->t0;
	double stop = c->omit_done ? base + c->duration : c->t0 + c->omit;
	if (c->ended)
		return 1e300;
	double b = base + (double)(c->k + 1) * c->interval;
	if (c->interval > 0 && b < stop - SESSION_CLOCK_EPS_S)
		return b;
	return stop;
}

double session_tick(struct session_clock *c, struct session_end *ends, uint32_t n_ends,
		    double now)
{
	double b;
	while (!c->ended && now >= (b = next_boundary(c))) {
		double base = c->t0 + c->omit; /* interval times count from the end of the omit */
		bool at_stop = b == (c->omit_done ? base + c->duration : base);
		for (uint32_t i = 0; i < n_ends; i++) {
			if (!ends[i].eng)
				continue;
			if (c->interval > 0 && b > c->last)
				record(&ends[i], c->last - base, b - base, !c->omit_done, now);
			if (!c->omit_done && at_stop)
				mark_omit(&ends[i], c->omit, now);
		}
		if (at_stop) {
			if (c->omit_done)
				c->ended = true;
			c->omit_done = true;
		}
		c->last = b;
		c->k = at_stop ? 0 : c->k + 1;
	}
	return next_boundary(c);
}

int session_figures(const struct engine_stream_snap *s0, const struct engine_stream_snap *s1,
		    const struct engine_stream_snap *r0, const struct engine_stream_snap *r1,
		    uint32_t n, double dur, enum ns_proto proto, struct probe_direction *d,
		    struct ns_err *err)
{
	static const struct engine_stream_snap zero;
	d->streams = calloc(n ? n : 1, sizeof(*d->streams));
	if (!d->streams)
		return ns_err_code(err, NS_E_NOMEM, "out of memory for %u stream results", (unsigned)n);
	d->n_streams = n;
	memset(&d->sender, 0, sizeof(d->sender));
	memset(&d->receiver, 0, sizeof(d->receiver));
	double rtt = 0, jit = 0;
	uint32_t n_rtt = 0, n_jit = 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct engine_stream_snap *a = s0 ? &s0[i] : &zero, *b = s1 ? &s1[i] : &zero;
		const struct engine_stream_snap *c = r0 ? &r0[i] : &zero, *e = r1 ? &r1[i] : &zero;
		struct probe_stream_result *sr = &d->streams[i];
		sr->id = i;
		sr->cpu = -1;
		struct probe_figures *snd = &sr->sender, *rcv = &sr->receiver;
		snd->bytes = delta(a->bytes, b->bytes);
		snd->packets = proto == NS_PROTO_UDP ? delta(a->packets, b->packets) : packets_delta(a, b);
		snd->retransmits = delta(a->retransmits, b->retransmits);
		snd->rtt_ms = b->rtt_ms;
		snd->rtt_min_ms = b->rtt_min_ms;
		snd->cwnd_bytes = b->cwnd_bytes;
		/* TCP after an omit mark (the sender's baseline holds what it wrote by then):
		 * what reached the receiver over the sender's measured time is what the peer
		 * acknowledged between the sender's two marks (tcpi_bytes_acked). The receiver's
		 * own baseline, taken on another clock, would count what was in flight at the mark
		 * (megabytes behind a shaped link) as measured. The receiver's total minus what the
		 * sender had written by the mark (the count when the kernel gives no acked bytes)
		 * is no better: written is not sent, and behind a 0.5 Mbit/s link with a 3 s queue
		 * the sender had written more by a 0.5 s mark than the receiver got in the whole
		 * test, so the receiver's figure read 0. Without an omit mark the baseline is the
		 * start, and the receiver's total is every byte the sender wrote. */
		if (proto != NS_PROTO_UDP && s0 && s1 && a->bytes && b->acked && b->acked >= a->acked) {
			rcv->bytes = b->acked - a->acked;
			if (e->bytes > a->acked && rcv->bytes > e->bytes - a->acked)
				rcv->bytes = e->bytes - a->acked; /* never more than it got */
		} else if (proto != NS_PROTO_UDP && s0) {
			rcv->bytes = delta(a->bytes, e->bytes);
		} else {
			rcv->bytes = delta(c->bytes, e->bytes);
		}
		rcv->packets = proto == NS_PROTO_UDP ? delta(c->packets, e->packets) : packets_delta(c, e);
		if (proto == NS_PROTO_UDP) {
			/* Loss is what was sent and never arrived, counted over the whole test (so
			 * that datagrams lost after the highest one seen count too), minus the gaps
			 * already seen by the end of the omit period. Without the sender's count, the
			 * sequence gaps are all there is. */
			uint64_t gaps = delta(c->lost, e->lost);
			if (s1) {
				uint64_t missing = delta(e->packets, b->packets);
				rcv->lost = delta(c->lost, missing);
			} else {
				rcv->lost = gaps;
			}
			rcv->out_of_order = delta(c->out_of_order, e->out_of_order);
			rcv->duplicates = delta(c->duplicates, e->duplicates);
			rcv->socket_drops = delta(c->sock_drops, e->sock_drops);
			rcv->jitter_ms = e->jitter_ms;
			uint64_t total = rcv->packets + rcv->lost;
			rcv->lost_percent = total ? 100.0 * (double)rcv->lost / (double)total : 0;
			if (rcv->packets) {
				jit += rcv->jitter_ms;
				n_jit++;
			}
		}
		struct probe_figures *fs[2] = {snd, rcv};
		for (int k = 0; k < 2; k++) {
			fs[k]->bits_per_second = dur > 0 ? (double)fs[k]->bytes * 8.0 / dur : 0;
			fs[k]->packets_per_second = dur > 0 ? (double)fs[k]->packets / dur : 0;
		}
		d->sender.bytes += snd->bytes;
		d->sender.packets += snd->packets;
		d->sender.retransmits += snd->retransmits;
		d->sender.cwnd_bytes += snd->cwnd_bytes;
		if (snd->rtt_ms > 0) {
			rtt += snd->rtt_ms;
			n_rtt++;
		}
		if (snd->rtt_min_ms > 0 && (!(d->sender.rtt_min_ms > 0) ||
					    snd->rtt_min_ms < d->sender.rtt_min_ms))
			d->sender.rtt_min_ms = snd->rtt_min_ms;
		d->receiver.bytes += rcv->bytes;
		d->receiver.packets += rcv->packets;
		d->receiver.lost += rcv->lost;
		d->receiver.out_of_order += rcv->out_of_order;
		d->receiver.duplicates += rcv->duplicates;
		d->receiver.socket_drops += rcv->socket_drops;
	}
	d->sender.rtt_ms = n_rtt ? rtt / n_rtt : 0;
	d->receiver.jitter_ms = n_jit ? jit / n_jit : 0;
	uint64_t total = d->receiver.packets + d->receiver.lost;
	d->receiver.lost_percent = total ? 100.0 * (double)d->receiver.lost / (double)total : 0;
	struct probe_figures *fs[2] = {&d->sender, &d->receiver};
	for (int k = 0; k < 2; k++) {
		fs[k]->bits_per_second = dur > 0 ? (double)fs[k]->bytes * 8.0 / dur : 0;
		fs[k]->packets_per_second = dur > 0 ? (double)fs[k]->packets / dur : 0;
	}
	return 0;
}

int session_end_latency(struct session_end *s, double dur, struct probe_latency *out,
			struct ns_err *err)
{
	if (!s->lat || !s->eng)
		return 0;
	uint64_t lost = 0;
	for (uint32_t i = 0; i < s->n; i++)
		lost += delta(s->omit[i].lost, s->cur[i].lost);
	return lat_end_result(s->lat, s->eng, dur, lost, out, err);
}
