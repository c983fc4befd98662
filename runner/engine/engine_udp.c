/* engine_udp: UDP send and receive for the engine's threads. Every datagram carries the
 * engine.h header (sequence, send time). Senders batch with sendmmsg, or hand the kernel
 * super-datagrams that it cuts into `length`-byte datagrams (UDP_SEGMENT); counts are always
 * the datagrams as built. Receivers batch with recvmmsg and turn UDP_GRO on, splitting every
 * coalesced buffer by its gso_size so that each datagram's own header is accounted. */
#include "engine_int.h"

#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define UDP_MMSG_BATCH 64            /* datagrams per sendmmsg */
#define UDP_MMSG_BYTES (256 * 1024)  /* ... but no more bytes than this per call */
#define UDP_GSO_MAX_SEGS 64          /* UDP_MAX_SEGMENTS of older kernels */
#define UDP_GSO_MSGS 8               /* super-datagrams per sendmmsg */
#define UDP_GSO_BYTES (1024 * 1024)
#define UDP_MAX_PAYLOAD 65507        /* IPv4; the super-datagram's payload must fit too */
#define UDP_RECV_MSGS 64
#define UDP_RECV_BUF 65536           /* a whole GRO super-datagram */
/* All threads' buffers together, down to one call's worth of bytes per thread: buffers that
 * grow with the thread count would let one request take gigabytes of the agent's memory. */
#define UDP_SEND_BUDGET (16u << 20)
#define UDP_SHARE_MIN 65536          /* a whole datagram or GSO super-datagram */
#define UDP_RECV_BUDGET (16u << 20)
#define UDP_RCVBUF (4 << 20)        /* see udp_roomy_rcvbuf */
#define UDP_CTRL_LEN 128             /* GRO size, a timestamp and the drop count, with room */
/* -Z: a stream's ring holds two calls' worth of datagrams (or GSO super-datagrams), so that
 * one call can be written while the kernel still sends from the previous one. */
#define UDP_ZC_SLOTS_MMSG (2 * UDP_MMSG_BATCH)
#define UDP_ZC_SLOTS_GSO (2 * UDP_GSO_MSGS)

static int udp_send_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	if (engine_sock_pacing(e, s->fd, err) < 0)
		return -1;
	if (!e->cfg.gso)
		return 0;
	int size = (int)e->unit;
	if (setsockopt(s->fd, SOL_UDP, UDP_SEGMENT, &size, sizeof(size)) < 0) {
		/* not fatal: the stream sends plain batches and the engine says GSO did not take */
		s->gso_off = true;
		atomic_store(&e->gso_active, false);
	}
	return 0;
}

/* Datagrams of `len` bytes per GSO super-datagram. */
static uint32_t gso_segs(uint32_t len)
{
	uint32_t segs = UDP_MAX_PAYLOAD / len;
	return segs < 1 ? 1 : segs > UDP_GSO_MAX_SEGS ? UDP_GSO_MAX_SEGS : segs;
}

static int udp_send_thread_init(struct e_thread *t, struct ns_err *err)
{
	uint32_t len = t->e->unit;
	uint32_t mmsg =
		engine_thread_share(t->e, UDP_SEND_BUDGET, UDP_SHARE_MIN, UDP_MMSG_BYTES) / len;
	mmsg = mmsg < 1 ? 1 : mmsg > UDP_MMSG_BATCH ? UDP_MMSG_BATCH : mmsg;
	uint32_t cap = mmsg;
	t->batch = mmsg;
	t->gso_segs = gso_segs(len);
	t->gso_msgs = engine_thread_share(t->e, UDP_SEND_BUDGET, UDP_SHARE_MIN, UDP_GSO_BYTES) /
		      (t->gso_segs * len);
	t->gso_msgs = t->gso_msgs < 1 ? 1 : t->gso_msgs > UDP_GSO_MSGS ? UDP_GSO_MSGS : t->gso_msgs;
	if (t->e->cfg.gso) {
		t->batch = t->gso_segs * t->gso_msgs;
		if (t->batch > cap)
			cap = t->batch;
	}
	t->buf_len = (size_t)cap * len;
	t->buf = engine_buf_alloc(t->buf_len); /* zero-filled */
	t->msgs = calloc(cap, sizeof(*t->msgs));
	t->iovs = calloc(cap, sizeof(*t->iovs));
	if (!t->buf || !t->msgs || !t->iovs)
		return ns_err_sys(err, "engine: UDP send buffers");
	return 0;
}

