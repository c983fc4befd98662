/* proto: the control protocol between a probe (client) and an agent — framing, message types
 * and the field-by-field encoding of every message. It owns no sockets' lifetime and no test
 * logic: agent.c and client.c drive the exchange; schemas/control-protocol.md is the spec.
 * Every length and count read from the wire is bounded here before anything is allocated. */
#ifndef NS_PROTO_H
#define NS_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/err.h"
#include "runner/engine/engine.h"
#include "codec.h"
#include "fields.h"
#include "probe.h"

#define PROTO_VERSION 24              /* 11: RESULTS say held_by_cap; 12: request/response
					 (rr, rr_request, rr_response, rr_rate);
					 13: RESULTS carry each end's limits (engine_diag,
					 steal); a delegated result its probe_limit;
					 14: NIC rx_bytes, tx_bytes;
					 15: each end's run-queue wait (runq_pct);
					 16: a latency probe beside the load
					 (lat_probe, lat_rate, lat_size, lat_idle_s; its
					 stream after the load's, READY's last UDP port);
					 17: RESULTS say the CPU the agent's first stream
					 last ran on (last_cpu), DELEGATE_LATENCY agent_cpu;
					 18: RESULTS say how the agent's end was scheduled
					 (sched), a delegated result's limit each end's;
					 19: a stream snapshot the sender's acked bytes;
					 20: an agent serves several tests at once and
					 answers one past --max-tests ERROR code 9 (not
					 BUSY); a version refusal names both versions;
					 21: a delegated result's latency histograms and
					 interval series (DELEGATE_LAT_HISTOGRAM,
					 DELEGATE_LAT_INTERVALS), a latency probe's too;
					 22: a direction summary's tx_busy, a delegated
					 result's limit sender_tx_busy;
					 23: TEST_REQUEST's start_at (a group's common
					 start), a delegated result's started_unix;
					 24: STATUS_REQUEST and STATUS, the health check:
					 control only, no test slot, no data; READY's QUIC
					 certificate fingerprint, a stream snapshot's
					 rtt_min_ms;
					 TEST_REQUEST's agent_affinity and rx_copy,
					 a direction summary's cpus, rx_path, rx_mapped,
					 a result's cpu_placement, client_cpus,
					 agent_cpus, rx_path, figures' cpu_s_per_gb */
#define PROTO_MAGIC 0x4e535750u      /* "NSWP" at the start of HELLO */
#define PROTO_HDR_LEN 8               /* u32 payload length, u16 type, u16 flags */
#define PROTO_MAX_PAYLOAD 65536       /* larger frames are a protocol error */
#define PROTO_COOKIE_LEN 16
#define PROTO_CERT_SHA256_LEN 32
#define PROTO_DATA_HELLO_LEN (PROTO_COOKIE_LEN + 4) /* cookie + u32 stream index */
#define PROTO_MAX_DATA_STREAMS (2 * NS_MAX_STREAMS) /* bidir: both directions */
#define PROTO_MAX_UDP_PORTS (PROTO_MAX_DATA_STREAMS + 1) /* and a UDP latency probe's */
#define PROTO_MAX_INTERVALS 100000    /* per-interval series an agent reports, at most */
#define PROTO_MAX_TEXT 1024           /* error text */

