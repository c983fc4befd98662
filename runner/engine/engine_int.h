/* engine_int: what engine.c (threads, pacing, snapshots) shares with the protocol send/recv
 * functions in engine_tcp.c and engine_udp.c. Not part of the public contract (engine.h). */
#ifndef NS_ENGINE_INT_H
#define NS_ENGINE_INT_H

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "engine.h"
#include "budget.h"
#include "pace.h"
#include "runner/engine/base/udpseq.h"
#include "runner/engine/base/zerocopy.h"

#define E_POLL_NS 50000000ull  /* longest a thread sleeps before it looks at the stop flag */
#define E_FLUSH_NS 200000000ull /* most a paced sender spends on what it owes at the deadline */
#define E_PACED_WRITE_S 0.01   /* a paced TCP write: 10 ms of the stream's rate (paced_write) */
#define E_PACED_MIN_WRITE 1448 /* ... at least one full segment of a 1500-byte MTU */

struct e_thread;

/* One stream. The owning thread is the only writer of every field; the published counters
 * are atomics so that engine_snapshot() reads them from another thread without locks. */
struct e_stream {
	int fd;
	int wait_fd;           /* what a blocked stream polls: fd, or the AF_XDP socket */
	void *priv;            /* the ops' per-stream state (AF_XDP: the frame header) */
	uint32_t id;
	struct e_thread *t;
	/* private to the owning thread */
	bool active;
	bool gro;              /* receiver: UDP_GRO is on, split by the gso_size cmsg */
	bool rx_stamp;         /* receiver: SO_TIMESTAMPNS is on */
	bool gso_off;          /* UDP_SEGMENT failed at send time: plain sendmmsg from now on */
	bool zc;               /* sender: SO_ZEROCOPY is on, sends carry MSG_ZEROCOPY */
	uint64_t left;         /* sender: bytes still to send (cfg.send_bytes), UINT64_MAX = no
	                          limit */
	struct pace pace;
	uint64_t next_seq;     /* UDP sender */
	uint32_t tcp_off;      /* TCP sender: bytes of the current write already sent */
	uint64_t allow;        /* TCP sender: most bytes the next send call may write (pacer and
	                          budget) */
	uint64_t unit_ns;      /* UDP sender: time the last send call took per datagram, the
	                          offset between the send times of a batch's datagrams */
	struct udpseq *seq;    /* UDP receiver */
	/* published */
	_Atomic uint64_t bytes, packets;
	_Atomic uint64_t lost, out_of_order, duplicates, highest_plus1;
	_Atomic uint64_t jitter_bits;   /* double, as bits */
	_Atomic uint64_t sock_drops;    /* UDP receiver: SO_RXQ_OVFL, the socket's own drops */
	_Atomic bool finished;
	_Atomic int error;
	/* request/response (engine_rr.c): where the current transaction is, when it started, the
	 * next paced start, the UDP sequence; the histogram is published like the counters */
	uint8_t rr_phase;
	bool rr_block;         /* the only stream of its thread: blocking calls with timeouts */
	uint32_t rr_off;
	uint64_t rr_t0, rr_next, rr_seq;
	int rr_fd;             /* TCP_CRR requester: the transaction's connection, -1 none */
	struct lathist *hist;
	/* MSG_ZEROCOPY: sends made with it, completions reaped, of which copied (read after join) */
	uint64_t zc_sends, zc_done, zc_copied;
} __attribute__((aligned(64)));

