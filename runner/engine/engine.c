/* engine: worker threads, pacing, stop/deadline handling and snapshots. The per-protocol
 * send and receive functions live behind struct engine_ops (engine_tcp.c, engine_udp.c). */
#include "engine.h"
#include "engine_int.h"
#include "sysstat.h"
#include "lib/settings.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct engine_ops *pick_ops(const struct engine_cfg *cfg)
{
	if (cfg->rr)
		return cfg->role == ENGINE_SEND ? &engine_rr_client_ops : &engine_rr_server_ops;
	if (cfg->proto == NS_PROTO_TCP)
		return cfg->role == ENGINE_SEND ? &engine_tcp_send_ops : &engine_tcp_recv_ops;
	if (cfg->kind == ENGINE_XDP || cfg->kind == ENGINE_XDP_RX)
		return cfg->role == ENGINE_SEND ? &engine_xdp_send_ops
		       : cfg->kind == ENGINE_XDP_RX ? &engine_xdp_rx_ops : &engine_xdp_count_ops;
	if (cfg->role == ENGINE_RECV)
		return &engine_udp_recv_ops;
	if (cfg->zerocopy)
		return &engine_udp_zc_ops;
	return cfg->gso ? &engine_udp_gso_ops : &engine_udp_mmsg_ops;
}

static int check_cfg(const struct engine_cfg *cfg, uint32_t nfds, struct ns_err *err)
{
	if (cfg->proto != NS_PROTO_TCP && cfg->proto != NS_PROTO_UDP)
		return ns_err_set(err, "engine: unknown protocol %d", (int)cfg->proto);
	if (cfg->role != ENGINE_SEND && cfg->role != ENGINE_RECV)
		return ns_err_set(err, "engine: unknown role %d", (int)cfg->role);
	if (nfds < 1 || nfds > NS_MAX_STREAMS)
		return ns_err_set(err, "engine: %u streams, expected 1..%d", nfds, NS_MAX_STREAMS);
	if (cfg->threads > NS_MAX_THREADS)
		return ns_err_set(err, "engine: %u threads, expected 1..%d", cfg->threads,
				  NS_MAX_THREADS);
	if (cfg->proto == NS_PROTO_UDP && cfg->length &&
	    (cfg->length < NS_UDP_MIN_LEN || cfg->length > NS_UDP_MAX_LEN))
		return ns_err_set(err, "engine: UDP length %u, expected %d..%d", cfg->length,
				  NS_UDP_MIN_LEN, NS_UDP_MAX_LEN);
	if (cfg->proto == NS_PROTO_TCP && cfg->length > NS_TCP_MAX_LEN)
		return ns_err_set(err, "engine: TCP length %u, at most %d", cfg->length,
				  NS_TCP_MAX_LEN);
	if (cfg->kind != ENGINE_SOCKET && cfg->proto != NS_PROTO_UDP)
		return ns_err_code(err, NS_E_USAGE, "engine: the XDP engine sends UDP only");
	if (cfg->not_data_len > ENGINE_NOT_DATA_MAX)
		return ns_err_set(err, "engine: %u bytes of not-data prefix, at most %d",
				  cfg->not_data_len, ENGINE_NOT_DATA_MAX);
	if (!(cfg->send_duration_s >= 0 && cfg->send_duration_s <= NS_MAX_DURATION_S))
		return ns_err_set(err, "engine: duration %g s out of range", cfg->send_duration_s);
	if (cfg->rr == ENGINE_CRR && (cfg->proto != NS_PROTO_TCP ||
				      (cfg->role == ENGINE_SEND ? !cfg->crr_addr_len
							      : cfg->crr_listen_fd < 0)))
		return ns_err_set(err, "engine: TCP_CRR needs TCP and an address or a listener");
	if (cfg->rr && cfg->rr != ENGINE_RR && cfg->rr != ENGINE_CRR)
		return ns_err_set(err, "engine: unknown request/response mode %d", (int)cfg->rr);
	uint32_t rr_min = cfg->proto == NS_PROTO_UDP ? ENGINE_RR_SEQ_LEN : 1;
	if (cfg->rr && (cfg->rr_request < rr_min || cfg->rr_request > ENGINE_RR_MAX_LEN ||
			cfg->rr_response < rr_min || cfg->rr_response > ENGINE_RR_MAX_LEN))
		return ns_err_set(err, "engine: request/response sizes %u/%u, expected %u..%d",
				  cfg->rr_request, cfg->rr_response, rr_min, ENGINE_RR_MAX_LEN);
	if (cfg->rr && (cfg->kind != ENGINE_SOCKET || !(cfg->rr_rate >= 0)))
		return ns_err_set(err, "engine: request/response runs on sockets at a rate >= 0");
	if (cfg->n_cpus && !cfg->cpus)
		return ns_err_set(err, "engine: %u CPUs given without a list", cfg->n_cpus);
	for (uint32_t i = 0; i < cfg->n_cpus; i++)
		if (cfg->cpus[i] < 0 || cfg->cpus[i] >= CPU_SETSIZE)
			return ns_err_set(err, "engine: CPU %d out of range", cfg->cpus[i]);
	return 0;
}

