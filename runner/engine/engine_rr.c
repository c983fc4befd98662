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
#include <time.h>

enum { RR_IDLE = 0, RR_SEND = 1, RR_RECV = 2 };
#define RR_WAITING 3   /* a step's outcome: a paced requester's next start is not yet due */

static int rr_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	int one = 1;
	if (e->cfg.proto == NS_PROTO_TCP) /* a transaction's bytes never wait for an ACK */
		setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	s->rr_block = s->t->n == 1 && !(e->cfg.role == ENGINE_SEND && e->cfg.rr_rate > 0);
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
	t->buf_len = (c->rr_request > c->rr_response ? c->rr_request : c->rr_response) + 1;
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

/* Sends buf[off..len) (TCP) or the one datagram (UDP). 1 = all out, 0 = blocked, -1 = ended. */
static int put(struct e_stream *s, const unsigned char *buf, uint32_t len, bool udp)
{
	while (s->rr_off < len) {
		ssize_t n = send(s->fd, buf + s->rr_off, len - s->rr_off, MSG_NOSIGNAL);
		if (n > 0) {
			s->rr_off = udp ? len : s->rr_off + (uint32_t)n;
			continue;
		}
		if (n < 0 && (soft_errno() || (udp && (errno == ENOBUFS || errno == ECONNREFUSED))))
			return 0; /* UDP: a refused or dropped datagram shows as a lost transaction */
		e_finish(s, n < 0 ? errno : EPIPE);
		return -1;
	}
	s->rr_off = 0;
	return 1;
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
static int get_response(struct e_thread *t, struct e_stream *s, bool udp)
{
	uint32_t want = t->e->cfg.rr_response;
	for (;;) {
		ssize_t n = recv(s->fd, t->buf + (udp ? 0 : s->rr_off),
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
		e_finish(s, n < 0 ? errno : 0);
		return -1;
	}
}

/* The requester's stream, as far as its socket allows. */
static int client_step(struct e_thread *t, struct e_stream *s, uint64_t *wait)
{
	struct engine *e = t->e;
	bool udp = e->cfg.proto == NS_PROTO_UDP;
	if (s->rr_phase == RR_IDLE) {
		uint64_t now = engine_now_ns();
		if (s->rr_next && now < s->rr_next) {
			if (s->rr_next - now < *wait)
				*wait = s->rr_next - now;
			return RR_WAITING;
		}
		if (e->cfg.rr_rate > 0) { /* a fixed schedule: a late start does not move it */
			double gap = 1e9 * e->n / e->cfg.rr_rate;
			s->rr_next = (s->rr_next ? s->rr_next : now) + (uint64_t)gap;
		}
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

void engine_rr_run(struct e_thread *t)
{
	struct engine *e = t->e;
	bool client = e->cfg.role == ENGINE_SEND;
	bool blocking = t->n == 1 && t->streams[0]->rr_block;
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
					.fd = s->fd, .events = s->rr_phase == RR_SEND ? POLLOUT : POLLIN};
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
