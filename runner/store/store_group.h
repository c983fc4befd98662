/* store_group: a group case's rows (schemas/store.sql, version 23) — group_results (how its
 * tests shared the path), group_clients (each test) and group_samples (each test's interval
 * sums), written with the case's total results row in its transaction. */
#ifndef NS_STORE_GROUP_H
#define NS_STORE_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

struct store_group_client {
	const char *name, *client_host, *agent; /* client_host NULL = the runner */
	bool ok;
	const char *error;                 /* NULL = none */
	double start_offset_ms;            /* NaN = never started */
	const struct probe_result *res;    /* NULL = nothing measured */
	const char *probe_json;            /* NULL = none */
};

struct store_group {
	const char *kind;                  /* "incast", "fan-out" or "clients" */
	uint32_t clients, completed, streams_per_client;
	double start_spread_ms;            /* NaN = not known */
	bool dispatched;
	double total_bps, jain, min_share, min_of_fair, converge_s; /* NaN = NULL */
	const struct store_group_client *c;
	size_t n;
};

/* Inside the caller's transaction, after the results row result_id was inserted. */
int store_group_put(sqlite3 *db, int64_t result_id, const struct store_group *g,
		    struct ns_err *err);

#endif
