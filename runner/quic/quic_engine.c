/* quic_engine: QUIC bulk transfer on ngtcp2 0.12 with GnuTLS (see quic.h). Each thread runs
 * its connections' event loop: read every datagram that waits, let ngtcp2 handle its timers,
 * write what congestion control, flow control, the pacer and the budget allow as GSO
 * batches, sleep until the earliest timer or a readable socket. */
#include "quic.h"
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

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define Q_POLL_NS 50000000ull   /* longest sleep before the stop flag is looked at */
#define Q_RX_BATCH 32           /* datagrams per recvmmsg */
#define Q_RX_LEN 65536
#define Q_RX_ROUNDS 1           /* recvmmsg calls before the ACKs go out: a late ACK inflates
				   the RTT, and ngtcp2 0.12's CUBIC caps cwnd near 2.89 x the
				   delivery rate x min RTT */
#define Q_MAX_GSO 64            /* packets per GSO send */
#define Q_PKT_MAX 1500          /* largest packet ngtcp2 is asked to build */
#define Q_CHUNK (256 * 1024)    /* the sender's bytes, offered to ngtcp2 per call */
#define Q_WINDOW (64ull << 20)
#define Q_CREDIT_NS 2000000ull  /* most pacing time a late wake-up makes up for */  /* the receiver's flow-control windows grow up to this */

static const char q_priority[] =
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
	"+CHACHA20-POLY1305:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:%DISABLE_TLS13_COMPAT_MODE";

struct qeng;

struct qconn {
	ngtcp2_crypto_conn_ref ref;
	struct qeng *q;
	uint32_t id;
	int fd;
	struct sockaddr_storage local, remote;
	socklen_t llen, rlen;
	ngtcp2_conn *conn;
	gnutls_session_t tls;
	gnutls_certificate_credentials_t cred; /* client: an empty one, the fingerprint checks */
	int64_t sid;           /* sender: its unidirectional stream, -1 before the handshake */
	bool blocked;          /* sender: flow control, until extend_max_stream_data */
	bool ending, fin_sent, fin_acked, closed, cert_bad;
	uint64_t end_at;       /* when the sender's end began (ns) */
	uint64_t left;         /* sender: bytes still to send (cfg.send_bytes), UINT64_MAX none */
	uint64_t start_ns;
	uint64_t tx_due;       /* when ngtcp2's pacer let the next packet go, as last seen */
	struct pace pace;
	/* published for quic_snapshot */
	_Atomic uint64_t bytes, packets, acked, lost, cwnd, rtt_ns, min_rtt_ns;
	_Atomic bool finished;
	_Atomic int error;
} __attribute__((aligned(64)));

struct qthread {
	struct qeng *q;
	pthread_t tid;
	bool created;
	uint32_t idx;
	int cpu;
	uint8_t *tx, *rx;
	struct mmsghdr msgs[Q_RX_BATCH];
	struct iovec iovs[Q_RX_BATCH];
	_Atomic uint64_t cpu_final_ns, end_ns, runq_ns;
	_Atomic bool cpu_final;
};

struct qeng {
	struct engine_cfg cfg;
	struct quic_side side;
	struct qconn *c;
	uint32_t n;
	struct qthread *t;
	uint32_t nt;
	uint8_t *data;        /* the sender's payload, read-only */
	_Atomic bool stop, gso_on;
	_Atomic uint32_t running;
	bool started, joined;
	uint64_t t0_ns, deadline_ns;
	char mode[32];
};

static void q_fail(struct qconn *c, int error)
{
	if (error && !atomic_load(&c->error))
		atomic_store(&c->error, error);
}

