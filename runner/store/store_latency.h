/* store_latency: a request/response result's latency figures and histogram into the store's
 * result_latency table (schemas/store.sql, version 15). */
#ifndef NS_STORE_LATENCY_H
#define NS_STORE_LATENCY_H

#include <sqlite3.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* Nothing for a result without latency (res->latency.present false). */
int store_latency_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		      struct ns_err *err);

#endif
