/* engine_rr: request/response for the engine's threads (enum engine_rr in engine.h). A stream
 * is a small state machine — send the request, read the response — stepped as far as its
 * socket allows. A thread with one stream and no pacing makes blocking calls (with timeouts,
 * to see the stop flag), two system calls per transaction as netperf and sockperf do; a
 * thread with several streams steps them all and waits in ppoll on those that blocked. */
#include "engine_int.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <poll.h>
#include <unistd.h>
#include <time.h>

enum { RR_IDLE = 0, RR_SEND = 1, RR_RECV = 2, RR_CONNECT = 3 };
/* TCP_CRR answerer: connections accepted per wake-up at most, and how long one may take to
 * send its greeting and request (a connection is served whole before the next) */
#define CRR_ACCEPT_BATCH 64
#define CRR_SERVE_NS 1000000000ull
#define RR_WAITING 3   /* a step's outcome: a paced requester's next start is not yet due */

static int rr_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	int one = 1;
	if (e->cfg.proto == NS_PROTO_TCP) /* a transaction's bytes never wait for an ACK */
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* TCP_CRR never blocks: the requester waits on connects, the answerer on its listener */
	s->rr_block = s->t->n == 1 && !(e->cfg.role == ENGINE_SEND && e->cfg.rr_rate > 0) &&
		       e->cfg.rr != ENGINE_CRR;
	int fl = fcntl(s->fd, F_GETFL);
	if (fl < 0 || fcntl(s->fd, F_SETFL, s->rr_block ? fl & ~O_NONBLOCK : fl | O_NONBLOCK) < 0)
		return ns_err_sys(err, "engine: request/response socket mode");
	if (s->rr_block) {
		struct timeval tv = {.tv_sec = 0, .tv_usec = (long)(E_POLL_NS / 1000)};
		setsockopt(s->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(s->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	}
	s->rr_phase = e->cfg.role == ENGINE_SEND ? RR_IDLE : RR_RECV;
	if (e->cfg.role == ENGINE_SEND) {
		s->hist = malloc(sizeof(*s->hist));
		if (!s->hist)
			return ns_err_code(err, NS_E_NOMEM, "engine: latency histogram");
		lathist_init(s->hist);
	}
	return 0;
}

/* One buffer per thread holds a request and its response in turn; one byte more than either
 * so that a longer UDP datagram shows as one. */
static int rr_thread_init(struct e_thread *t, struct ns_err *err)
{
	const struct engine_cfg *c = &t->e->cfg;
	t->buf_len = (c->rr_request > c->rr_response ? c->rr_request : c->rr_response) + 1 +
		     ENGINE_RR_GREETING_LEN;
	t->buf = engine_buf_alloc(t->buf_len);
	if (!t->buf)
		return ns_err_sys(err, "engine: %zu-byte request/response buffer", t->buf_len);
	for (size_t i = 0; i < t->buf_len; i++)
		t->buf[i] = (unsigned char)(i * 131u + 7u);
	return 0;
}

static bool soft_errno(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/* Sends buf[off..len) (TCP) or the one datagram (UDP) on fd. 1 = all out, 0 = blocked, -1 =
 * ended (*why: the errno, EPIPE for a closed peer). */
static int put_fd(struct e_stream *s, int fd, const unsigned char *buf, uint32_t len, bool udp,
		  int *why)
{
	while (s->rr_off < len) {
		ssize_t n = send(fd, buf + s->rr_off, len - s->rr_off, MSG_NOSIGNAL);
		if (n > 0) {
			s->rr_off = udp ? len : s->rr_off + (uint32_t)n;
			continue;
		}
		if (n < 0 && (soft_errno() || (udp && (errno == ENOBUFS || errno == ECONNREFUSED))))
			return 0; /* UDP: a refused or dropped datagram shows as a lost transaction */
		*why = n < 0 ? errno : EPIPE;
		return -1;
	}
	s->rr_off = 0;
	return 1;
}

static int put(struct e_stream *s, const unsigned char *buf, uint32_t len, bool udp)
{
	int why = 0, rc = put_fd(s, s->fd, buf, len, udp, &why);
	if (rc < 0)
		e_finish(s, why);
	return rc;
}

static void put_seq(unsigned char *buf, uint64_t seq)
{
	for (int i = 0; i < ENGINE_RR_SEQ_LEN; i++)
		buf[i] = (unsigned char)(seq >> (8 * (ENGINE_RR_SEQ_LEN - 1 - i)));
}

static uint64_t get_seq(const unsigned char *buf)
{
	uint64_t v = 0;
	for (int i = 0; i < ENGINE_RR_SEQ_LEN; i++)
		v = v << 8 | buf[i];
	return v;
}

/* The response: TCP reads until rr_response bytes are in; UDP takes the datagram of that
 * length that carries the current sequence and ignores any other. 1 = complete, 0 = not
 * yet, -1 = ended (EOF or a hard error). */
static int get_response_fd(struct e_thread *t, struct e_stream *s, int fd, bool udp, int *why)
{
	uint32_t want = t->e->cfg.rr_response;
	for (;;) {
		ssize_t n = recv(fd, t->buf + (udp ? 0 : s->rr_off),
				 udp ? t->buf_len : want - s->rr_off, 0);
		if (n > 0 && udp) {
			if ((uint32_t)n == want && get_seq(t->buf) == s->rr_seq)
				return 1;
			continue; /* a late answer, or not ours */
		}
		if (n > 0) {
			s->rr_off += (uint32_t)n;
			if (s->rr_off == want)
				return 1;
			continue;
		}
		if (n < 0 && (soft_errno() || (udp && errno == ECONNREFUSED)))
			return 0;
		*why = n < 0 ? errno : 0;
		return -1;
	}
}

static int get_response(struct e_thread *t, struct e_stream *s, bool udp)
{
	int why = 0, rc = get_response_fd(t, s, s->fd, udp, &why);
	if (rc < 0)
		e_finish(s, why);
	return rc;
}

/* A paced requester's next start: false (and *wait shortened) while it is not yet due. */
static bool start_due(const struct engine *e, struct e_stream *s, uint64_t *wait)
{
	uint64_t now = engine_now_ns();
	if (s->rr_next && now < s->rr_next) {
		if (s->rr_next - now < *wait)
			*wait = s->rr_next - now;
		return false;
	}
	if (e->cfg.rr_rate > 0) { /* a fixed schedule: a late start does not move it */
		double gap = 1e9 * e->n / e->cfg.rr_rate;
		s->rr_next = (s->rr_next ? s->rr_next : now) + (uint64_t)gap;
	}
	return true;
}

/* TCP_CRR: a transaction's connection ended early (refused, reset): counted lost, the next
 * one starts; any other error ends the stream. */
static int crr_drop(struct e_stream *s, int why)
{
	close(s->rr_fd);
	s->rr_fd = -1;
	s->rr_phase = RR_IDLE;
	s->rr_off = 0;
	if (why == ECONNREFUSED || why == ECONNRESET || why == EPIPE || why == 0 ||
	    why == EADDRNOTAVAIL || why == ETIMEDOUT) {
		e_add(&s->lost, 1);
		return E_PROGRESS;
	}
	e_finish(s, why);
	return E_DONE;
}

/* The TCP_CRR requester: connect, greeting + request, response, close. */
static int crr_client_step(struct e_thread *t, struct e_stream *s, uint64_t *wait)
{
	struct engine *e = t->e;
	uint32_t len = ENGINE_RR_GREETING_LEN + e->cfg.rr_request;
	int why = 0, one = 1;
	if (s->rr_phase == RR_IDLE) {
		if (!start_due(e, s, wait))
			return RR_WAITING;
		int fd = socket(e->cfg.crr_addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
				0);
		if (fd < 0) {
			e_finish(s, errno);
			return E_DONE;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		s->rr_t0 = engine_now_ns();
		s->rr_fd = fd;
		s->rr_off = 0;
		s->rr_phase = RR_CONNECT;
		if (connect(fd, (const struct sockaddr *)&e->cfg.crr_addr, e->cfg.crr_addr_len) < 0 &&
		    errno != EINPROGRESS)
			return crr_drop(s, errno);
		memcpy(t->buf, e->cfg.crr_cookie, ENGINE_RR_COOKIE_LEN);
		for (int i = 0; i < 4; i++)
			t->buf[ENGINE_RR_COOKIE_LEN + i] = (unsigned char)(s->id >> (24 - 8 * i));
	}
	if (s->rr_phase == RR_CONNECT) {
		struct pollfd p = {.fd = s->rr_fd, .events = POLLOUT};
		if (poll(&p, 1, 0) == 0)
			return E_BLOCKED;
		socklen_t sl = sizeof(why);
		if (getsockopt(s->rr_fd, SOL_SOCKET, SO_ERROR, &why, &sl) < 0 || why)
			return crr_drop(s, why ? why : errno);
		s->rr_phase = RR_SEND;
	}
	if (s->rr_phase == RR_SEND) {
		/* the request follows the greeting: rewrite the pattern a response overwrote */
		int rc = put_fd(s, s->rr_fd, t->buf, len, false, &why);
		if (rc < 0)
			return crr_drop(s, why);
		if (rc == 0)
			return E_BLOCKED;
		s->rr_phase = RR_RECV;
		s->rr_off = 0;
	}
	int rc = get_response_fd(t, s, s->rr_fd, false, &why);
	if (rc < 0)
		return crr_drop(s, why ? why : ECONNRESET);
	if (rc == 0)
		return E_BLOCKED;
	close(s->rr_fd);
	s->rr_fd = -1;
	lathist_record(s->hist, engine_now_ns() - s->rr_t0);
	e_add(&s->bytes, e->cfg.rr_request);
	e_add(&s->packets, 1);
	s->rr_phase = RR_IDLE;
	return E_PROGRESS;
}

/* The requester's stream, as far as its socket allows. */
static int client_step(struct e_thread *t, struct e_stream *s, uint64_t *wait)
{
	struct engine *e = t->e;
	bool udp = e->cfg.proto == NS_PROTO_UDP;
	if (e->cfg.rr == ENGINE_CRR)
		return crr_client_step(t, s, wait);
	if (s->rr_phase == RR_IDLE) {
		if (!start_due(e, s, wait))
			return RR_WAITING;
		if (udp)
			put_seq(t->buf, ++s->rr_seq);
		s->rr_phase = RR_SEND;
		s->rr_off = 0;
		s->rr_t0 = engine_now_ns();
	}
	if (s->rr_phase == RR_SEND) {
		int rc = put(s, t->buf, e->cfg.rr_request, udp);
		if (rc < 0)
			return E_DONE;
		if (rc == 0 && !(udp && engine_now_ns() - s->rr_t0 >= ENGINE_RR_LOST_NS))
			return E_BLOCKED;
		s->rr_phase = RR_RECV;
		s->rr_off = 0;
	}
	int rc = get_response(t, s, udp);
	if (rc < 0)
		return E_DONE;
	uint64_t now = engine_now_ns();
	if (rc == 0) {
		if (!udp || now - s->rr_t0 < ENGINE_RR_LOST_NS)
			return E_BLOCKED;
		e_add(&s->lost, 1);
		s->rr_phase = RR_IDLE;
		return E_PROGRESS;
	}
	lathist_record(s->hist, now - s->rr_t0);
	e_add(&s->bytes, e->cfg.rr_request);
	e_add(&s->packets, 1);
	s->rr_phase = RR_IDLE;
	return E_PROGRESS;
}

/* True when a UDP datagram is the control protocol's greeting repeated late, not a request. */
static bool not_data(const struct engine *e, const unsigned char *buf, uint32_t len)
{
	return e->cfg.not_data_len && len >= e->cfg.not_data_len &&
	       !memcmp(buf, e->cfg.not_data, e->cfg.not_data_len);
}

/* The answering stream: read a whole request, send the response. */
static int server_step(struct e_thread *t, struct e_stream *s, uint64_t *wait)
{
	struct engine *e = t->e;
	bool udp = e->cfg.proto == NS_PROTO_UDP;
	uint32_t req = e->cfg.rr_request;
	while (s->rr_phase == RR_RECV) {
		ssize_t n = recv(s->fd, t->buf + (udp ? 0 : s->rr_off), udp ? t->buf_len : req - s->rr_off,
				 0);
		if (n < 0 && (soft_errno() || (udp && errno == ECONNREFUSED)))
			return E_BLOCKED;
		if (n <= 0) {
			e_finish(s, n < 0 ? errno : 0);
			return E_DONE;
		}
		if (udp && ((uint32_t)n != req || not_data(e, t->buf, (uint32_t)n)))
			continue;
		s->rr_off = udp ? req : s->rr_off + (uint32_t)n;
		if (s->rr_off == req) {
			s->rr_phase = RR_SEND;
			s->rr_off = 0;
		}
	}
	/* the response starts with the request's first bytes: UDP's sequence goes back */
	int rc = put(s, t->buf, e->cfg.rr_response, udp);
	if (rc < 0)
		return E_DONE;
	if (rc == 0 && !udp)
		return E_BLOCKED;
	e_add(&s->bytes, req);
	e_add(&s->packets, 1);
	s->rr_phase = RR_RECV;
	s->rr_off = 0;
	return E_PROGRESS;
}

static bool same_ip(const struct sockaddr_storage *a, const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return a->ss_family == AF_INET6 &&
	       !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr));
}

/* One TCP_CRR connection, served whole: the greeting with the test's cookie and a stream index
 * in range, the request, the response; then closed. Counted on the thread's first stream. */
static void crr_serve(struct e_thread *t, int fd)
{
	struct engine *e = t->e;
	uint32_t want = ENGINE_RR_GREETING_LEN + e->cfg.rr_request, got = 0;
	uint64_t until = engine_now_ns() + CRR_SERVE_NS;
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	while (got < want && engine_now_ns() < until) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, (int)(E_POLL_NS / 1000000ull)) <= 0)
			continue;
		ssize_t n = recv(fd, t->buf + got, want - got, MSG_DONTWAIT);
		if (n <= 0 && !(n < 0 && soft_errno()))
			return;
		if (n > 0)
			got += (uint32_t)n;
	}
	uint32_t idx = 0;
	for (int i = 0; i < 4; i++)
		idx = idx << 8 | t->buf[ENGINE_RR_COOKIE_LEN + i];
	if (got < want || memcmp(t->buf, e->cfg.crr_cookie, ENGINE_RR_COOKIE_LEN) || idx >= e->n)
		return;
	struct e_stream *s = t->streams[0];
	uint32_t off = 0;
	while (off < e->cfg.rr_response && engine_now_ns() < until) {
		ssize_t n = send(fd, t->buf + off, e->cfg.rr_response - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (uint32_t)n;
			continue;
		}
		if (n < 0 && soft_errno()) {
			struct pollfd p = {.fd = fd, .events = POLLOUT};
			poll(&p, 1, (int)(E_POLL_NS / 1000000ull));
			continue;
		}
		return;
	}
	if (off < e->cfg.rr_response)
		return;
	e_add(&s->bytes, e->cfg.rr_request);
	e_add(&s->packets, 1);
}

