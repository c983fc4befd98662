/* ctl: connections to an agent — a non-blocking connect bounded by a deadline (control and
 * data sockets alike) and the control connection's first steps (HELLO, the next message, the
 * agent's refusals as errors). The client, delegated runs and host-info queries build on it. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "runner/proto/auth.h"
#include "runner/proto/proto.h"
#include "runner/session/sockopt.h"

void client_sa_set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

void client_data_hello(uint8_t *out, const uint8_t *cookie, uint32_t index)
{
	uint32_t be = htonl(index);
	memcpy(out, cookie, PROTO_COOKIE_LEN);
	memcpy(out + PROTO_COOKIE_LEN, &be, 4);
}

void client_drain(const int *fds, uint32_t n)
{
	uint8_t junk[64];
	for (uint32_t i = 0; i < n; i++)
		while (recv(fds[i], junk, sizeof(junk), MSG_DONTWAIT) > 0)
			;
}

void client_set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

/* Closes the socket of a failed connect, keeping its errno; returns -1. */
int client_close_failed(int fd)
{
	int saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* -B / --cport: binds fd (of family fam) to src->addr ("" = any) and src->port (0 = any). */
static int bind_source(int fd, int fam, const struct client_src *src, struct ns_err *err)
{
	struct sockaddr_storage ss;
	socklen_t len;
	memset(&ss, 0, sizeof(ss));
	if (fam == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;
		a->sin_family = AF_INET;
		a->sin_port = htons(src->port);
		len = sizeof(*a);
		if (src->addr[0] && inet_pton(AF_INET, src->addr, &a->sin_addr) != 1)
			return ns_err_code(err, NS_E_USAGE, "bind address %s is not IPv4, the agent's "
					   "address is", src->addr);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;
		a->sin6_family = AF_INET6;
		a->sin6_port = htons(src->port);
		len = sizeof(*a);
		if (src->addr[0] && inet_pton(AF_INET6, src->addr, &a->sin6_addr) != 1)
			return ns_err_code(err, NS_E_USAGE, "bind address %s is not IPv6, the agent's "
					   "address is", src->addr);
	}
	int one = 1;
	/* a fixed port of the previous test may still be in TIME_WAIT */
	if (src->port)
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		if (src->port)
			return ns_err_sys(err, "binding to %s port %u", src->addr[0] ? src->addr : "any",
					  (unsigned)src->port);
		return ns_err_sys(err, "binding to %s", src->addr);
	}
	return 0;
}

/* Starts a non-blocking connect, opts (may be NULL) applied and src (may be NULL) bound before
 * it: poll the socket for POLLOUT, then client_connect_result() says how it went. */
int client_connect_start(const struct sockaddr *sa, socklen_t len, int type,
			 const struct probe_params *opts, const struct client_src *src,
			 struct ns_err *err)
{
	int fd = socket(sa->sa_family, type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ns_err_sys(err, "socket");
	if (opts && sockopt_apply(fd, opts, err) < 0)
		goto err;
	if (src && (src->addr[0] || src->port) && bind_source(fd, sa->sa_family, src, err) < 0)
		goto err;
	client_set_nonblock(fd, true);
	if (connect(fd, sa, len) < 0 && errno != EINPROGRESS) {
		ns_err_sys(err, "connect");
		goto err;
	}
	return fd;
err:
	return client_close_failed(fd);
}

/* The outcome of a connect that poll reported done: 0, or -1 with err set. */
int client_connect_result(int fd, struct ns_err *err)
{
	int soerr = 0;
	socklen_t sl = sizeof(soerr);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
	if (!soerr)
		return 0;
	errno = soerr;
	return ns_err_sys(err, "connect");
}

/* Non-blocking connect bounded by deadline; opts (may be NULL) applied before connect. */
int client_connect_to(const struct sockaddr *sa, socklen_t len, int type,
		      const struct probe_params *opts, const struct client_src *src, double deadline,
		      struct ns_err *err)
{
	int fd = client_connect_start(sa, len, type, opts, src, err);
	if (fd < 0)
		return -1;
	for (;;) {
		double left = deadline - proto_now();
		if (left <= 0) { /* nothing answered the SYN: a silent host or a filter */
			char where[PROTO_ADDR_NAME_LEN];
			proto_sa_name(sa, len, true, where, sizeof(where));
			ns_err_timeout(err, 0, "SYN-ACK from %s", where);
			goto err;
		}
		struct pollfd pfd = {.fd = fd, .events = POLLOUT};
		int n = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			ns_err_sys(err, "poll");
			goto err;
		}
		if (n > 0)
			break;
	}
	if (client_connect_result(fd, err) == 0)
		return fd;
err:
	return client_close_failed(fd);
}