/* Publishes the connection's figures and ends it for the thread: finished. */
static void q_publish(struct qconn *c)
{
	if (!c->conn)
		return;
	ngtcp2_conn_stat st;
	ngtcp2_conn_get_conn_stat(c->conn, &st);
	atomic_store_explicit(&c->rtt_ns, st.smoothed_rtt, memory_order_relaxed);
	atomic_store_explicit(&c->min_rtt_ns, st.min_rtt == UINT64_MAX ? 0 : st.min_rtt,
			      memory_order_relaxed);
	atomic_store_explicit(&c->cwnd, st.cwnd, memory_order_relaxed);
	if (c->sid >= 0)
		atomic_store_explicit(&c->lost, ngtcp2_conn_get_stream_loss_count(c->conn, c->sid),
				      memory_order_relaxed);
}

/* ngtcp2's callbacks */

static ngtcp2_conn *get_conn(ngtcp2_crypto_conn_ref *ref)
{
	return ((struct qconn *)ref->user_data)->conn;
}

static void cb_rand(uint8_t *dest, size_t len, const ngtcp2_rand_ctx *ctx)
{
	(void)ctx;
	(void)gnutls_rnd(GNUTLS_RND_RANDOM, dest, len);
}

static int cb_new_cid(ngtcp2_conn *conn, ngtcp2_cid *cid, uint8_t *token, size_t cidlen,
		      void *user)
{
	if (gnutls_rnd(GNUTLS_RND_RANDOM, cid->data, cidlen) != 0 ||
	    gnutls_rnd(GNUTLS_RND_RANDOM, token, NGTCP2_STATELESS_RESET_TOKENLEN) != 0)
		return NGTCP2_ERR_CALLBACK_FAILURE;
	cid->datalen = cidlen;
	return 0;
}

static int cb_recv_stream(ngtcp2_conn *conn, uint32_t flags, int64_t sid, uint64_t off,
			  const uint8_t *data, size_t len, void *user, void *suser)
{
	struct qconn *c = user;
	atomic_store_explicit(&c->bytes, atomic_load_explicit(&c->bytes, memory_order_relaxed) +
				  len, memory_order_relaxed);
	ngtcp2_conn_extend_max_stream_offset(conn, sid, len);
	ngtcp2_conn_extend_max_offset(conn, len);
	if (flags & NGTCP2_STREAM_DATA_FLAG_FIN)
		c->fin_acked = true; /* receiver: the whole stream is here */
	return 0;
}

static int cb_acked(ngtcp2_conn *conn, int64_t sid, uint64_t off, uint64_t len, void *user,
		    void *suser)
{
	struct qconn *c = user;
	if (off + len > atomic_load_explicit(&c->acked, memory_order_relaxed))
		atomic_store_explicit(&c->acked, off + len, memory_order_relaxed);
	return 0;
}

static int cb_stream_close(ngtcp2_conn *conn, uint32_t flags, int64_t sid, uint64_t app_err,
			   void *user, void *suser)
{
	struct qconn *c = user;
	if (sid == c->sid)
		c->fin_acked = true; /* sender: everything up to the FIN was acknowledged */
	return 0;
}

static int cb_extend_stream(ngtcp2_conn *conn, int64_t sid, uint64_t max, void *user,
			    void *suser)
{
	((struct qconn *)user)->blocked = false;
	return 0;
}

static int cb_verify(gnutls_session_t tls)
{
	ngtcp2_crypto_conn_ref *ref = gnutls_session_get_ptr(tls);
	struct qconn *c = ref->user_data;
	unsigned n = 0;
	const gnutls_datum_t *peer = gnutls_certificate_get_peers(tls, &n);
	if (n >= 1 && quic_cert_matches(peer[0].data, peer[0].size, c->q->side.peer_sha256))
		return 0;
	c->cert_bad = true;
	return GNUTLS_E_CERTIFICATE_ERROR;
}

