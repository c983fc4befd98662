/* agent: the daemon that serves tests one after another (see agent.h and
 * schemas/control-protocol.md). The accept loop runs on the caller's thread and never blocks on
 * a client: while a test runs, a second client gets BUSY at once. The one test runs on a
 * session thread, which watches the stop pipe in every wait so that agent_stop ends it. */
#include "agent.h"
#include "conn.h"
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner/host/hostinfo.h"
#include "runner/session/sockopt.h"

void agent_opts_init(struct agent_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->listen_addr, sizeof(o->listen_addr), "::");
	o->port = NS_DEFAULT_PORT;
	o->idle_timeout_s = 10;
}

struct agent *agent_create(const struct agent_opts *o, struct ns_err *err)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
			*ai = NULL;
	char port[8];
	if (!a) {
		ns_err_set(err, "out of memory");
		return NULL;
	}
	a->o = *o;
	a->lfd = a->pipe_r = a->pipe_w = -1;
	atomic_init(&a->stop, false);
	atomic_init(&a->busy, false);
	for (int i = 0; i < AGENT_MAX_LINGER; i++)
		a->linger[i].fd = -1;
	if (!(a->o.idle_timeout_s > 0 && a->o.idle_timeout_s <= 3600)) {
		ns_err_set(err, "idle timeout %g s out of range (0..3600]", a->o.idle_timeout_s);
		goto err;
	}
	if (a->o.psk_file && a->o.psk_file[0]) {
		ns_err_set(err, "pre-shared-key authentication is not implemented yet");
		goto err;
	}
	snprintf(port, sizeof(port), "%u", (unsigned)o->port);
	int rc = getaddrinfo(o->listen_addr[0] ? o->listen_addr : "::", port, &hints, &ai);
	if (rc != 0) {
		ns_err_set(err, "listen address '%s': %s", o->listen_addr, gai_strerror(rc));
		goto err;
	}
	a->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (a->lfd < 0) {
		ns_err_sys(err, "socket");
		goto err;
	}
	int one = 1, zero = 0;
	setsockopt(a->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ai->ai_family == AF_INET6) /* "::" serves IPv4 clients too */
		setsockopt(a->lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(a->lfd, ai->ai_addr, ai->ai_addrlen) < 0) {
		ns_err_sys(err, "bind %s port %u", o->listen_addr, (unsigned)o->port);
		goto err;
	}
	if (listen(a->lfd, 64) < 0) {
		ns_err_sys(err, "listen");
		goto err;
	}
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	getsockname(a->lfd, (struct sockaddr *)&ss, &sl);
	a->port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
						: ((struct sockaddr_in6 *)&ss)->sin6_port);
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC | O_NONBLOCK) < 0) {
		ns_err_sys(err, "pipe");
		goto err;
	}
	a->pipe_r = pfd[0];
	a->pipe_w = pfd[1];
	freeaddrinfo(ai);
	return a;
err:
	if (ai)
		freeaddrinfo(ai);
	agent_destroy(a);
	return NULL;
}

uint16_t agent_port(const struct agent *a)
{
	return a->port;
}

void agent_stop(struct agent *a)
{
	atomic_store(&a->stop, true);
	if (a->pipe_w >= 0) {
		ssize_t r = write(a->pipe_w, "x", 1); /* async-signal-safe; the byte is never read */
		(void)r;
	}
}

void agent_destroy(struct agent *a)
{
	if (!a)
		return;
	if (a->have_thread) {
		agent_stop(a);
		pthread_join(a->tid, NULL);
	}
	for (int i = 0; i < AGENT_MAX_LINGER; i++)
		if (a->linger[i].fd >= 0)
			close(a->linger[i].fd);
	if (a->lfd >= 0)
		close(a->lfd);
	if (a->pipe_r >= 0)
		close(a->pipe_r);
	if (a->pipe_w >= 0)
		close(a->pipe_w);
	free(a);
}

