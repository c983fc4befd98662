/* loopback: the agent the runner serves itself when a matrix names no pairs — bound on
 * 127.0.0.1 in the runner (so its port is known and listening before any case starts), served
 * by a forked child that dies with the runner, even when the runner is SIGKILLed. */
#ifndef NS_LOOPBACK_H
#define NS_LOOPBACK_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"

/* Starts the agent: *pid is the child, *port where it listens on 127.0.0.1. */
int loopback_start(pid_t *pid, uint16_t *port, struct ns_err *err);
/* Stops and reaps it (SIGTERM, then SIGKILL after 2 s); pid <= 0 does nothing. */
void loopback_stop(pid_t pid);

#endif