/* cfg.transport's engine behind this one: every public call below goes to it. */
static struct engine *tp_create(const struct engine_cfg *cfg, const int *fds, uint32_t nfds,
				struct ns_err *err)
{
	if (!cfg->transport) {
		ns_err_code(err, NS_E_UNSUPPORTED, "engine: QUIC needs its transport (runner/quic)");
		return NULL;
	}
	struct engine *e = calloc(1, sizeof(*e));
	if (!e || !(e->tp = cfg->transport->create(cfg, fds, nfds, err))) {
		if (!e)
			ns_err_sys(err, "engine: allocation");
		free(e);
		return NULL;
	}
	e->cfg = *cfg;
	e->n = nfds;
	return e;
}
#define TP(call) do { if (e->tp) return e->cfg.transport->call; } while (0)
#define TPV(call) do { if (e->tp) { e->cfg.transport->call; return; } } while (0)

struct engine *engine_create(const struct engine_cfg *cfg, const int *fds, uint32_t nfds,
			     struct ns_err *err)
{
	if (!cfg || !fds) {
		ns_err_set(err, "engine: no configuration or sockets");
		return NULL;
	}
	if (cfg->proto == NS_PROTO_QUIC || cfg->transport)
		return tp_create(cfg, fds, nfds, err);
	if (check_cfg(cfg, nfds, err) < 0)
		return NULL;
	for (uint32_t i = 0; i < nfds; i++) {
		if (fds[i] < 0) {
			ns_err_set(err, "engine: stream %u has no socket", i);
			return NULL;
		}
	}
	struct engine *e = calloc(1, sizeof(*e));
	if (!e) {
		ns_err_sys(err, "engine: allocation");
		return NULL;
	}
	e->cfg = *cfg;
	e->ops = pick_ops(cfg);
	e->unit = cfg->length ? cfg->length
			      : (cfg->proto == NS_PROTO_TCP ? NS_TCP_DEFAULT_LEN : NS_UDP_DEFAULT_LEN);
	e->cfg.length = e->unit;
	e->n = nfds;
	e->nthreads = cfg->threads ? cfg->threads : 1;
	if (e->nthreads > nfds)
		e->nthreads = nfds;
	if (cfg->kind == ENGINE_XDP_RX && cfg->role == ENGINE_RECV)
		e->nthreads = 1; /* reads every queue: a stream's datagrams may come on any */
	atomic_init(&e->stop, false);
	atomic_init(&e->running, 0);
	atomic_init(&e->gso_active, cfg->proto == NS_PROTO_UDP && cfg->role == ENGINE_SEND &&
					    cfg->gso);
	atomic_init(&e->zc_active, cfg->role == ENGINE_SEND && cfg->zerocopy);
	atomic_init(&e->zc_errno, 0);
	if (cfg->n_cpus) {
		e->cpus = calloc(cfg->n_cpus, sizeof(*e->cpus));
		if (!e->cpus)
			goto err_sys;
		memcpy(e->cpus, cfg->cpus, cfg->n_cpus * sizeof(*e->cpus));
		e->cfg.cpus = e->cpus;
	} else {
		e->cfg.cpus = NULL;
	}
	e->streams = aligned_alloc(64, sizeof(*e->streams) * nfds);
	e->threads = calloc(e->nthreads, sizeof(*e->threads));
	if (!e->streams || !e->threads)
		goto err_sys;
	memset(e->streams, 0, sizeof(*e->streams) * nfds);
	for (uint32_t i = 0; i < e->nthreads; i++) {
		struct e_thread *t = &e->threads[i];
		t->e = e;
		t->idx = i;
		t->cpu = e->cpus ? e->cpus[i % cfg->n_cpus] : -1;
		atomic_init(&t->last_cpu, -1);
		t->n = nfds / e->nthreads + (i < nfds % e->nthreads);
		t->streams = calloc(t->n, sizeof(*t->streams));
		t->pfds = calloc(t->n + 1, sizeof(*t->pfds)); /* + a TCP_CRR listener */
		if (!t->streams || !t->pfds)
			goto err_sys;
		t->n = 0;
	}
	for (uint32_t i = 0; i < nfds; i++) {
		struct e_stream *s = &e->streams[i];
		s->fd = -1;
		s->wait_fd = -1;
		s->rr_fd = -1;
		s->id = i;
		s->left = cfg->send_bytes ? cfg->send_bytes / nfds + (i < cfg->send_bytes % nfds)
					  : UINT64_MAX;
		s->t = &e->threads[i % e->nthreads];
		s->t->streams[s->t->n++] = s;
		atomic_init(&s->finished, false);
		atomic_init(&s->error, 0);
	}
	for (uint32_t i = 0; i < nfds; i++) {
		struct e_stream *s = &e->streams[i];
		s->fd = fds[i];
		s->wait_fd = fds[i];
		if (e->ops->setup(e, s, err) < 0) /* fds[] still belong to the caller on failure */
			goto err;
		s->active = true;
	}
	return e;
err_sys:
	ns_err_sys(err, "engine: allocation");
err:
	if (e->streams)
		for (uint32_t i = 0; i < nfds; i++)
			e->streams[i].fd = -1;
	engine_destroy(e);
	return NULL;
}

