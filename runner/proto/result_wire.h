/* result_wire: a whole probe_result as binary messages — how a delegated run's client agent
 * hands its result back to the runner (schemas/control-protocol.md, delegated runs). Every
 * field of the result's tables (fields.h) travels, encoded by the same table walk as the
 * direct run's RESULTS (fields_put_all / fields_get_all); the reader bounds every count before
 * it allocates, and keeps only what arrived in order. */
#ifndef NS_RESULT_WIRE_H
#define NS_RESULT_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "codec.h"
#include "fields.h"
#include "probe.h"
#include "proto.h"

/* Wire bytes of one DELEGATE_STREAMS record (id, cpu, sender and receiver figures) and of one
 * DELEGATE_INTERVALS record (every probe_interval field, the stream included). */
#define PROTO_DSTREAM_WIRE_LEN \
	(0 PROBE_STREAM_FIELDS(FIELD_ALL_SIZE) + 2 * (0 PROBE_FIGURES_FIELDS(FIELD_ALL_SIZE)))
#define PROTO_DIVL_WIRE_LEN (0 PROBE_INTERVAL_FIELDS(FIELD_ALL_SIZE))
/* ... of one DELEGATE_LAT_INTERVALS record (start, end, omitted, the latency figures). */
#define PROTO_DLATIVL_WIRE_LEN (17 PROBE_LATENCY_FIELDS(FIELD_ALL_SIZE))
#define PROTO_DSTREAMS_PER_CHUNK ((PROTO_MAX_PAYLOAD - 16) / PROTO_DSTREAM_WIRE_LEN)
#define PROTO_DIVLS_PER_CHUNK ((PROTO_MAX_PAYLOAD - 16) / PROTO_DIVL_WIRE_LEN)
#define PROTO_DLATIVLS_PER_CHUNK ((PROTO_MAX_PAYLOAD - 16) / PROTO_DLATIVL_WIRE_LEN)
/* A direction's intervals in a delegated result, at most: one end's sums and stream records. */
#define PROTO_MAX_RESULT_INTERVALS (PROTO_MAX_INTERVALS + PROTO_MAX_STREAM_RECORDS)

/* DELEGATE_RESULT: u8 status (0 ok, 1 failed), str error, str warnings, every fields_result
 * field, u32 n_dirs (<= 2), then per direction: u8 dir (0 forward, 1 reverse), sender and
 * receiver figures, u8 shaping found, the shaping fields, u32 streams, u32 intervals (the
 * counts of the chunks that follow). params are not sent: the runner knows what it asked. */
void proto_enc_delegate_result(struct proto_buf *b, const struct probe_result *r);
/* DELEGATE_STREAMS: u8 direction index, u32 first, u32 count, count records. */
void proto_enc_delegate_streams(struct proto_buf *b, uint8_t d, uint32_t first,
				const struct probe_stream_result *s, uint32_t count);
/* DELEGATE_INTERVALS: u8 direction index, u32 first, u32 count, count records. */
void proto_enc_delegate_intervals(struct proto_buf *b, uint8_t d, uint32_t first,
				  const struct probe_interval *v, uint32_t count);

/* DELEGATE_LATENCY, for a result with a latency or latency_under_load object: u8 flags (1:
 * latency, 2: latency_under_load); with 1 every fields_latency field of its sum, f64
 * relative_error, i32 client_cpu, i32 agent_cpu, u8 client_clock_synced, f64
 * client_clock_maxerror_us, str one_way_why, u32 intervals; with 2 every fields_lul field,
 * the idle and the loaded fields_latency, u32 intervals (the loaded window's). */
void proto_enc_delegate_latency(struct proto_buf *b, const struct probe_result *r);
/* DELEGATE_LAT_HISTOGRAM: u8 which (1 latency, 2 the probe's idle, 3 its loaded), str the
 * lathist_encode text; at most one of each, only for an object DELEGATE_LATENCY brought. */
void proto_enc_delegate_lat_histogram(struct proto_buf *b, uint8_t which, const char *text);
/* DELEGATE_LAT_INTERVALS: u8 series (1 latency, 2 the probe's loaded window), u32 first,
 * u32 count, count records (f64 start_s, f64 end_s, u8 omitted, the latency figures). */
void proto_enc_delegate_lat_intervals(struct proto_buf *b, uint8_t series, uint32_t first,
				      const struct probe_latency_interval *v, uint32_t count);

/* Sends r as DELEGATE_RESULT, then its streams and intervals in chunks, direction by
 * direction, then DELEGATE_LATENCY if it has latency objects, their histograms and their
 * series in chunks; the caller ends with DONE. */
int proto_send_delegate_result(int fd, const struct probe_result *r, double deadline,
			       struct ns_err *err);

/* The runner's side: fed each message in the order it came. */
struct proto_result_rd {
	struct probe_result *res;         /* filled as messages come; the caller frees it */
	bool have_sums;                   /* DELEGATE_RESULT read */
	bool have_latency;                /* DELEGATE_LATENCY read (at most one) */
	uint32_t want_streams[2], want_ivl[2];
	uint32_t want_lat_ivl[2];         /* the latency series, the latency probe's loaded one */
};
/* res is emptied (its params kept). */
void proto_result_rd_init(struct proto_result_rd *rd, struct probe_result *res);
/* Takes one message: returns 1 when DONE closed a complete result, 0 when more must come,
 * -1 (err set) for a message out of place, out of order, out of range or malformed. */
int proto_result_rd_msg(struct proto_result_rd *rd, uint16_t type, const uint8_t *p,
			size_t len, struct ns_err *err);

#endif
