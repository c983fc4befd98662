/* store_nic: a result's NIC counters in the store — one result_nics row per end whose
 * interface was read, and results.shaped_by_provider (schemas/store.sql, version 9). */
#ifndef NS_STORE_NIC_H
#define NS_STORE_NIC_H

#include <stdint.h>

#include <sqlite3.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* Inside the caller's transaction, after the results row result_id was inserted. */
int store_nic_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		  struct ns_err *err);

#endif
