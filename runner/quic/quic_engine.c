/* quic_engine: QUIC bulk transfer on ngtcp2 0.12 with GnuTLS (see quic.h). Each thread runs
 * its connections' event loop: read every datagram that waits, let ngtcp2 handle its timers,
 * write what congestion control, flow control, the pacer and the budget allow as GSO
 * batches, sleep until the earliest timer or a readable socket. */
#include "quic_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>

#include "runner/engine/budget.h"
#include "runner/engine/pace.h"
#include "runner/engine/sysstat.h"

static uint64_t q_allow(struct qconn *c, uint64_t now)
{
	struct qeng *q = c->q;
	uint64_t want = c->left < Q_CHUNK ? c->left : Q_CHUNK;
	if (q->cfg.rate_bps) {
		uint32_t units = pace_ready(&c->pace, now, 1200, Q_CHUNK / 1200);
		if ((uint64_t)units * 1200 < want)
			want = (uint64_t)units * 1200;
	}
	if (want && q->cfg.budget)
		want = budget_take(q->cfg.budget, &q->share, now, want, want < 1200 ? want : 1200);
	return want;
}

static int q_write(struct qthread *t, struct qconn *c, uint64_t now)
{
	struct qeng *q = c->q;
	size_t mtu = ngtcp2_conn_get_max_tx_udp_payload_size(c->conn);
	size_t quantum = ngtcp2_conn_get_send_quantum(c->conn);
	uint32_t max_pkts = mtu ? (uint32_t)(quantum / mtu) : 1;
	if (max_pkts < 1)
		max_pkts = 1;
	if (max_pkts > Q_MAX_GSO)
		max_pkts = Q_MAX_GSO;
	if (!atomic_load_explicit(&q->gso_on, memory_order_relaxed))
		max_pkts = max_pkts > 10 ? 10 : max_pkts;
	bool sender = q->cfg.role == ENGINE_SEND;
	uint64_t allow = sender && c->sid >= 0 && !c->ending && !c->blocked ? q_allow(c, now) : 0;
	uint64_t given = 0;
	size_t len = 0, seg = 0;
	uint32_t npkts = 0;
	ngtcp2_path_storage ps;
	ngtcp2_path_storage_zero(&ps);
	for (;;) {
		int64_t sid = -1;
		ngtcp2_vec v = {0};
		size_t vcnt = 0;
		uint32_t flags = NGTCP2_WRITE_STREAM_FLAG_MORE;
		if (sender && c->sid >= 0 && !c->blocked && given < allow) {
			sid = c->sid;
			v.base = q->data;
			v.len = allow - given;
			vcnt = 1;
		} else if (sender && c->sid >= 0 && c->ending && !c->fin_sent) {
			sid = c->sid;
			flags |= NGTCP2_WRITE_STREAM_FLAG_FIN;
		}
		ngtcp2_ssize nd = -1;
		ngtcp2_pkt_info pi;
		ngtcp2_ssize w = ngtcp2_conn_writev_stream(c->conn, &ps.path, &pi, t->tx + len, mtu,
							   &nd, flags, sid, &v, vcnt, now);
		if (nd > 0) {
			given += (uint64_t)nd;
			atomic_store_explicit(&c->bytes, atomic_load_explicit(&c->bytes,
						memory_order_relaxed) + (uint64_t)nd, memory_order_relaxed);
		}
		if (nd >= 0 && (flags & NGTCP2_WRITE_STREAM_FLAG_FIN))
			c->fin_sent = true;
		if (w == NGTCP2_ERR_WRITE_MORE)
			continue;
		if (w == NGTCP2_ERR_STREAM_DATA_BLOCKED) {
			c->blocked = true;
			continue;
		}
		if (w == NGTCP2_ERR_STREAM_SHUT_WR) {
			c->fin_sent = true;
			continue;
		}
		if (w < 0)
			return (int)w;
		if (w == 0)
			break;
		/* a packet shorter than the batch's first ends the batch (GSO: equal sizes but
		 * the last) */
		if (!npkts)
			seg = (size_t)w;
		len += (size_t)w;
		npkts++;
		if ((size_t)w < seg || npkts >= max_pkts) {
			qc_send_batch(t, c, len, seg, npkts);
			len = 0;
			npkts = 0;
			if (!q->cfg.rate_bps || (size_t)w < seg)
				break;
		}
	}
	if (npkts)
		qc_send_batch(t, c, len, seg, npkts);
	/* a thread that woke late keeps up to Q_CREDIT_NS of the time it lost: ngtcp2 spaces
	 * the next quantum from the time given here */
	uint64_t late = c->tx_due && now > c->tx_due ? now - c->tx_due : 0;
	ngtcp2_conn_update_pkt_tx_time(c->conn, now - (late < Q_CREDIT_NS ? late : Q_CREDIT_NS));
	c->tx_due = ngtcp2_conn_get_expiry(c->conn);
	if (given) {
		if (q->cfg.rate_bps)
			pace_sent(&c->pace, given);
		if (c->left != UINT64_MAX)
			c->left -= given < c->left ? given : c->left;
	}
	return 0;
}