/* peer: the address whose route picks the interface ("" = the requester's). */
static int send_hostinfo(struct conn *c, const char *peer, struct ns_err *err)
{
	struct hostinfo_opts ho;
	char *json = NULL;
	hostinfo_opts_init(&ho);
	ho.peer = peer[0] ? peer : c->peer_name;
	if (hostinfo_collect_json(&ho, &json, err) < 0)
		return -1;
	size_t n = strlen(json);
	if (n <= PROTO_MAX_PAYLOAD)
		agent_release(c->a);
	int rc = n > PROTO_MAX_PAYLOAD
			 ? ns_err_set(err, "host information of %zu bytes is too large", n)
			 : proto_send(c->ctl, PROTO_HOSTINFO, json, n, proto_now() + 5, err);
	free(json);
	return rc;
}

/* The session thread: HELLO, then one HOSTINFO_REQUEST or one TEST_REQUEST. */
static void *session_main(void *arg)
{
	struct conn *c = arg;
	struct agent *a = c->a;
	struct ns_err err = {0};
	uint16_t type;
	uint32_t len;
	bool eof;
	struct proto_hello h;
	char peer[PROTO_MAX_PEER + 1];

	if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + a->o.idle_timeout_s, a->pipe_r,
		       &eof, &err) < 0) {
		if (!eof)
			agent_refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		goto out;
	}
	if (type != PROTO_HELLO) {
		agent_refuse(c, PROTO_E_UNEXPECTED, "expected HELLO");
		goto out;
	}
	if (proto_dec_hello(c->buf, len, &h, &err) < 0) {
		agent_refuse(c, PROTO_E_VERSION, err.msg);
		goto out;
	}
	uint16_t client_flags = h.flags;
	struct proto_buf b;
	proto_buf_init(&b);
	h.version = PROTO_VERSION;
	h.flags = 0; /* bit 0 will announce a required AUTH_CHALLENGE */
	proto_enc_hello(&b, &h);
	int rc = proto_send_buf(c->ctl, PROTO_HELLO, &b, proto_now() + 5, &err);
	proto_buf_free(&b);
	if (rc < 0)
		goto out;
	/* one request per connection: a HOSTINFO_REQUEST or a TEST_REQUEST */
	if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + a->o.idle_timeout_s, a->pipe_r,
		       &eof, &err) < 0) {
		if (!eof)
			agent_refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		goto out;
	}
	switch (type) {
	case PROTO_HOSTINFO_REQUEST:
		if (proto_dec_hostinfo_request(c->buf, len, peer, sizeof(peer), &err) < 0)
			agent_refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		else if (send_hostinfo(c, peer, &err) < 0)
			agent_refuse(c, PROTO_E_INTERNAL, err.msg);
		break;
	case PROTO_DELEGATE_REQUEST:
		agent_run_delegated(c, len, client_flags);
		break;
	case PROTO_TEST_REQUEST:
		agent_run_test(c, len);
		break;
	case PROTO_AUTH_CHALLENGE:
	case PROTO_AUTH_RESPONSE:
		agent_refuse(c, PROTO_E_AUTH, "authentication is not supported by this agent");
		break;
	default:
		agent_refuse(c, PROTO_E_UNEXPECTED, "unexpected message after HELLO");
		break;
	}
out:
	close(c->ctl);
	free(c->buf);
	free(c);
	agent_release(a);
	return NULL;
}

/* Answers BUSY without reading the request, then keeps the socket until the client closed
 * (closing with unread data would reset the connection and could lose the answer). */
static void answer_busy(struct agent *a, int fd)
{
	uint8_t hdr[PROTO_HDR_LEN];
	proto_header_pack(hdr, PROTO_BUSY, 0);
	ssize_t r = send(fd, hdr, sizeof(hdr), MSG_DONTWAIT | MSG_NOSIGNAL);
	(void)r;
	shutdown(fd, SHUT_WR);
	int slot = 0;
	for (int i = 0; i < AGENT_MAX_LINGER; i++) {
		if (a->linger[i].fd < 0) {
			slot = i;
			break;
		}
		if (a->linger[i].until < a->linger[slot].until)
			slot = i;
	}
	if (a->linger[slot].fd >= 0)
		close(a->linger[slot].fd);
	a->linger[slot].fd = fd;
	a->linger[slot].until = proto_now() + AGENT_LINGER_S;
	agent_log(a, "busy: refused a second client");
}

