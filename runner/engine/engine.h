/* engine: the data plane. Worker threads push bytes through already-connected data sockets
 * (sender role) or drain them (receiver role). Each thread owns the counters of its streams and
 * is the only writer of them; the controller reads them at any time with engine_snapshot().
 * The engine knows nothing of agents or the control protocol: it is handed sockets. */
#ifndef NS_ENGINE_H
#define NS_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/err.h"
#include "lib/lathist.h"
#include "runner/engine/limits.h"

struct budget;
struct engine_transport;

/* Every UDP datagram starts with this header, serialised big-endian field by field:
 *   u64 sequence number (per stream, from 0)
 *   u64 send time of this datagram in nanoseconds since the sender engine's start
 *       (CLOCK_MONOTONIC): the batch's start plus the datagram's offset in it. The receiver
 *       takes arrival times on one clock relative to its own start; jitter (RFC 3550) uses
 *       only differences of transit times, so the two hosts' clocks need not agree.
 * Hence the UDP minimum payload NS_UDP_MIN_LEN = 16 bytes. */
#define ENGINE_UDP_HDR_LEN 16
#define ENGINE_NOT_DATA_MAX 16

enum engine_role { ENGINE_SEND = 0, ENGINE_RECV = 1 };

/* How datagrams move: kernel sockets, or AF_XDP (UDP over IPv4 only: the sender writes whole
 * frames into an AF_XDP socket's UMEM; the receiver accounts the test's flow in an XDP
 * program, as udpseq does, and drops it there, or, ENGINE_XDP_RX, has the program hand the
 * flow to AF_XDP sockets and accounts it with udpseq in user space). Every XDP setup,
 * privileges and device checks included, happens in engine_create(): a failure there with
 * code NS_E_UNSUPPORTED leaves the sockets usable with ENGINE_SOCKET. engine_xdp_available()
 * says whether this build has AF_XDP at all. */
enum engine_kind { ENGINE_SOCKET = 0, ENGINE_XDP = 1, ENGINE_XDP_RX = 2 };

/* Request/response (engine_rr.c): the sender role is the requester, which writes a request of
 * rr_request bytes, waits for the rr_response bytes of the answer and records the time between
 * on CLOCK_MONOTONIC in the stream's latency histogram (engine_latency); the receiver role
 * answers each request. One transaction in flight per stream, as netperf's TCP_RR. UDP: one
 * datagram each way, the response carrying the request's first ENGINE_RR_SEQ_LEN bytes (a
 * sequence number) back, so that a late answer is never taken for the current one; a request
 * unanswered for ENGINE_RR_LOST_NS counts as lost and the next one goes out. */
enum engine_rr { ENGINE_RR_NONE = 0, ENGINE_RR = 1, ENGINE_CRR = 2 };
/* How a TCP receiver takes the bytes off its sockets: read() into a buffer (the default),
 * recv(MSG_TRUNC), which the kernel drops without copying them to user space (iperf3's
 * --skip-rx-copy), or TCP receive zero-copy (getsockopt TCP_ZEROCOPY_RECEIVE on a mapping
 * of the socket, as the kernel selftests' tcp_mmap): the pages of page-aligned segments are
 * mapped, the rest (recv_skip_hint) copied. A socket that refuses the mapping copies, and
 * engine_rx_path() says "mmap_fallback". UDP and the AF_XDP engines ignore it. */
enum engine_rx { ENGINE_RX_COPY = 0, ENGINE_RX_SKIP = 1, ENGINE_RX_MMAP = 2 };
/* TCP_CRR (ENGINE_CRR): each transaction on a connection of its own — connect, the greeting
 * (the test's ENGINE_RR_COOKIE_LEN-byte cookie and the u32 stream index, big-endian) with the
 * request in one write, the response, close — timed from connect to the last byte. The
 * answerer accepts them on crr_listen_fd beside its streams, from crr_addr's IP only. */
#define ENGINE_RR_COOKIE_LEN 16
#define ENGINE_RR_GREETING_LEN (ENGINE_RR_COOKIE_LEN + 4)
#define ENGINE_RR_SEQ_LEN 8
#define ENGINE_RR_LOST_NS 200000000ull /* far above any round trip a region has, yet a lost
					  datagram costs a test little */
