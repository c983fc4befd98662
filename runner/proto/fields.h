/* fields: the one description of every probe struct that crosses the wire or goes to JSON.
 * Each table below lists a struct's fields once, in wire order; the binary encoding
 * (proto.c), the JSON writer (result_json.c) and the JSON reader (result_parse.c) all walk
 * it, so adding a field is one line here plus its test (tests/unit/test_fields.c walks every
 * table). Wire order is the protocol: add new wire fields at the end of a table and bump
 * PROTO_VERSION — also for a result table's JSON fields, which a delegated run's result
 * carries in binary (fields_put_all); JSON keys are only ever added (schemas/probe-result.md). */
#ifndef NS_FIELDS_H
#define NS_FIELDS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/jsonw.h"
#include "codec.h"
#include "runner/engine/engine.h"
#include "probe.h"

/* Field types: the C type, its wire encoding (big-endian) and its JSON form. */
enum field_type {
	FT_BOOL,   /* bool;          wire u8 (!= 0);        JSON true/false */
	FT_U8,     /* uint8_t;       wire u8;               JSON number */
	FT_U16,    /* uint16_t;      wire u16;              JSON number */
	FT_U32,    /* uint32_t;      wire u32;              JSON number */
	FT_U64,    /* uint64_t;      wire u64;              JSON number */
	FT_I32,    /* int / int32_t; wire u32 (two's complement); JSON number */
	FT_F64,    /* double;        wire IEEE 754 as u64 (finite only); JSON number */
	FT_STR,    /* char[N];       wire u16 length + bytes (< N); JSON string */
	FT_PROTO,  /* enum ns_proto; wire u8 (<= NS_PROTO_UDP); JSON "tcp"/"udp" */
	FT_DIR,    /* enum ns_dir;   wire u8 (<= NS_DIR_BIDIR); JSON "forward"/"reverse"/"bidir" */
	FT_ERRNO,  /* int errno;     wire u32, read back as its low 16 bits; not in JSON */
};

/* Bytes a fixed-size type takes on the wire (FT_STR has none: 0). */
#define FT_WSZ_FT_BOOL 1
#define FT_WSZ_FT_U8 1
#define FT_WSZ_FT_U16 2
#define FT_WSZ_FT_U32 4
#define FT_WSZ_FT_U64 8
#define FT_WSZ_FT_I32 4
#define FT_WSZ_FT_F64 8
#define FT_WSZ_FT_STR 0
#define FT_WSZ_FT_PROTO 1
#define FT_WSZ_FT_DIR 1
#define FT_WSZ_FT_ERRNO 4

/* Where a field goes. F_TCP / F_UDP: written to JSON only for results of that protocol
 * (a reader takes a missing key as 0). */
#define F_WIRE 0x1u
#define F_JSON 0x2u
#define F_TCP 0x4u
#define F_UDP 0x8u
#define F_WJ (F_WIRE | F_JSON)

/* X(type, C member, JSON key or NULL, flags) */

