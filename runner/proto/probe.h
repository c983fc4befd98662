/* probe: the model of one test — what it asks for (struct probe_params) and what it measured
 * (struct probe_result). These structs are the contract between the engines, the control
 * protocol and everything that stores or prints their figures; runner/client runs them. */
#ifndef NS_PROBE_H
#define NS_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/engine/engine.h"
#include "runner/engine/limits.h"

#define NS_DEFAULT_PORT 5301      /* agent control port (iperf3 uses 5201) */
const char *ns_proto_name(enum ns_proto p);   /* "tcp" / "udp" */
const char *ns_dir_name(enum ns_dir d);       /* "forward" / "reverse" / "bidir" */

/* Everything a test asks for. probe_params_init() sets the defaults; probe_params_check()
 * validates ranges and conflicts (the one validation pass, shared with the matrix loader). */
struct probe_params {
	char host[256];
	uint16_t port;
	enum ns_proto proto;
	uint32_t streams;       /* 1..NS_MAX_STREAMS */
	uint32_t threads;       /* 0 = min(streams, online CPUs) */
	uint32_t length;        /* write size (TCP) or payload (UDP); 0 = protocol default */
	uint64_t rate_bps;      /* -b: application pacing of the total; 0 = unlimited */
	uint64_t fq_rate_bps;   /* --fq-rate: SO_MAX_PACING_RATE per socket; 0 = none */
	double duration_s;      /* -t, measured time (omit comes on top) */
	double interval_s;      /* -i, 0 = no interval reports */
	double omit_s;          /* -O, warm-up excluded from results */
	enum ns_dir dir;
	char affinity[256];     /* -A CPU list for the client's engine threads (and the agent's
	                           when agent_affinity is ""), "none" = unpinned, "" = the
	                           default placement (runner/session/placement.h) */
	uint32_t window;        /* -w SO_SNDBUF/SO_RCVBUF, 0 = kernel default */
	uint32_t mss;           /* -M TCP_MAXSEG, 0 = default */
	bool nodelay;           /* -N */
	char congestion[16];    /* -C, "" = default */
	bool gso;               /* --gso: UDP_SEGMENT */
	double connect_timeout_s; /* default 5 s */
	double timeout_s;         /* whole test; 0 = omit + duration + 15 s. probe_run never
	                             blocks longer than this plus the connect timeout */
	char psk_file[256];     /* reserved for the authentication issue; "" = none */
	char engine[24];        /* --engine: "" or "socket" (kernel sockets), "xdp" (AF_XDP sender,
	                           the receiver accounts in XDP), "xdp-rx" (AF_XDP both ends,
	                           accounted in user space); either with ",socket": an end that cannot use
	                           AF_XDP uses sockets */
	/* source, marking and amount (iperf3's -B, --cport, -4/-6, -S/--dscp, -Z,
	 * --dont-fragment, -n, -k) */
	char bind[64];          /* -B: the client's numeric source address of control and data,
	                           "" = any; the agent's reverse data goes back to it */
	uint32_t cport;         /* --cport: first data stream's client port, the next ones count
	                           up; 0 = any */
	uint32_t family;        /* -4 / -6: 4 or 6; 0 = as the host name resolves */
	uint32_t tos;           /* -S/--dscp: IP_TOS / IPV6_TCLASS byte of every data socket
	                           (DSCP << 2); 0 = the default */
	bool zerocopy;          /* -Z: MSG_ZEROCOPY on the sending data sockets */
	bool dont_fragment;     /* --dont-fragment: IP_PMTUDISC_DO on the data sockets */
	uint64_t bytes;         /* -n: the senders stop after this many bytes in total; 0 = by time */
	uint64_t blocks;        /* -k: ... after this many writes (TCP) or datagrams (UDP) */
	/* long-run mode (a purchasing figure): "sustained" ends the test once the receiver's rate
	 * stepped down and stayed steady for steady_s; duration_s is then the upper bound */
	char until[12];         /* "" = run for the duration, "sustained" */
	double steady_s;        /* with until: how long the rate after the step must hold */
	/* request/response (netperf's TCP_RR / UDP_RR): each stream sends a request of
	 * rr_request bytes and waits for the rr_response bytes of the answer; the client times
	 * every transaction (struct probe_latency). Forward only: the agent answers. */
	char rr[8];             /* --rr: "" = a throughput test, "rr" = request/response */
	uint32_t rr_request;    /* --request bytes, 0 = the protocol's least (TCP 1, UDP 8) */
	uint32_t rr_response;   /* --response bytes, likewise */
	double rr_rate;         /* --rr-rate: transactions/s over all streams, 0 = back to back */
	/* latency under load (flent's RRUL, the responsiveness draft): a throughput test's
	 * request/response flow on a connection of its own, timed idle first (a short test of
	 * its own before the load) and then beside the load (struct probe_lul) */
	char lat_probe[8];      /* --latency-probe: "" = none, "tcp" (TCP_RR) or "udp" (UDP_RR) */
	double lat_rate;        /* --latency-rate: its transactions/s, 0 = PROBE_LAT_RATE */
	uint32_t lat_size;      /* --latency-size: request and response bytes, 0 = the least */
	double lat_idle_s;      /* --latency-idle: the idle window, 0 = PROBE_LAT_IDLE_S */
	/* a group case's common start (runner/group): the wall-clock second (CLOCK_REALTIME,
	 * since the epoch) at which the set-up test starts, 0 = at once; at most
	 * PROBE_START_AT_MAX_S ahead, so a client agent waits a bounded while */
	double start_at;
	char agent_affinity[256]; /* --agent-affinity: the agent's engine threads: a CPU list,
	                             "none", "auto" (the agent picks one CPU per thread from its
	                             own), or "" = as affinity */
	char rx_copy[8];        /* TCP receiver: "" (copy into the buffer), "skip" (MSG_TRUNC,
	                           --skip-rx-copy) or "mmap" (receive zero-copy, --rx-zerocopy) */
};
#define PROBE_START_AT_MAX_S 60.0
/* CLOCK_REALTIME in seconds since the epoch: start_at's and started_unix's clock. */
double probe_wall_now(void);

