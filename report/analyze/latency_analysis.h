/* latency_analysis: the analysis of the run's request/response results (load/latency_rows.h reads
 * them): the p99 against the baseline's by Welch's t-test on log p99 over repeats, cost per
 * million transactions where a price is known, and the A/B on latency. Its chart is
 * charts/latency_chart.h's, its tables render/content_tables.c's. */
#ifndef RP_LATENCY_H
#define RP_LATENCY_H

#include <sqlite3.h>
#include <stddef.h>

#include "report/load/data.h"
#include "report/load/latency_rows.h"
#include "lib/err.h"

/* The run's request/response results; base (may be NULL) is the baseline run's, alpha and
 * min_change_pct as for throughput regressions. */
int rp_latency_load(sqlite3 *db, const struct rp_data *d, long long base_run_id, double alpha,
		    double min_change_pct, struct rp_latency *out, struct ns_err *err);
/* The A/B rows of ab (same run) whose cases are request/response ones. */
struct rp_ab;
int rp_latency_ab(struct rp_latency *l, const struct rp_data *d, const struct rp_ab *ab,
		  struct ns_err *err);
/* The test as the report states it. */
extern const char rp_latency_method[];

#endif