static const ngtcp2_callbacks q_callbacks = {
	.recv_crypto_data = ngtcp2_crypto_recv_crypto_data_cb,
	.encrypt = ngtcp2_crypto_encrypt_cb,
	.decrypt = ngtcp2_crypto_decrypt_cb,
	.hp_mask = ngtcp2_crypto_hp_mask_cb,
	.recv_stream_data = cb_recv_stream,
	.acked_stream_data_offset = cb_acked,
	.stream_close = cb_stream_close,
	.rand = cb_rand,
	.get_new_connection_id = cb_new_cid,
	.update_key = ngtcp2_crypto_update_key_cb,
	.extend_max_stream_data = cb_extend_stream,
	.delete_crypto_aead_ctx = ngtcp2_crypto_delete_crypto_aead_ctx_cb,
	.delete_crypto_cipher_ctx = ngtcp2_crypto_delete_crypto_cipher_ctx_cb,
	.get_path_challenge_data = ngtcp2_crypto_get_path_challenge_data_cb,
	.version_negotiation = ngtcp2_crypto_version_negotiation_cb,
};

static int tls_init(struct qconn *c, struct ns_err *err)
{
	bool server = c->q->side.server;
	static const gnutls_datum_t alpn = {(unsigned char *)QUIC_ALPN, sizeof(QUIC_ALPN) - 1};
	int rv = gnutls_init(&c->tls, (server ? GNUTLS_SERVER : GNUTLS_CLIENT) |
				      GNUTLS_NO_END_OF_EARLY_DATA);
	if (rv < 0)
		return ns_err_set(err, "QUIC: gnutls_init: %s", gnutls_strerror(rv));
	if ((server ? ngtcp2_crypto_gnutls_configure_server_session(c->tls)
		    : ngtcp2_crypto_gnutls_configure_client_session(c->tls)) != 0)
		return ns_err_set(err, "QUIC: configuring the TLS session failed");
	if ((rv = gnutls_priority_set_direct(c->tls, q_priority, NULL)) < 0)
		return ns_err_set(err, "QUIC: TLS priorities: %s", gnutls_strerror(rv));
	gnutls_session_set_ptr(c->tls, &c->ref);
	if (!server) {
		if ((rv = gnutls_certificate_allocate_credentials(&c->cred)) < 0)
			return ns_err_set(err, "QUIC: credentials: %s", gnutls_strerror(rv));
		gnutls_session_set_verify_function(c->tls, cb_verify);
		gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, "netsweep", 8);
	}
	rv = gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE,
				    server ? c->q->side.cert->cred : c->cred);
	if (rv < 0)
		return ns_err_set(err, "QUIC: credentials: %s", gnutls_strerror(rv));
	gnutls_alpn_set_protocols(c->tls, &alpn, 1, GNUTLS_ALPN_MANDATORY);
	return 0;
}

static void q_settings(struct qconn *c, ngtcp2_settings *s, ngtcp2_transport_params *p)
{
	ngtcp2_settings_default(s);
	s->initial_ts = engine_now_ns();
	s->handshake_timeout = QUIC_HANDSHAKE_NS;
	s->max_window = Q_WINDOW;
	s->max_stream_window = Q_WINDOW;
	ngtcp2_transport_params_default(p);
	p->initial_max_streams_uni = 1;
	p->initial_max_stream_data_uni = 8 << 20;
	p->initial_max_data = 16 << 20;
	p->max_idle_timeout = 30 * NGTCP2_SECONDS;
}

static ngtcp2_path q_path(struct qconn *c)
{
	ngtcp2_path p = {
		.local = {(ngtcp2_sockaddr *)&c->local, c->llen},
		.remote = {(ngtcp2_sockaddr *)&c->remote, c->rlen},
	};
	return p;
}

