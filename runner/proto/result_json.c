/* result_json: the stable JSON contract of `netsweep probe --json` (schemas/probe-result.md),
 * and the destructor of a probe_result. Everything goes through jsonw, so the text is valid
 * JSON whatever the figures hold (non-finite numbers become null). */
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "runner/core/version.h"
#include "probe.h"

#define PROBE_JSON_VERSION 1

void probe_result_free(struct probe_result *res)
{
	if (!res)
		return;
	for (uint32_t i = 0; i < 2; i++) {
		free(res->dirs[i].streams);
		free(res->dirs[i].intervals);
		res->dirs[i].streams = NULL;
		res->dirs[i].intervals = NULL;
		res->dirs[i].n_streams = res->dirs[i].n_intervals = 0;
	}
	free(res->agent_hostinfo);
	res->agent_hostinfo = NULL;
}

static void params_json(struct jsonw *w, const struct probe_params *p)
{
	jsonw_key(w, "params");
	jsonw_obj_open(w);
	jsonw_kv_str(w, "host", p->host);
	jsonw_kv_uint(w, "port", p->port);
	jsonw_kv_str(w, "protocol", ns_proto_name(p->proto));
	jsonw_kv_str(w, "direction", ns_dir_name(p->dir));
	jsonw_kv_uint(w, "streams", p->streams);
	jsonw_kv_uint(w, "threads", p->threads);
	jsonw_kv_uint(w, "length", p->length);
	jsonw_kv_uint(w, "rate_bps", p->rate_bps);
	jsonw_kv_uint(w, "fq_rate_bps", p->fq_rate_bps);
	jsonw_kv_double(w, "duration_s", p->duration_s);
	jsonw_kv_double(w, "interval_s", p->interval_s);
	jsonw_kv_double(w, "omit_s", p->omit_s);
	jsonw_kv_str(w, "affinity", p->affinity);
	jsonw_kv_uint(w, "window", p->window);
	jsonw_kv_uint(w, "mss", p->mss);
	jsonw_kv_bool(w, "nodelay", p->nodelay);
	jsonw_kv_str(w, "congestion", p->congestion);
	jsonw_kv_bool(w, "gso", p->gso);
	jsonw_kv_double(w, "connect_timeout_s", p->connect_timeout_s);
	jsonw_kv_double(w, "timeout_s", p->timeout_s);
	jsonw_obj_close(w);
}

/* Fields that do not apply to the protocol are omitted; sender and receiver objects carry the
 * same keys so that scripts can read either without special cases. */
static void figures_json(struct jsonw *w, const char *key, const struct probe_figures *f,
			 enum ns_proto proto)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_uint(w, "bytes", f->bytes);
	jsonw_kv_double(w, "bits_per_second", f->bits_per_second);
	jsonw_kv_uint(w, "packets", f->packets);
	jsonw_kv_double(w, "packets_per_second", f->packets_per_second);
	jsonw_kv_double(w, "cpu_percent", f->cpu_percent);
	if (proto == NS_PROTO_TCP) {
		jsonw_kv_uint(w, "retransmits", f->retransmits);
		jsonw_kv_double(w, "rtt_ms", f->rtt_ms);
		jsonw_kv_uint(w, "cwnd_bytes", f->cwnd_bytes);
	} else {
		jsonw_kv_uint(w, "lost", f->lost);
		jsonw_kv_double(w, "lost_percent", f->lost_percent);
		jsonw_kv_uint(w, "out_of_order", f->out_of_order);
		jsonw_kv_uint(w, "duplicates", f->duplicates);
		jsonw_kv_double(w, "jitter_ms", f->jitter_ms);
		jsonw_kv_uint(w, "kernel_drops", f->kernel_drops);
	}
	jsonw_obj_close(w);
}