#define PROBE_LAT_RATE 100.0   /* transactions/s: 100 samples per idle second, and a flow
				  far too thin to add load of its own */
#define PROBE_LAT_IDLE_S 1.0
#define PROBE_LAT_MAX_IDLE_S 60.0

/* The request/response test of p's latency probe: one stream, forward, its sizes and rate,
 * the load's own options left out. Its omit, duration and interval are the load's (the
 * loaded window and its series); the idle window is the same test for lat_idle_s, without
 * omit or series. */
void probe_lat_params(const struct probe_params *p, struct probe_params *lp);
double probe_lat_idle_s(const struct probe_params *p);

/* "tcp_rr", "udp_rr" or "tcp_crr": the request/response test p asks for ("" for none). */
const char *probe_rr_test(const struct probe_params *p);
/* The request and response sizes a request/response test uses (its defaults resolved). */
void probe_rr_sizes(const struct probe_params *p, uint32_t *request, uint32_t *response);

/* Bytes the senders send in all (-n, or -k times the length); 0 = the test runs by time. */
uint64_t probe_params_amount(const struct probe_params *p);
/* The engine params.engine names (without its ",socket"), and whether an end that cannot run
 * it may use the socket engine instead. */
enum engine_kind probe_engine_kind(const struct probe_params *p);
/* NAME or NAME,socket, NAME one of socket, xdp, xdp-rx ("" = socket). */
bool probe_engine_name_ok(const char *v);
bool probe_engine_fallback(const struct probe_params *p);

void probe_params_init(struct probe_params *p);
int probe_params_check(const struct probe_params *p, struct ns_err *err);
/* The agent's address from HOST, HOST:PORT, [V6] or [V6]:PORT (a bare IPv6 address, with
 * several colons, is all host) into p->host and p->port. */
int probe_params_target(const char *s, struct probe_params *p, struct ns_err *err);

/* Figures of one end of one direction. Sender side: what was written; receiver side: what
 * arrived. Fields that do not apply to a protocol stay 0 (and are omitted from JSON). */
