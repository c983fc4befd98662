/* agent: the daemon that serves tests one after another (see agent.h and
 * schemas/control-protocol.md). The accept loop runs on the caller's thread and never blocks on
 * a client: while a test runs, a second client gets BUSY at once. The one test runs on a
 * session thread, which watches the stop pipe in every wait so that agent_stop ends it. */
#include "agent.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../core/units.h"
#include "../host/hostinfo.h"
#include "proto.h"
#include "session.h"
#include "sockopt.h"

#define AGENT_MAX_LINGER 16        /* BUSY answers waiting for the client to read them */
#define AGENT_LINGER_S 1.0
#define AGENT_SETUP_S 5.0          /* data connections, on top of the client's connect timeout */
#define AGENT_DRAIN_S 2.0
#define AGENT_COOKIE_WAIT_S 1.0

struct agent {
	struct agent_opts o;
	int lfd;
	uint16_t port;
	int pipe_r, pipe_w;        /* agent_stop writes; every wait polls pipe_r */
	atomic_bool stop;
	atomic_bool busy;          /* a session thread owns a client */
	pthread_t tid;
	bool have_thread;
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
	uint8_t *buf;
};

static void logf_(const struct agent *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void logf_(const struct agent *a, const char *fmt, ...)
{
	if (a->o.quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "netsweep agent: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

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

static bool same_ip(const struct sockaddr_storage *x, const struct sockaddr_storage *y)
{
	if (x->ss_family != y->ss_family)
		return false;
	if (x->ss_family == AF_INET)
		return ((const struct sockaddr_in *)x)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)y)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)x)->sin6_addr,
		       &((const struct sockaddr_in6 *)y)->sin6_addr, sizeof(struct in6_addr));
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

static uint16_t get_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0)
		return 0;
	return ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					     : ((struct sockaddr_in6 *)&ss)->sin6_port);
}

/* Called just before a session's last message: a client that reads it and connects again at
 * once must not be told BUSY (the runner asks for hostinfo, then runs a test). The next
 * session joins this thread before it starts. */
static void release(struct agent *a)
{
	atomic_store(&a->busy, false);
}

static void refuse(struct conn *c, uint16_t code, const char *why)
{
	logf_(c->a, "%s: %s", c->peer_name, why);
	release(c->a);
	proto_send_error(c->ctl, code, why);
}

static int send_hostinfo(struct conn *c, struct ns_err *err)
{
	struct hostinfo_opts ho;
	char *json = NULL;
	hostinfo_opts_init(&ho);
	ho.peer = c->peer_name;
	if (hostinfo_collect_json(&ho, &json, err) < 0)
		return -1;
	size_t n = strlen(json);
	if (n <= PROTO_MAX_PAYLOAD)
		release(c->a);
	int rc = n > PROTO_MAX_PAYLOAD
			 ? ns_err_set(err, "host information of %zu bytes is too large", n)
			 : proto_send(c->ctl, PROTO_HOSTINFO, json, n, proto_now() + 5, err);
	free(json);
	return rc;
}

/* ---- one test ---- */

struct atest {
	struct conn *c;
	struct probe_params p;
	struct session_end ends[2];   /* [0] the first direction of the test */
	uint32_t n_ends, total;
	uint8_t cookie[PROTO_COOKIE_LEN];
	int dfd;                      /* TCP data listener */
	int *udp;                     /* UDP sockets by stream index (fds of ends[]) */
	bool *got;                    /* stream k has its connection */
	uint32_t n_got;
	bool start_asked;
};

static int *stream_slot(struct atest *t, uint32_t k)
{
	struct session_end *e = &t->ends[0];
	if (k >= e->n) {
		k -= e->n;
		e = &t->ends[1];
	}
	return &e->fds[k];
}

static bool valid_hello(const struct atest *t, const uint8_t *h, uint32_t *index)
{
	uint32_t be;
	if (memcmp(h, t->cookie, PROTO_COOKIE_LEN) != 0)
		return false;
	memcpy(&be, h + PROTO_COOKIE_LEN, 4);
	*index = ntohl(be);
	return *index < t->total;
}