int client_ctl_connect(const char *host, uint16_t port, double deadline,
		       struct sockaddr_storage *peer, socklen_t *peer_len, struct ns_err *err)
{
	return client_ctl_connect_from(host, port, NULL, deadline, peer, peer_len, err);
}

/* host failed to resolve in family fam (chosen by -4/-6 or the -B address): when it is an
 * address of the other family, or a name that has only such addresses, says so. */
static int family_mismatch(const char *host, int fam, const struct probe_params *p, int gai,
			   struct ns_err *err)
{
	char why[sizeof(p->bind) + 40];
	const char *want = fam == AF_INET ? "IPv4" : "IPv6", *other = fam == AF_INET ? "IPv6" : "IPv4";
	if (p->family)
		snprintf(why, sizeof(why), "-%u", (unsigned)p->family);
	else
		snprintf(why, sizeof(why), "the %s bind address %s (-B)", want, p->bind);
	unsigned char a[sizeof(struct in6_addr)];
	if (inet_pton(fam == AF_INET ? AF_INET6 : AF_INET, host, a) == 1)
		return ns_err_code(err, NS_E_USAGE, "'%s' is an %s address, but %s asks for %s", host,
				   other, why, want);
	struct addrinfo hints = {.ai_family = fam == AF_INET ? AF_INET6 : AF_INET,
				 .ai_socktype = SOCK_STREAM}, *ai;
	if (getaddrinfo(host, NULL, &hints, &ai) == 0) {
		freeaddrinfo(ai);
		return ns_err_code(err, NS_E_USAGE, "'%s' has no %s address (only %s), but %s asks "
				   "for %s", host, want, other, why, want);
	}
	return ns_err_code(err, NS_E_UNREACHABLE, "cannot resolve '%s': %s", host, gai_strerror(gai));
}

int client_ctl_connect_from(const char *host, uint16_t port, const struct probe_params *p,
			    double deadline, struct sockaddr_storage *peer, socklen_t *peer_len,
			    struct ns_err *err)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai, *a;
	struct client_src src = {.addr = p ? p->bind : ""};
	unsigned char any[sizeof(struct in6_addr)];
	if (p && (p->family == 4 || inet_pton(AF_INET, p->bind, any) == 1))
		hints.ai_family = AF_INET;
	else if (p && (p->family == 6 || inet_pton(AF_INET6, p->bind, any) == 1))
		hints.ai_family = AF_INET6;
	char ports[8];
	snprintf(ports, sizeof(ports), "%u", (unsigned)port);
	int rc = getaddrinfo(host, ports, &hints, &ai);
	if (rc != 0 && hints.ai_family != AF_UNSPEC)
		return family_mismatch(host, hints.ai_family, p, rc, err);
	if (rc != 0)
		return ns_err_code(err, NS_E_UNREACHABLE, "cannot resolve '%s': %s", host,
				   gai_strerror(rc));
	int fd = -1;
	for (a = ai; a && fd < 0; a = a->ai_next) {
		fd = client_connect_to(a->ai_addr, a->ai_addrlen, SOCK_STREAM, NULL, &src, deadline,
				       err);
		if (fd >= 0 && peer && a->ai_addrlen <= *peer_len) {
			memcpy(peer, a->ai_addr, a->ai_addrlen);
			*peer_len = a->ai_addrlen;
		}
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		ns_err_prefix(err, "agent %s port %u unreachable", host, (unsigned)port);
		if (err)
			err->code = NS_E_UNREACHABLE;
		return -1;
	}
	sockopt_nodelay(fd, NULL);
	return fd;
}