/* struct probe_params: TEST_REQUEST / DELEGATE_REQUEST, and "params" in the result JSON. */
#define PROBE_PARAMS_FIELDS(X) \
	X(FT_STR, host, "host", F_WJ) \
	X(FT_U16, port, "port", F_WJ) \
	X(FT_PROTO, proto, "protocol", F_WJ) \
	X(FT_U32, streams, "streams", F_WJ) \
	X(FT_U32, threads, "threads", F_WJ) \
	X(FT_U32, length, "length", F_WJ) \
	X(FT_U64, rate_bps, "rate_bps", F_WJ) \
	X(FT_U64, fq_rate_bps, "fq_rate_bps", F_WJ) \
	X(FT_F64, duration_s, "duration_s", F_WJ) \
	X(FT_F64, interval_s, "interval_s", F_WJ) \
	X(FT_F64, omit_s, "omit_s", F_WJ) \
	X(FT_DIR, dir, "direction", F_WJ) \
	X(FT_STR, affinity, "affinity", F_WJ) \
	X(FT_U32, window, "window", F_WJ) \
	X(FT_U32, mss, "mss", F_WJ) \
	X(FT_BOOL, nodelay, "nodelay", F_WJ) \
	X(FT_STR, congestion, "congestion", F_WJ) \
	X(FT_BOOL, gso, "gso", F_WJ) \
	X(FT_F64, connect_timeout_s, "connect_timeout_s", F_WJ) \
	X(FT_F64, timeout_s, "timeout_s", F_WJ) \
	X(FT_STR, engine, "engine", F_WJ) \
	X(FT_STR, bind, "bind", F_WJ) \
	X(FT_U32, cport, "cport", F_WJ) \
	X(FT_U32, family, "family", F_WJ) \
	X(FT_U32, tos, "tos", F_WJ) \
	X(FT_BOOL, zerocopy, "zerocopy", F_WJ) \
	X(FT_BOOL, dont_fragment, "dont_fragment", F_WJ) \
	X(FT_U64, bytes, "bytes", F_WJ) \
	X(FT_U64, blocks, "blocks", F_WJ) \
	X(FT_STR, until, "until", F_WJ) \
	X(FT_F64, steady_s, "steady_s", F_WJ) \
	X(FT_STR, rr, "rr", F_WJ) \
	X(FT_U32, rr_request, "rr_request", F_WJ) \
	X(FT_U32, rr_response, "rr_response", F_WJ) \
	X(FT_F64, rr_rate, "rr_rate", F_WJ) \
	X(FT_STR, lat_probe, "latency_probe", F_WJ) \
	X(FT_F64, lat_rate, "latency_rate", F_WJ) \
	X(FT_U32, lat_size, "latency_size", F_WJ) \
	X(FT_F64, lat_idle_s, "latency_idle_s", F_WJ) \
	X(FT_F64, start_at, "start_at", F_WJ) \
	X(FT_STR, agent_affinity, "agent_affinity", F_WJ) \
	X(FT_STR, rx_copy, "rx_copy", F_WJ)
/* (psk_file is not here: a path on the caller's host, never sent since version 6) */

/* struct probe_nic as member m of a struct, its JSON keys prefixed by pre (the keys are
 * ENA's own counter names; a wire-only use never writes them). */
#define PROBE_NIC_FIELDS(X, m, pre, fl) \
	X(FT_STR, m.ifname, pre "nic", fl) \
	X(FT_U32, m.allowance_counters, pre "allowance_counters", fl) \
	X(FT_U64, m.bw_in_allowance_exceeded, pre "bw_in_allowance_exceeded", fl) \
	X(FT_U64, m.bw_out_allowance_exceeded, pre "bw_out_allowance_exceeded", fl) \
	X(FT_U64, m.pps_allowance_exceeded, pre "pps_allowance_exceeded", fl) \
	X(FT_U64, m.conntrack_allowance_exceeded, pre "conntrack_allowance_exceeded", fl) \
	X(FT_U64, m.linklocal_allowance_exceeded, pre "linklocal_allowance_exceeded", fl) \
	X(FT_U64, m.drops, pre "nic_drops", fl) \
	X(FT_U64, m.rx_packets, pre "nic_rx_packets", fl) \
	X(FT_U64, m.tx_packets, pre "nic_tx_packets", fl) \
	X(FT_U64, m.rx_bytes, pre "nic_rx_bytes", fl) \
	X(FT_U64, m.tx_bytes, pre "nic_tx_bytes", fl)

/* struct probe_result: the top-level figures of the result JSON (after "streams"). */
#define PROBE_RESULT_FIELDS(X) \
	X(FT_F64, duration_s, "duration_s", F_JSON) \
	X(FT_BOOL, gso_active, "gso_active", F_JSON) \
	X(FT_STR, engine_mode, "engine_mode", F_JSON) \
	X(FT_I32, tos_applied, "tos_applied", F_JSON) \
	X(FT_I32, dscp_applied, "dscp_applied", F_JSON) \
	X(FT_BOOL, zerocopy_active, "zerocopy_active", F_JSON) \
	X(FT_U64, zerocopy_sends, "zerocopy_sends", F_JSON) \
	X(FT_U64, zerocopy_completions, "zerocopy_completions", F_JSON) \
	X(FT_U64, zerocopy_copied, "zerocopy_copied", F_JSON) \
	X(FT_BOOL, shaped_by_provider, "shaped_by_provider", F_JSON) \
	X(FT_STR, ended, "ended", F_JSON) \
	PROBE_NIC_FIELDS(X, nic_client, "client_", F_JSON) \
	PROBE_NIC_FIELDS(X, nic_agent, "agent_", F_JSON) \
	X(FT_F64, started_unix, "started_unix", F_JSON) \
	X(FT_STR, cpu_placement, "cpu_placement", F_JSON) \
	X(FT_STR, client_cpus, "client_cpus", F_JSON) \
	X(FT_STR, agent_cpus, "agent_cpus", F_JSON) \
	X(FT_STR, rx_path, "rx_path", F_JSON)

