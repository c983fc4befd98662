/* conn: the agent's state and one client connection, shared by the daemon (agent.c: listening,
 * sessions, the --max-tests bound) and what it runs for a client (agent_session.c, agent_delegate.c); the helpers
 * are in conn.c. Internal to runner/agent: the runner and the CLI use agent.h. */
#ifndef NS_AGENT_CONN_H
#define NS_AGENT_CONN_H

#include <netinet/in.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>

#include "agent.h"
#include "lib/cidr.h"
#include "runner/proto/auth.h"
#include "runner/proto/proto.h"

#define AGENT_MAX_LINGER 16        /* refusals waiting for the client to read them */
#define AGENT_SPARE_SESSIONS 16    /* session threads beyond --max-tests: host-info answers,
				    * and tests that freed their slot and send their last message */
#define AGENT_LINGER_S 1.0
#define AGENT_SETUP_S 5.0          /* data connections, on top of the client's connect timeout */
#define AGENT_DRAIN_S 2.0
#define AGENT_COOKIE_WAIT_S 1.0    /* a TCP data connection's greeting, each under its own */
#define AGENT_DATA_EXTRA 64        /* data connections waiting for their greeting beyond one
				    * per stream */
#define AGENT_DATA_EVICT_S 0.25    /* ... the oldest makes room when full after this long */
#define AGENT_ACCEPT_PAUSE_S 0.05  /* out of descriptors: the data listener rests this long */
#define AGENT_AUTH_S 2.0           /* from accept to a proven key (or, keyless, to HELLO) */
#define AGENT_REQUEST_S 2.0        /* then the request: a client sends it at once, one round
				    * trip after the proof (the longest WAN ones are ~0.5 s) */
#define AGENT_MAX_PENDING 1024     /* connections in their handshake, served together */
#define AGENT_PENDING_PER_ADDR 64  /* ... from one address: one runner's concurrent pairs */
#define AGENT_PENDING_PER_PREFIX 256 /* ... from one /24 or /64 */
#define AGENT_TRUST_DEFAULT 512    /* --trust CIDR without :N: the share of each address in it */
#define AGENT_MAX_TRUST 16         /* --trust blocks */
#define AGENT_LOG_PER_S 5          /* refused-connection log lines per second, at most */

struct gate;

struct agent {
	struct agent_opts o;
	int lfd;
	uint16_t port;
	int pipe_r, pipe_w;        /* agent_stop writes; every wait polls pipe_r */
	atomic_bool stop;
	atomic_uint tests;         /* sessions holding a test slot (at most o.max_tests) */
	_Atomic uint64_t fds_held; /* data streams of the running tests (caps.c) */
	uint64_t fd_limit;         /* RLIMIT_NOFILE once raised (UINT64_MAX: none) */
	struct auth_key key;       /* key.len 0: no key, loopback clients only */
	struct cidr_list allow;    /* allow.n 0: any address */
	struct cidr_list trust[AGENT_MAX_TRUST]; /* --trust: one block each */
	unsigned trust_n[AGENT_MAX_TRUST];       /* ... and its share of the handshakes */
	unsigned n_trust;
	struct gate *gate;         /* connections in their handshake (gate.c) */
	struct budget *budget;     /* --max-rate: every running test's senders draw from it, each
				    * its fair share (budget.h; NULL: no cap) */
	double log_window;         /* rate limit of refused-connection log lines */
	unsigned log_lines;
	unsigned long log_dropped;
	struct session *sessions;  /* every session thread not yet joined (agent.c's loop only) */
	unsigned n_sessions;
	double started;            /* proto_now() when it began to listen (STATUS's uptime) */
	struct {
		int fd;
		double until;
	} linger[AGENT_MAX_LINGER];
};

/* One client connection on the session thread. */
struct conn {
	struct agent *a;
	int ctl;
	struct sockaddr_storage local, peer;
	socklen_t local_len, peer_len;
	char peer_name[INET6_ADDRSTRLEN];
	uint8_t *buf;              /* PROTO_MAX_PAYLOAD + 1; holds the request at first */
	uint16_t req_type;         /* the request the gate read after the handshake */
	uint32_t req_len;
	uint16_t hello_flags;      /* the client's HELLO flags */
	bool holds_slot;           /* counted in a->tests until agent_release */
	uint64_t fds_taken;        /* counted in a->fds_held until agent_fds_give */
};

/* A log line on stderr unless the agent is quiet. */
void agent_log(const struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A log line about an unauthenticated peer: at most AGENT_LOG_PER_S a second, then one line
 * saying how many were left out. Called on the accept loop's thread only. */
void agent_log_limited(struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Keeps fd (its last message sent, shut down for writing) until the client closes or
 * AGENT_LINGER_S: closing with unread data would reset the connection and lose the answer. */
void agent_linger(struct agent *a, int fd);
/* Gives back c's test slot (once; later calls do nothing): called just before a session's last
 * message, so that a client that reads it and comes back at once finds the slot free. */
void agent_release(struct conn *c);
/* Logs and sends ERROR; the session's last message. */
void agent_refuse(struct conn *c, uint16_t code, const char *why);
bool agent_same_ip(const struct sockaddr_storage *x, const struct sockaddr_storage *y);
void agent_set_port(struct sockaddr_storage *ss, uint16_t port);
uint16_t agent_get_port(int fd);
#endif