static int client_new(struct qconn *c, struct ns_err *err)
{
	ngtcp2_cid dcid, scid;
	ngtcp2_settings s;
	ngtcp2_transport_params p;
	dcid.datalen = NGTCP2_MIN_INITIAL_DCIDLEN;
	scid.datalen = 16;
	if (gnutls_rnd(GNUTLS_RND_RANDOM, dcid.data, dcid.datalen) != 0 ||
	    gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen) != 0)
		return ns_err_set(err, "QUIC: no random connection IDs");
	q_settings(c, &s, &p);
	ngtcp2_path path = q_path(c);
	ngtcp2_callbacks cb = q_callbacks;
	cb.client_initial = ngtcp2_crypto_client_initial_cb;
	cb.recv_retry = ngtcp2_crypto_recv_retry_cb;
	int rv = ngtcp2_conn_client_new(&c->conn, &dcid, &scid, &path, NGTCP2_PROTO_VER_V1,
					&cb, &s, &p, NULL, c);
	if (rv != 0)
		return ns_err_set(err, "QUIC: ngtcp2_conn_client_new: %s", ngtcp2_strerror(rv));
	ngtcp2_conn_set_tls_native_handle(c->conn, c->tls);
	return 0;
}

/* The server's connection, from the client's first Initial packet (anything else is
 * dropped: 0 with no connection yet). */
static int server_new(struct qconn *c, const uint8_t *pkt, size_t len)
{
	ngtcp2_pkt_hd hd;
	if (ngtcp2_accept(&hd, pkt, len) != 0)
		return 0;
	ngtcp2_cid scid;
	ngtcp2_settings s;
	ngtcp2_transport_params p;
	scid.datalen = 16;
	q_settings(c, &s, &p);
	p.original_dcid = hd.dcid;
	p.stateless_reset_token_present = 1;
	if (gnutls_rnd(GNUTLS_RND_RANDOM, scid.data, scid.datalen) != 0 ||
	    gnutls_rnd(GNUTLS_RND_RANDOM, p.stateless_reset_token,
		       sizeof(p.stateless_reset_token)) != 0)
		return -1;
	ngtcp2_path path = q_path(c);
	ngtcp2_callbacks cb = q_callbacks;
	cb.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
	if (ngtcp2_conn_server_new(&c->conn, &hd.scid, &scid, &path, hd.version, &cb, &s, &p,
				   NULL, c) != 0)
		return -1;
	ngtcp2_conn_set_tls_native_handle(c->conn, c->tls);
	return 0;
}

static void send_batch(struct qthread *t, struct qconn *c, size_t len, size_t seg, uint32_t n)
{
	struct iovec iov = {t->tx, len};
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t))];
		struct cmsghdr align;
	} u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (n > 1 && atomic_load_explicit(&c->q->gso_on, memory_order_relaxed)) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		m.msg_controllen = sizeof(u.buf);
		struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		uint16_t s16 = (uint16_t)seg;
		memcpy(CMSG_DATA(cm), &s16, sizeof(s16));
		if (sendmsg(c->fd, &m, 0) >= 0) {
			atomic_fetch_add_explicit(&c->packets, n, memory_order_relaxed);
			return;
		}
		if (errno != EIO && errno != EINVAL && errno != ENOPROTOOPT)
			return; /* a full queue or ICMP: QUIC retransmits what is lost */
		atomic_store(&c->q->gso_on, false); /* this kernel or device will not: one by one */
		m.msg_control = NULL;
		m.msg_controllen = 0;
	}
	for (size_t off = 0; off < len; off += seg) {
		iov.iov_base = t->tx + off;
		iov.iov_len = len - off < seg ? len - off : seg;
		if (sendmsg(c->fd, &m, 0) >= 0)
			atomic_fetch_add_explicit(&c->packets, 1, memory_order_relaxed);
	}
}