/* Writes the header of n consecutive datagrams at p, the call's datagrams first..first+n-1
 * counted from the stream's next sequence. Each carries its own send time: the call's start
 * plus its place in the batch times what the last call took per datagram (one stamp for a
 * whole batch made its datagrams' spread look like jitter). Times count from the engine's
 * start. */
static void put_headers(struct e_thread *t, struct e_stream *s, unsigned char *p, uint32_t first,
			uint32_t n, uint64_t now_ns)
{
	uint32_t len = t->e->unit;
	uint64_t start = now_ns - t->e->t0_ns;
	for (uint32_t i = first; i < first + n; i++, p += len) {
		uint64_t seq = htobe64(s->next_seq + i);
		uint64_t ts = htobe64(start + i * s->unit_ns);
		memcpy(p, &seq, 8);
		memcpy(p + 8, &ts, 8);
	}
}

/* Bounded so that one call delayed by a preemption does not spread the next batch's stamps
 * over milliseconds. */
#define UDP_UNIT_NS_MAX 100000ull

static void note_unit_ns(struct e_stream *s, uint64_t start_ns, uint32_t units)
{
	uint64_t per = units ? (engine_now_ns() - start_ns) / units : 0;
	s->unit_ns = per > UDP_UNIT_NS_MAX ? UDP_UNIT_NS_MAX : per;
}

static int send_result(struct e_stream *s, uint32_t units, uint32_t len, uint64_t *bytes)
{
	s->next_seq += units;
	e_add(&s->packets, units);
	e_add(&s->bytes, (uint64_t)units * len);
	*bytes = (uint64_t)units * len;
	return E_PROGRESS;
}

static int send_error(struct e_stream *s)
{
	if (errno == EAGAIN || errno == EWOULDBLOCK)
		return E_BLOCKED;
	if (errno == EINTR)
		return E_PROGRESS;
	/* ICMP port unreachable from a peer not yet listening, a full device queue: retry soon */
	if (errno == ECONNREFUSED || errno == ENOBUFS)
		return E_BACKOFF;
	e_finish(s, errno);
	return E_DONE;
}

static int udp_send_mmsg(struct e_thread *t, struct e_stream *s, uint32_t max_units,
			 uint64_t now_ns, uint64_t *bytes)
{
	uint32_t len = t->e->unit;
	uint32_t k = max_units;
	uint32_t cap = (uint32_t)(t->buf_len / len);
	if (k > UDP_MMSG_BATCH)
		k = UDP_MMSG_BATCH;
	if (k > cap)
		k = cap;
	put_headers(t, s, t->buf, 0, k, now_ns);
	for (uint32_t i = 0; i < k; i++) {
		t->iovs[i] = (struct iovec){ t->buf + (size_t)i * len, len };
		t->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &t->iovs[i], .msg_iovlen = 1 };
	}
	int n = sendmmsg(s->fd, t->msgs, k, MSG_DONTWAIT);
	if (n > 0) {
		note_unit_ns(s, now_ns, (uint32_t)n);
		return send_result(s, (uint32_t)n, len, bytes);
	}
	return send_error(s);
}

/* After a failed GSO send: when errno says the path cannot segment (a datagram over the MTU,
 * no checksum offload), plain batches from now on, and the engine says GSO did not take. */
static bool gso_refused(struct e_thread *t, struct e_stream *s)
{
	if (errno != EINVAL && errno != EIO && errno != EMSGSIZE)
		return false;
	int zero = 0;
	setsockopt(s->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero));
	s->gso_off = true;
	atomic_store(&t->e->gso_active, false);
	return true;
}