enum proto_type {
	PROTO_HELLO = 1,          /* both ways: magic, version, flags */
	PROTO_AUTH_CHALLENGE = 2, /* agent -> client: the agent's nonce (auth.h) */
	PROTO_AUTH_RESPONSE = 3,  /* client -> agent: nonce + proof; agent -> client: proof */
	PROTO_TEST_REQUEST = 4,   /* client -> agent: every probe_params field */
	PROTO_READY = 5,          /* agent -> client: data port, cookie, UDP ports */
	PROTO_START = 6,          /* client -> agent: data streams connected; agent -> client: go */
	PROTO_STOP = 7,           /* client -> agent: the test time is over (or abort) */
	PROTO_RESULTS = 8,        /* agent -> client: summary of the agent's end */
	PROTO_RESULT_STREAMS = 9, /* agent -> client: a chunk of per-stream counters */
	PROTO_RESULT_INTERVALS = 10, /* agent -> client: a chunk of the agent's interval series */
	PROTO_DONE = 11,          /* agent -> client: results complete */
	PROTO_HOSTINFO_REQUEST = 12,
	PROTO_HOSTINFO = 13,      /* agent -> client: JSON text */
	PROTO_BUSY = 14,          /* agent -> client: a test is running, try later (sent by
				     agents of version 19 and older; read as ERROR code 9) */
	PROTO_ERROR = 15,         /* either way: u16 code + text */
	PROTO_DELEGATE_REQUEST = 16, /* runner -> client agent: run this test against a target */
	PROTO_DELEGATE_RESULT = 17,  /* client agent -> runner: the result's sums (result_wire.h) */
	PROTO_DELEGATE_STREAMS = 18, /* client agent -> runner: a chunk of its per-stream figures */
	PROTO_DELEGATE_INTERVALS = 19, /* client agent -> runner: a chunk of its interval series */
	PROTO_DELEGATE_LATENCY = 20, /* client agent -> runner: its latency objects (version 16) */
	PROTO_DELEGATE_LAT_HISTOGRAM = 21, /* client agent -> runner: one latency histogram (21) */
	PROTO_DELEGATE_LAT_INTERVALS = 22, /* ... a chunk of a latency series (version 21) */
	PROTO_STATUS_REQUEST = 23, /* client -> agent: how are you (no payload; version 24) */
	PROTO_STATUS = 24,         /* agent -> client: struct proto_status (version 24) */
	PROTO_TYPE_MAX = 24
};

/* HELLO flag from the agent: AUTH_CHALLENGE follows, the key must be proven. */
#define PROTO_HELLO_AUTH 0x1u
/* HELLO flags from a client. A delegated run's own connection to its target says so, and an
 * agent refuses a DELEGATE_REQUEST on such a connection: delegation never chains. */
#define PROTO_HELLO_DELEGATED 0x2u
/* Per-stream interval records one end keeps on top of its PROTO_MAX_INTERVALS sums (a
 * delegated result carries them all). */
#define PROTO_MAX_STREAM_RECORDS 200000u
#define PROTO_MAX_PEER 255            /* HOSTINFO_REQUEST peer address */

enum proto_errcode {
	PROTO_E_VERSION = 1,      /* unsupported protocol version */
	PROTO_E_BAD_REQUEST = 2,  /* a value out of range, a malformed message */
	PROTO_E_UNEXPECTED = 3,   /* a message not valid in this state */
	PROTO_E_TIMEOUT = 4,
	PROTO_E_INTERNAL = 5,     /* the agent could not set up (sockets, threads) */
	PROTO_E_AUTH = 6,         /* authentication failed */
	PROTO_E_ABORT = 7,        /* the test was aborted */
	PROTO_E_REFUSED = 8,      /* delegation refused (--no-delegate, or a chained request) */
	PROTO_E_FULL = 9,         /* the agent runs as many tests as --max-tests allows; the
				     text names the bound: try again later (version 20); or
				     (version 24) the client's address or network holds its
				     whole share of the connections in their handshake */
	PROTO_E_ADDRESS = 10      /* refused for its address: not in --allow, or a keyless
				     agent reached from outside loopback (version 24) */
};

const char *proto_type_name(uint16_t type);

/* STATUS: the agent's answer to a health check, read from its counters without touching a
 * test (schemas/control-protocol.md). */
struct proto_status {
	uint32_t tests;          /* tests and delegated runs running now */
	uint32_t max_tests;      /* --max-tests */
	uint64_t max_rate_bps;   /* --max-rate (0: none) */
	uint32_t sessions;       /* session threads, tests and host-info questions */
	uint8_t delegate;        /* 1: --delegate */
	double uptime_s;         /* since the agent started listening */
};
void proto_enc_status(struct proto_buf *b, const struct proto_status *s);
int proto_dec_status(const uint8_t *p, size_t len, struct proto_status *s, struct ns_err *err);

/* Replaces every byte outside printable ASCII with '?': text from the network ends up in logs
 * and on terminals, where a newline forges a log line and an escape drives the terminal. */
void proto_printable(char *s);
/* Frame header: checks the length bound and the type; flags are reserved (sent as 0). */
void proto_header_pack(uint8_t hdr[PROTO_HDR_LEN], uint16_t type, uint32_t len);
int proto_header_parse(const uint8_t hdr[PROTO_HDR_LEN], uint16_t *type, uint32_t *len,
		       struct ns_err *err);