struct probe_figures {
	uint64_t bytes;
	uint64_t packets;          /* TCP: write calls on the sender, segments_in/out from TCP_INFO
	                              where known; UDP: datagrams as the sender built them */
	double bits_per_second;
	double packets_per_second;
	double cpu_percent;        /* user+system of the process over the test, % of one CPU */
	double cpu_s_per_gb;       /* that end's CPU seconds per 10^9 bytes it moved (its own
	                              bytes: sent or received), 0 = none moved */
	/* TCP */
	uint64_t retransmits;
	double rtt_ms;             /* smoothed RTT, mean over streams (sender side) */
	double rtt_min_ms;         /* the least RTT seen, least over streams (sender side; 0 =
	                              unknown) */
	uint64_t cwnd_bytes;       /* last cwnd, summed over streams (sender side) */
	/* UDP (receiver side) */
	uint64_t lost;
	double lost_percent;
	uint64_t out_of_order;
	uint64_t duplicates;
	double jitter_ms;
	uint64_t kernel_drops;     /* RcvbufErrors + InErrors delta over the test: host-wide */
	uint64_t socket_drops;     /* datagrams this test's own receiving sockets dropped
	                              (SO_RXQ_OVFL): loss in its receive buffers */
};

struct probe_stream_result {
	uint32_t id;
	int cpu;                   /* CPU the stream's thread was pinned to, -1 = none */
	struct probe_figures sender, receiver;
};

/* One interval of one direction. stream = -1 is the sum over streams. */
struct probe_interval {
	double start_s, end_s;     /* relative to the end of the omit period */
	int32_t stream;
	uint64_t bytes;
	double bits_per_second;
	uint64_t packets;
	uint64_t retransmits;      /* TCP, sender */
	uint64_t cwnd_bytes;       /* TCP, sender */
	double rtt_ms;             /* TCP, sender */
	uint64_t lost;             /* UDP, receiver */
	double jitter_ms;          /* UDP, receiver */
	bool omitted;
};

/* A burst followed by a lower sustained rate in the receiver's interval series (lib/phases.h,
 * credit-based shaping); found = false when the series shows no sustained step down. JSON:
 * "shaping" in the receiver sum, an object or null. */
struct probe_shaping {
	bool found;
	double burst_bps;          /* mean receive rate before the step */
	double burst_s;            /* from the start of the measured time to the step */
	double sustained_bps;      /* mean receive rate after it */
};

/* One end's network interface over a test: the deltas of a documented set of the driver's own
 * counters (ethtool statistics, runner/host/niccount.h), read before and after. ifname "" =
 * not read (loopback, or a driver without statistics). */
struct probe_nic {
	char ifname[16];                /* IFNAMSIZ */
	uint32_t allowance_counters;    /* how many *_allowance_exceeded the driver has (ENA: 5);
	                                   0 = none, so the five below say nothing */
	/* ENA: packets the provider held back or dropped because the instance exceeded its
	 * bandwidth in/out, packets per second, tracked connections or link-local traffic */
	uint64_t bw_in_allowance_exceeded, bw_out_allowance_exceeded, pps_allowance_exceeded;
	uint64_t conntrack_allowance_exceeded, linklocal_allowance_exceeded;
	uint64_t drops;                 /* the driver's drop and error counters, summed */
	uint64_t rx_packets, tx_packets; /* the interface's own packet counters (niccount.h) */
	uint64_t rx_bytes, tx_bytes;     /* and its byte counters */
};

/* What set a direction's figure, as far as the tool can tell (runner/session/limit.h judges
 * it; JSON: "limit" in each sum object, schemas/probe-result.md). A sender that offered less
 * than it was asked by more than LIMIT_SHORTFALL_PCT is sender_limited: the figure is the
 * sender's, not the path's. */