static void interval_json(struct jsonw *w, const struct probe_interval *v, enum ns_dir dir,
			  enum ns_proto proto)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "direction", ns_dir_name(dir));
	jsonw_kv_int(w, "stream", v->stream);
	jsonw_kv_double(w, "start_s", v->start_s);
	jsonw_kv_double(w, "end_s", v->end_s);
	jsonw_kv_uint(w, "bytes", v->bytes);
	jsonw_kv_double(w, "bits_per_second", v->bits_per_second);
	jsonw_kv_uint(w, "packets", v->packets);
	if (proto == NS_PROTO_TCP) {
		jsonw_kv_uint(w, "retransmits", v->retransmits);
		jsonw_kv_uint(w, "cwnd_bytes", v->cwnd_bytes);
		jsonw_kv_double(w, "rtt_ms", v->rtt_ms);
	} else {
		jsonw_kv_uint(w, "lost", v->lost);
		jsonw_kv_double(w, "jitter_ms", v->jitter_ms);
	}
	jsonw_kv_bool(w, "omitted", v->omitted);
	jsonw_obj_close(w);
}

static void sum_json(struct jsonw *w, const char *key, const struct probe_direction *d,
		     enum ns_proto proto)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "direction", ns_dir_name(d->dir));
	figures_json(w, "sender", &d->sender, proto);
	figures_json(w, "receiver", &d->receiver, proto);
	jsonw_obj_close(w);
}

static void warnings_json(struct jsonw *w, const char *text)
{
	jsonw_key(w, "warnings");
	jsonw_arr_open(w);
	const char *p = text;
	while (p && *p) {
		const char *sep = strstr(p, "; ");
		size_t n = sep ? (size_t)(sep - p) : strlen(p);
		char one[NS_ERR_MAX];
		if (n >= sizeof(one))
			n = sizeof(one) - 1;
		memcpy(one, p, n);
		one[n] = '\0';
		if (n)
			jsonw_str(w, one);
		p = sep ? sep + 2 : NULL;
	}
	jsonw_arr_close(w);
}

char *probe_result_json(const struct probe_result *res, bool pretty)
{
	struct jsonw w;
	const struct probe_params *p = &res->params;
	jsonw_init(&w, pretty);
	jsonw_obj_open(&w);
	jsonw_kv_uint(&w, "version", PROBE_JSON_VERSION);
	jsonw_kv_str(&w, "netsweep", NETSWEEP_VERSION);
	jsonw_kv_str(&w, "status", res->status == 0 ? "ok" : "error");
	if (res->status != 0)
		jsonw_kv_str(&w, "error", res->error[0] ? res->error : "unknown error");
	warnings_json(&w, res->warnings);
	jsonw_kv_str(&w, "protocol", ns_proto_name(p->proto));
	jsonw_kv_str(&w, "direction", ns_dir_name(p->dir));
	jsonw_kv_uint(&w, "streams", p->streams);
	jsonw_kv_double(&w, "duration_s", res->duration_s);
	jsonw_kv_bool(&w, "gso_active", res->gso_active);
	params_json(&w, p);

	jsonw_key(&w, "intervals");
	jsonw_arr_open(&w);
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++)
		for (uint32_t i = 0; i < res->dirs[d].n_intervals; i++)
			interval_json(&w, &res->dirs[d].intervals[i], res->dirs[d].dir, p->proto);
	jsonw_arr_close(&w);

	jsonw_key(&w, "streams_detail");
	jsonw_arr_open(&w);
	for (uint32_t d = 0; d < res->n_dirs && d < 2; d++) {
		for (uint32_t i = 0; i < res->dirs[d].n_streams; i++) {
			const struct probe_stream_result *s = &res->dirs[d].streams[i];
			jsonw_obj_open(&w);
			jsonw_kv_str(&w, "direction", ns_dir_name(res->dirs[d].dir));
			jsonw_kv_uint(&w, "id", s->id);
			jsonw_kv_int(&w, "cpu", s->cpu);
			figures_json(&w, "sender", &s->sender, p->proto);
			figures_json(&w, "receiver", &s->receiver, p->proto);
			jsonw_obj_close(&w);
		}
	}
	jsonw_arr_close(&w);

	/* "sum" is always present (zeros when nothing ran), so scripts need no guard. */
	static const struct probe_direction empty;
	sum_json(&w, "sum", res->n_dirs > 0 ? &res->dirs[0] : &empty, p->proto);
	if (res->n_dirs > 1)
		sum_json(&w, "sum_reverse", &res->dirs[1], p->proto);
	jsonw_key(&w, "agent_hostinfo");
	jsonw_raw(&w, res->agent_hostinfo);
	jsonw_obj_close(&w);
	return jsonw_steal(&w);
}