static int udp_send_gso(struct e_thread *t, struct e_stream *s, uint32_t max_units,
			uint64_t now_ns, uint64_t *bytes)
{
	if (s->gso_off)
		return udp_send_mmsg(t, s, max_units, now_ns, bytes);
	uint32_t len = t->e->unit, segs = t->gso_segs;
	uint32_t total = max_units;
	if (total > segs * t->gso_msgs)
		total = segs * t->gso_msgs;
	put_headers(t, s, t->buf, 0, total, now_ns);
	uint32_t m = 0;
	for (uint32_t done = 0; done < total; done += segs, m++) {
		uint32_t k = total - done < segs ? total - done : segs;
		t->iovs[m] = (struct iovec){ t->buf + (size_t)done * len, (size_t)k * len };
		t->msgs[m].msg_hdr = (struct msghdr){ .msg_iov = &t->iovs[m], .msg_iovlen = 1 };
	}
	int n = sendmmsg(s->fd, t->msgs, m, MSG_DONTWAIT);
	if (n > 0) {
		uint32_t units = (uint32_t)n * segs;
		note_unit_ns(s, now_ns, units < total ? units : total);
		return send_result(s, units < total ? units : total, len, bytes);
	}
	if (gso_refused(t, s))
		return E_PROGRESS;
	return send_error(s);
}

/* -Z: MSG_ZEROCOPY. The kernel sends from a datagram's pages until its completion, so each
 * stream writes its datagrams into the free slots of its own ring (zerocopy.h), one datagram
 * or GSO super-datagram per slot, and a call sends no more than there are free slots. A
 * stream the kernel refuses copies (udp_send_gso/mmsg from t->buf) and the engine says why. */
struct udp_zc {
	struct zc_ring ring;
	unsigned char *buf;
	size_t buf_len;
	uint32_t slot_bytes;
};

static int udp_zc_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	if (udp_send_setup(e, s, err) < 0)
		return -1;
	if (!(s->zc = zc_enable(s->fd))) {
		engine_zc_off(e, s, errno);
		return 0;
	}
	struct udp_zc *z = calloc(1, sizeof(*z));
	if (!z)
		return ns_err_sys(err, "engine: zero-copy ring");
	s->priv = z;
	bool gso = e->cfg.gso && !s->gso_off;
	z->slot_bytes = e->unit * (gso ? gso_segs(e->unit) : 1);
	/* within the engine's send budget, but never fewer than two slots */
	size_t fit = UDP_SEND_BUDGET / e->n / z->slot_bytes;
	uint32_t want = gso ? UDP_ZC_SLOTS_GSO : UDP_ZC_SLOTS_MMSG;
	zc_ring_init(&z->ring, fit < 2 ? 2 : fit < want ? (uint32_t)fit : want);
	z->buf_len = (size_t)z->ring.slots * z->slot_bytes;
	z->buf = engine_buf_alloc(z->buf_len);
	if (!z->buf)
		return ns_err_sys(err, "engine: %zu-byte zero-copy ring", z->buf_len);
	return 0;
}

static int udp_send_zc(struct e_thread *t, struct e_stream *s, uint32_t max_units,
		       uint64_t now_ns, uint64_t *bytes)
{
	if (!s->zc)
		return t->e->cfg.gso ? udp_send_gso(t, s, max_units, now_ns, bytes)
				     : udp_send_mmsg(t, s, max_units, now_ns, bytes);
	struct udp_zc *z = s->priv;
	uint32_t len = t->e->unit;
	uint32_t segs = t->e->cfg.gso && !s->gso_off ? t->gso_segs : 1;
	uint32_t want = (max_units + segs - 1) / segs; /* <= t->batch <= the msgs array */
	if (want > UDP_MMSG_BATCH)
		want = UDP_MMSG_BATCH;
	uint32_t m = zc_ring_free(&z->ring, want);
	if (m < want) {
		s->zc_done += zc_reap(s->fd, &s->zc_copied, &z->ring);
		m = zc_ring_free(&z->ring, want);
	}
	if (!m)
		return E_BACKOFF; /* the kernel still sends from every slot */
	uint32_t total = 0;
	for (uint32_t i = 0; i < m; i++) {
		uint32_t k = max_units - total < segs ? max_units - total : segs;
		unsigned char *p = z->buf + (size_t)zc_ring_slot(&z->ring, i) * z->slot_bytes;
		put_headers(t, s, p, total, k, now_ns);
		t->iovs[i] = (struct iovec){ p, (size_t)k * len };
		t->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &t->iovs[i], .msg_iovlen = 1 };
		total += k;
	}
	int n = sendmmsg(s->fd, t->msgs, m, MSG_DONTWAIT | MSG_ZEROCOPY);
	if (n > 0) {
		zc_ring_sent(&z->ring, (uint32_t)n);
		s->zc_sends += (uint32_t)n;
		uint32_t units = (uint32_t)n == m ? total : (uint32_t)n * segs;
		if ((uint32_t)n < m) /* the rest failed; the kernel may have used an id for one */
			s->zc_done += zc_reap(s->fd, &s->zc_copied, &z->ring);
		note_unit_ns(s, now_ns, units);
		return send_result(s, units, len, bytes);
	}
	if (errno == ENOBUFS)
		return engine_zc_nobufs(t->e, s, &z->ring);
	if (segs > 1 && gso_refused(t, s)) {
		s->zc_done += zc_reap(s->fd, &s->zc_copied, &z->ring);
		return E_PROGRESS;
	}
	return send_error(s);
}