struct probe_limit {
	double asked_bps;          /* the rate asked of this direction (-b), 0 = unpaced */
	double offered_bps;        /* what its sender offered: sender bits_per_second */
	double shortfall_pct;      /* (asked - offered) / asked x 100, 0 unpaced or above */
	bool sender_limited;
	char cause[16];            /* sender_limited: "sender_cpu", "pacer_late", "sndbuf_full",
	                              "steal", "agent_max_rate" or "unknown"; "" otherwise */
	char limited_by[16];       /* "network", "sender_cpu", "receiver_cpu", "steal", "pacing",
	                              "window", or "" (nothing stood out) */
	double sender_thread_cpu;  /* the busiest engine thread of each end, % of one CPU */
	double receiver_thread_cpu;
	double sender_steal_pct;   /* CPU the hypervisor stole from each end's host over the test */
	double receiver_steal_pct;
	double sender_blocked_pct; /* the sender's threads' time waiting on full socket buffers */
	double pace_lost_pct;      /* the paced sender's time its pacers dropped, woken too late */
	double sender_runq_pct;    /* the longest an engine thread of each end waited for a CPU
	                              it wanted (a busy host), % of its time */
	double receiver_runq_pct;
	char sender_sched[20];     /* how each end's engine threads were scheduled
	                              (engine_sched_name): "normal", "not_permitted",
	                              "realtime", "realtime_dropped"; "" unknown */
	char receiver_sched[20];
	uint64_t sender_tx_busy;   /* the AF_XDP sender's kicks that found the device busy
	                              (EBUSY: a veth peer's ring full), each followed by a short
	                              back-off; 0 for the socket engine */
};

/* One direction of a test: forward (client sends) or reverse (agent sends). */
struct probe_direction {
	enum ns_dir dir;           /* NS_DIR_FORWARD or NS_DIR_REVERSE */
	struct probe_figures sender, receiver;
	struct probe_shaping shaping;
	struct probe_limit limit;
	struct probe_stream_result *streams;  /* params.streams entries */
	struct probe_interval *intervals;     /* n_intervals entries, sums and per stream */
	uint32_t n_streams;
	uint32_t n_intervals;
};

/* Latency figures of a request/response test, from the merged histogram of every stream
 * (lib/lathist.h: percentiles within LATHIST_REL_ERROR), in microseconds. */
struct probe_latency_figures {
	uint64_t transactions;
	double transactions_per_second;
	uint64_t lost;             /* UDP: requests unanswered within ENGINE_RR_LOST_NS */
	double min_us, mean_us, p50_us, p90_us, p99_us, p999_us, max_us;
};

/* One interval of the latency series (the sum over streams). */
struct probe_latency_interval {
	double start_s, end_s;     /* as struct probe_interval */
	bool omitted;
	struct probe_latency_figures f;
};

/* JSON "latency": present only for a request/response test. */
struct probe_latency {
	bool present;
	struct probe_latency_figures sum;   /* the measured time (after omit) */
	double relative_error;     /* of the percentiles: LATHIST_REL_ERROR */
	int32_t client_cpu;        /* the CPU the client's first requester thread last ran on */
	int32_t agent_cpu;         /* ... and the agent's first answerer thread, -1 unknown (its
	                              CPU load is the result's sum.receiver.cpu_percent) */
	/* one-way delay is never reported yet: why (the clocks' state), and the client's own
	 * clock as adjtimex gives it */
	bool client_clock_synced;
	double client_clock_maxerror_us;
	char one_way_why[256];
	char *histogram;           /* malloc'd lathist_encode text of the measured time */
	struct probe_latency_interval *intervals;
	uint32_t n_intervals;
};

/* JSON "latency_under_load": present only for a test with params.lat_probe. */
struct probe_lul {
	bool present;
	char test[8];              /* "tcp_rr" or "udp_rr" */
	uint32_t request, response;
	double rate;               /* transactions/s asked */
	double idle_s, loaded_s;   /* the windows measured */
	struct probe_latency_figures idle, loaded;
	/* loaded minus idle: the delay the load added (its queue) */
	double added_p50_us, added_p90_us, added_p99_us, added_p999_us;
	/* malloc'd lathist_encode texts of each window, NULL when not known; the loaded window's
	 * series, on the load's interval clock */
	char *idle_histogram, *loaded_histogram;
	struct probe_latency_interval *intervals;
	uint32_t n_intervals;
};

