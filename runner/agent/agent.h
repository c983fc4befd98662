/* agent: the long-running daemon that serves tests on a control port, up to --max-tests of them
 * at once, each on its own session thread with its own data sockets, cookie and engines. The
 * sweep runner also embeds one (in a forked child) for the loopback default. */
#ifndef NS_AGENT_H
#define NS_AGENT_H

#include <stdint.h>

#include "lib/err.h"

#define AGENT_DEFAULT_MAX_TESTS 16  /* tests (and delegated runs) served at once */
#define AGENT_MAX_TESTS_LIMIT 256   /* --max-tests at most: a thread, a 64 KiB buffer and the
				     * data sockets each */

struct agent_opts {
	char listen_addr[256];      /* "127.0.0.1", "::", "0.0.0.0" (default "::" dual-stack) */
	uint16_t port;              /* 0 = pick a free port (see agent_port) */
	double idle_timeout_s;      /* a silent client is dropped after this long (default 10) */
	const char *psk_file;       /* pre-shared key; NULL = none: loopback clients only */
	const char *allow;          /* "CIDR,..." clients and delegation targets; NULL = any */
	const char *trust;          /* "CIDR[:N],..." networks whose addresses may each hold N
				       connections in their handshake (AGENT_TRUST_DEFAULT), not
				       AGENT_PENDING_PER_ADDR; NULL = none */
	int quiet;                  /* no log lines */
	/* where log lines go (each whole, timestamped, printable, no newline): the command that
	 * starts the agent decides (netsweep agent: stderr or --logfile); NULL = nowhere */
	void (*log)(void *arg, const char *line);
	void *log_arg;
	double max_duration_s;      /* omit + duration of one test (default 3600; 0 = 86400) */
	uint64_t max_rate_bps;      /* pacing rate a test must ask for at most (0 = no cap) */
	uint32_t max_streams;       /* streams per direction (default and most: 1024) */
	uint32_t max_tests;         /* tests at once, 1..AGENT_MAX_TESTS_LIMIT (default 16) */
	int delegate;               /* run DELEGATE_REQUESTs (off by default: never the client of
				     * another's test unless asked for) */
};

struct agent;

void agent_opts_init(struct agent_opts *o);
/* Binds and listens; returns NULL with err filled on failure. */
struct agent *agent_create(const struct agent_opts *o, struct ns_err *err);
uint16_t agent_port(const struct agent *a);
/* Serves tests until agent_stop(); returns 0 on a clean stop. */
int agent_serve(struct agent *a, struct ns_err *err);
/* Async-signal-safe: asks agent_serve to return. */
void agent_stop(struct agent *a);
void agent_destroy(struct agent *a);

#endif
