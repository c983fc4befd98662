/* client_rpm: see client_rpm.h. */
#include "client_rpm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/lathist.h"
#include "client.h"
#include "client_notes.h"

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
		ns_err_prefix(err, "responsiveness: the saturation test with %u connection%s", k,
			      k == 1 ? "" : "s");
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

int client_rpm_run(const struct probe_params *p, struct probe_result *res, struct ns_err *err)
{
	memset(res, 0, sizeof(*res));
	if (p->proto != NS_PROTO_TCP || p->rr[0] || p->dir == NS_DIR_BIDIR || p->lat_probe[0])
		return ns_err_code(err, NS_E_USAGE, "--responsiveness loads TCP in one direction "
				   "and brings its own probes: not with -u, --rr, --bidir or "
				   "--latency-probe");
	struct rpm_sat sat;
	rpm_sat_init(&sat);
	uint32_t k = 0;
	char capped[NS_ERR_MAX] = "";
	while (k < RPM_MNP && !sat.saturated) {
		double g;
		struct ns_err se = {0};
		if (search_step(p, ++k, &g, &se) == 0) {
			rpm_sat_add(&sat, g);
			continue;
		}
		/* the agent refused one connection more than it just served: its caps (streams,
		 * rate) end the search there, said in the result */
		if (k > 1 && se.code == NS_E_PEER) {
			snprintf(capped, sizeof(capped), "the search for saturation stopped at %u "
				 "connections: %.400s", --k, se.msg);
			break;
		}
		*err = se;
		return -1;
	}
	struct probe_params lp = *p;
	lp.streams = k;
	if (!(lp.omit_s > 0))
		lp.omit_s = RPM_ID_S; /* new connections: their slow start is not working conditions */
	lp.interval_s = RPM_SELF_INTERVAL_S;
	snprintf(lp.lat_probe, sizeof(lp.lat_probe), "tcp");
	lp.lat_rate = RPM_MPS;
	lp.lat_size = 1;
	int rc = probe_run(&lp, res, err);
	if (capped[0])
		client_warn(res, capped);
	struct probe_rpm *m = &res->rpm;
	m->connections = k;
	m->saturated = sat.saturated;
	m->n_search = sat.n;
	memcpy(m->search_bps, sat.goodput, sat.n * sizeof(double));
	if (rc < 0) {
		ns_err_prefix(err, "responsiveness: the loaded test");
		return -1;
	}
	m->present = true;
	m->goodput_bps = res->n_dirs ? res->dirs[0].receiver.bits_per_second : 0;
	m->foreign_tm_ms = hist_tm_ms(res->lul.loaded_histogram, &m->foreign_probes);
	m->idle_tm_ms = hist_tm_ms(res->lul.idle_histogram, &m->idle_probes);
	m->self_tm_ms = res->n_dirs ? self_tm_ms(&res->dirs[0], &m->self_samples) : 0;
	m->rpm = rpm_of(m->foreign_tm_ms / 1e3, m->self_tm_ms / 1e3);
	m->rpm_idle = rpm_of(m->idle_tm_ms / 1e3, 0);
	return 0;
}