/* Every datagram that waits; false once the connection is over. */
static bool q_read(struct qthread *t, struct qconn *c, uint64_t now)
{
	struct qeng *q = c->q;
	for (int round = 0; round < Q_RX_ROUNDS; round++) {
		for (uint32_t i = 0; i < Q_RX_BATCH; i++) {
			t->iovs[i] = (struct iovec){t->rx + (size_t)i * Q_RX_LEN, Q_RX_LEN};
			t->msgs[i].msg_hdr = (struct msghdr){.msg_iov = &t->iovs[i], .msg_iovlen = 1};
		}
		int n = recvmmsg(c->fd, t->msgs, Q_RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return true;
		for (int i = 0; i < n; i++) {
			const uint8_t *pkt = t->iovs[i].iov_base;
			size_t len = t->msgs[i].msg_len;
			if (q->cfg.not_data_len && len <= ENGINE_NOT_DATA_MAX + 4 &&
			    len >= q->cfg.not_data_len && !memcmp(pkt, q->cfg.not_data,
								   q->cfg.not_data_len))
				continue; /* a late echo of the control protocol's greeting */
			if (!c->conn && (!q->side.server || qc_server_new(c, pkt, len) < 0 || !c->conn))
				continue;
			if (q->cfg.role == ENGINE_RECV)
				atomic_fetch_add_explicit(&c->packets, 1, memory_order_relaxed);
			ngtcp2_path path = qc_path(c);
			ngtcp2_pkt_info pi = {0};
			int rv = ngtcp2_conn_read_pkt(c->conn, &path, &pi, pkt, len, now);
			if (rv == 0)
				continue;
			if (rv == NGTCP2_ERR_DRAINING) { /* the peer closed */
				qc_close(t, c, 0);
				return false;
			}
			if (rv == NGTCP2_ERR_DISCARD_PKT || rv == NGTCP2_ERR_DROP_CONN)
				continue;
			qc_fail(c, c->cert_bad ? EKEYREJECTED : rv == NGTCP2_ERR_CRYPTO ? EPROTO
										  : ECONNABORTED);
			qc_close(t, c, rv);
			return false;
		}
		if (n < Q_RX_BATCH)
			return true;
	}
	return true;
}

/* One pass over a connection; the time of its next timer in *next. */
static void q_step(struct qthread *t, struct qconn *c, uint64_t now, bool stop, uint64_t *next)
{
	struct qeng *q = c->q;
	bool sender = q->cfg.role == ENGINE_SEND;
	if (!q_read(t, c, now) || c->closed)
		return;
	if (!c->conn) { /* the server before the client's first packet */
		if (stop)
			qc_close(t, c, 0);
		return;
	}
	if (ngtcp2_conn_get_expiry(c->conn) <= now) {
		int rv = ngtcp2_conn_handle_expiry(c->conn, now);
		if (rv != 0) {
			qc_fail(c, rv == NGTCP2_ERR_IDLE_CLOSE || rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT
				  ? ETIMEDOUT : ECONNABORTED);
			qc_close(t, c, rv);
			return;
		}
	}
	if (sender && c->sid < 0 && ngtcp2_conn_get_handshake_completed(c->conn) &&
	    ngtcp2_conn_open_uni_stream(c->conn, &c->sid, NULL) == 0) {
		c->start_ns = now;
		pace_init(&c->pace, q->cfg.rate_bps / q->n ? q->cfg.rate_bps / q->n : 1, 1200,
			  Q_CHUNK / 1200, now);
	}
	bool timed_out = q->deadline_ns && now >= q->deadline_ns;
	if (sender && !c->ending && (stop || timed_out || !c->left)) {
		c->ending = true;
		c->end_at = now;
		uint64_t seen = atomic_load(&t->end_ns);
		if (!seen || now > seen)
			atomic_store(&t->end_ns, now);
	}
	int rv = q_write(t, c, now);
	if (rv != 0) {
		qc_fail(c, ECONNABORTED);
		qc_close(t, c, rv);
		return;
	}
	qc_publish(c);
	if ((sender && c->ending && (c->fin_acked || c->sid < 0 || now - c->end_at > QUIC_END_NS)) ||
	    (!sender && stop)) {
		qc_close(t, c, 0);
		return;
	}
	uint64_t exp = ngtcp2_conn_get_expiry(c->conn);
	if (sender && q->cfg.rate_bps && c->sid >= 0 && !c->ending) {
		uint64_t pw = now + pace_wait_ns(&c->pace, now);
		exp = pw < exp ? pw : exp;
	}
	if (exp < *next)
		*next = exp;
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *q_thread(void *arg)
{
	struct qthread *t = arg;
	struct qeng *q = t->q;
	struct pollfd pfd[NS_MAX_STREAMS];
	/* ngtcp2 paces to the microsecond: the default 50 us slack on every wake-up cost a
	 * third of the rate on a veth */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (;;) {
		uint64_t now = engine_now_ns();
		bool stop = atomic_load_explicit(&q->stop, memory_order_relaxed);
		uint64_t next = now + Q_POLL_NS;
		uint32_t np = 0;
		for (uint32_t i = t->idx; i < q->n; i += q->nt) {
			struct qconn *c = &q->c[i];
			if (c->closed)
				continue;
			q_step(t, c, now, stop, &next);
			if (!c->closed)
				pfd[np++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
		}
		if (!np)
			break;
		now = engine_now_ns();
		if (next <= now)
			continue;
		struct timespec ts = {(time_t)((next - now) / 1000000000ull),
				      (long)((next - now) % 1000000000ull)};
		ppoll(pfd, np, &ts, NULL);
	}
	uint64_t runq = 0;
	sysstat_thread_runq_ns(&runq);
	atomic_store(&t->runq_ns, runq);
	atomic_store(&t->cpu_final_ns, thread_cpu_ns());
	atomic_store(&t->cpu_final, true);
	if (!atomic_load(&t->end_ns))
		atomic_store(&t->end_ns, engine_now_ns());
	atomic_fetch_sub(&q->running, 1);
	return NULL;
}

static void q_destroy(void *impl)
{
	struct qeng *q = impl;
	if (!q)
		return;
	if (q->started && !q->joined) {
		atomic_store(&q->stop, true);
		for (uint32_t i = 0; i < q->nt; i++)
			if (q->t[i].created)
				pthread_join(q->t[i].tid, NULL);
	}
	if (q->share.joined)
		budget_leave(q->cfg.budget, &q->share, engine_now_ns());
	for (uint32_t i = 0; q->c && i < q->n; i++) {
		struct qconn *c = &q->c[i];
		if (c->conn)
			ngtcp2_conn_del(c->conn);
		if (c->tls)
			gnutls_deinit(c->tls);
		if (c->cred)
			gnutls_certificate_free_credentials(c->cred);
		if (c->fd >= 0)
			close(c->fd);
	}
	for (uint32_t i = 0; q->t && i < q->nt; i++) {
		free(q->t[i].tx);
		free(q->t[i].rx);
	}
	free(q->t);
	free(q->c);
	free(q->data);
	free(q);
}

static void *q_create(const struct engine_cfg *cfg, const int *fds, uint32_t nfds,
		      struct ns_err *err)
{
	const struct quic_side *side = cfg->transport_arg;
	if (!side || (side->server && !side->cert) || nfds < 1 || nfds > NS_MAX_STREAMS ||
	    (cfg->role != ENGINE_SEND && cfg->role != ENGINE_RECV)) {
		ns_err_set(err, "QUIC engine: %u connections (1..%d), a role, its side of the "
			   "handshake and, for the server, a certificate needed", nfds, NS_MAX_STREAMS);
		return NULL;
	}
	if (cfg->rr || cfg->kind != ENGINE_SOCKET) {
		ns_err_code(err, NS_E_USAGE, "QUIC engine: bulk transfer on sockets only");
		return NULL;
	}
	struct qeng *q = calloc(1, sizeof(*q));
	if (!q) {
		ns_err_sys(err, "QUIC engine: allocation");
		return NULL;
	}
	q->cfg = *cfg;
	q->side = *side;
	q->n = nfds;
	q->nt = cfg->threads ? cfg->threads : 1;
	if (q->nt > nfds)
		q->nt = nfds;
	atomic_init(&q->gso_on, true); /* off at the first send the kernel refuses */
	q->c = aligned_alloc(64, sizeof(*q->c) * nfds);
	q->t = calloc(q->nt, sizeof(*q->t));
	if (q->c)
		memset(q->c, 0, sizeof(*q->c) * nfds);
	for (uint32_t i = 0; q->c && i < nfds; i++)
		q->c[i].fd = -1;
	if (!q->c || !q->t || (cfg->role == ENGINE_SEND && !(q->data = calloc(1, Q_CHUNK)))) {
		ns_err_sys(err, "QUIC engine: allocation");
		goto fail;
	}
	for (uint32_t i = 0; i < q->nt; i++) {
		struct qthread *t = &q->t[i];
		t->q = q;
		t->idx = i;
		t->cpu = cfg->n_cpus ? cfg->cpus[i % cfg->n_cpus] : -1;
		t->tx = malloc((size_t)Q_MAX_GSO * Q_PKT_MAX);
		t->rx = malloc((size_t)Q_RX_BATCH * Q_RX_LEN);
		if (!t->tx || !t->rx) {
			ns_err_sys(err, "QUIC engine: allocation");
			goto fail;
		}
	}
	for (uint32_t i = 0; i < nfds; i++) {
		struct qconn *c = &q->c[i];
		c->q = q;
		c->id = i;
		c->sid = -1;
		c->left = cfg->send_bytes ? cfg->send_bytes / nfds + (i < cfg->send_bytes % nfds)
					  : UINT64_MAX;
		c->llen = sizeof(c->local);
		c->rlen = sizeof(c->remote);
		if (getsockname(fds[i], (struct sockaddr *)&c->local, &c->llen) < 0 ||
		    getpeername(fds[i], (struct sockaddr *)&c->remote, &c->rlen) < 0) {
			ns_err_sys(err, "QUIC engine: connection %u: its socket is not connected", i);
			goto fail;
		}
		if (qc_tls_init(c, err) < 0 || (!side->server && qc_client_new(c, err) < 0))
			goto fail;
		uint64_t fq = cfg->fq_rate_bps / 8;
		if (cfg->role == ENGINE_SEND && fq &&
		    setsockopt(fds[i], SOL_SOCKET, SO_MAX_PACING_RATE, &fq, sizeof(fq)) < 0) {
			ns_err_sys(err, "QUIC engine: SO_MAX_PACING_RATE");
			goto fail;
		}
	}
	for (uint32_t i = 0; i < nfds; i++)
		q->c[i].fd = fds[i]; /* ours from here on */
	snprintf(q->mode, sizeof(q->mode), "quic%s", atomic_load(&q->gso_on) ? " gso" : "");
	return q;
fail:
	for (uint32_t i = 0; q->c && i < nfds; i++)
		q->c[i].fd = -1; /* still the caller's */
	q_destroy(q);
	return NULL;
}

static int q_start(void *impl, struct ns_err *err)
{
	struct qeng *q = impl;
	if (q->started)
		return ns_err_set(err, "QUIC engine: already started");
	q->started = true;
	q->t0_ns = engine_now_ns();
	if (q->cfg.role == ENGINE_SEND && q->cfg.send_duration_s > 0)
		q->deadline_ns = q->t0_ns + (uint64_t)(q->cfg.send_duration_s * 1e9);
	if (q->cfg.role == ENGINE_SEND && q->cfg.budget)
		budget_join(q->cfg.budget, &q->share, q->cfg.rate_bps, q->t0_ns);
	atomic_store(&q->running, q->nt);
	for (uint32_t i = 0; i < q->nt; i++) {
		struct qthread *t = &q->t[i];
		int rc = engine_thread_spawn(&t->tid, t->cpu, q_thread, t);
		if (rc) {
			atomic_fetch_sub(&q->running, q->nt - i);
			atomic_store(&q->stop, true);
			errno = rc;
			return ns_err_sys(err, "QUIC engine: thread %u", i);
		}
		t->created = true;
	}
	return 0;
}

static void q_stop(void *impl)
{
	atomic_store(&((struct qeng *)impl)->stop, true);
}

static bool q_done(const void *impl)
{
	const struct qeng *q = impl;
	return q->started && atomic_load(&((struct qeng *)q)->running) == 0;
}

static double q_end_s(const void *impl)
{
	const struct qeng *q = impl;
	uint64_t last = 0;
	if (!q_done(q))
		return 0;
	for (uint32_t i = 0; i < q->nt; i++) {
		uint64_t e = atomic_load(&q->t[i].end_ns);
		last = e > last ? e : last;
	}
	return (double)last / 1e9;
}

static void q_join(void *impl)
{
	struct qeng *q = impl;
	if (!q->started || q->joined)
		return;
	for (uint32_t i = 0; i < q->nt; i++)
		if (q->t[i].created)
			pthread_join(q->t[i].tid, NULL);
	q->joined = true;
	if (q->share.joined) /* the other tests' shares grow */
		budget_leave(q->cfg.budget, &q->share, engine_now_ns());
}

static uint64_t q_budget_held(const void *impl)
{
	const struct qeng *q = impl;
	return q->cfg.budget ? budget_share_held(&q->share) : 0;
}

static void q_snapshot(void *impl, struct engine_stream_snap *snaps)
{
	struct qeng *q = impl;
	for (uint32_t i = 0; i < q->n; i++) {
		struct qconn *c = &q->c[i];
		struct engine_stream_snap *o = &snaps[i];
		memset(o, 0, sizeof(*o));
		o->finished = atomic_load_explicit(&c->finished, memory_order_acquire);
		o->error = atomic_load_explicit(&c->error, memory_order_relaxed);
		o->bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
		o->packets = atomic_load_explicit(&c->packets, memory_order_relaxed);
		o->retransmits = atomic_load_explicit(&c->lost, memory_order_relaxed);
		o->cwnd_bytes = atomic_load_explicit(&c->cwnd, memory_order_relaxed);
		o->rtt_ms = (double)atomic_load_explicit(&c->rtt_ns, memory_order_relaxed) / 1e6;
		o->rtt_min_ms = (double)atomic_load_explicit(&c->min_rtt_ns, memory_order_relaxed) / 1e6;
		o->segs = o->packets;
		if (q->cfg.role == ENGINE_SEND)
			o->acked = atomic_load_explicit(&c->acked, memory_order_relaxed);
	}
}

static uint64_t q_cpu_ns(const void *impl)
{
	const struct qeng *q = impl;
	uint64_t sum = 0;
	for (uint32_t i = 0; q->started && i < q->nt; i++) {
		struct qthread *t = &q->t[i];
		if (!t->created)
			continue;
		if (atomic_load(&t->cpu_final))
			sum += atomic_load(&t->cpu_final_ns);
		else if (!q->joined)
			sum += engine_thread_cpu_ns(t->tid);
	}
	return sum;
}

static void q_diag(const void *impl, struct engine_diag *out)
{
	const struct qeng *q = impl;
	memset(out, 0, sizeof(*out));
	for (uint32_t i = 0; q->joined && i < q->nt; i++) {
		struct qthread *t = &q->t[i];
		uint64_t end = atomic_load(&t->end_ns);
		if (!t->created || end <= q->t0_ns)
			continue;
		double life = (double)(end - q->t0_ns);
		double pct = (double)atomic_load(&t->cpu_final_ns) / life * 100.0;
		if (pct > out->busiest_cpu_pct)
			out->busiest_cpu_pct = pct;
		pct = (double)atomic_load(&t->runq_ns) / life * 100.0;
		if (pct > out->runq_pct)
			out->runq_pct = pct;
	}
}

static int q_stream_cpu(const void *impl, uint32_t stream)
{
	const struct qeng *q = impl;
	return stream < q->n ? q->t[stream % q->nt].cpu : -1;
}

static bool q_gso(const void *impl)
{
	return atomic_load(&((struct qeng *)impl)->gso_on);
}

static const char *q_mode(const void *impl)
{
	return ((const struct qeng *)impl)->mode;
}

static const struct engine_transport quic_tp = {
	.name = "quic",
	.create = q_create,
	.start = q_start,
	.stop = q_stop,
	.done = q_done,
	.end_s = q_end_s,
	.join = q_join,
	.snapshot = q_snapshot,
	.cpu_ns = q_cpu_ns,
	.diag = q_diag,
	.stream_cpu = q_stream_cpu,
	.gso_active = q_gso,
	.mode = q_mode,
	.budget_held = q_budget_held,
	.destroy = q_destroy,
};

const struct engine_transport *quic_transport(void)
{
	return &quic_tp;
}