#define ENGINE_RR_MAX_LEN (1024 * 1024)

struct engine_cfg {
	enum ns_proto proto;
	enum engine_kind kind;
	enum engine_role role;
	uint32_t length;        /* bytes per write / UDP payload */
	uint64_t rate_bps;      /* application pacing of the total over all streams, 0 = unlimited */
	uint64_t fq_rate_bps;   /* SO_MAX_PACING_RATE per socket, 0 = none */
	struct budget *budget;  /* sender: a token bucket every send draws from first, shared
	                           with other engines (an agent's --max-rate); NULL = none */
	bool gso;               /* UDP_SEGMENT on send; engine_gso_active() tells if it took */
	bool zerocopy;          /* MSG_ZEROCOPY on send (TCP; UDP, with UDP_SEGMENT when gso);
	                           engine_zerocopy() tells if it took */
	uint64_t send_bytes;    /* sender: stop after this many bytes over all streams (split
	                           evenly; a UDP stream rounds up to whole datagrams); 0 = no limit */
	uint32_t threads;       /* worker threads, 1..NS_MAX_THREADS, streams spread round-robin */
	const int *cpus;        /* pin thread i to cpus[i % n_cpus]; NULL/0 = no pinning */
	uint32_t n_cpus;
	double send_duration_s; /* sender: stop by itself after this long (omit + duration); 0 = until
	                           engine_stop(). Receiver: ignored, it runs until EOF on every
	                           stream (TCP) or engine_stop(). */
	/* UDP receiver: datagrams that start with these bytes are not data (a late echo of the
	 * control protocol's greeting when the datagram length equals the greeting's); 0 = none.
	 * Datagrams of any length but `length` are never data either. */
	uint8_t not_data[ENGINE_NOT_DATA_MAX];
	uint32_t not_data_len;
	/* request/response (see enum engine_rr): sizes, and the requesters' total transaction
	 * rate (0 = back to back) */
	enum engine_rr rr;
	uint32_t rr_request, rr_response;
	double rr_rate;
	/* TCP_CRR: requester: the answerer's address; answerer: the client's (IP checked) and the
	 * listener (not owned); both: the cookie */
	struct sockaddr_storage crr_addr;
	socklen_t crr_addr_len;
	int crr_listen_fd;
	uint8_t crr_cookie[ENGINE_RR_COOKIE_LEN];
	/* NS_PROTO_QUIC: the transport that runs the whole engine (runner/quic registers none
	 * here: the caller hands its table, so the engine depends on nothing above it) and its
	 * argument (runner/quic/quic.h: struct quic_side) */
	const struct engine_transport *transport;
	const void *transport_arg;
	enum engine_rx rx;      /* TCP receiver: copy, skip the copy, or map (enum engine_rx) */
};

/* Cumulative counters of one stream since engine_start(). */
struct engine_stream_snap {
	uint64_t bytes;
	uint64_t packets;       /* sender: datagrams (UDP, as built, even when sent as one GSO
	                           super-datagram) or write calls (TCP); receiver: datagrams
	                           received (unique, UDP) or read calls (TCP) */
	/* UDP receiver accounting (see udpseq.h) */
	uint64_t lost;          /* sequence numbers never seen, up to the highest seen */
	uint64_t out_of_order;
	uint64_t duplicates;
	uint64_t highest_seq_plus1; /* highest sequence seen + 1 (0 = nothing yet) */
	double jitter_ms;       /* RFC 3550 running estimate */
	uint64_t sock_drops;    /* datagrams this stream's socket dropped (SO_RXQ_OVFL, as of the
	                           last datagram received): loss in our own receive buffer */
	/* TCP, read with TCP_INFO at snapshot time (sender side meaningful) */
	uint64_t retransmits;   /* tcpi_total_retrans */
	uint64_t cwnd_bytes;    /* tcpi_snd_cwnd * tcpi_snd_mss */
	double rtt_ms;          /* tcpi_rtt */
	double rtt_min_ms;      /* tcpi_min_rtt (QUIC: ngtcp2's min_rtt); 0 = unknown */
	uint64_t segs;          /* tcpi_segs_out (sender) / tcpi_segs_in (receiver) */
	uint64_t acked;         /* sender: tcpi_bytes_acked, the bytes the peer has received
	                           (0 = the kernel does not say) */
	bool finished;          /* the stream's socket hit EOF or an error */
	int error;              /* errno of a hard error on this stream, 0 = none */
};