/* A timeout says whom it waited for and what for. */
static int timed_out(int ctl, const char *what, struct ns_err *err)
{
	char peer[PROTO_ADDR_NAME_LEN];
	proto_addr_name(ctl, false, peer, sizeof(peer));
	return ns_err_timeout(err, 0, "%s from %s", what, peer);
}

int client_ctl_waited(int ctl, const char *what, struct ns_err *err)
{
	return err && err->code == NS_E_TIMEOUT ? timed_out(ctl, what, err) : -1;
}

/* Receives the next message; ERROR and BUSY become errors with the agent's words. */
int client_ctl_recv(int ctl, uint8_t *buf, uint16_t *type, uint32_t *len, double deadline,
		    struct ns_err *err)
{
	bool eof;
	struct ns_err e = {0};
	if (proto_recv(ctl, type, buf, len, deadline, -1, &eof, &e) < 0) {
		if (err) /* a timeout already names the agent */
			*err = e;
		return -1;
	}
	if (*type == PROTO_BUSY)
		return ns_err_code(err, NS_E_BUSY, "agent is busy with another test; try again later");
	if (*type == PROTO_ERROR) {
		uint16_t code;
		char text[PROTO_MAX_TEXT];
		if (proto_dec_error(buf, *len, &code, text, sizeof(text), err) < 0)
			return -1;
		if (code == PROTO_E_AUTH)
			return ns_err_code(err, NS_E_AUTH, "authentication failed: the agent refused "
					   "our key");
		if (code == PROTO_E_FULL) /* the agent runs all the tests it may: try again later */
			return ns_err_code(err, NS_E_BUSY, "agent refused: %s", text);
		if (code == PROTO_E_VERSION)
			return ns_err_code(err, NS_E_PROTOCOL, "agent refused our control protocol "
					   "version %d: %s", PROTO_VERSION, text);
		return ns_err_code(err, NS_E_PEER, "agent refused: %s", text);
	}
	return 0;
}

int client_ctl_expect(int ctl, uint8_t *buf, uint16_t want, uint32_t *len, double deadline,
		      struct ns_err *err)
{
	uint16_t type;
	if (client_ctl_recv(ctl, buf, &type, len, deadline, err) < 0)
		return client_ctl_waited(ctl, proto_type_name(want), err);
	if (type != want)
		return ns_err_code(err, NS_E_PROTOCOL, "protocol error: expected %s, got %s", proto_type_name(want),
				  proto_type_name(type));
	return 0;
}

/* The first bytes of the answer to HELLO, looked at before they are read as a frame: a web
 * server or anything else on the port is named as such, not as an oversized frame. */
static int check_agent_speaks(int ctl, double deadline, struct ns_err *err)
{
	uint8_t peek[PROTO_HDR_LEN + 24];
	for (;;) {
		double left = deadline - proto_now();
		if (left <= 0)
			return timed_out(ctl, "HELLO (is it a netsweep agent?)", err);
		struct pollfd pfd = {.fd = ctl, .events = POLLIN};
		int n = poll(&pfd, 1, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR)
			return ns_err_sys(err, "poll");
		if (n > 0)
			break;
	}
	ssize_t got = recv(ctl, peek, sizeof(peek), MSG_PEEK | MSG_DONTWAIT);
	uint16_t type;
	uint32_t len;
	if (got < (ssize_t)PROTO_HDR_LEN || proto_header_parse(peek, &type, &len, NULL) == 0)
		return 0; /* a frame (or too little to tell): read it as one */
	char peer[PROTO_ADDR_NAME_LEN], text[sizeof(peek) + 1];
	size_t shown = (size_t)got < 16 ? (size_t)got : 16;
	memcpy(text, peek, shown);
	text[shown] = '\0';
	for (size_t i = 0; i < shown; i++)
		if (!text[i])
			text[i] = '?';
	proto_printable(text);
	proto_addr_name(ctl, false, peer, sizeof(peer));
	return ns_err_code(err, NS_E_PROTOCOL, "%s is not a netsweep agent (it sent \"%s%s\")", peer,
			   text, (size_t)got > shown ? "..." : "");
}

