/* engine_tcp: TCP send and receive for the engine's threads. The sender writes `length`
 * bytes per call without ever blocking (MSG_DONTWAIT; the thread polls when the socket is
 * full) and shuts its half down at the end so that the receiver sees EOF. */
#include "engine_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/tcp.h>

#define TCP_RECV_BUF (256 * 1024)  /* big reads: fewer syscalls per byte */
#define TCP_RECV_BUF_MIN (64 * 1024)
#define TCP_RECV_BUDGET (16u << 20) /* all receive threads together, down to the minimum each */
#define TCP_LOWAT_LOOPBACK (64 * 1024)  /* see notsent_lowat() */
#define TCP_LOWAT_LINK (1 << 20)
#define TCP_LOWAT_MAX (16 << 20)
#define TCP_BACKLOG_S 0.1
/* MSG_ZEROCOPY: reap completions once this many sends are outstanding (each pins option
 * memory until reaped, and net.core.optmem_max is as small as 20 KiB on older kernels). */
#define TCP_ZC_REAP_AT 16
/* TCP receive zero-copy: the mapping of each socket (tcp_mmap's chunk is 512 KiB) */
#define TCP_RX_MAP_LEN (512 * 1024)

bool engine_sock_is_local(int fd)
{
	struct sockaddr_storage me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	if (getsockname(fd, (struct sockaddr *)&me, &ml) < 0 ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) < 0 || me.ss_family != peer.ss_family)
		return false;
	if (me.ss_family == AF_INET)
		return ((struct sockaddr_in *)&me)->sin_addr.s_addr ==
		       ((struct sockaddr_in *)&peer)->sin_addr.s_addr;
	if (me.ss_family == AF_INET6)
		return memcmp(&((struct sockaddr_in6 *)&me)->sin6_addr,
			      &((struct sockaddr_in6 *)&peer)->sin6_addr, sizeof(struct in6_addr)) == 0;
	return false;
}

/* How much unsent data a sender's socket may hold (TCP_NOTSENT_LOWAT).
 * On loopback, about one segment: the receiver then copies data the sender wrote moments
 * ago, still in cache. Measured on a 2-core host where sender and receiver share the
 * CPUs (the loopback case), that took 2 streams from 1.9 to 3.2 GB per CPU-second (16K,
 * 32K, 128K, 256K were no better than no limit); the gain is in CPU per byte, so it holds
 * wherever loopback's two ends compete for the same cores. Over a real link the cache
 * does not help and so small a backlog costs a wake-up per 64 KiB (tens of thousands a
 * second at 10G and up), so there it is 1 MiB: still far below a socket buffer, so sender
 * counts do not run seconds ahead of a shaped link. A paced socket keeps TCP_BACKLOG_S of
 * its rate at least, so that a sender thread kept off the CPU on a loaded machine does not
 * leave the kernel's pacer with nothing to send. Without the option (old kernels) nothing
 * else changes. */
static int notsent_lowat(const struct engine_cfg *cfg, uint32_t streams, int fd)
{
	uint64_t rate = cfg->fq_rate_bps;
	if (cfg->rate_bps && (!rate || cfg->rate_bps / streams < rate))
		rate = cfg->rate_bps / streams;
	double backlog = rate / 8.0 * TCP_BACKLOG_S;
	double floor = engine_sock_is_local(fd) ? TCP_LOWAT_LOOPBACK : TCP_LOWAT_LINK;
	if (backlog < floor)
		return (int)floor;
	return backlog > TCP_LOWAT_MAX ? TCP_LOWAT_MAX : (int)backlog;
}

static void rx_map_off(struct engine *e, struct e_stream *s, int why)
{
	int none = 0;
	if (s->priv)
		munmap(s->priv, TCP_RX_MAP_LEN);
	s->priv = NULL;
	atomic_compare_exchange_strong(&e->rx_errno, &none, why ? why : EOPNOTSUPP);
}

