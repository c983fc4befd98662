/* session: the measuring half of a test that the agent and the probe client share — one engine
 * per direction an end takes part in, its snapshots at the end of the omit period, at every
 * interval boundary and at the end, and the arithmetic that turns the two ends' snapshots into
 * probe figures. It knows nothing of the control connection. */
#ifndef NS_SESSION_H
#define NS_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "lib/err.h"
#include "runner/engine/engine.h"
#include "runner/proto/probe.h"
#include "runner/engine/sysstat.h"
#include "runner/quic/quic.h"
#include "latency.h"

/* One end of one direction: the engine and its snapshots. */
struct session_end {
	enum ns_dir dir;           /* NS_DIR_FORWARD or NS_DIR_REVERSE */
	enum engine_role role;
	enum ns_proto proto;
	uint32_t n;                /* streams */
	int *fds;                  /* data sockets; the engine owns (closes) them once created */
	struct engine *eng;
	struct engine_stream_snap *omit, *prev, *cur;
	double prev_t;             /* time of the snapshot in prev */
	bool per_stream;           /* record per-stream intervals too (bounded count) */
	struct probe_interval *ivl;
	uint32_t n_ivl, cap_ivl;
	bool truncated;            /* interval storage hit its bound */
	uint64_t cpu_omit_ns, cpu_end_ns; /* CPU of this end's engine threads (engine_cpu_ns) */
	uint64_t drops_omit, drops_end;   /* host-wide UDP receive errors (sysstat) */
	struct sysstat_cpu steal_omit, steal_end; /* the host's CPU time, stolen and all */
	struct engine_diag diag;   /* what held the engine back, once finished */
	double t_omit, t_end;      /* times of the baseline and final snapshots */
	double t_stop;             /* a self-timed sender: when it was seen stopped (0 = not yet) */
	struct budget *budget;     /* sender: the agent's --max-rate bucket (engine_cfg.budget); may
	                              be NULL */
	const uint8_t *cookie;     /* UDP receiver: the test's cookie (PROTO_COOKIE_LEN bytes), so
	                              that a late greeting echo is not taken for data; may be NULL */
	struct lat_end *lat;       /* a request/response requester's histograms, else NULL */
	/* TCP_CRR: the requester's target (the agent's data port), or the answerer's listener
	 * (not owned) and the client's address; crr_fd -1 = none */
	struct sockaddr_storage crr_addr;
	socklen_t crr_addr_len;
	int crr_fd;
	/* QUIC: this end's side of the handshake (the agent's: server and its certificate, not
	 * owned; the client's: the fingerprint READY gave) */
	struct quic_side quic;
	char xdp_refused[NS_ERR_MAX]; /* why this end runs the socket engine although the test
	                                 asked for xdp with ",socket"; "" = it did not fall back */
};

/* Allocates the fd and snapshot arrays (fds all -1). */
int session_end_init(struct session_end *s, enum ns_dir dir, enum engine_role role, uint32_t n,
		     bool per_stream, struct ns_err *err);
/* Creates and starts the engine over s->fds (ownership moves to the engine). An end that
 * cannot run the XDP engine (NS_E_UNSUPPORTED: privileges, device, build) fails here, before
 * any data moves, or with --engine xdp,socket runs the socket engine and says why in
 * s->xdp_refused. */
int session_end_start(struct session_end *s, const struct probe_params *p, uint32_t threads,
		      const int *cpus, uint32_t n_cpus, struct ns_err *err);
/* Stops (or, for a receiver, first drains) the engine and takes the final snapshot.
 * A TCP receiver drains until every stream hit EOF, a UDP receiver until nothing arrived for
 * a short quiet time; both at most max_drain_s. */
void session_end_finish(struct session_end *s, double max_drain_s);
/* Notes when a self-timed sender stopped, so that its measured time ends there rather than
 * when the controller takes the final snapshot. Returns true once it has (or for a receiver). */
bool session_end_watch(struct session_end *s, double now);
void session_end_destroy(struct session_end *s);
/* A sender whose engine stopped by itself with a stream's hard error: -1 with that error in
 * words (EMSGSIZE, under --dont-fragment, names the path MTU); 0 otherwise. */
int session_end_sender_error(struct session_end *s, const struct probe_params *p,
			     struct ns_err *err);
/* A request/response requester's latency over the measured time (after session_end_finish);
 * out->present stays false for any other end. */
int session_end_latency(struct session_end *s, double dur, struct probe_latency *out,
			struct ns_err *err);
/* What carried this end's data: engine_mode(), or "socket (xdp unavailable)" after a fallback. */
const char *session_end_mode(const struct session_end *s);
/* CPU of this end's own engine threads from the baseline to the end, % of one CPU: with
 * --bidir each direction's, and never another test's in the same process. */
double session_end_cpu_percent(const struct session_end *s);
/* CPU the hypervisor stole from this end's host over the test, % of its CPU time. */
double session_end_steal_pct(const struct session_end *s);

/* The measured inputs of a direction's probe_limit (runner/session/limit.h) from this end and
 * the agent's summary of the other (NULL: missing, zeros), then judged against d's figures. */
struct proto_dir_summary;
void session_limit(const struct session_end *me, const struct proto_dir_summary *peer,
		   uint64_t asked_bps, struct probe_direction *d);
/* Whether the agent's --max-rate (s->budget, its engine's share of it) held this sending end
 * below SESSION_HELD_SHARE of the rate asked: its share ran short and it sent less. An agent's
 * own end says so in RESULTS (held_by_cap); a delegated run's sending end is judged here. */
#define SESSION_HELD_SHARE 0.95 /* timer slack costs less than this */
bool session_end_held_by_cap(const struct session_end *s, uint64_t asked_bps);

/* The boundaries of a test: omit period, intervals, end. */
struct session_clock {
	double t0, omit, interval, duration;
	double last;               /* time of the last boundary */
	uint64_t k;                /* intervals passed since the start of the current phase */
	bool omit_done, ended;
};
void session_clock_init(struct session_clock *c, double t0, const struct probe_params *p);
/* Records every boundary up to now on every end; returns the time of the next one
 * (a large value once the end has passed). */
double session_tick(struct session_clock *c, struct session_end *ends, uint32_t n_ends,
		    double now);
/* Expected interval records of one end (for the per-stream bound). */
uint32_t session_expected_intervals(const struct probe_params *p);

/* Figures of one direction from the sender's and the receiver's snapshots (omit and end, per
 * stream; any of them NULL when that end's figures are missing). dur is the measured time.
 * Fills d->streams (allocated), d->sender, d->receiver except cpu_percent and kernel_drops. */
int session_figures(const struct engine_stream_snap *s0, const struct engine_stream_snap *s1,
		    const struct engine_stream_snap *r0, const struct engine_stream_snap *r1,
		    uint32_t n, double dur, enum ns_proto proto, struct probe_direction *d,
		    struct ns_err *err);

/* One interval from two snapshots: stream >= 0 that stream, -1 the sum over all n. */
void session_interval(const struct engine_stream_snap *a, const struct engine_stream_snap *b,
		      uint32_t n, int32_t stream, double start_s, double end_s, double dt,
		      bool omitted, struct probe_interval *out);

/* Resolved thread count: threads ? min(threads, streams) : min(streams, online CPUs). */
uint32_t session_threads(const struct probe_params *p);

#include "cpu_placement.h" /* session_cpus: the CPUs of an end */

#endif
