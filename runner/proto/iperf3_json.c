/* iperf3_json: a probe result as iperf3 -J lays it out (see iperf3_json.h). iperf3's
 * conventions kept: "socket" identifies a stream (here its id + IPERF3_SOCKET_BASE, so that
 * it is never 0..2 as iperf3's descriptors are not), rtt figures are integer microseconds,
 * "sender" says whether this end (the client) sent, and UDP's sum_received says false. A
 * figure netsweep does not measure (snd_wnd, rttvar, pmtu, the agent's user/system split)
 * is left out rather than invented; the "netsweep" key holds everything else. */
#include "iperf3_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/jsonw.h"
#include "runner/core/version.h"

/* iperf3's first data socket is descriptor 5 on a client; stream ids start there too. */
#define IPERF3_SOCKET_BASE 5

static int64_t usec(double ms)
{
	return isfinite(ms) ? (int64_t)llround(ms * 1000.0) : 0;
}

static bool client_sends(enum ns_dir d)
{
	return d != NS_DIR_REVERSE;
}

static void timestamp_json(struct jsonw *w, double unix_s)
{
	char text[64] = "";
	time_t t = (time_t)unix_s;
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(text, sizeof(text), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	jsonw_key(w, "timestamp");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "time", text);
	jsonw_kv_int(w, "timesecs", (int64_t)t);
	jsonw_obj_close(w);
}

static void start_body(struct jsonw *w, const struct probe_params *p, const struct iperf3_ctx *c)
{
	jsonw_key(w, "connected");
	jsonw_arr_open(w);
	for (uint32_t i = 0; i < p->streams; i++) {
		jsonw_obj_open(w);
		jsonw_kv_int(w, "socket", IPERF3_SOCKET_BASE + (int64_t)i);
		jsonw_kv_str(w, "local_host", p->bind);
		jsonw_kv_int(w, "local_port", p->cport ? (int64_t)p->cport + i : 0);
		jsonw_kv_str(w, "remote_host", p->host);
		jsonw_kv_int(w, "remote_port", p->port);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
	jsonw_kv_str(w, "version", "netsweep " NETSWEEP_VERSION);
	jsonw_kv_str(w, "system_info", c && c->system_info ? c->system_info : "");
	timestamp_json(w, c ? c->start_unix : 0);
	jsonw_key(w, "connecting_to");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "host", p->host);
	jsonw_kv_int(w, "port", p->port);
	jsonw_obj_close(w);
	jsonw_kv_str(w, "cookie", "");
	if (p->proto == NS_PROTO_TCP && p->mss)
		jsonw_kv_int(w, "tcp_mss", p->mss);
	jsonw_kv_uint(w, "target_bitrate", p->rate_bps);
	jsonw_kv_uint(w, "sock_bufsize", p->window);
	jsonw_key(w, "test_start");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "protocol", p->proto == NS_PROTO_UDP ? "UDP" : p->proto == NS_PROTO_QUIC ? "QUIC"
									      : "TCP");
	jsonw_kv_int(w, "num_streams", p->streams);
	jsonw_kv_int(w, "blksize", p->length ? p->length
				   : p->proto == NS_PROTO_UDP ? NS_UDP_DEFAULT_LEN : NS_TCP_DEFAULT_LEN);
	jsonw_kv_int(w, "omit", (int64_t)p->omit_s);
	jsonw_kv_int(w, "duration", (int64_t)p->duration_s);
	jsonw_kv_uint(w, "bytes", p->bytes);
	jsonw_kv_uint(w, "blocks", p->blocks);
	jsonw_kv_int(w, "reverse", p->dir == NS_DIR_REVERSE);
	jsonw_kv_int(w, "tos", p->tos);
	jsonw_kv_uint(w, "target_bitrate", p->rate_bps);
	jsonw_kv_int(w, "bidir", p->dir == NS_DIR_BIDIR);
	jsonw_kv_uint(w, "fqrate", p->fq_rate_bps);
	jsonw_kv_double(w, "interval", p->interval_s);
	jsonw_obj_close(w);
}

/* start / end / seconds / bytes / bits_per_second of one span. */
static void span_json(struct jsonw *w, double start, double end, uint64_t bytes, double bps)
{
	jsonw_kv_double(w, "start", start);
	jsonw_kv_double(w, "end", end);
	jsonw_kv_double(w, "seconds", end - start);
	jsonw_kv_uint(w, "bytes", bytes);
	jsonw_kv_double(w, "bits_per_second", bps);
}

