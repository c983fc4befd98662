/* retry: waiting for a pair's agent that went away. A case whose agent cannot be reached
 * (refused, unreachable: it never started) is tried again with growing pauses for at most
 * the pair's agent-wait (default MX_AGENT_WAIT_DEFAULT_S, runner/matrix/matrix.h); when that
 * runs out the pair is down and its remaining cases fail at once, counted, instead of each
 * spending its connect timeout. */
#ifndef NS_RETRY_H
#define NS_RETRY_H

#include <stdbool.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* The longest pause between two tries: an agent back after a restart is used within it. */
#define RETRY_PAUSE_MAX_S 2.0

/* Whether a failed case failed because the agent was not there: nothing measured and the
 * connection to it refused or unreachable. */
bool retry_agent_lost(const struct ns_err *e, const struct probe_result *res);

/* Times are monotonic seconds (proto_now()), passed in so that tests can drive the clock. */
struct retry_wait {
	double budget_s;   /* agent-wait */
	double start;      /* when the agent was first found missing */
	unsigned tries;
};

void retry_wait_init(struct retry_wait *w, double budget_s, double now);
/* The pause before the next try (0.25 s, doubling, at most RETRY_PAUSE_MAX_S, never past the
 * budget counted from start, the tries' own time included), or a negative value when the
 * budget is spent. */
double retry_next_pause(struct retry_wait *w, double now);

#endif
