/* agent: the daemon that serves several tests at once (see agent.h and
 * schemas/control-protocol.md). The accept loop runs on the caller's thread and never blocks on
 * a client: every new connection goes through the gate (gate.c: HELLO, the key, the request)
 * together with the others. Each request then runs on a session thread of its own, which owns
 * everything of its test (data sockets, cookie, engines) and watches the stop pipe in every
 * wait so that agent_stop ends it; a test past --max-tests is refused with ERROR code 9. The
 * loop joins the threads that ended, so none outlives its test by more than a round. */
#include "agent.h"
#include "conn.h"
#include "caps.h"
#include "gate.h"
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "runner/engine/budget.h"
#include "runner/host/hostinfo.h"
#include "runner/session/sockopt.h"

static void on_ready(struct agent *a, struct conn *c);
static void join_sessions(struct agent *a, bool all);

/* A session thread, from its start until the accept loop joined it. */
struct session {
	struct session *next;
	pthread_t tid;
	atomic_bool done;          /* set by the thread as its last act */
	struct conn *c;
};

void agent_opts_init(struct agent_opts *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->listen_addr, sizeof(o->listen_addr), "::");
	o->port = NS_DEFAULT_PORT;
	o->idle_timeout_s = 10;
	o->max_duration_s = AGENT_DEFAULT_MAX_DURATION_S;
	o->max_streams = NS_MAX_STREAMS;
	o->max_tests = AGENT_DEFAULT_MAX_TESTS;
}

struct agent *agent_create(const struct agent_opts *o, struct ns_err *err)
{
	struct agent *a = calloc(1, sizeof(*a));
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_PASSIVE | AI_NUMERICSERV},
			*ai = NULL;
	char port[8];
	if (!a) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		return NULL;
	}
	a->o = *o;
	a->lfd = a->pipe_r = a->pipe_w = -1;
	atomic_init(&a->stop, false);
	atomic_init(&a->tests, 0);
	for (int i = 0; i < AGENT_MAX_LINGER; i++)
		a->linger[i].fd = -1;
	if (!(a->o.idle_timeout_s > 0 && a->o.idle_timeout_s <= 3600)) {
		ns_err_set(err, "idle timeout %g s out of range (0..3600]", a->o.idle_timeout_s);
		goto err;
	}
	if (a->o.max_tests < 1 || a->o.max_tests > AGENT_MAX_TESTS_LIMIT) {
		ns_err_code(err, NS_E_USAGE, "--max-tests %u out of range (1..%d)",
			    (unsigned)a->o.max_tests, AGENT_MAX_TESTS_LIMIT);
		goto err;
	}
	if (a->o.psk_file && a->o.psk_file[0] && auth_key_load(a->o.psk_file, &a->key, err) < 0)
		goto err;
	if (a->o.allow && a->o.allow[0] && cidr_parse(a->o.allow, &a->allow, err) < 0) {
		ns_err_prefix(err, "--allow");
		goto err;
	}
	if (a->o.trust && a->o.trust[0] && gate_parse_trust(a, a->o.trust, err) < 0)
		goto err;
	/* as many descriptors as allowed: the handshakes in flight and 2 x 1024 data streams */
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	a->fd_limit = UINT64_MAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		a->fd_limit = rl.rlim_cur;
	atomic_init(&a->fds_held, 0);
	if (!(a->gate = gate_create(a, on_ready, err)))
		goto err;
	if (a->o.max_rate_bps) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (!(a->budget = malloc(sizeof(*a->budget)))) {
			ns_err_code(err, NS_E_NOMEM, "out of memory");
			goto err;
		}
		if (budget_init(a->budget, a->o.max_rate_bps,
				(uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec, err) < 0) {
			free(a->budget);
			a->budget = NULL;
			goto err;
		}
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
	if (a->sessions)
		agent_stop(a);
	join_sessions(a, true);
	for (int i = 0; i < AGENT_MAX_LINGER; i++)
		if (a->linger[i].fd >= 0)
			close(a->linger[i].fd);
	if (a->lfd >= 0)
		close(a->lfd);
	if (a->pipe_r >= 0)
		close(a->pipe_r);
	if (a->pipe_w >= 0)
		close(a->pipe_w);
	gate_destroy(a->gate);
	if (a->budget) {
		budget_destroy(a->budget);
		free(a->budget);
	}
	auth_key_clear(&a->key);
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
		agent_release(c);
	int rc = n > PROTO_MAX_PAYLOAD
			 ? ns_err_set(err, "host information of %zu bytes is too large", n)
			 : proto_send(c->ctl, PROTO_HOSTINFO, json, n, proto_now() + 5, err);
	free(json);
	return rc;
}

