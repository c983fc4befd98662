/* client_int: the control-connection steps client.c shares with delegate.c (the runner's side
 * of a delegated run) and agent_delegate.c. Not a public API: callers use probe.h. */
#ifndef NS_CLIENT_INT_H
#define NS_CLIENT_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "probe.h"

/* Connects to an agent's control port, trying each address until deadline; the address
 * that answered goes to peer (may be NULL). Returns the fd or -1. */
int client_ctl_connect(const char *host, uint16_t port, double deadline,
		       struct sockaddr_storage *peer, socklen_t *peer_len, struct ns_err *err);
/* HELLO both ways; flags as in proto.h (PROTO_HELLO_DELEGATED). buf: PROTO_MAX_PAYLOAD. */
int client_ctl_hello(int ctl, uint8_t *buf, uint16_t flags, double deadline, struct ns_err *err);
/* The next message; BUSY and ERROR become errors carrying the agent's words. */
int client_ctl_recv(int ctl, uint8_t *buf, uint16_t *type, uint32_t *len, double deadline,
		    struct ns_err *err);
int client_ctl_expect(int ctl, uint8_t *buf, uint16_t want, uint32_t *len, double deadline,
		      struct ns_err *err);
/* Whether SQLite's JSON parser takes text as one JSON value. */
bool client_json_ok(const char *text);
/* client_run for an agent running a delegated test: its HELLO says so, so that the target
 * refuses to delegate further. No live intervals. */
int client_run_delegated(const struct probe_params *p, struct probe_result *res,
			 struct ns_err *err);

#endif
