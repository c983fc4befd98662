/* search_chart: the "zero-loss rate vs packet size" chart of the run's rate searches — its
 * gnuplot data blocks and plot commands (charts.c writes and renders them). */
#ifndef RP_SEARCH_CHART_H
#define RP_SEARCH_CHART_H

#include <stddef.h>

#include "report/load/search_rows.h"
#include "report/model/fmt.h"

/* The chart: rows "length goal... mrr" per series in dat (gnuplot blocks), plot commands
 * reading NAME.dat in plot; returns the number of series (0 = nothing to draw). */
size_t rp_search_chart(const struct rp_search *s, const char *name, struct rp_buf *dat,
		       struct rp_buf *plot);

#endif
