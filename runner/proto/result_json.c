/* result_json: the stable JSON contract of `netsweep probe --json` (schemas/probe-result.md),
 * and the destructor of a probe_result. Each struct's keys come from its field table
 * (fields.h); everything goes through jsonw, so the text is valid JSON whatever the figures
 * hold (non-finite numbers become null). */
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "lib/rpm.h"
#include "runner/core/version.h"
#include "fields.h"
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
	free(res->latency.histogram);
	free(res->latency.intervals);
	memset(&res->latency, 0, sizeof(res->latency));
	free(res->lul.idle_histogram);
	free(res->lul.loaded_histogram);
	free(res->lul.intervals);
	memset(&res->lul, 0, sizeof(res->lul));
}

/* Fields that do not apply to the protocol are omitted; sender and receiver objects carry the
 * same keys so that scripts can read either without special cases. */
static void figures_json(struct jsonw *w, const char *key, const struct probe_figures *f,
			 enum ns_proto proto)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	fields_json(w, &fields_figures, f, proto);
	jsonw_obj_close(w);
}

static void interval_json(struct jsonw *w, const struct probe_interval *v, enum ns_dir dir,
			  enum ns_proto proto)
{
	jsonw_obj_open(w);
	jsonw_kv_str(w, "direction", ns_dir_name(dir));
	fields_json(w, &fields_interval, v, proto);
	jsonw_obj_close(w);
}

static void sum_json(struct jsonw *w, const char *key, const struct probe_direction *d,
		     enum ns_proto proto)
{
	jsonw_key(w, key);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "direction", ns_dir_name(d->dir));
	figures_json(w, "sender", &d->sender, proto);
	jsonw_key(w, "receiver");
	jsonw_obj_open(w);
	fields_json(w, &fields_figures, &d->receiver, proto);
	jsonw_key(w, "shaping");
	if (d->shaping.found) {
		jsonw_obj_open(w);
		fields_json(w, &fields_shaping, &d->shaping, proto);
		jsonw_obj_close(w);
	} else {
		jsonw_null(w);
	}
	jsonw_obj_close(w);
	jsonw_key(w, "limit");
	jsonw_obj_open(w);
	fields_json(w, &fields_limit, &d->limit, proto);
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

/* "intervals": a latency series (the sum over streams, interval by interval). */
static void lat_intervals_json(struct jsonw *w, const struct probe_latency_interval *ivl,
			       uint32_t n, enum ns_proto proto)
{
	jsonw_key(w, "intervals");
	jsonw_arr_open(w);
	for (uint32_t i = 0; i < n; i++) {
		jsonw_obj_open(w);
		jsonw_kv_double(w, "start_s", ivl[i].start_s);
		jsonw_kv_double(w, "end_s", ivl[i].end_s);
		jsonw_kv_bool(w, "omitted", ivl[i].omitted);
		fields_json(w, &fields_latency, &ivl[i].f, proto);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
}

/* "latency": the request/response figures, their series and the histogram, or null. */
static void latency_json(struct jsonw *w, const struct probe_result *res)
{
	const struct probe_latency *l = &res->latency;
	jsonw_key(w, "latency");
	if (!l->present) {
		jsonw_null(w);
		return;
	}
	uint32_t req, resp;
	probe_rr_sizes(&res->params, &req, &resp);
	jsonw_obj_open(w);
	jsonw_kv_str(w, "test", probe_rr_test(&res->params));
	jsonw_kv_uint(w, "request", req);
	jsonw_kv_uint(w, "response", resp);
	jsonw_kv_double(w, "rate", res->params.rr_rate);
	fields_json(w, &fields_latency, &l->sum, res->params.proto);
	jsonw_kv_double(w, "relative_error", l->relative_error);
	jsonw_kv_int(w, "client_cpu", l->client_cpu);
	jsonw_kv_int(w, "agent_cpu", l->agent_cpu);
	jsonw_key(w, "one_way");
	jsonw_null(w);
	jsonw_kv_str(w, "one_way_why", l->one_way_why);
	jsonw_kv_bool(w, "client_clock_synced", l->client_clock_synced);
	jsonw_kv_double(w, "client_clock_maxerror_us", l->client_clock_maxerror_us);
	jsonw_kv_str(w, "histogram", l->histogram ? l->histogram : "");
	lat_intervals_json(w, l->intervals, l->n_intervals, res->params.proto);
	jsonw_obj_close(w);
}

/* "latency_under_load": a latency probe's idle and loaded figures and what the load added,
 * or null. */
static void lul_json(struct jsonw *w, const struct probe_result *res)
{
	const struct probe_lul *l = &res->lul;
	jsonw_key(w, "latency_under_load");
	if (!l->present) {
		jsonw_null(w);
		return;
	}
	jsonw_obj_open(w);
	fields_json(w, &fields_lul, l, res->params.proto);
	jsonw_key(w, "idle");
	jsonw_obj_open(w);
	fields_json(w, &fields_latency, &l->idle, res->params.proto);
	jsonw_kv_str(w, "histogram", l->idle_histogram ? l->idle_histogram : "");
	jsonw_obj_close(w);
	jsonw_key(w, "loaded");
	jsonw_obj_open(w);
	fields_json(w, &fields_latency, &l->loaded, res->params.proto);
	jsonw_kv_str(w, "histogram", l->loaded_histogram ? l->loaded_histogram : "");
	lat_intervals_json(w, l->intervals, l->n_intervals, res->params.proto);
	jsonw_obj_close(w);
	jsonw_obj_close(w);
}

/* "responsiveness": its figures, the method's constants and the saturation search; absent
 * for every other test. */
static void rpm_json(struct jsonw *w, const struct probe_result *res)
{
	const struct probe_rpm *r = &res->rpm;
	if (!r->present)
		return;
	jsonw_key(w, "responsiveness");
	jsonw_obj_open(w);
	fields_json(w, &fields_rpm, r, res->params.proto);
	jsonw_key(w, "method");
	jsonw_obj_open(w);
	jsonw_kv_uint(w, "mad", RPM_MAD);
	jsonw_kv_double(w, "sdt_pct", RPM_SDT_PCT);
	jsonw_kv_double(w, "trim_pct", RPM_TRIM_PCT);
	jsonw_kv_uint(w, "max_connections", RPM_MNP);
	jsonw_kv_double(w, "interval_s", RPM_ID_S);
	jsonw_kv_double(w, "probe_rate", RPM_MPS);
	jsonw_kv_double(w, "self_interval_s", RPM_SELF_INTERVAL_S);
	jsonw_obj_close(w);
	jsonw_key(w, "search");
	jsonw_arr_open(w);
	for (uint32_t i = 0; i < r->n_search && i < PROBE_RPM_MAX_SEARCH; i++) {
		jsonw_obj_open(w);
		jsonw_kv_uint(w, "connections", i + 1);
		jsonw_kv_double(w, "goodput_bps", r->search_bps[i]);
		jsonw_obj_close(w);
	}
	jsonw_arr_close(w);
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
	fields_json(&w, &fields_result, res, p->proto);
	jsonw_key(&w, "params");
	jsonw_obj_open(&w);
	fields_json(&w, &fields_params, p, p->proto);
	jsonw_obj_close(&w);

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
			fields_json(&w, &fields_stream, s, p->proto);
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
	latency_json(&w, res);
	lul_json(&w, res);
	rpm_json(&w, res);
	jsonw_key(&w, "agent_hostinfo");
	jsonw_raw(&w, res->agent_hostinfo);
	jsonw_obj_close(&w);
	return jsonw_steal(&w);
}
