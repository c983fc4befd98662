/* client: probe_run with a live view. `netsweep probe` prints each interval as it ends;
 * probe_run is this without a callback. Also: host-info queries and delegated runs. */
#ifndef NS_CLIENT_H
#define NS_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "runner/proto/probe.h"

/* Called on the probe's thread for every interval of this end as it is recorded: each
 * stream's (where per-stream intervals are recorded) and then their sum (stream -1); the
 * other end's figures (UDP loss at the receiver, for instance) come only with the final
 * result. */
typedef void (*client_interval_fn)(const struct probe_interval *sum, enum ns_dir dir, void *arg);

int client_run(const struct probe_params *p, struct probe_result *res, client_interval_fn fn,
	       void *arg, struct ns_err *err);

/* Runs one test. Returns 0 on success; -1 with err filled (and res->status = -1,
 * res->error set) on failure, in which case res still holds whatever was measured. */
int probe_run(const struct probe_params *p, struct probe_result *res, struct ns_err *err);

/* A group case's common start (runner/group/): ready is called on the probe's thread once its
 * test is set up (data connections open, nothing sent) and may block until the group's other
 * tests are (res->started_unix then says when it began). */
struct client_sync {
	void (*ready)(void *arg);
	void *arg;
};
int probe_run_synced(const struct probe_params *p, struct probe_result *res,
		     struct client_sync *sync, struct ns_err *err);

/* Asks the agent for its host information (JSON text, malloc'd into *json); psk_file (NULL or
 * "" = none) is the key file proven to the agent. */
int probe_hostinfo(const char *host, uint16_t port, const char *psk_file, double timeout_s,
		   char **json, struct ns_err *err);

/* The health check (STATUS_REQUEST, version 24): the handshake, with the key when psk_file
 * names one, and the agent's counters back; no test, no data socket, no test slot. */
struct proto_status;
int probe_status(const char *host, uint16_t port, const char *psk_file, double timeout_s,
		 struct proto_status *st, struct ns_err *err);

/* The same, with the route towards peer (NULL = towards this caller) picking the interface
 * described: a delegating runner asks the client agent about its way to the target. */
int probe_hostinfo_peer(const char *host, uint16_t port, const char *psk_file, const char *peer,
			double timeout_s, char **json, struct ns_err *err);

/* Runs one test from another host: asks the agent at from_host:from_port (the client agent)
 * to run p against the agent at p->host:p->port and hands back its whole result
 * (schemas/control-protocol.md, DELEGATE_REQUEST). Bounded by twice the connect timeout plus
 * the test's timeout and a few seconds. Returns as probe_run does. */
int probe_run_from(const char *from_host, uint16_t from_port, const struct probe_params *p,
		   struct probe_result *res, struct ns_err *err);

/* client_run for an agent running a delegated test: its HELLO says so, so that the target
 * refuses to delegate further. No live intervals. cancel_fd becoming readable stops the test
 * (within the 0.1 s poll of the run); *accepted tells whether the target answered READY, that
 * is, whether it agreed to the test. Its sending draws from budget (the agent's --max-rate,
 * see runner/engine/budget.h; NULL = none). */
struct budget;
int client_run_delegated(const struct probe_params *p, int cancel_fd, struct probe_result *res,
			 bool *accepted, struct budget *budget, struct ns_err *err);

#endif