/* Opens the data listener or the UDP sockets on the control connection's local address. */
static int open_data(struct atest *t, struct proto_ready *r, struct ns_err *err)
{
	struct sockaddr_storage sa = t->c->local;
	set_port(&sa, 0);
	if (t->p.proto == NS_PROTO_TCP) {
		t->dfd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (t->dfd < 0)
			return ns_err_sys(err, "socket");
		if (sockopt_apply(t->dfd, &t->p, err) < 0)
			return -1;
		if (bind(t->dfd, (struct sockaddr *)&sa, t->c->local_len) < 0 ||
		    listen(t->dfd, (int)t->total) < 0)
			return ns_err_sys(err, "data listener");
		r->data_port = get_port(t->dfd);
		return 0;
	}
	r->n_udp = t->total;
	for (uint32_t k = 0; k < t->total; k++) {
		int fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
		if (fd < 0)
			return ns_err_sys(err, "UDP socket");
		*stream_slot(t, k) = fd;
		t->udp[k] = fd;
		if (sockopt_apply(fd, &t->p, err) < 0)
			return -1;
		if (bind(fd, (struct sockaddr *)&sa, t->c->local_len) < 0)
			return ns_err_sys(err, "UDP bind");
		r->udp_ports[k] = get_port(fd);
	}
	return 0;
}

/* A TCP data connection: only from the client's address, only with the cookie. */
static void accept_data(struct atest *t)
{
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	int fd = accept4(t->dfd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	uint8_t h[PROTO_DATA_HELLO_LEN];
	size_t got = 0;
	double until = proto_now() + AGENT_COOKIE_WAIT_S;
	uint32_t k;
	if (!same_ip(&from, &t->c->peer))
		goto drop;
	while (got < sizeof(h) && proto_now() < until) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		ssize_t r = recv(fd, h + got, sizeof(h) - got, MSG_DONTWAIT);
		if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR)))
			goto drop;
		if (r > 0)
			got += (size_t)r;
	}
	if (got < sizeof(h) || !valid_hello(t, h, &k) || t->got[k])
		goto drop;
	if (t->p.nodelay)
		sockopt_nodelay(fd, NULL);
	*stream_slot(t, k) = fd;
	t->got[k] = true;
	t->n_got++;
	return;
drop:
	close(fd);
}

/* A UDP greeting on stream k's socket: connect to its source (the client's address only) and
 * echo it, again for every repeat, since the echo may be lost. */
static void udp_greeting(struct atest *t, uint32_t k)
{
	uint8_t h[PROTO_DATA_HELLO_LEN + 1];
	struct sockaddr_storage from;
	socklen_t fl = sizeof(from);
	uint32_t idx;
	ssize_t r = recvfrom(t->udp[k], h, sizeof(h), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (r != PROTO_DATA_HELLO_LEN || !same_ip(&from, &t->c->peer) || !valid_hello(t, h, &idx) ||
	    idx != k)
		return;
	if (!t->got[k]) {
		if (connect(t->udp[k], (struct sockaddr *)&from, fl) < 0)
			return;
		t->got[k] = true;
		t->n_got++;
	}
	send(t->udp[k], h, PROTO_DATA_HELLO_LEN, MSG_DONTWAIT);
}

/* Waits for every data stream and the client's START. */
static int connect_phase(struct atest *t, struct ns_err *err)
{
	struct conn *c = t->c;
	double deadline = proto_now() + t->p.connect_timeout_s + AGENT_SETUP_S;
	uint32_t np = 2 + (t->p.proto == NS_PROTO_TCP ? 1 : t->total);
	struct pollfd *pfd = calloc(np, sizeof(*pfd));
	int rc = -1;
	if (!pfd)
		return ns_err_set(err, "out of memory");
	pfd[0] = (struct pollfd){.fd = c->ctl, .events = POLLIN};
	pfd[1] = (struct pollfd){.fd = c->a->pipe_r, .events = POLLIN};
	for (uint32_t i = 2; i < np; i++)
		pfd[i] = (struct pollfd){.fd = t->p.proto == NS_PROTO_TCP ? t->dfd : t->udp[i - 2],
					 .events = POLLIN};
	while (!(t->start_asked && t->n_got == t->total)) {
		double left = deadline - proto_now();
		if (left <= 0) {
			ns_err_set(err, "only %u of %u data streams connected in time",
				   (unsigned)t->n_got, (unsigned)t->total);
			goto out;
		}
		int n = poll(pfd, np, (int)(left * 1000) + 1);
		if (n < 0 && errno != EINTR) {
			ns_err_sys(err, "poll");
			goto out;
		}
		if (n <= 0)
			continue;
		if (pfd[1].revents) {
			ns_err_set(err, "agent stopping");
			goto out;
		}
		for (uint32_t i = 2; i < np; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (t->p.proto == NS_PROTO_TCP)
				accept_data(t);
			else
				udp_greeting(t, i - 2);
		}
		if (pfd[0].revents) {
			uint16_t type;
			uint32_t len;
			bool eof;
			if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + 5, c->a->pipe_r, &eof,
				       err) < 0)
				goto out;
			if (type != PROTO_START) {
				ns_err_set(err, "expected START, got %s", proto_type_name(type));
				goto out;
			}
			t->start_asked = true;
		}
	}
	rc = 0;