/* The session thread: the one request the gate read (after HELLO and the key). */
static void *session_main(void *arg)
{
	struct session *sn = arg;
	struct conn *c = sn->c;
	struct ns_err err = {0};
	uint32_t len = c->req_len;
	char peer[PROTO_MAX_PEER + 1];

	switch (c->req_type) {
	case PROTO_HOSTINFO_REQUEST:
		if (proto_dec_hostinfo_request(c->buf, len, peer, sizeof(peer), &err) < 0)
			agent_refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		else if (send_hostinfo(c, peer, &err) < 0)
			agent_refuse(c, PROTO_E_INTERNAL, err.msg);
		break;
	case PROTO_DELEGATE_REQUEST:
		agent_run_delegated(c, len, c->hello_flags);
		break;
	case PROTO_TEST_REQUEST:
		agent_run_test(c, len);
		break;
	default:
		agent_refuse(c, PROTO_E_UNEXPECTED, "unexpected message after HELLO");
		break;
	}
	agent_release(c);
	agent_fds_give(c); /* its data sockets are closed by now */
	close(c->ctl);
	free(c->buf);
	free(c);
	atomic_store_explicit(&sn->done, true, memory_order_release);
	return NULL;
}

/* Joins the session threads that ended (all of them, waiting, when all is set). */
static void join_sessions(struct agent *a, bool all)
{
	for (struct session **pp = &a->sessions; *pp;) {
		struct session *sn = *pp;
		if (!all && !atomic_load_explicit(&sn->done, memory_order_acquire)) {
			pp = &sn->next;
			continue;
		}
		pthread_join(sn->tid, NULL);
		*pp = sn->next;
		free(sn);
		a->n_sessions--;
	}
}

/* The last message of a connection, sent without waiting from the accept loop and kept until
 * the client read it: a refusal or a health check's STATUS. */
static void send_last(struct agent *a, struct conn *c, uint16_t type, struct proto_buf *b)
{
	struct proto_buf out;
	uint8_t hdr[PROTO_HDR_LEN];
	proto_buf_init(&out);
	proto_header_pack(hdr, type, (uint32_t)b->len);
	proto_put_bytes(&out, hdr, sizeof(hdr));
	proto_put_bytes(&out, b->p, b->len);
	if (!out.oom && !b->oom) {
		ssize_t r = send(c->ctl, out.p, out.len, MSG_DONTWAIT | MSG_NOSIGNAL);
		(void)r;
	}
	proto_buf_free(&out);
	agent_linger(a, c->ctl);
	free(c->buf);
	free(c);
}

/* The health check (STATUS_REQUEST, version 24): answered here, on the accept loop, from the
 * agent's counters — no test slot, no session thread, no data socket, no draw on --max-rate —
 * so it passes under every cap and with every slot in use, and a running test never sees it. */
static void answer_status(struct agent *a, struct conn *c)
{
	struct proto_buf b;
	struct proto_status st = {.tests = atomic_load(&a->tests), .max_tests = a->o.max_tests,
				  .max_rate_bps = a->o.max_rate_bps, .sessions = a->n_sessions,
				  .delegate = a->o.delegate ? 1 : 0,
				  .uptime_s = proto_now() - a->started};
	proto_buf_init(&b);
	if (c->req_len != 0)
		proto_enc_error(&b, PROTO_E_BAD_REQUEST, "STATUS_REQUEST has no payload");
	else
		proto_enc_status(&b, &st);
	send_last(a, c, c->req_len != 0 ? PROTO_ERROR : PROTO_STATUS, &b);
	proto_buf_free(&b);
}

/* The last message of a connection the agent has no room for: ERROR code 9 naming the bound,
 * kept until the client read it (a client of version 19 or older was told BUSY). */
static void refuse_full(struct agent *a, struct conn *c, const char *why)
{
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_error(&b, PROTO_E_FULL, why);
	agent_log_limited(a, "%s: refused: %s", c->peer_name, why);
	send_last(a, c, PROTO_ERROR, &b);
	proto_buf_free(&b);
}

/* The gate hands over a client that is through the handshake with its request: a test or a
 * delegated run takes a test slot (at most --max-tests), a host-info question only a thread;
 * each runs on a session thread of its own. */