/* JSON "responsiveness": present only for a responsiveness test (runner/client/client_rpm.h,
 * schemas/responsiveness.md): its RPM, the trimmed means it came from and the saturation
 * search that chose the load. The result around it is the loaded test's. */
#define PROBE_RPM_MAX_SEARCH 16
struct probe_rpm {
	bool present;
	double rpm, rpm_idle;          /* round trips per minute under load and idle, 0 = none */
	double foreign_tm_ms, self_tm_ms, idle_tm_ms; /* single-sided trimmed means */
	uint64_t foreign_probes, self_samples, idle_probes;
	uint32_t connections;          /* load-generating connections of the loaded test */
	bool saturated;                /* the goodput saturated at that many */
	double goodput_bps;            /* the loaded test's receiver goodput */
	uint32_t n_search;             /* the search's tests: i + 1 connections each */
	double search_bps[PROBE_RPM_MAX_SEARCH];
};

struct probe_result {
	struct probe_params params;
	double duration_s;         /* measured time actually covered */
	bool gso_active;           /* UDP_SEGMENT was really used */
	char engine_mode[96];      /* what carried the data: "socket", or e.g. "sender xdp tx
	                              copy, receiver xdp rx count-only native" */
	/* what -S/--dscp and -Z really did (the client's data sockets for TOS; the sending end's
	 * engine for zero-copy) */
	int32_t tos_applied;       /* TOS / traffic class byte read back, -1 = unknown */
	int32_t dscp_applied;      /* its DSCP (tos_applied >> 2), -1 = unknown */
	bool zerocopy_active;      /* MSG_ZEROCOPY was used (false: asked for but fell back) */
	uint64_t zerocopy_sends, zerocopy_completions, zerocopy_copied;
	/* the interface carrying the test at each end, and whether a provider's allowance counter
	 * moved on either: then the figure is the provider's shaping, not the instance's capacity */
	struct probe_nic nic_client, nic_agent;
	bool shaped_by_provider;
	double started_unix;       /* when this end's test began (after the agent's START), wall
	                              clock in seconds since the epoch; 0 = it never began */
	/* where every engine thread ran (placement.h): "given" (-A / --agent-affinity),
	 * "auto" (the default placement), "none" (unpinned: the scheduler's choice); each end's
	 * CPUs, one per engine thread in thread order ("" unpinned; bidir: "fwd/rev") */
	char cpu_placement[8];
	char client_cpus[160], agent_cpus[160];
	/* the TCP receiver's path (engine_rx_path): "copy", "skip", "mmap", "mmap_fallback";
	 * "" for UDP and request/response */
	char rx_path[16];
	char ended[12];            /* with params.until: "sustained" (the rate held after a step
	                              down) or "duration" (the bound came first); "" otherwise */
	struct probe_direction dirs[2]; /* [0] the requested direction, [1] the return one (bidir) */
	uint32_t n_dirs;
	struct probe_latency latency;
	struct probe_lul lul;
	struct probe_rpm rpm;
	char *agent_hostinfo;      /* JSON text from the agent, or NULL */
	int status;                /* 0 ok, -1 failed (error says why; figures may be partial) */
	char error[NS_ERR_MAX];
	char warnings[NS_ERR_MAX]; /* "; "-separated, e.g. UDP fq-rate without fq */
};

void probe_result_free(struct probe_result *res);

/* The stable JSON contract of `netsweep probe --json` (schemas/probe-result.md).
 * Returns malloc'd text; never NaN. */
char *probe_result_json(const struct probe_result *res, bool pretty);

/* The inverse: fills res (which the caller frees with probe_result_free) from that JSON text,
 * read with SQLite's JSON functions. Every figure, stream and interval comes back exactly
 * (doubles are written with 17 digits); keys a protocol omits stay 0. The latency and
 * latency_under_load objects come back too (figures, series, notes, histogram text).
 * Bounded: at most PROBE_JSON_MAX_ROWS intervals (of each series) and 2 x NS_MAX_STREAMS
 * streams. Returns -1 with err filled for text that is not a version-1 probe result. */
#define PROBE_JSON_MAX_ROWS 700000
int probe_result_from_json(const char *json, struct probe_result *res, struct ns_err *err);

#endif
