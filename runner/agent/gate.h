/* gate: the agent's connections before they hold a test slot — HELLO, the pre-shared-key
 * handshake and the one request, for up to AGENT_MAX_PENDING connections at once, each
 * non-blocking and under its own deadline, so that no client (silent, slow or hostile) holds
 * up another. Internal to runner/agent: agent.c polls the gate beside its listener. */
#ifndef NS_AGENT_GATE_H
#define NS_AGENT_GATE_H

#include <poll.h>

#include "conn.h"

/* Called for a connection that proved the key (or needs none) and sent its request, in a
 * struct conn of its own (c->req_type, c->req_len, c->buf); the callee owns c. */
typedef void (*gate_ready_fn)(struct agent *a, struct conn *c);

struct gate *gate_create(struct agent *a, gate_ready_fn ready, struct ns_err *err);
void gate_destroy(struct gate *g);
/* Takes a freshly accepted connection: refused at once, told why (ERROR code 10), if --allow
 * (or, without a key, the loopback rule) does not admit its address; when its address, its
 * network or the whole table is full, the oldest connection of the address or network holding
 * the most makes room and is told so (ERROR code 9). An address in a --trust block may hold
 * that block's share instead of AGENT_PENDING_PER_ADDR (and its network as many). */
void gate_accept(struct gate *g, int fd);
/* Parses --trust "CIDR[:N],..." into a->trust, a->trust_n, a->n_trust (N 1..AGENT_MAX_PENDING,
 * default AGENT_TRUST_DEFAULT; a host address is written CIDR/32 or /128 when it takes :N). */
int gate_parse_trust(struct agent *a, const char *s, struct ns_err *err);
/* Fills pfd (room for AGENT_MAX_PENDING) with the handshakes' sockets; returns how many. */
int gate_pollfds(struct gate *g, struct pollfd *pfd);
/* Reads what pfd (as filled by gate_pollfds) says is ready, sends the answers, drops the
 * connections past their deadline, telling each what it waited for (ERROR code 4); returns the
 * milliseconds until the next deadline. */
int gate_step(struct gate *g, const struct pollfd *pfd, int n);

#endif