/* The key, proven both ways (auth.h): AUTH_CHALLENGE, our AUTH_RESPONSE, the agent's. */
static int ctl_auth(int ctl, uint8_t *buf, const struct auth_key *key, double deadline,
		    struct ns_err *err)
{
	uint8_t na[AUTH_NONCE_LEN], nc[AUTH_NONCE_LEN];
	uint32_t len;
	struct proto_buf b;
	if (client_ctl_expect(ctl, buf, PROTO_AUTH_CHALLENGE, &len, deadline, err) < 0)
		return -1;
	proto_buf_init(&b);
	int rc = auth_client_answer(key, buf, len, na, nc, &b, err);
	if (rc == 0)
		rc = proto_send_buf(ctl, PROTO_AUTH_RESPONSE, &b, deadline, err);
	proto_buf_free(&b);
	if (rc < 0 || client_ctl_expect(ctl, buf, PROTO_AUTH_RESPONSE, &len, deadline, err) < 0)
		return -1;
	return auth_client_verify(key, na, nc, buf, len, err);
}

int client_ctl_hello(int ctl, uint8_t *buf, uint16_t flags, const char *psk_file,
		     double deadline, struct ns_err *err)
{
	struct proto_buf b;
	struct proto_hello h = {.version = PROTO_VERSION, .flags = flags};
	struct auth_key key = {0};
	uint32_t len;
	int rc = -1;
	if (psk_file && psk_file[0] && auth_key_load(psk_file, &key, err) < 0)
		return -1;
	proto_buf_init(&b);
	proto_enc_hello(&b, &h);
	rc = proto_send_buf(ctl, PROTO_HELLO, &b, deadline, err);
	proto_buf_free(&b);
	if (rc < 0 || check_agent_speaks(ctl, deadline, err) < 0 ||
	    client_ctl_expect(ctl, buf, PROTO_HELLO, &len, deadline, err) < 0) {
		rc = -1;
		goto out;
	}
	if (proto_dec_hello(buf, len, &h, err) < 0) {
		if (err && err->code == NS_E_PROTOCOL) /* a HELLO of another version */
			ns_err_code(err, NS_E_PROTOCOL, "the agent speaks control protocol version "
				    "%u, this client %d: both ends need the same netsweep release",
				    (unsigned)h.version, PROTO_VERSION);
		rc = -1;
		goto out;
	}
	if ((h.flags & PROTO_HELLO_AUTH) && !key.len)
		rc = ns_err_code(err, NS_E_AUTH, "authentication failed: the agent requires a key "
				 "(--psk-file or NETSWEEP_PSK_FILE)");
	else if (!(h.flags & PROTO_HELLO_AUTH) && key.len)
		rc = ns_err_code(err, NS_E_AUTH, "authentication failed: the agent has no key and "
				 "cannot prove it holds ours");
	else
		rc = key.len ? ctl_auth(ctl, buf, &key, deadline, err) : 0;
out:
	auth_key_clear(&key);
	return rc;
}

void client_wait_until(double start_at)
{
	double now = probe_wall_now(), left = start_at - now;
	if (!(start_at > 0) || left <= 0)
		return;
	if (left > PROBE_START_AT_MAX_S)
		left = PROBE_START_AT_MAX_S;
	struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}