out:
	free(pfd);
	return rc;
}

/* The measured run: intervals until the client's STOP. Returns -1 when the client went away. */
static int measure(struct atest *t, struct ns_err *err)
{
	struct conn *c = t->c;
	struct session_clock clk;
	session_clock_init(&clk, proto_now(), &t->p);
	/* a silent client is dropped a bounded time after the test should have ended */
	double deadline = clk.t0 + t->p.omit_s + t->p.duration_s + c->a->o.idle_timeout_s;
	for (;;) {
		double now = proto_now();
		double next = session_tick(&clk, t->ends, t->n_ends, now);
		if (now >= deadline)
			return ns_err_set(err, "client silent: no STOP in time");
		double wait = next - now < 0.2 ? next - now : 0.2;
		if (clk.ended) /* a sender's time ends when it stops: watch it closely */
			for (uint32_t i = 0; i < t->n_ends; i++)
				if (!session_end_watch(&t->ends[i], now))
					wait = 0.002;
		struct pollfd pfd[2] = {{.fd = c->ctl, .events = POLLIN},
					{.fd = c->a->pipe_r, .events = POLLIN}};
		int n = poll(pfd, 2, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		if (n <= 0)
			continue;
		if (pfd[1].revents)
			return ns_err_set(err, "agent stopping");
		uint16_t type;
		uint32_t len;
		bool eof;
		if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + 5, c->a->pipe_r, &eof,
			       err) < 0)
			return -1;
		if (type == PROTO_STOP)
			return 0;
		return ns_err_set(err, "client sent %s during the test", proto_type_name(type));
	}
}

