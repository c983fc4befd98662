/* serve: what the daemon (agent.c) hands an accepted, greeted client to — a test
 * (agent_session.c) or a delegated run (agent_delegate.c). Internal to runner/agent. */
#ifndef NS_AGENT_SERVE_H
#define NS_AGENT_SERVE_H

#include <stdint.h>

#include "conn.h"

/* Runs the test of a TEST_REQUEST whose payload (len bytes) is in c->buf. */
void agent_run_test(struct conn *c, uint32_t len);
/* Runs a DELEGATE_REQUEST (payload in c->buf) as the client of a test against its target;
 * hello_flags are those of the requester's HELLO. */
void agent_run_delegated(struct conn *c, uint32_t len, uint16_t hello_flags);

#endif