static void q_close(struct qthread *t, struct qconn *c, int liberr)
{
	if (c->closed)
		return;
	c->closed = true;
	if (c->conn && !ngtcp2_conn_is_in_closing_period(c->conn) &&
	    !ngtcp2_conn_is_in_draining_period(c->conn)) {
		ngtcp2_connection_close_error ce;
		ngtcp2_connection_close_error_default(&ce);
		if (liberr)
			ngtcp2_connection_close_error_set_transport_error_liberr(&ce, liberr, NULL, 0);
		ngtcp2_path_storage ps;
		ngtcp2_path_storage_zero(&ps);
		ngtcp2_pkt_info pi;
		ngtcp2_ssize w = ngtcp2_conn_write_connection_close(c->conn, &ps.path, &pi, t->tx,
								    Q_PKT_MAX, &ce, engine_now_ns());
		if (w > 0)
			send_batch(t, c, (size_t)w, (size_t)w, 1);
	}
	q_publish(c);
	atomic_store_explicit(&c->finished, true, memory_order_release);
}

/* The most stream bytes this round may hand to ngtcp2: the amount left, the pacer, the
 * agent's budget. */
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
		want = budget_take(q->cfg.budget, now, want, want < 1200 ? want : 1200);
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
			send_batch(t, c, len, seg, npkts);
			len = 0;
			npkts = 0;
			if (!q->cfg.rate_bps || (size_t)w < seg)
				break;
		}
	}
	if (npkts)
		send_batch(t, c, len, seg, npkts);
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
			if (!c->conn && (!q->side.server || server_new(c, pkt, len) < 0 || !c->conn))
				continue;
			if (q->cfg.role == ENGINE_RECV)
				atomic_fetch_add_explicit(&c->packets, 1, memory_order_relaxed);
			ngtcp2_path path = q_path(c);
			ngtcp2_pkt_info pi = {0};
			int rv = ngtcp2_conn_read_pkt(c->conn, &path, &pi, pkt, len, now);
			if (rv == 0)
				continue;
			if (rv == NGTCP2_ERR_DRAINING) { /* the peer closed */
				q_close(t, c, 0);
				return false;
			}
			if (rv == NGTCP2_ERR_DISCARD_PKT || rv == NGTCP2_ERR_DROP_CONN)
				continue;
			q_fail(c, c->cert_bad ? EKEYREJECTED : rv == NGTCP2_ERR_CRYPTO ? EPROTO
										  : ECONNABORTED);
			q_close(t, c, rv);
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
			q_close(t, c, 0);
		return;
	}
	if (ngtcp2_conn_get_expiry(c->conn) <= now) {
		int rv = ngtcp2_conn_handle_expiry(c->conn, now);
		if (rv != 0) {
			q_fail(c, rv == NGTCP2_ERR_IDLE_CLOSE || rv == NGTCP2_ERR_HANDSHAKE_TIMEOUT
				  ? ETIMEDOUT : ECONNABORTED);
			q_close(t, c, rv);
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
		q_fail(c, ECONNABORTED);
		q_close(t, c, rv);
		return;
	}
	q_publish(c);
	if ((sender && c->ending && (c->fin_acked || c->sid < 0 || now - c->end_at > QUIC_END_NS)) ||
	    (!sender && stop)) {
		q_close(t, c, 0);
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
		ns_err_set(err, "QUIC engine: %u connections, expected 1..%d, with a %s", nfds,
			   NS_MAX_STREAMS, side && side->server ? "certificate" : "side");
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
		c->ref.get_conn = get_conn;
		c->ref.user_data = c;
		c->left = cfg->send_bytes ? cfg->send_bytes / nfds + (i < cfg->send_bytes % nfds)
					  : UINT64_MAX;
		c->llen = sizeof(c->local);
		c->rlen = sizeof(c->remote);
		if (getsockname(fds[i], (struct sockaddr *)&c->local, &c->llen) < 0 ||
		    getpeername(fds[i], (struct sockaddr *)&c->remote, &c->rlen) < 0) {
			ns_err_sys(err, "QUIC engine: connection %u: its socket is not connected", i);
			goto fail;
		}
		if (tls_init(c, err) < 0 || (!side->server && client_new(c, err) < 0))
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
	.destroy = q_destroy,
};

const struct engine_transport *quic_transport(void)
{
	return &quic_tp;
}