static uint64_t backoff_ns(const struct e_thread *t)
{
	return t->backoff_ns ? t->backoff_ns : E_BACKOFF_NS;
}

/* The budget's share of a send the pacer allows: whole datagrams (UDP), or a TCP write no
 * larger than the budget's burst, drawn before the send (the first one too); 0 with *wait
 * set to when the budget has room again. */
static uint32_t draw_budget(struct e_thread *t, struct e_stream *s, uint64_t now, uint32_t units,
			    uint64_t *granted, uint64_t *wait)
{
	struct engine *e = t->e;
	struct budget *b = e->cfg.budget;
	uint64_t step = e->cfg.proto == NS_PROTO_TCP ? s->allow : e->unit;
	uint64_t burst = e->cfg.proto == NS_PROTO_TCP ? budget_burst(b, &e->share) : 0;
	if (e->cfg.proto == NS_PROTO_TCP && step > burst)
		step = s->allow = burst;
	*granted = budget_take(b, &e->share, now, e->cfg.proto == NS_PROTO_TCP ? step : units * step,
			       step);
	if (!*granted) {
		uint64_t w = budget_wait_ns(b, &e->share, now, step);
		if (w < *wait)
			*wait = w;
		return 0;
	}
	return e->cfg.proto == NS_PROTO_TCP ? 1 : (uint32_t)(*granted / step);
}

/* One pass of a sender thread over its streams: each active stream gets up to its batch if its
 * pacer allows at pace_ns. Returns true if any stream made progress; otherwise *wait is the
 * time until the earliest pacer is ready or a backed-off stream may retry, t->pfds[0..*nblocked)
 * the streams whose socket was full and *nbackoff the streams that backed off. */