static void on_ready(struct agent *a, struct conn *c)
{
	char why[160];
	bool test = c->req_type == PROTO_TEST_REQUEST || c->req_type == PROTO_DELEGATE_REQUEST;
	join_sessions(a, false);
	if (c->req_type == PROTO_STATUS_REQUEST) {
		answer_status(a, c);
		return;
	}
	if (test && atomic_load(&a->tests) >= a->o.max_tests) {
		snprintf(why, sizeof(why), "busy: this agent runs at most %u test%s at once "
			 "(--max-tests %u) and all are running; try again later",
			 (unsigned)a->o.max_tests, a->o.max_tests == 1 ? "" : "s",
			 (unsigned)a->o.max_tests);
		refuse_full(a, c, why);
		return;
	}
	if (a->n_sessions >= a->o.max_tests + AGENT_SPARE_SESSIONS) {
		snprintf(why, sizeof(why), "busy: this agent is finishing %u sessions (at most %u "
			 "at once with --max-tests %u); try again later", a->n_sessions,
			 (unsigned)(a->o.max_tests + AGENT_SPARE_SESSIONS), (unsigned)a->o.max_tests);
		refuse_full(a, c, why);
		return;
	}
	struct session *sn = calloc(1, sizeof(*sn));
	if (!sn) {
		agent_log(a, "%s: out of memory for a session", c->peer_name);
		goto fail;
	}
	sn->c = c;
	atomic_init(&sn->done, false);
	if (test) {
		c->holds_slot = true;
		atomic_fetch_add(&a->tests, 1);
	}
	if (pthread_create(&sn->tid, NULL, session_main, sn) != 0) {
		agent_log(a, "%s: cannot start a session thread", c->peer_name);
		agent_release(c);
		free(sn);
		goto fail;
	}
	sn->next = a->sessions;
	a->sessions = sn;
	a->n_sessions++;
	return;
fail:
	close(c->ctl);
	free(c->buf);
	free(c);
}

#define AGENT_ACCEPT_BURST 64 /* accepts per round, so that handshakes in flight get a turn */

/* Reads and closes what refusals (ERROR) left lingering. */
static void linger_step(struct agent *a, const struct pollfd *pfd, const int *map, int n)
{
	double now = proto_now();
	for (int k = 0; k < n; k++) {
		int i = map[k];
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
}

static void accept_burst(struct agent *a)
{
	for (int i = 0; i < AGENT_ACCEPT_BURST && !atomic_load(&a->stop); i++) {
		int fd = accept4(a->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0) {
			/* EAGAIN, ECONNABORTED: the next round retries; out of descriptors, the
			 * listener stays readable, so pause instead of spinning */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
				poll(NULL, 0, 100);
			return;
		}
		gate_accept(a->gate, fd);
	}
}

int agent_serve(struct agent *a, struct ns_err *err)
{
	enum { NPFD = 2 + AGENT_MAX_LINGER + AGENT_MAX_PENDING };
	struct pollfd *pfd = calloc(NPFD, sizeof(*pfd));
	int map[AGENT_MAX_LINGER], wait_ms = 200;
	if (!pfd)
		return ns_err_code(err, NS_E_NOMEM, "out of memory");
	a->started = proto_now();
	agent_log(a, "listening on %s port %u", a->o.listen_addr, (unsigned)a->port);
	if (!a->key.len)
		agent_log(a, "no --psk-file: serving loopback clients only");
	while (!atomic_load(&a->stop)) {
		int n = 2, n_linger = 0;
		pfd[0] = (struct pollfd){.fd = a->lfd, .events = POLLIN};
		pfd[1] = (struct pollfd){.fd = a->pipe_r, .events = POLLIN};
		for (int i = 0; i < AGENT_MAX_LINGER; i++)
			if (a->linger[i].fd >= 0) {
				map[n_linger++] = i;
				pfd[n++] = (struct pollfd){.fd = a->linger[i].fd, .events = POLLIN};
			}
		int n_gate = gate_pollfds(a->gate, pfd + n);
		int r = poll(pfd, (nfds_t)(n + n_gate), wait_ms < 200 ? wait_ms : 200);
		if (r < 0 && errno != EINTR) {
			free(pfd);
			return ns_err_sys(err, "poll");
		}
		if (r < 0) /* EINTR: no revents to trust */
			for (int k = 0; k < n + n_gate; k++)
				pfd[k].revents = 0;
		linger_step(a, pfd + 2, map, n_linger);
		wait_ms = gate_step(a->gate, pfd + n, n_gate);
		join_sessions(a, false);
		if ((pfd[0].revents & POLLIN) && !atomic_load(&a->stop))
			accept_burst(a);
	}
	free(pfd);
	join_sessions(a, true);
	agent_log(a, "stopped");
	return 0;
}