/* struct probe_figures: "sender" / "receiver" of the sums and of each stream (JSON only; the
 * agent sends its raw counters as engine_stream_snap and the client does the arithmetic). */
#define PROBE_FIGURES_FIELDS(X) \
	X(FT_U64, bytes, "bytes", F_JSON) \
	X(FT_F64, bits_per_second, "bits_per_second", F_JSON) \
	X(FT_U64, packets, "packets", F_JSON) \
	X(FT_F64, packets_per_second, "packets_per_second", F_JSON) \
	X(FT_F64, cpu_percent, "cpu_percent", F_JSON) \
	X(FT_F64, cpu_s_per_gb, "cpu_s_per_gb", F_JSON) \
	X(FT_U64, retransmits, "retransmits", F_JSON | F_TCP) \
	X(FT_F64, rtt_ms, "rtt_ms", F_JSON | F_TCP) \
	X(FT_F64, rtt_min_ms, "rtt_min_ms", F_JSON | F_TCP) \
	X(FT_U64, cwnd_bytes, "cwnd_bytes", F_JSON | F_TCP) \
	X(FT_U64, lost, "lost", F_JSON | F_UDP) \
	X(FT_F64, lost_percent, "lost_percent", F_JSON | F_UDP) \
	X(FT_U64, out_of_order, "out_of_order", F_JSON | F_UDP) \
	X(FT_U64, duplicates, "duplicates", F_JSON | F_UDP) \
	X(FT_F64, jitter_ms, "jitter_ms", F_JSON | F_UDP) \
	X(FT_U64, kernel_drops, "kernel_drops", F_JSON | F_UDP) \
	X(FT_U64, socket_drops, "socket_drops", F_JSON | F_UDP)

/* struct probe_shaping: "shaping" in the receiver sum (null when not found). */
#define PROBE_SHAPING_FIELDS(X) \
	X(FT_F64, burst_bps, "burst_bps", F_JSON) \
	X(FT_F64, burst_s, "burst_s", F_JSON) \
	X(FT_F64, sustained_bps, "sustained_bps", F_JSON)

/* struct probe_limit: "limit" in each sum object. */
#define PROBE_LIMIT_FIELDS(X) \
	X(FT_F64, asked_bps, "asked_bps", F_JSON) \
	X(FT_F64, offered_bps, "offered_bps", F_JSON) \
	X(FT_F64, shortfall_pct, "shortfall_pct", F_JSON) \
	X(FT_BOOL, sender_limited, "sender_limited", F_JSON) \
	X(FT_STR, cause, "cause", F_JSON) \
	X(FT_STR, limited_by, "limited_by", F_JSON) \
	X(FT_F64, sender_thread_cpu, "sender_thread_cpu", F_JSON) \
	X(FT_F64, receiver_thread_cpu, "receiver_thread_cpu", F_JSON) \
	X(FT_F64, sender_steal_pct, "sender_steal_pct", F_JSON) \
	X(FT_F64, receiver_steal_pct, "receiver_steal_pct", F_JSON) \
	X(FT_F64, sender_blocked_pct, "sender_blocked_pct", F_JSON) \
	X(FT_F64, pace_lost_pct, "pace_lost_pct", F_JSON) \
	X(FT_F64, sender_runq_pct, "sender_runq_pct", F_JSON) \
	X(FT_F64, receiver_runq_pct, "receiver_runq_pct", F_JSON) \
	X(FT_STR, sender_sched, "sender_sched", F_JSON) \
	X(FT_STR, receiver_sched, "receiver_sched", F_JSON) \
	X(FT_U64, sender_tx_busy, "sender_tx_busy", F_JSON)

/* struct probe_stream_result: one entry of "streams_detail" (its sender and receiver figures
 * follow as objects). */
#define PROBE_STREAM_FIELDS(X) \
	X(FT_U32, id, "id", F_JSON) \
	X(FT_I32, cpu, "cpu", F_JSON)

/* struct probe_interval: RESULT_INTERVALS (the agent's sums: stream is -1 there) and
 * "intervals" in the JSON. */