static void start_session(struct agent *a, int fd, struct ns_err *err)
{
	struct conn *c = calloc(1, sizeof(*c));
	if (!c || !(c->buf = malloc(PROTO_MAX_PAYLOAD + 1))) {
		free(c);
		close(fd);
		return;
	}
	c->a = a;
	c->ctl = fd;
	c->local_len = sizeof(c->local);
	c->peer_len = sizeof(c->peer);
	getsockname(fd, (struct sockaddr *)&c->local, &c->local_len);
	getpeername(fd, (struct sockaddr *)&c->peer, &c->peer_len);
	getnameinfo((struct sockaddr *)&c->peer, c->peer_len, c->peer_name, sizeof(c->peer_name),
		    NULL, 0, NI_NUMERICHOST);
	/* an IPv4 client of the dual-stack socket: its plain address, for logs and for the
	 * route lookup of hostinfo */
	if (!strncmp(c->peer_name, "::ffff:", 7) && strchr(c->peer_name, '.'))
		memmove(c->peer_name, c->peer_name + 7, strlen(c->peer_name + 7) + 1);
	sockopt_nodelay(fd, NULL);
	if (a->have_thread) {
		pthread_join(a->tid, NULL);
		a->have_thread = false;
	}
	atomic_store(&a->busy, true);
	if (pthread_create(&a->tid, NULL, session_main, c) != 0) {
		ns_err_sys(err, "pthread_create");
		atomic_store(&a->busy, false);
		close(fd);
		free(c->buf);
		free(c);
		return;
	}
	a->have_thread = true;
}

int agent_serve(struct agent *a, struct ns_err *err)
{
	agent_log(a, "listening on %s port %u", a->o.listen_addr, (unsigned)a->port);
	while (!atomic_load(&a->stop)) {
		struct pollfd pfd[2 + AGENT_MAX_LINGER];
		int map[AGENT_MAX_LINGER], n = 2;
		pfd[0] = (struct pollfd){.fd = a->lfd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = a->pipe_r, .events = POLLIN};
		for (int i = 0; i < AGENT_MAX_LINGER; i++)
			if (a->linger[i].fd >= 0) {
				map[n - 2] = i;
				pfd[n++] = (struct pollfd){.fd = a->linger[i].fd, .events = POLLIN};
			}
		int r = poll(pfd, (nfds_t)n, 200);
		if (r < 0 && errno != EINTR)
			return ns_err_sys(err, "poll");
		double now = proto_now();
		for (int k = 2; k < n; k++) {
			int i = map[k - 2];
			uint8_t junk[4096];
			bool done = now >= a->linger[i].until;
			if (pfd[k].revents) {
				ssize_t got = recv(a->linger[i].fd, junk, sizeof(junk), MSG_DONTWAIT);
				if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR))
					done = true;
			}
			if (done) {
				close(a->linger[i].fd);
				a->linger[i].fd = -1;
			}
		}
		if (r <= 0 || !(pfd[0].revents & POLLIN) || atomic_load(&a->stop))
			continue;
		int fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			/* EAGAIN, ECONNABORTED: the next round retries; out of descriptors, the
			 * listener stays readable, so pause instead of spinning */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				poll(NULL, 0, 100);
			continue;
		}
		if (atomic_load(&a->busy))
			answer_busy(a, fd);
		else
			start_session(a, fd, err);
	}
	if (a->have_thread) {
		pthread_join(a->tid, NULL);
		a->have_thread = false;
	}
	agent_log(a, "stopped");
	return 0;
}
