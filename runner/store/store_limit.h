/* store_limit: what limited each direction of a result — one result_limits row per direction
 * (schemas/store.sql, version 16): the rate asked and offered, the sender_limited flag with
 * its cause, the limiting factor, each end's busiest thread and CPU steal. */
#ifndef NS_STORE_LIMIT_H
#define NS_STORE_LIMIT_H

#include <stdint.h>

#include <sqlite3.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* Inside the caller's transaction, after the results row result_id was inserted. */
int store_limit_put(sqlite3 *db, int64_t result_id, const struct probe_result *res,
		    struct ns_err *err);

#endif