struct e_thread {
	struct engine *e;
	pthread_t tid;
	bool created;
	uint32_t idx;
	int cpu;
	struct e_stream **streams;
	uint32_t n;
	struct pollfd *pfds;
	/* buffers, allocated once in engine_start() by the ops' thread_init */
	unsigned char *buf;
	size_t buf_len;
	struct mmsghdr *msgs;
	struct iovec *iovs;
	unsigned char *ctrl;
	uint32_t batch;        /* units per send call (UDP datagrams; 1 write for TCP);
	                          UDP receiver: messages per recvmmsg */
	uint32_t pace_unit;    /* sender: bytes of one pacer unit (a paced TCP write is smaller
	                          than the configured length, see paced_write()) */
	uint32_t gso_segs;     /* datagrams per GSO super-datagram */
	uint32_t gso_msgs;     /* super-datagrams per sendmmsg */
	/* CPU time of this thread, stored as it returns (its clock dies with it) */
	_Atomic uint64_t cpu_final_ns;
	_Atomic bool cpu_final;
	void *priv;            /* the ops' per-thread state (AF_XDP: socket and UMEM) */
	_Atomic uint64_t end_ns; /* engine_now_ns() when the thread's work was over, 0 = running */
	_Atomic int last_cpu;  /* request/response: the CPU it last ran on (sched_getcpu), -1 */
	uint64_t blocked_ns;   /* sender: time in poll on full sockets (read after join) */
	uint64_t backoff_ns;   /* sender: its ops' back-off after E_BACKOFF, 0 = E_BACKOFF_NS */
	uint64_t tx_busy;      /* sender, AF_XDP: times the device was busy (read after join) */
	_Atomic uint64_t runq_ns; /* time it waited for a CPU, stored as it returns */
	/* scheduling (engine_sched, set by the thread itself, read after join) and, real-time,
	 * the start of the window rt_guard() measures its CPU share over */
	uint8_t sched;
	uint64_t rt_win_ns, rt_win_cpu_ns;
};

/* Return values of send/recv: progress, nothing to do until the socket is ready, finished
 * (EOF or hard error; the function has set the stream's error), and a soft error that poll
 * would not wait for (a full device queue, ICMP port unreachable): try again after
 * E_BACKOFF_NS rather than at once, which kept a core spinning at 100 %. */
enum { E_DONE = -1, E_BLOCKED = 0, E_PROGRESS = 1, E_BACKOFF = 2 };
/* A paced sender refused real time (sched not_permitted) keeps this much missed sending time
 * instead of PACE_CREDIT_NS: beside CPU hogs its wake-ups come tens of ms late, and with 4 ms
 * it dropped most of what fell due meanwhile (50 Mbit/s of 64-byte datagrams as nobody beside
 * stress-ng --cpu 4: 76-81 % short). The price is a burst of up to 20 ms of its rate after a
 * late wake-up, stated in schemas/probe-result.md (sender_sched). */
#define E_CREDIT_NORT_NS 20e6
#define E_BACKOFF_NS 1000000ull

struct engine_ops {
	const char *name;
	/* per socket, at engine_create() */
	int (*setup)(struct engine *e, struct e_stream *s, struct ns_err *err);
	/* per thread, before it starts */
	int (*thread_init)(struct e_thread *t, struct ns_err *err);
	/* sender: send up to max_units; adds the bytes handed to the kernel to *bytes */
	int (*send)(struct e_thread *t, struct e_stream *s, uint32_t max_units, uint64_t now_ns,
		    uint64_t *bytes);
	/* sender at the end: let the peer see the end (TCP: SHUT_WR) */
	void (*end)(struct e_stream *s);
	/* sender, after its measured time: wait (bounded) for what the kernel still owes the
	 * stream (MSG_ZEROCOPY completions); may be NULL */
	void (*reap)(struct e_stream *s);
	/* receiver: one batch */
	int (*recv)(struct e_thread *t, struct e_stream *s);
	/* optional: per thread and per engine, at engine_destroy() */
	void (*thread_fini)(struct e_thread *t);
	void (*fini)(struct engine *e);
};

