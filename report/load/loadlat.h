/* loadlat: latency under load beside throughput (v_latency_under_load) — one row per case
 * whose load carried a latency probe: its goodput, the probe's idle and loaded p50/p99 and
 * the delay the load added, each the median over the case's repeats. Its tables are
 * render/content_tables.c's. */
#ifndef RP_LOADLAT_H
#define RP_LOADLAT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"

#define RP_LL_MAX_REPEATS 64

/* ... and, for a responsiveness case (v_responsiveness), its RPM, idle RPM and RPM per
 * USD/hour of the pair (NAN for any other case, and per dollar without a price) */
enum { RP_LL_MBPS, RP_LL_IDLE_P50, RP_LL_IDLE_P99, RP_LL_LOADED_P50, RP_LL_LOADED_P99,
       RP_LL_ADDED_P50, RP_LL_ADDED_P99, RP_LL_RPM, RP_LL_RPM_IDLE, RP_LL_RPM_USD, RP_LL_N };

struct rp_ll_case {
	char *case_key, *endpoint, *desc;  /* desc: "tcp forward, 4 streams, tcp_rr probe" */
	size_t n;                          /* ok results */
	double v[RP_LL_N];                 /* medians over repeats (NAN: none) */
	long long lost;                    /* the probe's unanswered requests, loaded, summed */
};

struct rp_loadlat {
	struct rp_ll_case *cases;
	size_t n;
	bool rpm;                          /* a case is a responsiveness test */
};

int rp_loadlat_load(sqlite3 *db, long long run_id, struct rp_loadlat *out, struct ns_err *err);
void rp_loadlat_free(struct rp_loadlat *l);
/* What the figures are, as the report states it (and the RPM's, when there are any). */
extern const char rp_loadlat_method[], rp_loadlat_rpm_method[];

#endif
