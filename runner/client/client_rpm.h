/* client_rpm: `netsweep probe --responsiveness` — the responsiveness test (lib/rpm.h) run
 * through the agent as ordinary tests, so the agent's key and caps hold for each:
 *  1. the saturation search: tests of RPM_ID_S with 1, 2, ... RPM_MNP load-generating TCP
 *     connections in the asked direction, until the goodput's moving average is stable;
 *  2. the working conditions: that many connections for the asked duration, with a foreign
 *     probe (a TCP_RR flow on a connection of its own at RPM_MPS round trips a second, timed
 *     idle first, then beside the load: the latency probe) and the self round trips (the
 *     kernel's smoothed RTT of the loaded connections, TCP_INFO, every 100 ms);
 *  3. RPM from the trimmed means (lib/rpm.h), and the idle RPM of the foreign probe alone.
 * schemas/responsiveness.md is the contract of its JSON and states the method. */
#ifndef NS_CLIENT_RPM_H
#define NS_CLIENT_RPM_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/rpm.h"
#include "runner/proto/probe.h"

#define RPM_SELF_INTERVAL_S 0.1

struct rpm_result {
	struct rpm_sat sat;            /* the search's goodputs and moving averages */
	uint32_t connections;          /* load-generating connections of the loaded test */
	double goodput_bps;            /* the loaded test's receiver goodput */
	double foreign_tm_ms, self_tm_ms, idle_tm_ms; /* trimmed means of the round trips */
	uint64_t foreign_n, self_n, idle_n;           /* their samples */
	double rpm, rpm_idle;          /* 0 = not measured */
	struct probe_result loaded;    /* the working-conditions test, as probe's JSON has it */
	bool have_loaded;
};

/* Runs the test p asks for (its host, port, direction, duration, options); out is freed with
 * client_rpm_free. -1 with err when a test failed (out->loaded may say more). */
int client_rpm_run(const struct probe_params *p, struct rpm_result *out, struct ns_err *err);
void client_rpm_free(struct rpm_result *r);
/* The JSON object of schemas/responsiveness.md (malloc'd; NULL when out of memory). */
char *client_rpm_json(const struct rpm_result *r, bool pretty);

#endif
