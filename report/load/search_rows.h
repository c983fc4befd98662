/* search_rows: the report's view of rate searches (v_search_goals): per pair, stream count and
 * payload size, the answer of each loss goal (NDR, PDR) beside the maximum receive rate and
 * the wire rate of the declared link, and the sentences for the goals a search could not meet.
 * Its chart is charts/search_chart.h's, its table render/content_tables.c's. */
#ifndef RP_SEARCH_H
#define RP_SEARCH_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#include "report/model/fmt.h"
#include "lib/err.h"

#define RP_SEARCH_GOALS 8

struct rp_search_goal {
	double loss_ratio;
	bool met, converged;
	double lower_pps, upper_pps, conditional_pps; /* NAN when absent */
	char *note;                                   /* NULL = none */
	bool sender_limited;      /* the bracket's top was a load the sender could not offer */
	double at_least_pps;      /* then the goal holds at least up to here; NAN = unknown */
};

struct rp_search_row {
	char *endpoint;
	long long link_bps;       /* 0 = not declared */
	long long length, streams;
	char direction[16];
	double mrr_pps;           /* received in the unpaced first trial */
	struct rp_search_goal goals[RP_SEARCH_GOALS];
	size_t n_goals;
};

struct rp_search {
	struct rp_search_row *rows;   /* by endpoint, streams, direction, length */
	size_t n;
};

/* The run's searches (first repeat of each case); n = 0 when it has none. */
int rp_search_load(sqlite3 *db, long long run_id, struct rp_search *s, struct ns_err *err);
void rp_search_free(struct rp_search *s);

/* "NDR" for a zero loss ratio, "PDR 0.5 %" otherwise. */
void rp_search_goal_name(double loss_ratio, char *out, size_t n);
/* Wire-rate packets/s of a UDP payload on a link: frame = payload + 46 bytes (at least 64),
 * plus 20 bytes of preamble and gap. */
double rp_search_wire_pps(long long link_bps, long long payload);


#endif
