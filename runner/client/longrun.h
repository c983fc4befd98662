/* longrun: the client's half of long-run mode (params.until = "sustained") — each direction's
 * receiver series as it grows (the agent's, sent live during the test, or this end's own)
 * through lib/steady's stop rule, so that the test ends once the rate held steady after a
 * step down instead of at the duration, which is then the upper bound. Internal to
 * runner/client. */
#ifndef NS_CLIENT_LONGRUN_H
#define NS_CLIENT_LONGRUN_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/steady.h"
#include "runner/proto/probe.h"
#include "runner/session/session.h"

struct longrun {
	bool on;                     /* the test asked for it */
	struct steady w[2];          /* per end of the client (its direction's receiver) */
	uint32_t fed[2];             /* this end's own intervals looked at */
	uint32_t agent_next[2];      /* index of the agent's next live interval */
	struct probe_interval *scratch; /* one chunk, decoded */
};

int longrun_init(struct longrun *l, const struct probe_params *p, struct ns_err *err);
void longrun_free(struct longrun *l);
/* A RESULT_INTERVALS chunk the agent sent during the test: its receiving end's new sums. */
int longrun_agent(struct longrun *l, const struct session_end *ends, uint32_t n_ends,
		  const uint8_t *buf, uint32_t len, struct ns_err *err);
/* Takes this end's new receiver sums; true once every direction held steady after a step. */
bool longrun_reached(struct longrun *l, const struct session_end *ends, uint32_t n_ends);
/* The next message, want, passing over live intervals still in flight when the client
 * stopped the test (only when on; else client_ctl_expect). */
int longrun_expect(const struct longrun *l, int ctl, uint8_t *buf, uint16_t want,
		   uint32_t *len, double deadline, struct ns_err *err);
/* res->ended: "sustained" or "duration" (only when on). */
void longrun_ended(const struct longrun *l, uint32_t n_ends, struct probe_result *res);

#endif