static bool send_round(struct e_thread *t, uint64_t now, uint64_t pace_ns, uint64_t *wait,
		       uint32_t *nblocked, uint32_t *nactive, uint32_t *nbackoff)
{
	struct engine *e = t->e;
	bool progress = false;
	*nblocked = *nactive = *nbackoff = 0;
	for (uint32_t i = 0; i < t->n; i++) {
		struct e_stream *s = t->streams[i];
		if (!s->active)
			continue;
		if (!s->left) { /* -n / -k: this stream sent its share */
			if (e->ops->end)
				e->ops->end(s);
			e_finish(s, 0);
			continue;
		}
		(*nactive)++;
		uint32_t units = pace_ready(&s->pace, pace_ns, t->pace_unit, t->batch);
		if (s->left != UINT64_MAX && units > (s->left + e->unit - 1) / e->unit)
			units = (uint32_t)((s->left + e->unit - 1) / e->unit);
		if (!units) {
			uint64_t w = pace_wait_ns(&s->pace, pace_ns);
			if (w < *wait)
				*wait = w;
			continue;
		}
		uint64_t granted = 0;
		if (e->cfg.budget && !(units = draw_budget(t, s, now, units, &granted, wait)))
			continue;
		uint64_t bytes = 0;
		int rc = e->ops->send(t, s, units, now, &bytes);
		if (e->cfg.budget && granted > bytes)
			budget_refund(e->cfg.budget, &e->share, granted - bytes);
		pace_sent(&s->pace, bytes);
		if (s->left != UINT64_MAX)
			s->left = bytes < s->left ? s->left - bytes : 0;
		if (rc == E_PROGRESS)
			progress = true;
		else if (rc == E_BLOCKED)
			t->pfds[(*nblocked)++] = (struct pollfd){ .fd = s->wait_fd, .events = POLLOUT };
		else if (rc == E_BACKOFF && ++*nbackoff && *wait > backoff_ns(t))
			*wait = backoff_ns(t);
	}
	return progress;
}

