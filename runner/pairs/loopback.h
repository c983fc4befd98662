/* loopback: the agent the runner serves itself when a matrix names no pairs — bound on
 * 127.0.0.1 in the runner (so its port is known and listening before any case starts), served
 * by a forked child that dies with the runner, even when the runner is SIGKILLed. */
#ifndef NS_LOOPBACK_H
#define NS_LOOPBACK_H

#include <stdint.h>
#include <sys/types.h>

#include "lib/err.h"

struct agent;

/* Starts the agent: *pid is the child, *port where it listens on 127.0.0.1. The child calls
 * child_init (NULL: none) before it serves: the process is the entry point's, so what ends
 * the agent on SIGTERM (agent_stop) is the entry point's to install. */
int loopback_start(void (*child_init)(struct agent *a), pid_t *pid, uint16_t *port,
		   struct ns_err *err);
/* Stops and reaps it (SIGTERM, then SIGKILL after 2 s); pid <= 0 does nothing. */
void loopback_stop(pid_t pid);

#endif