#define PROBE_INTERVAL_FIELDS(X) \
	X(FT_I32, stream, "stream", F_JSON) \
	X(FT_F64, start_s, "start_s", F_WJ) \
	X(FT_F64, end_s, "end_s", F_WJ) \
	X(FT_U64, bytes, "bytes", F_WJ) \
	X(FT_F64, bits_per_second, "bits_per_second", F_WJ) \
	X(FT_U64, packets, "packets", F_WJ) \
	X(FT_U64, retransmits, "retransmits", F_WJ | F_TCP) \
	X(FT_U64, cwnd_bytes, "cwnd_bytes", F_WJ | F_TCP) \
	X(FT_F64, rtt_ms, "rtt_ms", F_WJ | F_TCP) \
	X(FT_U64, lost, "lost", F_WJ | F_UDP) \
	X(FT_F64, jitter_ms, "jitter_ms", F_WJ | F_UDP) \
	X(FT_BOOL, omitted, "omitted", F_WJ)

/* struct probe_latency_figures: "latency" and each of its "intervals" (JSON only: the client
 * times the transactions, the agent only answers them). */
#define PROBE_LATENCY_FIELDS(X) \
	X(FT_U64, transactions, "transactions", F_JSON) \
	X(FT_F64, transactions_per_second, "transactions_per_second", F_JSON) \
	X(FT_U64, lost, "lost", F_JSON) \
	X(FT_F64, min_us, "min_us", F_JSON) \
	X(FT_F64, mean_us, "mean_us", F_JSON) \
	X(FT_F64, p50_us, "p50_us", F_JSON) \
	X(FT_F64, p90_us, "p90_us", F_JSON) \
	X(FT_F64, p99_us, "p99_us", F_JSON) \
	X(FT_F64, p999_us, "p999_us", F_JSON) \
	X(FT_F64, max_us, "max_us", F_JSON)

/* struct probe_lul: "latency_under_load" (JSON only, as the latency object; its "idle" and
 * "loaded" objects are PROBE_LATENCY_FIELDS). */
#define PROBE_LUL_FIELDS(X) \
	X(FT_STR, test, "test", F_JSON) \
	X(FT_U32, request, "request", F_JSON) \
	X(FT_U32, response, "response", F_JSON) \
	X(FT_F64, rate, "rate", F_JSON) \
	X(FT_F64, idle_s, "idle_duration_s", F_JSON) \
	X(FT_F64, loaded_s, "loaded_duration_s", F_JSON) \
	X(FT_F64, added_p50_us, "added_p50_us", F_JSON) \
	X(FT_F64, added_p90_us, "added_p90_us", F_JSON) \
	X(FT_F64, added_p99_us, "added_p99_us", F_JSON) \
	X(FT_F64, added_p999_us, "added_p999_us", F_JSON)

/* struct probe_rpm: "responsiveness" (JSON only: the client runs the test; its "search"
 * array and "method" object are written beside these). */
#define PROBE_RPM_FIELDS(X) \
	X(FT_F64, rpm, "rpm", F_JSON) \
	X(FT_F64, rpm_idle, "rpm_idle", F_JSON) \
	X(FT_F64, foreign_tm_ms, "foreign_tm_ms", F_JSON) \
	X(FT_U64, foreign_probes, "foreign_probes", F_JSON) \
	X(FT_F64, self_tm_ms, "self_tm_ms", F_JSON) \
	X(FT_U64, self_samples, "self_samples", F_JSON) \
	X(FT_F64, idle_tm_ms, "idle_tm_ms", F_JSON) \
	X(FT_U64, idle_probes, "idle_probes", F_JSON) \
	X(FT_U32, connections, "connections", F_JSON) \
	X(FT_BOOL, saturated, "saturated", F_JSON) \
	X(FT_F64, goodput_bps, "goodput_bps", F_JSON)

/* struct engine_stream_snap: one counter snapshot of a stream in RESULT_STREAMS (two per
 * stream: end of omit, end of test). */
#define ENGINE_SNAP_FIELDS(X) \
	X(FT_U64, bytes, NULL, F_WIRE) \
	X(FT_U64, packets, NULL, F_WIRE) \
	X(FT_U64, lost, NULL, F_WIRE) \
	X(FT_U64, out_of_order, NULL, F_WIRE) \
	X(FT_U64, duplicates, NULL, F_WIRE) \
	X(FT_U64, highest_seq_plus1, NULL, F_WIRE) \
	X(FT_F64, jitter_ms, NULL, F_WIRE) \
	X(FT_U64, retransmits, NULL, F_WIRE) \
	X(FT_U64, cwnd_bytes, NULL, F_WIRE) \
	X(FT_F64, rtt_ms, NULL, F_WIRE) \
	X(FT_U64, segs, NULL, F_WIRE) \
	X(FT_BOOL, finished, NULL, F_WIRE) \
	X(FT_ERRNO, error, NULL, F_WIRE) \
	X(FT_U64, sock_drops, NULL, F_WIRE) \
	X(FT_U64, acked, NULL, F_WIRE) \
	X(FT_F64, rtt_min_ms, NULL, F_WIRE)

