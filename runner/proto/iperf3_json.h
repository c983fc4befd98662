/* iperf3_json: a probe result in the layout of iperf3's own JSON (`iperf3 -J`), so that the
 * scripts, plotters and dashboards written for iperf3 read netsweep's results unchanged:
 * "start" (connected, test_start, timestamp), "intervals" (streams, sum), "end" (streams,
 * sum_sent, sum_received, cpu_utilization_percent; for UDP "sum"), with iperf3's key names,
 * units (rtt in microseconds) and types. netsweep's own result object, with every figure
 * iperf3 has no key for, sits whole under the one extension key "netsweep". Also the events
 * of iperf3's --json-stream (one object a line). Layout and key list: schemas/iperf3-json.md. */
#ifndef NS_IPERF3_JSON_H
#define NS_IPERF3_JSON_H

#include <stdbool.h>

#include "probe.h"

/* What the result itself does not hold: when the test started and this process's CPU. */
struct iperf3_ctx {
	double start_unix;      /* wall-clock start of the test, seconds since the epoch */
	const char *system_info; /* uname line, "" = unknown */
	double host_user_pct;   /* this process's user / system CPU over the test, % of one CPU; */
	double host_system_pct; /* negative = not measured (then the engine threads' total is used) */
};

/* The whole document, as iperf3 -J prints it at the end of a test; malloc'd, NULL = no memory. */
char *iperf3_json(const struct probe_result *res, const struct iperf3_ctx *ctx, bool pretty);

/* --json-stream: {"event": "start", "data": {...}} before the test, one {"event":
 * "interval", "data": {"streams": [...], "sum": {...}}} per interval as it ends (streams:
 * the n entries of this end's streams for it; none where they are not recorded), and
 * {"event": "end", "data": {...}} after it; each one line. */
char *iperf3_json_event_start(const struct probe_params *p, const struct iperf3_ctx *ctx);
char *iperf3_json_event_interval(const struct probe_params *p, const struct probe_interval *sum,
				 const struct probe_interval *streams, uint32_t n, enum ns_dir dir);
char *iperf3_json_event_end(const struct probe_result *res, const struct iperf3_ctx *ctx);

#endif
