/* quic_conn: one QUIC connection's ngtcp2 and GnuTLS side — callbacks, TLS sessions,
 * settings, the client's and the server's connection, packets out, the close (see
 * quic_int.h). */
#include "quic_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <gnutls/crypto.h>
#include <ngtcp2/ngtcp2_crypto_gnutls.h>

static const char q_priority[] =
	"NORMAL:-VERS-ALL:+VERS-TLS1.3:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"
	"+CHACHA20-POLY1305:-GROUP-ALL:+GROUP-X25519:+GROUP-SECP256R1:%DISABLE_TLS13_COMPAT_MODE";

void qc_fail(struct qconn *c, int error)
{
	if (error && !atomic_load(&c->error))
		atomic_store(&c->error, error);
}

/* Publishes the connection's figures and ends it for the thread: finished. */
void qc_publish(struct qconn *c)
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

int qc_tls_init(struct qconn *c, struct ns_err *err)
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
	static const uint8_t none[QUIC_SHA256_LEN];
	if (!server && !memcmp(c->q->side.peer_sha256, none, QUIC_SHA256_LEN))
		return ns_err_code(err, NS_E_PROTOCOL, "QUIC: the agent gave no certificate hash");
	c->ref.get_conn = get_conn;
	c->ref.user_data = c;
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

ngtcp2_path qc_path(struct qconn *c)
{
	ngtcp2_path p = {
		.local = {(ngtcp2_sockaddr *)&c->local, c->llen},
		.remote = {(ngtcp2_sockaddr *)&c->remote, c->rlen},
	};
	return p;
}

int qc_client_new(struct qconn *c, struct ns_err *err)
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
	ngtcp2_path path = qc_path(c);
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
int qc_server_new(struct qconn *c, const uint8_t *pkt, size_t len)
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
	ngtcp2_path path = qc_path(c);
	ngtcp2_callbacks cb = q_callbacks;
	cb.recv_client_initial = ngtcp2_crypto_recv_client_initial_cb;
	if (ngtcp2_conn_server_new(&c->conn, &hd.scid, &scid, &path, hd.version, &cb, &s, &p,
				   NULL, c) != 0)
		return -1;
	ngtcp2_conn_set_tls_native_handle(c->conn, c->tls);
	return 0;
}

void qc_send_batch(struct qthread *t, struct qconn *c, size_t len, size_t seg, uint32_t n)
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

void qc_close(struct qthread *t, struct qconn *c, int liberr)
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
			qc_send_batch(t, c, (size_t)w, (size_t)w, 1);
	}
	qc_publish(c);
	atomic_store_explicit(&c->finished, true, memory_order_release);
}

/* The most stream bytes this round may hand to ngtcp2: the amount left, the pacer, the
 * agent's budget. */
