/* caps: what one test may ask of this agent — its --max-duration, --max-rate and
 * --max-streams, and the descriptors its data streams need, alone and beside the tests running
 * — checked before anything is set up, so that a request over a cap is refused with its reason.
 * Internal to runner/agent. */
#ifndef NS_AGENT_CAPS_H
#define NS_AGENT_CAPS_H

#include "conn.h"

#define AGENT_DEFAULT_MAX_DURATION_S 3600.0 /* omit + duration of one test */
#define AGENT_MAX_CONNECT_S 30.0   /* the agent waits for data streams at most this (+ setup) */

/* 0 or -1 with the cap the request exceeds (NS_E_LIMIT). total_streams counts both directions. */
int agent_caps_check(const struct agent *a, const struct probe_params *p, struct ns_err *err);
/* The open files of several tests at once: takes c's data streams (both directions, a latency
 * probe's) from the agent's descriptor budget, or -1 (NS_E_BUSY, numbers in err) when they fit
 * alone (agent_caps_check) but not beside the tests running now. Given back by agent_fds_give
 * (once; later calls do nothing). */
int agent_fds_take(struct conn *c, const struct probe_params *p, struct ns_err *err);
void agent_fds_give(struct conn *c);

#endif