static void udp_zc_fini(struct engine *e)
{
	for (uint32_t i = 0; e->streams && i < e->n; i++) {
		struct udp_zc *z = e->streams[i].priv;
		if (z)
			engine_buf_free(z->buf, z->buf_len);
		free(z);
		e->streams[i].priv = NULL;
	}
}

/* The default receive buffer holds ~270 small datagrams (truesize ~768 B each): at a few
 * hundred thousand per second, any scheduling delay over a millisecond on a busy machine
 * becomes loss in our own socket, not in the network. Raise it when nobody chose a size
 * (the value is still the system default); a window set on purpose (-w) is left alone. */
static void udp_roomy_rcvbuf(int fd)
{
	static const char path[] = "/proc/sys/net/core/rmem_default";
	FILE *f = fopen(path, "r");
	long def = -1;
	if (!f)
		return;
	if (fscanf(f, "%ld", &def) != 1)
		def = -1;
	fclose(f);
	int cur = 0;
	socklen_t len = sizeof(cur);
	if (def <= 0 || getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &cur, &len) < 0 || cur != def)
		return;
	int want = UDP_RCVBUF;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want)); /* capped by rmem_max */
}

static int udp_recv_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	udp_roomy_rcvbuf(s->fd);
	s->seq = malloc(sizeof(*s->seq));
	if (!s->seq)
		return ns_err_sys(err, "engine: sequence window");
	udpseq_init(s->seq);
	int on = 1;
	s->gro = setsockopt(s->fd, SOL_UDP, UDP_GRO, &on, sizeof(on)) == 0;
	/* The kernel's arrival time of each datagram: a batch read at once holds datagrams that
	 * waited different times, and one clock read per batch would count the gaps between
	 * their send times as jitter. */
	s->rx_stamp = setsockopt(s->fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == 0;
	/* the socket's own drop count with every datagram: loss in this test's receive buffer,
	 * apart from the network's and from other sockets' on the host */
	setsockopt(s->fd, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on));
	return 0;
}

static int udp_recv_thread_init(struct e_thread *t, struct ns_err *err)
{
	t->batch = (uint32_t)(engine_thread_share(t->e, UDP_RECV_BUDGET, UDP_RECV_BUF,
						  (size_t)UDP_RECV_MSGS * UDP_RECV_BUF) / UDP_RECV_BUF);
	t->buf_len = (size_t)t->batch * UDP_RECV_BUF;
	t->buf = engine_buf_alloc(t->buf_len);
	t->msgs = calloc(t->batch, sizeof(*t->msgs));
	t->iovs = calloc(t->batch, sizeof(*t->iovs));
	t->ctrl = calloc(t->batch, UDP_CTRL_LEN);
	if (!t->buf || !t->msgs || !t->iovs || !t->ctrl)
		return ns_err_sys(err, "engine: UDP receive buffers");
	for (uint32_t i = 0; i < t->batch; i++)
		t->iovs[i] = (struct iovec){ t->buf + (size_t)i * UDP_RECV_BUF, UDP_RECV_BUF };
	return 0;
}

/* The GRO segment size (0 = a single datagram), the kernel's receive time (kept at
 * *arrival_ns when absent) and the socket's drop count (SO_RXQ_OVFL, kept at *drops when
 * absent) from a message's control data. */
static uint32_t parse_cmsgs(struct msghdr *h, uint64_t *arrival_ns, uint32_t *drops)
{
	uint32_t seg = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c; c = CMSG_NXTHDR(h, c)) {
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			int v;
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			seg = v > 0 ? (uint32_t)v : 0;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;
			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			*arrival_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		} else if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_RXQ_OVFL) {
			memcpy(drops, CMSG_DATA(c), sizeof(*drops));
		}
	}
	return seg;
}

