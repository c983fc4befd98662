/* ctl: what client.c, delegate.c (the runner's side of a delegated run) and client_hostinfo.c
 * share — connects bounded by a deadline and the control connection's first steps. Internal to
 * runner/client: other folders use client.h. */
#ifndef NS_CLIENT_CTL_H
#define NS_CLIENT_CTL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "runner/proto/probe.h"

void client_set_nonblock(int fd, bool on);
void client_sa_set_port(struct sockaddr_storage *ss, uint16_t port);
/* A data stream's greeting: the test's cookie (PROTO_COOKIE_LEN bytes), then its index. */
void client_data_hello(uint8_t *out, const uint8_t *cookie, uint32_t index);
/* Drops late echoes of the UDP greeting on n sockets, so that an engine sees only data. */
void client_drain(const int *fds, uint32_t n);
/* Sleeps until the wall clock reaches start_at (probe_params.start_at; 0 or past: at once),
 * at most PROBE_START_AT_MAX_S. */
void client_wait_until(double start_at);
/* Closes the socket of a failed connect, keeping its errno; returns -1. */
int client_close_failed(int fd);
/* A connection's source: numeric address ("" = any) and port (0 = any), -B and --cport. */
struct client_src {
	const char *addr;
	uint16_t port;
};
/* Starts a non-blocking connect, opts (may be NULL) applied and src (may be NULL) bound before
 * it: poll the socket for POLLOUT, then client_connect_result() says how it went. */
int client_connect_start(const struct sockaddr *sa, socklen_t len, int type,
			 const struct probe_params *opts, const struct client_src *src,
			 struct ns_err *err);
/* The outcome of a connect that poll reported done: 0, or -1 with err set. */
int client_connect_result(int fd, struct ns_err *err);
/* Non-blocking connect bounded by deadline; opts and src (may be NULL) as above. */
int client_connect_to(const struct sockaddr *sa, socklen_t len, int type,
		      const struct probe_params *opts, const struct client_src *src, double deadline,
		      struct ns_err *err);
/* Connects to an agent's control port, trying each address until deadline; the address
 * that answered goes to peer (may be NULL). Returns the fd or -1. */
int client_ctl_connect(const char *host, uint16_t port, double deadline,
		       struct sockaddr_storage *peer, socklen_t *peer_len, struct ns_err *err);
/* The same from p's -B address and -4/-6 family (p may be NULL: any). */
int client_ctl_connect_from(const char *host, uint16_t port, const struct probe_params *p,
			    double deadline, struct sockaddr_storage *peer, socklen_t *peer_len,
			    struct ns_err *err);
/* HELLO both ways; flags as in proto.h (PROTO_HELLO_DELEGATED). buf: PROTO_MAX_PAYLOAD. With a
 * key file (psk_file not NULL or ""), the key is proven both ways; an agent that asks for a key
 * the caller lacks, or has none when the caller has one, fails with NS_E_AUTH. */
int client_ctl_hello(int ctl, uint8_t *buf, uint16_t flags, const char *psk_file,
		     double deadline, struct ns_err *err);
/* The next message; BUSY and ERROR become errors carrying the agent's words. */
int client_ctl_recv(int ctl, uint8_t *buf, uint16_t *type, uint32_t *len, double deadline,
		    struct ns_err *err);
int client_ctl_expect(int ctl, uint8_t *buf, uint16_t want, uint32_t *len, double deadline,
		      struct ns_err *err);
/* Returns -1; a timeout in err (NS_E_TIMEOUT) is worded as a wait for what from the agent on
 * ctl: "timed out waiting for WHAT from HOST:PORT". Other errors are left as they are. */
int client_ctl_waited(int ctl, const char *what, struct ns_err *err);
/* Whether SQLite's JSON parser takes text as one JSON value. */
bool client_json_ok(const char *text);
#endif