struct engine;

/* Takes ownership of fds (closed by engine_destroy). nfds = streams, 1..NS_MAX_STREAMS.
 * On failure (NULL) the fds are still the caller's. */
struct engine *engine_create(const struct engine_cfg *cfg, const int *fds, uint32_t nfds,
			     struct ns_err *err);
int engine_start(struct engine *e, struct ns_err *err);
/* Asks every thread to stop (async-signal-safe: only stores an atomic flag). */
void engine_stop(struct engine *e);
/* True once every worker thread has returned. */
bool engine_done(const struct engine *e);
/* Once done: when the last thread returned, in seconds of CLOCK_MONOTONIC (0 before). A
 * sender that stops by itself ends its measured time there, however late it is seen. */
double engine_end_s(const struct engine *e);
/* Waits for the threads (call engine_stop first unless they stop by themselves). */
void engine_join(struct engine *e);
/* Fills snaps[0..nfds-1]; safe to call from another thread while the engine runs. */
void engine_snapshot(struct engine *e, struct engine_stream_snap *snaps);
uint32_t engine_nstreams(const struct engine *e);
/* CPU time (user + system) of the engine's own threads so far, summed; the final figure once
 * they have returned. Another engine or program in the process does not count. */
uint64_t engine_cpu_ns(const struct engine *e);
bool engine_gso_active(const struct engine *e);
/* Sender with cfg.budget: how many times its share of the cap (budget.h) was short of what its
 * pacer allowed; 0 without a budget. */
uint64_t engine_budget_held(const struct engine *e);
/* -Z: whether MSG_ZEROCOPY was in use on every stream, the sends made with it, the completions
 * the kernel reported for them and how many of those it copied after all, and why the first
 * stream that fell back to copying did (an errno: SO_ZEROCOPY refused, ENOBUFS when the
 * kernel would not pin the pages; 0 = none fell back). Read after engine_join (the senders
 * reap the last completions as they end). */
struct engine_zc {
	bool active;
	uint64_t sends, completions, copied;
	int fallback_errno;
};
void engine_zerocopy(const struct engine *e, struct engine_zc *out);
/* Request/response: every stream's latency histogram merged into out (which it initialises),
 * safe while the engine runs; out stays empty for an engine that is not a requester. */
void engine_latency(const struct engine *e, struct lathist *out);
/* Request/response: the CPU stream's thread last ran on (pinned or not), -1 = unknown. The
 * round trip depends on it: both ends on one CPU skip the cross-CPU wake-up. */
int engine_stream_last_cpu(const struct engine *e, uint32_t stream);
/* What held a finished engine back, over its threads' lives (omit included), read after
 * engine_join: the busiest thread's CPU (a thread near 100 % of a core is the limit, more
 * threads would help), the longest any thread waited on a run queue; a sender's share of time spent waiting on full socket buffers (TCP: the
 * window; UDP: the device queue) and, paced, the share of sending time its pacers dropped
 * because the thread woke too late to use it (pace.h). */
struct engine_diag {
	double busiest_cpu_pct;    /* % of one CPU */
	double blocked_pct;        /* sender: mean over threads, % of their time */
	double pace_lost_pct;      /* sender, paced: mean over streams, % of the time */
	double runq_pct;           /* the most any thread waited for a CPU it wanted, % of its
	                              time: a busy host starving the tool (0 = unknown) */
	uint8_t sched;             /* enum engine_sched, over the threads: dropped, else not
	                              permitted, else real-time, else normal */
	uint64_t tx_busy;          /* sender, AF_XDP: transmits the device refused busy (EBUSY:
	                              a veth peer's ring full), each followed by a back-off */
};
void engine_diag(const struct engine *e, struct engine_diag *out);

/* A transport engine.c hands every public call to (cfg.transport): an engine of its own
 * behind the same contract, e.g. QUIC over the UDP sockets. impl is what create returned. */