/* "HOST:PORT" ("[v6]:PORT") of fd's far end, or of its own end when local: messages name
 * whom they waited for. "the peer" when the socket has no address. */
#define PROTO_ADDR_NAME_LEN 64  /* "[" INET6_ADDRSTRLEN "]:65535" */
void proto_addr_name(int fd, bool local, char *buf, size_t len);
/* The same for an address; with_port false: the host alone. */
void proto_sa_name(const struct sockaddr *sa, socklen_t sl, bool with_port, char *buf,
		   size_t len);
/* What a wait for data streams still lacks: "data connection 3 of 4 (and 1 more)", first being
 * the 0-based index of the first one missing. */
void proto_missing_name(char *buf, size_t len, const char *what, uint32_t first,
			uint32_t total, uint32_t missing);

/* Monotonic seconds, for deadlines. */
double proto_now(void);

/* Sends one frame, waiting at most until deadline (proto_now() scale). A timeout (NS_E_TIMEOUT)
 * says "timed out waiting for HOST:PORT to read TYPE". */
int proto_send(int fd, uint16_t type, const void *payload, size_t len, double deadline,
	       struct ns_err *err);
int proto_send_buf(int fd, uint16_t type, const struct proto_buf *b, double deadline,
		   struct ns_err *err);
/* Receives one frame into buf (PROTO_MAX_PAYLOAD bytes). Returns 0, or -1 on EOF, timeout,
 * a bad header, or cancel_fd (if >= 0) becoming readable. *eof tells a clean close apart. A
 * timeout says "timed out waiting for a message from HOST:PORT" (or "the rest of a TYPE
 * message"); callers that know what they awaited say so instead. */
int proto_recv(int fd, uint16_t *type, uint8_t *buf, uint32_t *len, double deadline,
	       int cancel_fd, bool *eof, struct ns_err *err);

/* Message bodies. */
struct proto_hello {
	uint16_t version;
	uint16_t flags;          /* PROTO_HELLO_AUTH (agent), PROTO_HELLO_DELEGATED (client) */
};
void proto_enc_hello(struct proto_buf *b, const struct proto_hello *h);
int proto_dec_hello(const uint8_t *p, size_t len, struct proto_hello *h, struct ns_err *err);

void proto_enc_error(struct proto_buf *b, uint16_t code, const char *text);
int proto_dec_error(const uint8_t *p, size_t len, uint16_t *code, char *text, size_t cap,
		    struct ns_err *err);
/* Sends an ERROR frame (best effort, short deadline). */
void proto_send_error(int fd, uint16_t code, const char *text);

/* Every probe_params field (fields.h); decoding bounds strings but leaves range checks to
 * probe_params_check. */
void proto_enc_params(struct proto_buf *b, const struct probe_params *p);
int proto_dec_params(const uint8_t *p, size_t len, struct probe_params *out, struct ns_err *err);

struct proto_ready {
	uint16_t data_port;      /* TCP data listener (0 for UDP) */
	uint8_t cookie[PROTO_COOKIE_LEN];
	uint32_t n_udp;          /* UDP: one agent port per data stream */
	uint16_t udp_ports[PROTO_MAX_UDP_PORTS];
	/* QUIC (version 24): SHA-256 of the certificate the agent's QUIC server presents, made
	 * for this test; the client refuses any other */
	bool has_cert;
	uint8_t cert_sha256[PROTO_CERT_SHA256_LEN];
};
void proto_enc_ready(struct proto_buf *b, const struct proto_ready *r);
int proto_dec_ready(const uint8_t *p, size_t len, struct proto_ready *r, struct ns_err *err);