static int send_results(struct atest *t, struct ns_err *err)
{
	int fd = t->c->ctl;
	double deadline = proto_now() + 10;
	struct proto_results r = {.n_dirs = t->n_ends};
	for (uint32_t i = 0; i < t->n_ends; i++) {
		struct session_end *e = &t->ends[i];
		double dur = e->t_end - e->t_omit;
		r.dirs[i] = (struct proto_dir_summary){
			.dir = (uint8_t)e->dir,
			.role = (uint8_t)e->role,
			.n_streams = e->n,
			.n_intervals = e->n_ivl,
			.duration_s = dur,
			.cpu_percent = sysstat_cpu_percent(&e->cpu_omit, &e->cpu_end),
			.kernel_drops = e->drops_end > e->drops_omit ? e->drops_end - e->drops_omit : 0,
			.gso_active = e->role == ENGINE_SEND && engine_gso_active(e->eng),
		};
	}
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_results(&b, &r);
	int rc = proto_send_buf(fd, PROTO_RESULTS, &b, deadline, err);
	for (uint32_t i = 0; rc == 0 && i < t->n_ends; i++) {
		struct session_end *e = &t->ends[i];
		struct proto_stream_rec recs[PROTO_STREAMS_PER_CHUNK];
		for (uint32_t first = 0; rc == 0 && first < e->n; first += PROTO_STREAMS_PER_CHUNK) {
			uint32_t cnt = e->n - first < PROTO_STREAMS_PER_CHUNK ? e->n - first
									     : PROTO_STREAMS_PER_CHUNK;
			for (uint32_t k = 0; k < cnt; k++) {
				recs[k].cpu = engine_stream_cpu(e->eng, first + k);
				recs[k].omit = e->omit[first + k];
				recs[k].end = e->cur[first + k];
			}
			b.len = 0;
			proto_enc_streams(&b, (uint8_t)e->dir, first, recs, cnt);
			rc = proto_send_buf(fd, PROTO_RESULT_STREAMS, &b, deadline, err);
		}
		for (uint32_t first = 0; rc == 0 && first < e->n_ivl; first += PROTO_IVLS_PER_CHUNK) {
			uint32_t cnt = e->n_ivl - first < PROTO_IVLS_PER_CHUNK ? e->n_ivl - first
									       : PROTO_IVLS_PER_CHUNK;
			b.len = 0;
			proto_enc_intervals(&b, (uint8_t)e->dir, first, e->ivl + first, cnt);
			rc = proto_send_buf(fd, PROTO_RESULT_INTERVALS, &b, deadline, err);
		}
	}
	proto_buf_free(&b);
	if (rc < 0)
		return -1;
	release(t->c->a);
	return proto_send(fd, PROTO_DONE, NULL, 0, deadline, err);
}

static void agent_run_test(struct conn *c, uint32_t len)
{
	struct atest t;
	struct ns_err err = {{0}};
	struct proto_ready *ready = calloc(1, sizeof(*ready));
	int cpus[UNITS_MAX_CPUS];
	uint32_t n_cpus = 0;
	uint16_t code = PROTO_E_BAD_REQUEST;
	memset(&t, 0, sizeof(t));
	t.c = c;
	t.dfd = -1;
	if (!ready) {
		refuse(c, PROTO_E_INTERNAL, "out of memory");
		return;
	}
	if (proto_dec_params(c->buf, len, &t.p, &err) < 0 || probe_params_check(&t.p, &err) < 0 ||
	    session_cpus(&t.p, cpus, UNITS_MAX_CPUS, &n_cpus, &err) < 0)
		goto fail;
	code = PROTO_E_INTERNAL;
	/* the agent receives the forward direction and sends the reverse one */
	if (t.p.dir != NS_DIR_REVERSE &&
	    session_end_init(&t.ends[t.n_ends++], NS_DIR_FORWARD, ENGINE_RECV, t.p.streams, false,
			     &err) < 0)
		goto fail;
	if (t.p.dir != NS_DIR_FORWARD &&
	    session_end_init(&t.ends[t.n_ends++], NS_DIR_REVERSE, ENGINE_SEND, t.p.streams, false,
			     &err) < 0)
		goto fail;
	t.total = t.n_ends * t.p.streams;
	t.udp = calloc(t.total, sizeof(int));
	t.got = calloc(t.total, sizeof(bool));
	if (!t.udp || !t.got) {
		ns_err_set(&err, "out of memory");
		goto fail;
	}
	if (getrandom(t.cookie, sizeof(t.cookie), 0) != (ssize_t)sizeof(t.cookie)) {
		ns_err_sys(&err, "getrandom");
		goto fail;
	}
	memcpy(ready->cookie, t.cookie, sizeof(t.cookie));
	if (open_data(&t, ready, &err) < 0)
		goto fail;
	struct proto_buf b;
	proto_buf_init(&b);
	proto_enc_ready(&b, ready);
	int rc = proto_send_buf(c->ctl, PROTO_READY, &b, proto_now() + 5, &err);
	proto_buf_free(&b);
	code = PROTO_E_TIMEOUT;
	if (rc < 0 || connect_phase(&t, &err) < 0)
		goto fail;
	if (t.dfd >= 0) { /* every stream is in: nobody else gets queued on the data port */
		close(t.dfd);
		t.dfd = -1;
	}
	logf_(c->a, "%s: %s %s test, %u stream(s), %g s", c->peer_name, ns_proto_name(t.p.proto),
	      ns_dir_name(t.p.dir), (unsigned)t.p.streams, t.p.duration_s);
	code = PROTO_E_INTERNAL;
	uint32_t threads = session_threads(&t.p);
	for (int pass = 0; pass < 2; pass++) /* receivers first */
		for (uint32_t i = 0; i < t.n_ends; i++) {
			struct session_end *e = &t.ends[i];
			if ((pass == 0) != (e->role == ENGINE_RECV))
				continue;
			if (e->role == ENGINE_RECV && t.p.proto == NS_PROTO_UDP) {
				uint8_t junk[64]; /* late repeats of the greeting are not data */
				for (uint32_t k = 0; k < e->n; k++)
					while (recv(e->fds[k], junk, sizeof(junk), MSG_DONTWAIT) > 0)
						;
			}
			if (session_end_start(e, &t.p, threads, cpus, n_cpus, &err) < 0)
				goto fail;
		}
	if (proto_send(c->ctl, PROTO_START, NULL, 0, proto_now() + 5, &err) < 0)
		goto fail;
	code = PROTO_E_ABORT;
	if (measure(&t, &err) < 0)
		goto fail;
	for (int pass = 0; pass < 2; pass++) /* stop sending first, then drain what arrives */
		for (uint32_t i = 0; i < t.n_ends; i++)
			if ((pass == 0) == (t.ends[i].role == ENGINE_SEND))
				session_end_finish(&t.ends[i], AGENT_DRAIN_S);
	if (send_results(&t, &err) < 0)
		goto fail;
	logf_(c->a, "%s: test done", c->peer_name);
	goto out;
fail:
	refuse(c, code, err.msg[0] ? err.msg : "test failed");
out:
	for (uint32_t i = 0; i < 2; i++)
		session_end_destroy(&t.ends[i]);
	if (t.dfd >= 0)
		close(t.dfd);
	free(t.udp);
	free(t.got);
	free(ready);
}

