/* client_lat: a throughput test's latency probe (--latency-probe) at the client — which data
 * streams go over which transport once the probe's stream follows the load's, the idle
 * test's params, and the figures of "latency_under_load" from the idle test and the probe's
 * requester beside the load. Below client.c, which runs both. */
#ifndef NS_CLIENT_LAT_H
#define NS_CLIENT_LAT_H

#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"
#include "runner/session/session.h"

/* The data streams of a test: [tcp_first, tcp_first + n_tcp) connect over TCP and
 * [udp_first, udp_first + n_udp) over UDP, the load's n_load first, the probe's (when lp is
 * not NULL) last. */
struct client_lat_ranges {
	uint32_t tcp_first, n_tcp, udp_first, n_udp;
};
void client_lat_ranges(enum ns_proto load, uint32_t n_load, const struct probe_params *lp,
		       struct client_lat_ranges *r);

/* The idle window's test: the probe alone for probe_lat_idle_s(p), before the load. */
void client_lat_idle_params(const struct probe_params *p, struct probe_params *ip);

/* The idle test's result ir into its figures, window and histogram (res->lul's); frees ir. */
void client_lat_idle_take(struct probe_result *res, struct probe_result *ir,
			  struct probe_latency_figures *idle, double *idle_s);

/* res->lul from the idle test's figures and the probe's requester end (finished) beside the
 * load: both summaries, the loaded window's histogram and series, and what the load added; a warning when either window had no
 * answered transaction (then nothing is added). */
int client_lat_result(struct probe_result *res, const struct probe_params *lp,
		      const struct probe_latency_figures *idle, double idle_s,
		      struct session_end *loaded, struct ns_err *err);

#endif