/* The agent's end of the test, one entry per direction the agent took part in. */
struct proto_results {
	uint32_t n_dirs;
	struct proto_dir_summary {
		uint8_t dir;         /* NS_DIR_FORWARD (agent received) / NS_DIR_REVERSE (agent sent) */
		uint8_t role;        /* ENGINE_SEND / ENGINE_RECV */
		uint32_t n_streams;
		uint32_t n_intervals;
		double duration_s;   /* measured time after omit, agent's clock */
		double cpu_percent;
		uint64_t kernel_drops; /* receiver: UDP RcvbufErrors + InErrors delta */
		uint8_t gso_active;
		char mode[32];       /* engine_mode() of the agent's end */
		/* sender, -Z: MSG_ZEROCOPY used, sends made with it, completions, copied ones */
		uint8_t zc_active;
		uint64_t zc_sends, zc_completions, zc_copied;
		struct probe_nic nic;  /* the agent's interface over the test (the same in both) */
		uint8_t held_by_cap;   /* sender: the agent's --max-rate bucket (shared by all its
		                          tests) held the sending below the asked rate */
		/* what held the agent's end back (engine_diag) and its host's CPU steal */
		double busiest_cpu_pct, blocked_pct, pace_lost_pct, steal_pct;
		double runq_pct;       /* the longest an engine thread of its end waited for a CPU */
		int32_t last_cpu;      /* the CPU its first stream's thread last ran on, -1 unknown
		                          (a request/response answerer's, beside client_cpu) */
		uint8_t sched;         /* enum engine_sched of its end (engine_diag) */
		uint64_t tx_busy;      /* sender, AF_XDP: its device-busy back-offs (engine_diag) */
		char cpus[80];         /* engine_thread_cpus of its end ("" unpinned) */
		char rx_path[16];      /* receiver: engine_rx_path ("" sender, UDP) */
		uint64_t rx_mapped;    /* ... bytes TCP receive zero-copy mapped */
	} dirs[2];
};
void proto_enc_results(struct proto_buf *b, const struct proto_results *r);
int proto_dec_results(const uint8_t *p, size_t len, struct proto_results *r, struct ns_err *err);

/* Per-stream counters: two snapshots (end of omit, end of test) so the client does all the
 * arithmetic in one place. A chunk holds streams [first, first + count). */
#define PROTO_SNAP_WIRE_LEN (0 ENGINE_SNAP_FIELDS(FIELD_WIRE_SIZE)) /* 117 bytes */
#define PROTO_STREAMS_PER_CHUNK ((PROTO_MAX_PAYLOAD - 16) / (2 * PROTO_SNAP_WIRE_LEN + 4))
struct proto_stream_rec {
	int32_t cpu;
	struct engine_stream_snap omit, end;
};
void proto_enc_streams(struct proto_buf *b, uint8_t dir, uint32_t first,
		       const struct proto_stream_rec *recs, uint32_t count);
/* Decodes into recs[] (cap entries, index = first + i); returns dir, first, count. */
int proto_dec_streams(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
		      uint32_t *count, struct proto_stream_rec *recs, uint32_t cap,
		      struct ns_err *err);

/* The agent's interval series: sums over streams only. */
#define PROTO_IVL_WIRE_LEN (0 PROBE_INTERVAL_FIELDS(FIELD_WIRE_SIZE)) /* 81 bytes */
#define PROTO_IVLS_PER_CHUNK ((PROTO_MAX_PAYLOAD - 16) / PROTO_IVL_WIRE_LEN)
void proto_enc_intervals(struct proto_buf *b, uint8_t dir, uint32_t first,
			 const struct probe_interval *ivl, uint32_t count);
int proto_dec_intervals(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
			uint32_t *count, struct probe_interval *ivl, uint32_t cap,
			struct ns_err *err);
/* The same chunk sent during a long-run test (params.until): its count intervals go to
 * ivl[0..count), count <= cap; first (their place in the series) < PROTO_MAX_INTERVALS. */
int proto_dec_live_intervals(const uint8_t *p, size_t len, uint8_t *dir, uint32_t *first,
			     uint32_t *count, struct probe_interval *ivl, uint32_t cap,
			     struct ns_err *err);

/* DELEGATE_REQUEST: the TEST_REQUEST encoding, with host and port naming the target agent.
 * Decoding also refuses what a remote peer must not choose on the agent's host (a psk_file
 * path, no target). */
void proto_enc_delegate(struct proto_buf *b, const struct probe_params *p);
int proto_dec_delegate(const uint8_t *p, size_t len, struct probe_params *out,
		       struct ns_err *err);

/* HOSTINFO_REQUEST: empty, or a str peer address (<= 255 bytes of [A-Za-z0-9.:_%-]) whose
 * route picks the interface described. peer may be NULL or "" (empty payload). */
void proto_enc_hostinfo_request(struct proto_buf *b, const char *peer);
int proto_dec_hostinfo_request(const uint8_t *p, size_t len, char *peer, size_t cap,
			       struct ns_err *err);

#endif