/* The session thread: HELLO, then one HOSTINFO_REQUEST or one TEST_REQUEST. */
static void *session_main(void *arg)
{
	struct conn *c = arg;
	struct agent *a = c->a;
	struct ns_err err = {{0}};
	uint16_t type;
	uint32_t len;
	bool eof;
	struct proto_hello h;

	if (proto_recv(c->ctl, &type, c->buf, &len, proto_now() + a->o.idle_timeout_s, a->pipe_r,
		       &eof, &err) < 0) {
		if (!eof)
			refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		goto out;
	}
	if (type != PROTO_HELLO) {
		refuse(c, PROTO_E_UNEXPECTED, "expected HELLO");
		goto out;
	}
	if (proto_dec_hello(c->buf, len, &h, &err) < 0) {
		refuse(c, PROTO_E_VERSION, err.msg);
		goto out;
	}
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
			refuse(c, PROTO_E_BAD_REQUEST, err.msg);
		goto out;
	}
	switch (type) {
	case PROTO_HOSTINFO_REQUEST:
		if (send_hostinfo(c, &err) < 0)
			refuse(c, PROTO_E_INTERNAL, err.msg);
		break;
	case PROTO_TEST_REQUEST:
		agent_run_test(c, len);
		break;
	case PROTO_AUTH_CHALLENGE:
	case PROTO_AUTH_RESPONSE:
		refuse(c, PROTO_E_AUTH, "authentication is not supported by this agent");
		break;
	default:
		refuse(c, PROTO_E_UNEXPECTED, "unexpected message after HELLO");
		break;
	}
out:
	close(c->ctl);
	free(c->buf);
	free(c);
	release(a);
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
	logf_(a, "busy: refused a second client");
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
	logf_(a, "listening on %s port %u", a->o.listen_addr, (unsigned)a->port);
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
	logf_(a, "stopped");
	return 0;
}
