/* client_rpm: `netsweep probe --responsiveness` — the responsiveness test (lib/rpm.h) run
 * through the agent as ordinary tests, so the agent's key and caps hold for each:
 *  1. the saturation search: tests of RPM_ID_S with 1, 2, ... RPM_MNP load-generating TCP
 *     connections in the asked direction, until the goodput's moving average is stable;
 *  2. the working conditions: that many connections for the asked duration, with a foreign
 *     probe (a TCP_RR flow on a connection of its own at RPM_MPS round trips a second, timed
 *     idle first, then beside the load: the latency probe) and the self round trips (the
 *     kernel's smoothed RTT of the loaded connections, TCP_INFO, every 100 ms);
 *  3. RPM from the trimmed means (lib/rpm.h), and the idle RPM of the foreign probe alone.
 * schemas/responsiveness.md states the method; the result is the loaded test's
 * (schemas/probe-result.md) with its "responsiveness" object. */
#ifndef NS_CLIENT_RPM_H
#define NS_CLIENT_RPM_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/rpm.h"
#include "runner/proto/probe.h"

/* Runs the test p asks for (its host, port, direction, duration, options) into res: the
 * loaded test's result with res->rpm filled (probe_result_free frees it). -1 with err when a
 * test failed (res then holds what came back, res->rpm.present false when the search failed). */
int client_rpm_run(const struct probe_params *p, struct probe_result *res, struct ns_err *err);

#endif
