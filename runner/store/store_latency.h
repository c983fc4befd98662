/* store_latency: a request/response result's latency figures and histogram into the store's
 * result_latency table (schemas/store.sql, version 17), and a throughput result's latency
 * probe, idle and loaded, into result_latency_load (version 19). */
#ifndef NS_STORE_LATENCY_H
#define NS_STORE_LATENCY_H

#include <sqlite3.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* Nothing for a result without latency (res->latency.present false). */
int store_latency_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		      struct ns_err *err);

/* Two rows, phase 'idle' and 'loaded', for a result with a latency probe
 * (res->lul.present); nothing for any other. A responsiveness result (res->rpm.present) also
 * gets its row of result_rpm. */
int store_latency_load_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
			   struct ns_err *err);

#endif
