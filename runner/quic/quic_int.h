/* quic_int: what the files of runner/quic share (runner/quic only): the certificate
 * (quic_cert.c), a connection's ngtcp2 and GnuTLS side (quic_conn.c) and the engine that runs
 * the connections' threads (quic_engine.c), which calls quic_conn.c, never the reverse. */
#ifndef NS_QUIC_INT_H
#define NS_QUIC_INT_H

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <ngtcp2/ngtcp2.h>
#include <ngtcp2/ngtcp2_crypto.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "quic.h"
#include "runner/engine/budget.h"
#include "runner/engine/pace.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif

#define Q_POLL_NS 50000000ull   /* longest sleep before the stop flag is looked at */
#define Q_RX_BATCH 32           /* datagrams per recvmmsg */
#define Q_RX_LEN 65536
#define Q_RX_ROUNDS 1           /* recvmmsg calls before the ACKs go out: a late ACK inflates
				   the RTT, and ngtcp2 0.12's CUBIC caps cwnd near 2.89 x the
				   delivery rate x min RTT */
#define Q_MAX_GSO 16            /* packets per GSO send: a longer burst is acknowledged later,
				   which the CUBIC cap above turns into a smaller cwnd */
#define Q_PKT_MAX 1500          /* largest packet ngtcp2 is asked to build */
#define Q_CHUNK (256 * 1024)    /* the sender's bytes, offered to ngtcp2 per call */
#define Q_WINDOW (64ull << 20)  /* the receiver's flow-control windows grow up to this */
#define Q_CREDIT_NS 2000000ull  /* most pacing time a late wake-up makes up for */

struct quic_cert {
	gnutls_x509_privkey_t key;
	gnutls_x509_crt_t crt;
	gnutls_certificate_credentials_t cred; /* the server's: its certificate and key */
	uint8_t sha256[QUIC_SHA256_LEN];
};

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
	struct budget_share share; /* its part of the agent's --max-rate (a sender with a budget) */
	uint64_t t0_ns, deadline_ns;
	char mode[32];
};

/* quic_conn.c: a connection's first error (an errno) and its figures published for
 * quic_snapshot; its TLS session (client: the server's certificate checked by its hash);
 * the client's connection, or the server's from the client's first Initial packet (0 with
 * no connection for anything else); its path; a batch of packets out (UDP GSO when n > 1
 * and the kernel takes it, else one by one); the connection closed (CONNECTION_CLOSE sent
 * unless the peer closed it) and finished. */
void qc_fail(struct qconn *c, int error);
void qc_publish(struct qconn *c);
int qc_tls_init(struct qconn *c, struct ns_err *err);
int qc_client_new(struct qconn *c, struct ns_err *err);
int qc_server_new(struct qconn *c, const uint8_t *pkt, size_t len);
ngtcp2_path qc_path(struct qconn *c);
void qc_send_batch(struct qthread *t, struct qconn *c, size_t len, size_t seg, uint32_t n);
void qc_close(struct qthread *t, struct qconn *c, int liberr);

#endif
