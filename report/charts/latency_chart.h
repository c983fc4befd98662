/* latency_chart: the percentile chart of the run's request/response results — latency
 * against percentile, log scales, one line per pair from its merged histograms. */
#ifndef RP_LATENCY_CHART_H
#define RP_LATENCY_CHART_H

#include "report/charts/charts.h"
#include "report/load/latency_rows.h"

/* latency.gp / latency.dat into cs. Nothing without latency results. */
int rp_latency_chart(const struct rp_latency *l, const struct rp_chart_opts *o,
		     struct rp_charts *cs, struct ns_err *err);

#endif
