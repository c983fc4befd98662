/* search_json: the JSON of a search (schemas/search-result.md), written by `netsweep search
 * --json` and stored with a matrix case that searches. */
#ifndef NS_SEARCH_JSON_H
#define NS_SEARCH_JSON_H

#include <stdbool.h>

#include "lib/jsonw.h"
#include "runner/proto/probe.h"
#include "search.h"

/* What was searched: the test's parameters besides the rate (target, length, streams). */
void search_json_write(struct jsonw *w, const struct search_cfg *c, const struct probe_params *p,
		       const struct search_result *r, double elapsed_s);
/* The stated worst case: {"max_trials": N, "max_seconds": S}. */
void search_json_bounds(struct jsonw *w, const struct search_cfg *c);
const char *search_phase_name(enum search_phase ph);

#endif