static void sleep_ns(struct e_thread *t, uint32_t nblocked, uint64_t now, uint64_t wait)
{
	if (nblocked) {
		struct timespec ts = { (time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull) };
		ppoll(t->pfds, nblocked, &ts, NULL);
		t->blocked_ns += engine_now_ns() - now;
	} else {
		uint64_t until = now + wait;
		struct timespec ts = { (time_t)(until / 1000000000ull),
				       (long)(until % 1000000000ull) };
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

/* A paced sender that reached its deadline still owes what its pacers allowed up to then if
 * the thread was kept off the CPU near the end (seen for hundreds of ms on a loaded machine):
 * send it, so that -b means rate x duration bytes, within E_FLUSH_NS. */
static void send_owed(struct e_thread *t)
{
	struct engine *e = t->e;
	uint64_t start = engine_now_ns();
	for (uint64_t now = start; now - start < E_FLUSH_NS; now = engine_now_ns()) {
		if (atomic_load_explicit(&e->stop, memory_order_relaxed))
			return;
		uint64_t wait = E_FLUSH_NS;
		uint32_t nblocked, nactive, nbackoff;
		if (send_round(t, now, e->deadline_ns, &wait, &nblocked, &nactive, &nbackoff))
			continue;
		if (!nblocked && !nbackoff)
			return; /* nothing owed */
		sleep_ns(t, nblocked, now, nbackoff ? backoff_ns(t) : E_POLL_NS / 5);
	}
}

/* A paced TCP stream writes about E_PACED_WRITE_S of its rate at a time (as much as a
 * budget of the same rate holds), not the whole configured length: at low rates a 128 KiB
 * write is a burst of a tenth of a second or more that a shaped link drops. */
static uint32_t paced_write(uint32_t unit, uint64_t rate_bps)
{
	if (!rate_bps)
		return unit;
	double w = (double)rate_bps / 8.0 * E_PACED_WRITE_S;
	if (w < E_PACED_MIN_WRITE)
		w = E_PACED_MIN_WRITE;
	return w < unit ? (uint32_t)w : unit;
}

/* Paced streams start one after another, a unit of the total rate apart: each may send its
 * first unit as soon as it starts, and all at once that was a unit per stream in the first
 * instant, over the rate of the whole test however long it was. */
static uint64_t stagger_ns(const struct engine *e, const struct e_thread *t,
			   const struct e_stream *s)
{
	if (!e->cfg.rate_bps)
		return 0;
	return (uint64_t)((double)s->id * t->pace_unit * 8e9 / (double)e->cfg.rate_bps);
}

/* Sender: streams get their batches while any makes progress; a thread sleeps only when none
 * did: in poll() when some socket was full, otherwise until the earliest pacer is ready, and
 * never longer than E_POLL_NS so that the stop flag is seen. */
static void run_sender(struct e_thread *t)
{
	struct engine *e = t->e;
	uint64_t now;
	uint64_t rate = e->cfg.rate_bps ? e->cfg.rate_bps / e->n : 0;
	if (e->cfg.rate_bps && !rate)
		rate = 1;
	t->pace_unit = e->cfg.proto == NS_PROTO_TCP ? paced_write(e->unit, rate) : e->unit;
	/* from the engine's start, not the thread's: a thread that starts late catches up */
	for (uint32_t i = 0; i < t->n; i++) {
		struct e_stream *s = t->streams[i];
		pace_init(&s->pace, rate, t->pace_unit, t->batch, e->t0_ns + stagger_ns(e, t, s));
		if (t->sched == ENGINE_SCHED_NOT_PERMITTED) /* no real time: late more often */
			pace_set_credit(&s->pace, E_CREDIT_NORT_NS);
		s->allow = t->pace_unit;
	}
	bool deadline = false, stalled = false;
	while (!atomic_load_explicit(&e->stop, memory_order_relaxed)) {
		now = engine_now_ns();
		engine_rt_guard(t, now);
		if (e->stall_ns && !stalled && now >= e->stall_at_ns) {
			stalled = true;
			sleep_ns(t, 0, now, e->stall_ns);
			continue;
		}
		if (e->deadline_ns && now >= e->deadline_ns) {
			deadline = true;
			break;
		}
		uint64_t wait = E_POLL_NS;
		uint32_t nblocked, nactive, nbackoff;
		if (send_round(t, now, now, &wait, &nblocked, &nactive, &nbackoff))
			continue;
		if (!nactive)
			break;
		if (e->deadline_ns && e->deadline_ns - now < wait)
			wait = e->deadline_ns - now;
		sleep_ns(t, nblocked, now, wait);
	}
	if (deadline && rate)
		send_owed(t);
	for (uint32_t i = 0; i < t->n; i++) {
		struct e_stream *s = t->streams[i];
		if (s->active && e->ops->end)
			e->ops->end(s);
		if (s->active)
			e_finish(s, 0);
	}
	atomic_store_explicit(&t->end_ns, engine_now_ns(), memory_order_relaxed);
	for (uint32_t i = 0; e->ops->reap && i < t->n; i++)
		e->ops->reap(t->streams[i]);
}

/* Receiver: a batch from every open stream in turn while any of them delivers; poll only when
 * none had anything, so that a busy stream costs one syscall per batch. On stop, what the
 * kernel already queued is still drained (UDP) so that in-flight datagrams are counted. */
static void run_receiver(struct e_thread *t)
{
	struct engine *e = t->e;
	while (!atomic_load_explicit(&e->stop, memory_order_relaxed)) {
		uint32_t np = 0;
		bool progress = false;
		if (t->sched == ENGINE_SCHED_REALTIME) /* no clock read per batch otherwise */
			engine_rt_guard(t, engine_now_ns());
		for (uint32_t i = 0; i < t->n; i++) {
			struct e_stream *s = t->streams[i];
			if (!s->active)
				continue;
			int rc = e->ops->recv(t, s);
			if (rc == E_PROGRESS)
				progress = true;
			else if (rc == E_BLOCKED)
				t->pfds[np++] = (struct pollfd){ .fd = s->wait_fd, .events = POLLIN };
		}
		if (progress)
			continue;
		if (!np)
			break;
		poll(t->pfds, np, (int)(E_POLL_NS / 1000000ull));
	}
	if (e->cfg.proto != NS_PROTO_UDP)
		return;
	for (uint32_t i = 0; i < t->n; i++) {
		struct e_stream *s = t->streams[i];
		for (int k = 0; k < 1024 && s->active && e->ops->recv(t, s) == E_PROGRESS; k++)
			;
		if (s->active)
			e_finish(s, 0);
	}
}

static void *thread_main(void *arg)
{
	struct e_thread *t = arg;
	engine_rt_enter(t);
	if (t->e->cfg.rr)
		engine_rr_run(t);
	else if (t->e->cfg.role == ENGINE_SEND)
		run_sender(t);
	else
		run_receiver(t);
	atomic_store_explicit(&t->cpu_final_ns, engine_self_cpu_ns(), memory_order_relaxed);
	uint64_t runq = 0;
	sysstat_thread_runq_ns(&runq);
	atomic_store_explicit(&t->runq_ns, runq, memory_order_relaxed);
	atomic_store_explicit(&t->cpu_final, true, memory_order_release);
	if (!atomic_load_explicit(&t->end_ns, memory_order_relaxed)) /* a sender set it already */
		atomic_store_explicit(&t->end_ns, engine_now_ns(), memory_order_relaxed);
	if (atomic_fetch_sub_explicit(&t->e->running, 1, memory_order_release) == 1 &&
	    t->e->share.joined) /* the last thread: the others' shares grow */
		budget_leave(t->e->cfg.budget, &t->e->share, engine_now_ns());
	return NULL;
}

/* NETSWEEP_TEST_SEND_STALL=AT_MS:FOR_MS: every sender thread sleeps FOR_MS once, AT_MS after
 * the start — a test hook that stands for a sender kept off the CPU (tests/integration). */
static void stall_hook(struct engine *e)
{
	const char *v = settings_get()->test_send_stall;
	unsigned at, len;
	if (e->cfg.role != ENGINE_SEND || !v || sscanf(v, "%u:%u", &at, &len) != 2 || !len ||
	    len > 10000)
		return;
	e->stall_at_ns = e->t0_ns + at * 1000000ull;
	e->stall_ns = len * 1000000ull;
}

int engine_start(struct engine *e, struct ns_err *err)
{
	TP(start(e->tp, err));
	if (e->started)
		return ns_err_set(err, "engine: already started");
	for (uint32_t i = 0; i < e->nthreads; i++)
		if (e->ops->thread_init(&e->threads[i], err) < 0)
			return -1;
	e->started = true;
	e->t0_ns = engine_now_ns();
	if (e->cfg.budget && e->cfg.role == ENGINE_SEND)
		budget_join(e->cfg.budget, &e->share, e->cfg.rate_bps, e->t0_ns);
	e->t0_real_ns = engine_real_ns();
	stall_hook(e);
	if (e->cfg.role == ENGINE_SEND && e->cfg.send_duration_s > 0)
		e->deadline_ns = e->t0_ns + (uint64_t)(e->cfg.send_duration_s * 1e9);
	atomic_store(&e->running, e->nthreads);
	for (uint32_t i = 0; i < e->nthreads; i++) {
		struct e_thread *t = &e->threads[i];
		int rc = engine_thread_spawn(&t->tid, t->cpu, thread_main, t);
		if (rc) {
			/* threads not created will never count themselves down */
			atomic_fetch_sub(&e->running, e->nthreads - i);
			engine_stop(e);
			engine_join(e);
			errno = rc;
			if (t->cpu >= 0)
				return ns_err_sys(err, "engine: thread %u on CPU %d", i, t->cpu);
			return ns_err_sys(err, "engine: thread %u", i);
		}
		t->created = true;
	}
	return 0;
}

void engine_stop(struct engine *e)
{
	TPV(stop(e->tp));
	atomic_store(&e->stop, true);
}

bool engine_done(const struct engine *e)
{
	TP(done(e->tp));
	return e->started && atomic_load_explicit(&e->running, memory_order_acquire) == 0;
}

double engine_end_s(const struct engine *e)
{
	TP(end_s(e->tp));
	if (!engine_done(e))
		return 0;
	uint64_t last = 0;
	for (uint32_t i = 0; i < e->nthreads; i++) {
		uint64_t t = atomic_load_explicit(&e->threads[i].end_ns, memory_order_relaxed);
		if (t > last)
			last = t;
	}
	return (double)last / 1e9;
}

void engine_join(struct engine *e)
{
	TPV(join(e->tp));
	if (!e->started || e->joined)
		return;
	for (uint32_t i = 0; i < e->nthreads; i++)
		if (e->threads[i].created)
			pthread_join(e->threads[i].tid, NULL);
	e->joined = true;
}

static void tcp_info_fill(const struct engine *e, int fd, struct engine_stream_snap *o)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
		return;
	o->retransmits = ti.tcpi_total_retrans;
	o->cwnd_bytes = (uint64_t)ti.tcpi_snd_cwnd * ti.tcpi_snd_mss;
	o->rtt_ms = ti.tcpi_rtt / 1000.0;
	o->rtt_min_ms = ti.tcpi_min_rtt / 1000.0;
	/* older kernels return a shorter struct: the fields past len stay 0 */
	o->segs = e->cfg.role == ENGINE_SEND ? ti.tcpi_segs_out : ti.tcpi_segs_in;
	if (e->cfg.role == ENGINE_SEND)
		o->acked = ti.tcpi_bytes_acked;
}

void engine_snapshot(struct engine *e, struct engine_stream_snap *snaps)
{
	TPV(snapshot(e->tp, snaps));
	for (uint32_t i = 0; i < e->n; i++) {
		struct e_stream *s = &e->streams[i];
		struct engine_stream_snap *o = &snaps[i];
		memset(o, 0, sizeof(*o));
		/* finished first: a finished stream's counters are final once it reads true */
		o->finished = atomic_load_explicit(&s->finished, memory_order_acquire);
		o->error = atomic_load_explicit(&s->error, memory_order_relaxed);
		o->bytes = atomic_load_explicit(&s->bytes, memory_order_relaxed);
		o->packets = atomic_load_explicit(&s->packets, memory_order_relaxed);
		o->lost = atomic_load_explicit(&s->lost, memory_order_relaxed);
		o->out_of_order = atomic_load_explicit(&s->out_of_order, memory_order_relaxed);
		o->duplicates = atomic_load_explicit(&s->duplicates, memory_order_relaxed);
		o->highest_seq_plus1 = atomic_load_explicit(&s->highest_plus1, memory_order_relaxed);
		uint64_t jb = atomic_load_explicit(&s->jitter_bits, memory_order_relaxed);
		memcpy(&o->jitter_ms, &jb, sizeof(jb));
		o->sock_drops = atomic_load_explicit(&s->sock_drops, memory_order_relaxed);
		if (e->cfg.proto == NS_PROTO_TCP)
			tcp_info_fill(e, s->fd, o);
	}
}

/* A running thread's CPU clock is read through its clock id; one that has returned left its
 * final figure (its clock id is gone with it, so a failed read means it just returned). */
uint64_t engine_cpu_ns(const struct engine *e)
{
	uint64_t sum = 0;
	TP(cpu_ns(e->tp));
	if (!e->started)
		return 0;
	for (uint32_t i = 0; i < e->nthreads; i++) {
		struct e_thread *t = &e->threads[i];
		struct timespec ts;
		clockid_t cid;
		if (!t->created)
			continue;
		if (!atomic_load_explicit(&t->cpu_final, memory_order_acquire) && !e->joined &&
		    pthread_getcpuclockid(t->tid, &cid) == 0 && clock_gettime(cid, &ts) == 0 &&
		    !atomic_load_explicit(&t->cpu_final, memory_order_acquire)) {
			sum += (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			continue;
		}
		if (atomic_load_explicit(&t->cpu_final, memory_order_acquire))
			sum += atomic_load_explicit(&t->cpu_final_ns, memory_order_relaxed);
	}
	return sum;
}

uint32_t engine_nstreams(const struct engine *e)
{
	return e->n;
}

uint64_t engine_budget_held(const struct engine *e)
{
	TP(budget_held(e->tp));
	return e->cfg.budget ? budget_share_held(&e->share) : 0;
}

bool engine_gso_active(const struct engine *e)
{
	TP(gso_active(e->tp));
	return atomic_load(&e->gso_active);
}

void engine_zerocopy(const struct engine *e, struct engine_zc *out)
{
	memset(out, 0, sizeof(*out));
	out->active = atomic_load(&e->zc_active);
	out->fallback_errno = atomic_load(&e->zc_errno);
	for (uint32_t i = 0; !e->tp && e->cfg.role == ENGINE_SEND && i < e->n; i++) {
		out->sends += e->streams[i].zc_sends;
		out->completions += e->streams[i].zc_done;
		out->copied += e->streams[i].zc_copied;
	}
}

void engine_latency(const struct engine *e, struct lathist *out)
{
	lathist_init(out);
	for (uint32_t i = 0; !e->tp && i < e->n; i++)
		if (e->streams[i].hist)
			lathist_merge(out, e->streams[i].hist);
}

int engine_stream_last_cpu(const struct engine *e, uint32_t stream)
{
	if (stream >= e->n || e->tp)
		return -1;
	return atomic_load_explicit(&e->streams[stream].t->last_cpu, memory_order_relaxed);
}

void engine_diag(const struct engine *e, struct engine_diag *out)
{
	memset(out, 0, sizeof(*out));
	TPV(diag(e->tp, out));
	if (!e->started || !e->joined)
		return;
	double blocked = 0;
	for (uint32_t i = 0; i < e->nthreads; i++) {
		const struct e_thread *t = &e->threads[i];
		uint64_t end = atomic_load_explicit(&t->end_ns, memory_order_relaxed);
		if (!t->created || end <= e->t0_ns)
			continue;
		double life = (double)(end - e->t0_ns);
		double cpu = (double)atomic_load_explicit(&t->cpu_final_ns, memory_order_relaxed);
		if (cpu / life * 100.0 > out->busiest_cpu_pct)
			out->busiest_cpu_pct = cpu / life * 100.0;
		double runq = (double)atomic_load_explicit(&t->runq_ns, memory_order_relaxed);
		if (runq / life * 100.0 > out->runq_pct)
			out->runq_pct = runq / life * 100.0;
		blocked += (double)t->blocked_ns / life * 100.0 / e->nthreads;
		out->tx_busy += t->tx_busy;
		/* the worst: dropped, else not permitted, else real-time, else normal */
		static const uint8_t rank[] = {0, 2, 1, 3};
		if (t->sched < 4 && rank[t->sched] > rank[out->sched])
			out->sched = t->sched;
		for (uint32_t k = 0; e->cfg.role == ENGINE_SEND && k < t->n; k++)
			out->pace_lost_pct += pace_lost_ns(&t->streams[k]->pace) / life * 100.0 / e->n;
	}
	if (e->cfg.role == ENGINE_SEND)
		out->blocked_pct = blocked;
}

int engine_stream_cpu(const struct engine *e, uint32_t stream)
{
	TP(stream_cpu(e->tp, stream));
	if (stream >= e->n)
		return -1;
	return e->streams[stream].t->cpu;
}

const char *engine_mode(const struct engine *e)
{
	TP(mode(e->tp));
	return e->mode[0] ? e->mode : "socket";
}

void engine_destroy(struct engine *e)
{
	if (!e)
		return;
	int saved = errno;
	if (e->tp) {
		e->cfg.transport->destroy(e->tp);
		free(e);
		errno = saved;
		return;
	}
	if (e->started && !e->joined) {
		engine_stop(e);
		engine_join(e);
	}
	if (e->share.joined) /* threads that were never created */
		budget_leave(e->cfg.budget, &e->share, engine_now_ns());
	if (e->streams) {
		for (uint32_t i = 0; i < e->n; i++) {
			if (e->streams[i].fd >= 0)
				close(e->streams[i].fd);
			free(e->streams[i].seq);
			free(e->streams[i].hist);
			if (e->streams[i].rr_fd >= 0)
				close(e->streams[i].rr_fd);
		}
	}
	if (e->threads) {
		for (uint32_t i = 0; i < e->nthreads; i++) {
			struct e_thread *t = &e->threads[i];
			if (e->ops && e->ops->thread_fini)
				e->ops->thread_fini(t);
			free(t->streams);
			free(t->pfds);
			engine_buf_free(t->buf, t->buf_len);
			free(t->msgs);
			free(t->iovs);
			free(t->ctrl);
		}
	}
	if (e->ops && e->ops->fini)
		e->ops->fini(e); /* after the streams: frees their priv too */
	engine_buf_free(e->send_buf, e->send_buf_len);
	free(e->threads);
	free(e->streams);
	free(e->cpus);
	free(e);
	errno = saved;
}