static int tcp_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	if (e->cfg.role == ENGINE_SEND) {
		int lowat = notsent_lowat(&e->cfg, e->n, s->fd);
		setsockopt(s->fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &lowat, sizeof(lowat));
		/* not fatal: the stream copies and the engine says zero-copy did not take */
		if (e->cfg.zerocopy && !(s->zc = zc_enable(s->fd)))
			engine_zc_off(e, s, errno);
	} else if (e->cfg.rx == ENGINE_RX_MMAP) {
		/* not fatal either: a socket that cannot be mapped copies, and the result says so */
		void *m = mmap(NULL, TCP_RX_MAP_LEN, PROT_READ, MAP_SHARED, s->fd, 0);
		if (m == MAP_FAILED)
			rx_map_off(e, s, errno);
		else
			s->priv = m;
	}
	return engine_sock_pacing(e, s->fd, err);
}

/* The bytes written are never changed, so every thread sends from one buffer of the engine:
 * one per thread made -l 16M --threads 256 a 4 GiB request. */
static int tcp_send_thread_init(struct e_thread *t, struct ns_err *err)
{
	struct engine *e = t->e;
	t->batch = 1;
	if (e->send_buf)
		return 0;
	e->send_buf_len = e->unit;
	e->send_buf = engine_buf_alloc(e->send_buf_len);
	if (!e->send_buf)
		return ns_err_sys(err, "engine: %zu-byte send buffer", e->send_buf_len);
	/* a pattern rather than zeros, so that nothing on the path can compress it away */
	for (size_t i = 0; i < e->send_buf_len; i++)
		e->send_buf[i] = (unsigned char)(i * 131u + 7u);
	return 0;
}

static int tcp_recv_thread_init(struct e_thread *t, struct ns_err *err)
{
	t->buf_len = engine_thread_share(t->e, TCP_RECV_BUDGET, TCP_RECV_BUF_MIN, TCP_RECV_BUF);
	t->buf = engine_buf_alloc(t->buf_len);
	if (!t->buf)
		return ns_err_sys(err, "engine: %zu-byte receive buffer", t->buf_len);
	return 0;
}

