/* client_rpm: see client_rpm.h. */
#include "client_rpm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/jsonw.h"
#include "lib/lathist.h"
#include "client.h"

/* One test of the saturation search: k connections for RPM_ID_S, its goodput. */
static int search_step(const struct probe_params *p, uint32_t k, double *goodput,
		       struct ns_err *err)
{
	struct probe_params sp = *p;
	sp.streams = k;
	sp.duration_s = RPM_ID_S;
	sp.omit_s = 0;
	sp.interval_s = 0;
	sp.lat_probe[0] = '\0';
	struct probe_result r;
	int rc = probe_run(&sp, &r, err);
	*goodput = rc == 0 && r.n_dirs ? r.dirs[0].receiver.bits_per_second : 0;
	probe_result_free(&r);
	if (rc < 0)
		ns_err_prefix(err, "responsiveness: the saturation test with %u connections", k);
	return rc;
}

/* The trimmed mean of a histogram's text, in ms; *n its samples. */
static double hist_tm_ms(const char *text, uint64_t *n)
{
	*n = 0;
	if (!text)
		return 0;
	struct lathist *h = malloc(sizeof(*h));
	struct ns_err e;
	if (!h || lathist_decode(text, h, &e) < 0) {
		free(h);
		return 0;
	}
	*n = atomic_load(&h->count);
	double v = rpm_hist_trimmed_mean_ns(h, RPM_TRIM_PCT) / 1e6;
	free(h);
	return v;
}

/* The self round trips: the loaded connections' smoothed RTT of each measured interval. */
static double self_tm_ms(const struct probe_direction *d, uint64_t *n)
{
	*n = 0;
	double *v = malloc((d->n_intervals + 1) * sizeof(*v));
	if (!v)
		return 0;
	for (uint32_t i = 0; i < d->n_intervals; i++)
		if (d->intervals[i].stream == -1 && !d->intervals[i].omitted &&
		    d->intervals[i].rtt_ms > 0)
			v[(*n)++] = d->intervals[i].rtt_ms;
	double tm = rpm_trimmed_mean(v, *n, RPM_TRIM_PCT);
	free(v);
	return tm;
}

int client_rpm_run(const struct probe_params *p, struct rpm_result *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	rpm_sat_init(&out->sat);
	if (p->proto != NS_PROTO_TCP || p->rr[0] || p->dir == NS_DIR_BIDIR || p->lat_probe[0])
		return ns_err_code(err, NS_E_USAGE, "--responsiveness loads TCP in one direction "
				   "and brings its own probes: not with -u, --rr, --bidir or "
				   "--latency-probe");
	uint32_t k = 0;
	while (k < RPM_MNP && !out->sat.saturated) {
		double g;
		if (search_step(p, ++k, &g, err) < 0)
			return -1;
		rpm_sat_add(&out->sat, g);
	}
	struct probe_params lp = *p;
	lp.streams = out->connections = k;
	if (!(lp.omit_s > 0))
		lp.omit_s = RPM_ID_S; /* new connections: their slow start is not working conditions */
	lp.interval_s = RPM_SELF_INTERVAL_S;
	snprintf(lp.lat_probe, sizeof(lp.lat_probe), "tcp");
	lp.lat_rate = RPM_MPS;
	lp.lat_size = 1;
	int rc = probe_run(&lp, &out->loaded, err);
	out->have_loaded = true;
	if (rc < 0) {
		ns_err_prefix(err, "responsiveness: the loaded test");
		return -1;
	}
	const struct probe_result *r = &out->loaded;
	out->goodput_bps = r->n_dirs ? r->dirs[0].receiver.bits_per_second : 0;
	out->foreign_tm_ms = hist_tm_ms(r->lul.loaded_histogram, &out->foreign_n);
	out->idle_tm_ms = hist_tm_ms(r->lul.idle_histogram, &out->idle_n);
	out->self_tm_ms = r->n_dirs ? self_tm_ms(&r->dirs[0], &out->self_n) : 0;
	out->rpm = rpm_of(out->foreign_tm_ms / 1e3, out->self_tm_ms / 1e3);
	out->rpm_idle = rpm_of(out->idle_tm_ms / 1e3, 0);
	return 0;
}

void client_rpm_free(struct rpm_result *r)
{
	if (r->have_loaded)
		probe_result_free(&r->loaded);
	r->have_loaded = false;
}

char *client_rpm_json(const struct rpm_result *r, bool pretty)
{
	struct jsonw w;
	jsonw_init(&w, pretty);
	jsonw_obj_open(&w);
	jsonw_kv_uint(&w, "version", 1);
	jsonw_kv_str(&w, "test", "responsiveness");
	jsonw_kv_str(&w, "status", r->have_loaded && !r->loaded.status ? "ok" : "error");
	jsonw_kv_double(&w, "rpm", r->rpm);
	jsonw_kv_double(&w, "rpm_idle", r->rpm_idle);
	jsonw_kv_double(&w, "foreign_tm_ms", r->foreign_tm_ms);
	jsonw_kv_uint(&w, "foreign_probes", r->foreign_n);
	jsonw_kv_double(&w, "self_tm_ms", r->self_tm_ms);
	jsonw_kv_uint(&w, "self_samples", r->self_n);
	jsonw_kv_double(&w, "idle_tm_ms", r->idle_tm_ms);
	jsonw_kv_uint(&w, "idle_probes", r->idle_n);
	jsonw_kv_uint(&w, "connections", r->connections);
	jsonw_kv_bool(&w, "saturated", r->sat.saturated);
	jsonw_kv_double(&w, "goodput_bps", r->goodput_bps);
	jsonw_key(&w, "method");
	jsonw_obj_open(&w);
	jsonw_kv_uint(&w, "mad", RPM_MAD);
	jsonw_kv_double(&w, "sdt_pct", RPM_SDT_PCT);
	jsonw_kv_double(&w, "trim_pct", RPM_TRIM_PCT);
	jsonw_kv_uint(&w, "max_connections", RPM_MNP);
	jsonw_kv_double(&w, "interval_s", RPM_ID_S);
	jsonw_kv_double(&w, "probe_rate", RPM_MPS);
	jsonw_kv_double(&w, "self_interval_s", RPM_SELF_INTERVAL_S);
	jsonw_obj_close(&w);
	jsonw_key(&w, "search");
	jsonw_arr_open(&w);
	for (uint32_t i = 0; i < r->sat.n; i++) {
		jsonw_obj_open(&w);
		jsonw_kv_uint(&w, "connections", i + 1);
		jsonw_kv_double(&w, "goodput_bps", r->sat.goodput[i]);
		if (i + 1 >= RPM_MAD)
			jsonw_kv_double(&w, "moving_average_bps", r->sat.ma[i]);
		jsonw_obj_close(&w);
	}
	jsonw_arr_close(&w);
	jsonw_key(&w, "loaded");
	char *inner = r->have_loaded ? probe_result_json(&r->loaded, false) : NULL;
	if (inner)
		jsonw_raw(&w, inner);
	else
		jsonw_null(&w);
	free(inner);
	jsonw_obj_close(&w);
	return jsonw_steal(&w);
}
