/* search_case: a matrix case run as a zero-loss rate search (the matrix's <search>). The
 * stored result is the confirming trial at the first goal's lower bound (or the first,
 * maximum-load trial when no goal was met); the whole search goes beside it as JSON. */
#ifndef NS_SEARCH_CASE_H
#define NS_SEARCH_CASE_H

#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"
#include "runner/search/search.h"

/* pp: the case's parameters (UDP); from_host: the pair's client agent, NULL = this host.
 * On success res holds the chosen trial and *search_json the search (malloc'd). -1 when a
 * trial failed (err says which). */
int search_case_run(const struct search_cfg *cfg, const struct probe_params *pp,
		    const char *from_host, uint16_t from_port, struct probe_result *res,
		    char **search_json, struct ns_err *err);

#endif