static int tcp_send(struct e_thread *t, struct e_stream *s, uint32_t max_units, uint64_t now_ns,
		    uint64_t *bytes)
{
	uint32_t len = t->e->unit;
	size_t want = len - s->tcp_off;
	if (want > s->left)
		want = (size_t)s->left;
	if (want > s->allow)
		want = (size_t)s->allow;
	if (s->zc && s->zc_sends - s->zc_done >= TCP_ZC_REAP_AT)
		s->zc_done += zc_reap(s->fd, &s->zc_copied, NULL);
	/* the send buffer is never written after start, so the kernel may keep its pages */
	ssize_t n = send(s->fd, t->e->send_buf + s->tcp_off, want,
			 MSG_DONTWAIT | MSG_NOSIGNAL | (s->zc ? MSG_ZEROCOPY : 0));
	if (n > 0) {
		if (s->zc)
			s->zc_sends++;
		*bytes = (uint64_t)n;
		e_add(&s->bytes, (uint64_t)n);
		s->tcp_off += (uint32_t)n;
		if (s->tcp_off == len) {
			s->tcp_off = 0;
			e_add(&s->packets, 1);
		}
		return E_PROGRESS;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return E_BLOCKED;
	if (n < 0 && errno == EINTR)
		return E_PROGRESS; /* try again at once */
	if (n < 0 && errno == ENOBUFS)
		return s->zc ? engine_zc_nobufs(t->e, s, NULL) : E_BACKOFF;
	e_finish(s, n < 0 ? errno : EPIPE);
	return E_DONE;
}

static void tcp_end(struct e_stream *s)
{
	shutdown(s->fd, SHUT_WR);
}

/* One read of at most len bytes, into the thread's buffer or, skipping the copy, nowhere
 * (MSG_TRUNC: TCP drops the bytes in the kernel and returns their count). */
static int tcp_read(struct e_thread *t, struct e_stream *s, size_t len)
{
	bool skip = t->e->cfg.rx == ENGINE_RX_SKIP;
	if (len > t->buf_len)
		len = t->buf_len;
	ssize_t n = recv(s->fd, skip ? NULL : t->buf, len, MSG_DONTWAIT | (skip ? MSG_TRUNC : 0));
	if (n > 0) {
		e_add(&s->bytes, (uint64_t)n);
		e_add(&s->packets, 1);
		return E_PROGRESS;
	}
	if (n == 0) {
		e_finish(s, 0);
		return E_DONE;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return E_BLOCKED;
	e_finish(s, errno);
	return E_DONE;
}

/* TCP_ZEROCOPY_RECEIVE: the kernel maps whole pages of the queue into the socket's mapping
 * and hints how many bytes must be read instead (the part not page-aligned); an error other
 * than "nothing there" turns the stream to copying. */
static int tcp_recv_map(struct e_thread *t, struct e_stream *s)
{
	struct tcp_zerocopy_receive zc;
	memset(&zc, 0, sizeof(zc));
	zc.address = (uint64_t)(uintptr_t)s->priv;
	zc.length = TCP_RX_MAP_LEN;
	socklen_t zl = sizeof(zc);
	if (getsockopt(s->fd, IPPROTO_TCP, TCP_ZEROCOPY_RECEIVE, &zc, &zl) < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return E_BLOCKED;
		rx_map_off(t->e, s, errno);
		return E_PROGRESS;
	}
	if (zc.length) {
		e_add(&s->bytes, zc.length);
		e_add(&s->packets, 1);
		atomic_fetch_add_explicit(&t->e->rx_mapped, zc.length, memory_order_relaxed);
		/* let go of the pages at once, as tcp_mmap does: the next call maps new ones */
		madvise(s->priv, zc.length, MADV_DONTNEED);
	}
	if (zc.recv_skip_hint)
		return tcp_read(t, s, zc.recv_skip_hint);
	if (zc.length)
		return E_PROGRESS;
	return tcp_read(t, s, t->buf_len); /* nothing mapped nor hinted: EOF, or nothing yet */
}

static int tcp_recv(struct e_thread *t, struct e_stream *s)
{
	if (s->priv)
		return tcp_recv_map(t, s);
	return tcp_read(t, s, t->buf_len);
}

static void tcp_recv_fini(struct engine *e)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (e->streams[i].priv) {
			munmap(e->streams[i].priv, TCP_RX_MAP_LEN);
			e->streams[i].priv = NULL;
		}
}

const char *engine_rx_path(const struct engine *e, uint64_t *mapped, int *why)
{
	*mapped = atomic_load(&e->rx_mapped);
	*why = atomic_load(&e->rx_errno);
	if (e->cfg.role != ENGINE_RECV || e->cfg.proto != NS_PROTO_TCP || e->cfg.rr ||
	    e->cfg.kind != ENGINE_SOCKET)
		return "";
	if (e->cfg.rx == ENGINE_RX_SKIP)
		return "skip";
	if (e->cfg.rx == ENGINE_RX_MMAP)
		return *why ? "mmap_fallback" : "mmap";
	return "copy";
}

const struct engine_ops engine_tcp_send_ops = {
	.name = "tcp send",
	.setup = tcp_setup,
	.thread_init = tcp_send_thread_init,
	.send = tcp_send,
	.end = tcp_end,
	.reap = engine_zc_drain,
};

const struct engine_ops engine_tcp_recv_ops = {
	.name = "tcp recv",
	.setup = tcp_setup,
	.thread_init = tcp_recv_thread_init,
	.recv = tcp_recv,
	.fini = tcp_recv_fini,
};