/* struct proto_dir_summary (proto.h): one direction of RESULTS. Ranges are checked by
 * proto_dec_results. */
#define PROTO_DIR_SUMMARY_FIELDS(X) \
	X(FT_U8, dir, NULL, F_WIRE) \
	X(FT_U8, role, NULL, F_WIRE) \
	X(FT_U32, n_streams, NULL, F_WIRE) \
	X(FT_U32, n_intervals, NULL, F_WIRE) \
	X(FT_F64, duration_s, NULL, F_WIRE) \
	X(FT_F64, cpu_percent, NULL, F_WIRE) \
	X(FT_U64, kernel_drops, NULL, F_WIRE) \
	X(FT_U8, gso_active, NULL, F_WIRE) \
	X(FT_STR, mode, NULL, F_WIRE) \
	X(FT_U8, zc_active, NULL, F_WIRE) \
	X(FT_U64, zc_sends, NULL, F_WIRE) \
	X(FT_U64, zc_completions, NULL, F_WIRE) \
	X(FT_U64, zc_copied, NULL, F_WIRE) \
	PROBE_NIC_FIELDS(X, nic, "", F_WIRE) \
	X(FT_U8, held_by_cap, NULL, F_WIRE) \
	X(FT_F64, busiest_cpu_pct, NULL, F_WIRE) \
	X(FT_F64, blocked_pct, NULL, F_WIRE) \
	X(FT_F64, pace_lost_pct, NULL, F_WIRE) \
	X(FT_F64, steal_pct, NULL, F_WIRE) \
	X(FT_F64, runq_pct, NULL, F_WIRE) \
	X(FT_I32, last_cpu, NULL, F_WIRE) \
	X(FT_U8, sched, NULL, F_WIRE) \
	X(FT_U64, tx_busy, NULL, F_WIRE) \
	X(FT_STR, cpus, NULL, F_WIRE) \
	X(FT_STR, rx_path, NULL, F_WIRE) \
	X(FT_U64, rx_mapped, NULL, F_WIRE)

/* The wire length of a table of fixed-size fields, as a constant expression. */
#define FIELD_WIRE_SIZE(t, m, k, fl) +(((fl) & F_WIRE) ? FT_WSZ_##t : 0)

struct field {
	const char *name;      /* the C member, for messages and tests */
	const char *key;       /* JSON key, NULL if not in JSON */
	size_t off, size;
	enum field_type type;
	unsigned flags;
};

struct field_table {
	const char *name;      /* the struct, for messages and tests */
	const struct field *f;
	size_t n;
};

extern const struct field_table fields_params, fields_result, fields_figures, fields_stream,
	fields_interval, fields_snap, fields_dir_summary, fields_shaping, fields_latency,
	fields_limit, fields_lul, fields_rpm;

/* Binary: every F_WIRE field of src, in table order. */
void fields_put(struct proto_buf *b, const struct field_table *t, const void *src);
/* Reads every F_WIRE field into dst (other fields are left alone); a short message or a bad
 * string marks r bad. Returns the first field whose value is out of range (an enum past its
 * last value; it is set to its first value), or NULL. */
const struct field *fields_get(struct proto_rd *r, const struct field_table *t, void *dst);

/* The same over every field of the table, F_WIRE or F_JSON: a whole probe_result in binary,
 * as a delegated run's client agent sends it back (result_wire.h). Adding any field to a
 * result table changes those messages too: bump PROTO_VERSION. */
void fields_put_all(struct proto_buf *b, const struct field_table *t, const void *src);
const struct field *fields_get_all(struct proto_rd *r, const struct field_table *t, void *dst);
/* Bytes of every field of a table of fixed-size fields, as fields_put_all writes them. */
#define FIELD_ALL_SIZE(t, m, k, fl) +FT_WSZ_##t

/* JSON: every F_JSON field of src as "key": value, skipping F_TCP / F_UDP fields of the
 * other protocol. */
void fields_json(struct jsonw *w, const struct field_table *t, const void *src,
		 enum ns_proto proto);

/* Whether field f goes to JSON for a result of protocol proto. */
bool field_in_json(const struct field *f, enum ns_proto proto);

#endif