static bool not_data(const struct engine_cfg *cfg, const unsigned char *p)
{
	return cfg->not_data_len && !memcmp(p, cfg->not_data, cfg->not_data_len);
}

static int udp_recv(struct e_thread *t, struct e_stream *s)
{
	for (uint32_t i = 0; i < t->batch; i++) {
		t->msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &t->iovs[i], .msg_iovlen = 1 };
		t->msgs[i].msg_hdr.msg_control = t->ctrl + (size_t)i * UDP_CTRL_LEN;
		t->msgs[i].msg_hdr.msg_controllen = UDP_CTRL_LEN;
	}
	int n = recvmmsg(s->fd, t->msgs, t->batch, MSG_DONTWAIT, NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNREFUSED)
			return E_BLOCKED;
		e_finish(s, errno);
		return E_DONE;
	}
	/* All arrival times on one clock, the kernel stamps' CLOCK_REALTIME (a datagram without
	 * its stamp falling back to CLOCK_MONOTONIC made a jitter spike), relative to the start.
	 * Without kernel timestamps, one arrival time per batch. */
	uint64_t t0 = t->e->t0_real_ns;
	uint64_t batch_arrival = s->rx_stamp ? 0 : engine_real_ns();
	uint64_t bytes = 0, pkts = 0;
	uint32_t drops = (uint32_t)atomic_load_explicit(&s->sock_drops, memory_order_relaxed);
	uint32_t unit = t->e->unit;
	struct udpseq *u = s->seq;
	for (int i = 0; i < n; i++) {
		uint32_t len = t->msgs[i].msg_len;
		uint64_t arrival = batch_arrival;
		uint32_t seg = parse_cmsgs(&t->msgs[i].msg_hdr, &arrival, &drops);
		if (!arrival) /* a stamp missing (control data cut short) */
			arrival = batch_arrival = engine_real_ns();
		arrival -= t0;
		if (!seg)
			seg = len;
		const unsigned char *p = t->iovs[i].iov_base;
		for (uint32_t off = 0; off < len; off += seg) {
			uint32_t sl = len - off < seg ? len - off : seg;
			if (sl != unit || not_data(&t->e->cfg, p + off))
				continue; /* not ours: a stray or a late greeting echo */
			uint64_t seq, ts;
			memcpy(&seq, p + off, 8);
			memcpy(&ts, p + off + 8, 8);
			if (udpseq_add(u, be64toh(seq), be64toh(ts), arrival)) {
				pkts++;
				bytes += sl;
			}
		}
	}
	e_add(&s->bytes, bytes);
	e_add(&s->packets, pkts);
	atomic_store_explicit(&s->lost, udpseq_lost(u), memory_order_relaxed);
	atomic_store_explicit(&s->out_of_order, u->out_of_order, memory_order_relaxed);
	atomic_store_explicit(&s->duplicates, u->duplicates, memory_order_relaxed);
	atomic_store_explicit(&s->highest_plus1, u->highest_plus1, memory_order_relaxed);
	atomic_store_explicit(&s->sock_drops, drops, memory_order_relaxed);
	double j = udpseq_jitter_ms(u);
	uint64_t jb;
	memcpy(&jb, &j, sizeof(jb));
	atomic_store_explicit(&s->jitter_bits, jb, memory_order_relaxed);
	return n > 0 ? E_PROGRESS : E_BLOCKED;
}

const struct engine_ops engine_udp_mmsg_ops = {
	.name = "udp sendmmsg",
	.setup = udp_send_setup,
	.thread_init = udp_send_thread_init,
	.send = udp_send_mmsg,
};

const struct engine_ops engine_udp_gso_ops = {
	.name = "udp gso",
	.setup = udp_send_setup,
	.thread_init = udp_send_thread_init,
	.send = udp_send_gso,
};

const struct engine_ops engine_udp_zc_ops = {
	.name = "udp zerocopy",
	.setup = udp_zc_setup,
	.thread_init = udp_send_thread_init,
	.send = udp_send_zc,
	.reap = engine_zc_drain,
	.fini = udp_zc_fini,
};

const struct engine_ops engine_udp_recv_ops = {
	.name = "udp recvmmsg",
	.setup = udp_recv_setup,
	.thread_init = udp_recv_thread_init,
	.recv = udp_recv,
};