/* The TCP_CRR answerer's listener: what is queued, from the client's address only. */
static bool crr_accept(struct e_thread *t)
{
	bool any = false;
	for (int k = 0; k < CRR_ACCEPT_BATCH; k++) {
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		int fd = accept4(t->e->cfg.crr_listen_fd, (struct sockaddr *)&from, &fl,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			break;
		if (same_ip(&from, &t->e->cfg.crr_addr))
			crr_serve(t, fd);
		close(fd);
		any = true;
	}
	return any;
}

void engine_rr_run(struct e_thread *t)
{
	struct engine *e = t->e;
	bool client = e->cfg.role == ENGINE_SEND;
	bool blocking = t->n == 1 && t->streams[0]->rr_block;
	bool listener = !client && e->cfg.rr == ENGINE_CRR && t->idx == 0;
	while (!atomic_load_explicit(&e->stop, memory_order_relaxed)) {
		uint64_t now = engine_now_ns();
		if (client && e->deadline_ns && now >= e->deadline_ns)
			break;
		uint64_t wait = E_POLL_NS;
		uint32_t np = 0, nactive = 0;
		bool progress = false;
		for (uint32_t i = 0; i < t->n; i++) {
			struct e_stream *s = t->streams[i];
			if (!s->active)
				continue;
			nactive++;
			int rc = client ? client_step(t, s, &wait) : server_step(t, s, &wait);
			if (rc == E_PROGRESS)
				progress = true;
			else if (rc == E_BLOCKED)
				t->pfds[np++] = (struct pollfd){
					.fd = s->rr_fd >= 0 ? s->rr_fd : s->fd,
					.events = s->rr_phase == RR_SEND || s->rr_phase == RR_CONNECT
							  ? POLLOUT : POLLIN};
		}
		if (listener) {
			progress |= crr_accept(t);
			t->pfds[np++] = (struct pollfd){.fd = e->cfg.crr_listen_fd, .events = POLLIN};
		}
		if (!nactive)
			break;
		if (progress || (blocking && np))
			continue;
		if (client && e->deadline_ns && e->deadline_ns - now < wait)
			wait = e->deadline_ns - now;
		/* a UDP requester wakes in time to call its request lost */
		if (client && e->cfg.proto == NS_PROTO_UDP && wait > ENGINE_RR_LOST_NS / 4)
			wait = ENGINE_RR_LOST_NS / 4;
		struct timespec ts = {(time_t)(wait / 1000000000ull), (long)(wait % 1000000000ull)};
		ppoll(t->pfds, np, &ts, NULL);
	}
	atomic_store_explicit(&t->last_cpu, sched_getcpu(), memory_order_relaxed);
	for (uint32_t i = 0; i < t->n; i++)
		if (t->streams[i]->active)
			e_finish(t->streams[i], 0);
	atomic_store_explicit(&t->end_ns, engine_now_ns(), memory_order_relaxed);
}

const struct engine_ops engine_rr_client_ops = {
	.name = "rr client",
	.setup = rr_setup,
	.thread_init = rr_thread_init,
};

const struct engine_ops engine_rr_server_ops = {
	.name = "rr server",
	.setup = rr_setup,
	.thread_init = rr_thread_init,
};