/* One interval entry (a stream's or the sum) from this end's view. */
static void interval_entry(struct jsonw *w, const struct probe_params *p,
			   const struct probe_interval *v, enum ns_dir dir, bool sum)
{
	bool sends = client_sends(dir);
	jsonw_obj_open(w);
	if (!sum)
		jsonw_kv_int(w, "socket", IPERF3_SOCKET_BASE + (int64_t)v->stream);
	span_json(w, v->start_s, v->end_s, v->bytes, v->bits_per_second);
	if (p->proto != NS_PROTO_UDP && sends) { /* QUIC: lost packets, cwnd, RTT */
		jsonw_kv_uint(w, "retransmits", v->retransmits);
		if (!sum) {
			jsonw_kv_uint(w, "snd_cwnd", v->cwnd_bytes);
			jsonw_kv_int(w, "rtt", usec(v->rtt_ms));
		}
	}
	if (p->proto == NS_PROTO_UDP) {
		if (!sends) {
			jsonw_kv_double(w, "jitter_ms", v->jitter_ms);
			jsonw_kv_uint(w, "lost_packets", v->lost);
		}
		jsonw_kv_uint(w, "packets", v->packets);
		if (!sends) {
			uint64_t all = v->packets + v->lost;
			jsonw_kv_double(w, "lost_percent", all ? 100.0 * (double)v->lost / (double)all : 0);
		}
	}
	jsonw_kv_bool(w, "omitted", v->omitted);
	jsonw_kv_bool(w, "sender", sends);
	jsonw_obj_close(w);
}

/* The index range [*lo, *hi) of direction d's per-stream intervals that share sum i's span. */
static void stream_run(const struct probe_direction *d, uint32_t i, uint32_t *lo, uint32_t *hi)
{
	double t = d->intervals[i].start_s;
	uint32_t a = i, b = i + 1;
	while (a > 0 && d->intervals[a - 1].stream >= 0 && d->intervals[a - 1].start_s == t)
		a--;
	while (b < d->n_intervals && d->intervals[b].stream >= 0 && d->intervals[b].start_s == t)
		b++;
	*lo = a;
	*hi = b;
}

/* The k-th sum interval of a direction, or -1. */
static int64_t nth_sum(const struct probe_direction *d, uint32_t k)
{
	for (uint32_t i = 0; i < d->n_intervals; i++)
		if (d->intervals[i].stream == -1 && k-- == 0)
			return i;
	return -1;
}