struct engine_transport {
	const char *name;
	void *(*create)(const struct engine_cfg *cfg, const int *fds, uint32_t nfds,
			struct ns_err *err); /* NULL on failure: the fds are still the caller's */
	int (*start)(void *impl, struct ns_err *err);
	void (*stop)(void *impl);
	bool (*done)(const void *impl);
	double (*end_s)(const void *impl);
	void (*join)(void *impl);
	void (*snapshot)(void *impl, struct engine_stream_snap *snaps);
	uint64_t (*cpu_ns)(const void *impl);
	void (*diag)(const void *impl, struct engine_diag *out);
	int (*stream_cpu)(const void *impl, uint32_t stream);
	bool (*gso_active)(const void *impl);
	const char *(*mode)(const void *impl);
	uint64_t (*budget_held)(const void *impl); /* times --max-rate's share held it back */
	void (*destroy)(void *impl);
};

/* What a transport's own threads share with the engine's: CLOCK_MONOTONIC in ns, a thread
 * pinned to cpu (-1 = not pinned; 0 or pthread_create's error), and a running thread's CPU
 * time through its clock id (0 when it cannot be read). */
uint64_t engine_now_ns(void);
int engine_thread_spawn(pthread_t *tid, int cpu, void *(*fn)(void *), void *arg);
uint64_t engine_thread_cpu_ns(pthread_t tid);

/* Real-time scheduling. A paced sender and the receiver of a paced test run SCHED_FIFO at
 * the lowest priority where the process may (root, CAP_SYS_NICE or RLIMIT_RTPRIO): their
 * work falls due at set times, and on a busy host an ordinary thread woke several ms late,
 * which the pacer cannot make up without a burst (beside stress-ng --cpu 4 on 2 cores,
 * -b 50M -l 64 offered 41.5 Mbit/s; real-time, 50.0). Such a thread sleeps most of the time,
 * so it costs the host little; one that would not (its rate more than a core can do) leaves
 * real time after ENGINE_RT_WINDOW_NS at ENGINE_RT_MAX_SHARE of its core, and the result says
 * so. Unpaced threads and request/response stay ordinary. */
enum engine_sched {
	ENGINE_SCHED_NORMAL = 0,      /* not asked (unpaced, or real time off) */
	ENGINE_SCHED_NOT_PERMITTED,   /* asked; the kernel refused (EPERM) */
	ENGINE_SCHED_REALTIME,        /* every thread that asked kept it */
	ENGINE_SCHED_REALTIME_DROPPED /* a thread used its core and went back to normal */
};
#define ENGINE_RT_PRIO 1
#define ENGINE_RT_WINDOW_NS 100000000ull
#define ENGINE_RT_MAX_SHARE 0.9
/* Process-wide, before engines start: whether paced threads ask for real time (default: yes,
 * unless the environment has NETSWEEP_REALTIME=0). */
void engine_set_realtime(bool on);
/* "normal", "not_permitted", "realtime", "realtime_dropped" ("" out of range). */
const char *engine_sched_name(unsigned sched);
/* CPU each stream's thread is pinned to, -1 if none. */
int engine_stream_cpu(const struct engine *e, uint32_t stream);
/* True when both ends of connected socket fd have the same address: the traffic stays on
 * this host (loopback). */
bool engine_sock_is_local(int fd);
/* The CPU every worker thread is pinned to, in thread order and comma-separated ("0,0,1"),
 * "" when none is pinned (the scheduler places them). */
void engine_thread_cpus(const struct engine *e, char *buf, size_t len);
/* A TCP receiver's path, read after engine_join: "copy", "skip", "mmap" or "mmap_fallback"
 * (asked, refused by a socket: copied; *why the errno); "" for a sender or UDP. mapped: the
 * bytes TCP_ZEROCOPY_RECEIVE mapped rather than copied. */
const char *engine_rx_path(const struct engine *e, uint64_t *mapped, int *why);
void engine_destroy(struct engine *e);
/* What ran, e.g. "socket", "xdp tx copy", "xdp rx copy native", "xdp rx count-only native". */
const char *engine_mode(const struct engine *e);
/* Whether AF_XDP was built in; if not, why not (one line) in why. */
bool engine_xdp_available(char *why, size_t n);

#endif
