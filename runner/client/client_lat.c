/* client_lat: a latency probe beside a load (see client_lat.h). */
#include "client_lat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client_notes.h"

void client_lat_ranges(enum ns_proto load, uint32_t n_load, const struct probe_params *lp,
		       struct client_lat_ranges *r)
{
	uint32_t lat_tcp = lp && lp->proto == NS_PROTO_TCP, lat_udp = lp && !lat_tcp;
	if (load == NS_PROTO_TCP)
		*r = (struct client_lat_ranges){.tcp_first = 0, .n_tcp = n_load + lat_tcp,
						.udp_first = n_load, .n_udp = lat_udp};
	else
		*r = (struct client_lat_ranges){.udp_first = 0, .n_udp = n_load + lat_udp,
						.tcp_first = n_load, .n_tcp = lat_tcp};
}

void client_lat_idle_params(const struct probe_params *p, struct probe_params *ip)
{
	probe_lat_params(p, ip);
	ip->omit_s = 0;
	ip->interval_s = 0; /* its histogram is kept, not its series */
	ip->duration_s = probe_lat_idle_s(p);
}

void client_lat_idle_take(struct probe_result *res, struct probe_result *ir,
			  struct probe_latency_figures *idle, double *idle_s)
{
	*idle = ir->latency.sum;
	*idle_s = ir->duration_s;
	free(res->lul.idle_histogram);
	res->lul.idle_histogram = ir->latency.histogram;
	ir->latency.histogram = NULL;
	probe_result_free(ir);
}

int client_lat_result(struct probe_result *res, const struct probe_params *lp,
		      const struct probe_latency_figures *idle, double idle_s,
		      struct session_end *loaded, struct ns_err *err)
{
	struct probe_lul *l = &res->lul;
	struct probe_latency lat;
	memset(&lat, 0, sizeof(lat));
	double dur = loaded->t_end - loaded->t_omit;
	if (session_end_latency(loaded, dur, &lat, err) < 0)
		return -1;
	l->present = true;
	snprintf(l->test, sizeof(l->test), "%s", probe_rr_test(lp));
	probe_rr_sizes(lp, &l->request, &l->response);
	l->rate = lp->rr_rate;
	l->idle = *idle;
	l->idle_s = idle_s;
	l->loaded = lat.sum;
	l->loaded_s = dur;
	l->loaded_histogram = lat.histogram;
	l->intervals = lat.intervals;
	l->n_intervals = lat.n_intervals;
	if (!l->idle.transactions || !l->loaded.transactions) {
		client_warn(res, l->idle.transactions ? "the latency probe had no answered "
			    "transaction beside the load: nothing to compare"
			    : "the latency probe had no answered transaction while idle: nothing "
			    "to compare");
		return 0;
	}
	l->added_p50_us = l->loaded.p50_us - l->idle.p50_us;
	l->added_p90_us = l->loaded.p90_us - l->idle.p90_us;
	l->added_p99_us = l->loaded.p99_us - l->idle.p99_us;
	l->added_p999_us = l->loaded.p999_us - l->idle.p999_us;
	return 0;
}