static void intervals_json(struct jsonw *w, const struct probe_result *r)
{
	const struct probe_params *p = &r->params;
	jsonw_key(w, "intervals");
	jsonw_arr_open(w);
	if (r->n_dirs == 0) {
		jsonw_arr_close(w);
		return;
	}
	const struct probe_direction *d0 = &r->dirs[0];
	for (uint32_t k = 0;; k++) {
		int64_t s0 = nth_sum(d0, k);
		if (s0 < 0)
			break;
		int64_t s1 = r->n_dirs > 1 ? nth_sum(&r->dirs[1], k) : -1;
		jsonw_obj_open(w);
		jsonw_key(w, "streams");
		jsonw_arr_open(w);
		for (uint32_t n = 0; n < 2; n++) {
			int64_t s = n ? s1 : s0;
			if (s < 0)
				continue;
			const struct probe_direction *d = &r->dirs[n];
			uint32_t lo, hi;
			stream_run(d, (uint32_t)s, &lo, &hi);
			for (uint32_t i = lo; i < hi; i++)
				if (d->intervals[i].stream >= 0)
					interval_entry(w, p, &d->intervals[i], d->dir, false);
		}
		jsonw_arr_close(w);
		jsonw_key(w, "sum");
		interval_entry(w, p, &d0->intervals[s0], d0->dir, true);
		if (s1 >= 0) {
			jsonw_key(w, "sum_bidir_reverse");
			interval_entry(w, p, &r->dirs[1].intervals[s1], r->dirs[1].dir, true);
		}
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

/* max/min/mean of a stream's rtt and max cwnd over its intervals (the final figures when
 * there are none). */
static void tcp_stream_extremes(const struct probe_direction *d, uint32_t id,
				const struct probe_figures *f, struct jsonw *w)
{
	double mx = 0, mn = 0, sum = 0;
	uint64_t cwnd = f->cwnd_bytes, n = 0;
	for (uint32_t i = 0; i < d->n_intervals; i++) {
		const struct probe_interval *v = &d->intervals[i];
		if (v->stream != (int32_t)id || v->rtt_ms <= 0)
			continue;
		mx = n ? fmax(mx, v->rtt_ms) : v->rtt_ms;
		mn = n ? fmin(mn, v->rtt_ms) : v->rtt_ms;
		sum += v->rtt_ms;
		n++;
		if (v->cwnd_bytes > cwnd)
			cwnd = v->cwnd_bytes;
	}
	if (!n)
		mx = mn = sum = f->rtt_ms, n = 1;
	jsonw_kv_uint(w, "max_snd_cwnd", cwnd);
	jsonw_kv_int(w, "max_rtt", usec(mx));
	jsonw_kv_int(w, "min_rtt", usec(mn));
	jsonw_kv_int(w, "mean_rtt", usec(sum / (double)n));
}

static void udp_figures(struct jsonw *w, const struct probe_figures *f, bool with_ooo)
{
	jsonw_kv_double(w, "jitter_ms", f->jitter_ms);
	jsonw_kv_uint(w, "lost_packets", f->lost);
	jsonw_kv_uint(w, "packets", f->packets + f->lost);
	jsonw_kv_double(w, "lost_percent", f->lost_percent);
	if (with_ooo)
		jsonw_kv_uint(w, "out_of_order", f->out_of_order);
}

static void end_streams(struct jsonw *w, const struct probe_result *r)
{
	const struct probe_params *p = &r->params;
	double t = r->duration_s;
	jsonw_key(w, "streams");
	jsonw_arr_open(w);
	for (uint32_t n = 0; n < r->n_dirs && n < 2; n++) {
		const struct probe_direction *d = &r->dirs[n];
		bool sends = client_sends(d->dir);
		for (uint32_t i = 0; i < d->n_streams; i++) {
			const struct probe_stream_result *s = &d->streams[i];
			int64_t sock = IPERF3_SOCKET_BASE + (int64_t)s->id;
			jsonw_obj_open(w);
			if (p->proto == NS_PROTO_UDP) {
				jsonw_key(w, "udp");
				jsonw_obj_open(w);
				jsonw_kv_int(w, "socket", sock);
				span_json(w, 0, t, s->receiver.bytes, s->receiver.bits_per_second);
				udp_figures(w, &s->receiver, true);
				jsonw_kv_bool(w, "sender", sends);
				jsonw_obj_close(w);
			} else {
				jsonw_key(w, "sender");
				jsonw_obj_open(w);
				jsonw_kv_int(w, "socket", sock);
				span_json(w, 0, t, s->sender.bytes, s->sender.bits_per_second);
				jsonw_kv_uint(w, "retransmits", s->sender.retransmits);
				tcp_stream_extremes(d, s->id, &s->sender, w);
				jsonw_kv_bool(w, "sender", sends);
				jsonw_obj_close(w);
				jsonw_key(w, "receiver");
				jsonw_obj_open(w);
				jsonw_kv_int(w, "socket", sock);
				span_json(w, 0, t, s->receiver.bytes, s->receiver.bits_per_second);
				jsonw_kv_bool(w, "sender", sends);
				jsonw_obj_close(w);
			}
			jsonw_obj_close(w);
		}
	}
	jsonw_arr_close(w);
}

static void end_sums(struct jsonw *w, const struct probe_result *r, const struct probe_direction *d,
		     const char *suffix)
{
	const struct probe_params *p = &r->params;
	bool sends = client_sends(d->dir), udp = p->proto == NS_PROTO_UDP;
	double t = r->duration_s;
	char key[48];
	if (udp) {
		snprintf(key, sizeof(key), "sum%s", suffix);
		jsonw_key(w, key);
		jsonw_obj_open(w);
		span_json(w, 0, t, d->receiver.bytes, d->receiver.bits_per_second);
		udp_figures(w, &d->receiver, false);
		jsonw_kv_bool(w, "sender", sends);
		jsonw_obj_close(w);
	}
	snprintf(key, sizeof(key), "sum_sent%s", suffix);
	jsonw_key(w, key);
	jsonw_obj_open(w);
	span_json(w, 0, t, d->sender.bytes, d->sender.bits_per_second);
	if (udp) {
		jsonw_kv_double(w, "jitter_ms", 0);
		jsonw_kv_uint(w, "lost_packets", 0);
		jsonw_kv_uint(w, "packets", d->sender.packets);
		jsonw_kv_double(w, "lost_percent", 0);
	} else {
		jsonw_kv_uint(w, "retransmits", d->sender.retransmits);
	}
	jsonw_kv_bool(w, "sender", sends);
	jsonw_obj_close(w);
	snprintf(key, sizeof(key), "sum_received%s", suffix);
	jsonw_key(w, key);
	jsonw_obj_open(w);
	span_json(w, 0, t, d->receiver.bytes, d->receiver.bits_per_second);
	if (udp)
		udp_figures(w, &d->receiver, false);
	jsonw_kv_bool(w, "sender", udp ? false : sends);
	jsonw_obj_close(w);
}

/* This end's CPU is the process's (as iperf3's), the agent's its engine threads' total. */
static void cpu_json(struct jsonw *w, const struct probe_result *r, const struct iperf3_ctx *c)
{
	double local = 0, remote = 0;
	for (uint32_t n = 0; n < r->n_dirs && n < 2; n++) {
		const struct probe_direction *d = &r->dirs[n];
		bool sends = client_sends(d->dir);
		local += sends ? d->sender.cpu_percent : d->receiver.cpu_percent;
		remote += sends ? d->receiver.cpu_percent : d->sender.cpu_percent;
	}
	jsonw_key(w, "cpu_utilization_percent");
	jsonw_obj_open(w);
	if (c && c->host_user_pct >= 0 && c->host_system_pct >= 0) {
		jsonw_kv_double(w, "host_total", c->host_user_pct + c->host_system_pct);
		jsonw_kv_double(w, "host_user", c->host_user_pct);
		jsonw_kv_double(w, "host_system", c->host_system_pct);
	} else {
		jsonw_kv_double(w, "host_total", local);
	}
	jsonw_kv_double(w, "remote_total", remote);
	jsonw_obj_close(w);
}

static void end_body(struct jsonw *w, const struct probe_result *r, const struct iperf3_ctx *c)
{
	static const struct probe_direction empty;
	end_streams(w, r);
	end_sums(w, r, r->n_dirs ? &r->dirs[0] : &empty, "");
	if (r->n_dirs > 1)
		end_sums(w, r, &r->dirs[1], "_bidir_reverse");
	cpu_json(w, r, c);
	if (r->params.proto == NS_PROTO_TCP && r->params.congestion[0]) {
		jsonw_kv_str(w, "sender_tcp_congestion", r->params.congestion);
		jsonw_kv_str(w, "receiver_tcp_congestion", r->params.congestion);
	}
}

/* iperf3 puts a failed test's reason in "error" at the top. */
static void ext_json(struct jsonw *w, const struct probe_result *r)
{
	if (r->status != 0)
		jsonw_kv_str(w, "error", r->error[0] ? r->error : "unknown error");
	char *own = probe_result_json(r, false);
	jsonw_key(w, "netsweep");
	if (own)
		jsonw_raw(w, own);
	else
		jsonw_null(w);
	free(own);
}

char *iperf3_json(const struct probe_result *res, const struct iperf3_ctx *ctx, bool pretty)
{
	struct jsonw w;
	jsonw_init(&w, pretty);
	jsonw_obj_open(&w);
	jsonw_key(&w, "start");
	jsonw_obj_open(&w);
	start_body(&w, &res->params, ctx);
	jsonw_obj_close(&w);
	intervals_json(&w, res);
	jsonw_key(&w, "end");
	jsonw_obj_open(&w);
	end_body(&w, res, ctx);
	jsonw_obj_close(&w);
	ext_json(&w, res);
	jsonw_obj_close(&w);
	return jsonw_steal(&w);
}

static void event_open(struct jsonw *w, const char *event)
{
	jsonw_init(w, false);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "event", event);
	jsonw_key(w, "data");
	jsonw_obj_open(w);
}

static char *event_close(struct jsonw *w)
{
	jsonw_obj_close(w);
	jsonw_obj_close(w);
	return jsonw_steal(w);
}

char *iperf3_json_event_start(const struct probe_params *p, const struct iperf3_ctx *ctx)
{
	struct jsonw w;
	event_open(&w, "start");
	start_body(&w, p, ctx);
	return event_close(&w);
}

char *iperf3_json_event_interval(const struct probe_params *p, const struct probe_interval *sum,
				 const struct probe_interval *streams, uint32_t n, enum ns_dir dir)
{
	struct jsonw w;
	event_open(&w, "interval");
	jsonw_key(&w, "streams");
	jsonw_arr_open(&w);
	for (uint32_t i = 0; i < n; i++)
		interval_entry(&w, p, &streams[i], dir, false);
	jsonw_arr_close(&w);
	jsonw_key(&w, dir == NS_DIR_REVERSE && p->dir == NS_DIR_BIDIR ? "sum_bidir_reverse" : "sum");
	interval_entry(&w, p, sum, dir, true);
	return event_close(&w);
}

char *iperf3_json_event_end(const struct probe_result *res, const struct iperf3_ctx *ctx)
{
	struct jsonw w;
	event_open(&w, "end");
	end_body(&w, res, ctx);
	ext_json(&w, res);
	return event_close(&w);
}