struct engine {
	struct engine_cfg cfg;
	void *tp;              /* cfg.transport's engine: every public call goes to it */
	int *cpus;
	const struct engine_ops *ops;
	struct e_stream *streams;
	uint32_t n;
	struct e_thread *threads;
	uint32_t nthreads;
	uint32_t unit;         /* bytes per unit: the write size or the UDP payload */
	unsigned char *send_buf; /* TCP sender: one write's bytes, read-only, shared by threads */
	size_t send_buf_len;
	uint64_t t0_ns, deadline_ns;
	uint64_t t0_real_ns;   /* CLOCK_REALTIME at the start: the receiver's zero of arrival times */
	uint64_t stall_at_ns, stall_ns; /* test hook, see engine_start() */
	bool started, joined;
	_Atomic bool stop;
	_Atomic uint32_t running;
	_Atomic bool gso_active;
	void *priv;            /* the ops' engine state (AF_XDP receiver: program and map) */
	char mode[64];         /* engine_mode(); set by setup and thread_init */
	_Atomic bool zc_active;
	_Atomic int zc_errno;  /* why the first stream fell back to copying, 0 = none did */
	struct budget_share share; /* sender with cfg.budget: its part of the cap, from start
				      until its last thread ends (budget.h) */
	_Atomic int rx_errno;  /* TCP receiver, ENGINE_RX_MMAP: why the first stream could not
	                          map (it copies), 0 = none */
	_Atomic uint64_t rx_mapped; /* ... bytes mapped, over its streams */
};

extern const struct engine_ops engine_tcp_send_ops, engine_tcp_recv_ops;
extern const struct engine_ops engine_udp_mmsg_ops, engine_udp_gso_ops, engine_udp_zc_ops,
	engine_udp_recv_ops;
extern const struct engine_ops engine_rr_client_ops, engine_rr_server_ops;
extern const struct engine_ops engine_xdp_send_ops, engine_xdp_rx_ops, engine_xdp_count_ops;

/* A request/response thread's whole run (engine_rr.c). */
void engine_rr_run(struct e_thread *t);

/* engine_rt.c: a thread enters real time where its work falls due at set times and the
 * process may; the guard drops it back to normal once it used ENGINE_RT_MAX_SHARE of its core
 * over a window; the calling thread's own CPU time in ns. */
void engine_rt_enter(struct e_thread *t);
void engine_rt_guard(struct e_thread *t, uint64_t now);
uint64_t engine_self_cpu_ns(void);

/* CLOCK_REALTIME, the clock of the kernel's receive timestamps (SO_TIMESTAMPNS). */
uint64_t engine_real_ns(void);
/* Zero-filled, page-backed buffers for the threads; NULL on failure. */
void *engine_buf_alloc(size_t len);
void engine_buf_free(void *p, size_t len);
/* A thread's share of an engine-wide byte budget, within [lo, hi]: buffers that grow with the
 * thread count must not let one request take gigabytes of the agent's memory. */
size_t engine_thread_share(const struct engine *e, size_t budget, size_t lo, size_t hi);
/* cfg.fq_rate_bps as SO_MAX_PACING_RATE on a sender's socket (no-op otherwise). */
int engine_sock_pacing(const struct engine *e, int fd, struct ns_err *err);

/* -Z (zerocopy.h) for the senders. A stream the kernel refuses zero-copy to copies from then
 * on, and the engine says so with the errno. */
void engine_zc_off(struct engine *e, struct e_stream *s, int why);
/* A MSG_ZEROCOPY send failed with ENOBUFS: reaped completions free the socket's option memory
 * (E_PROGRESS: retry), with some still outstanding wait for them (E_BACKOFF), with none the
 * kernel will not pin the pages at all (locked-memory limit): copy from now on (E_PROGRESS).
 * ring as for zc_reap. */
int engine_zc_nobufs(struct engine *e, struct e_stream *s, struct zc_ring *ring);
/* ops->reap of a zero-copy sender: the last completions, waited for E_ZC_DRAIN_MS at most. */
void engine_zc_drain(struct e_stream *s);
#define E_ZC_DRAIN_MS 200

/* Only the owning thread writes a counter, so a relaxed load + store is enough. */
static inline void e_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline void e_finish(struct e_stream *s, int error)
{
	s->active = false;
	if (error)
		atomic_store_explicit(&s->error, error, memory_order_relaxed);
	atomic_store_explicit(&s->finished, true, memory_order_release);
}

#endif
