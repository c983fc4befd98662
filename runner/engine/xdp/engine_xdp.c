/* engine_xdp: UDP over AF_XDP, for small-packet rates a kernel socket cannot reach.
 * Sender: one AF_XDP socket per thread on its own queue of the route's interface; whole
 * Ethernet/IPv4/UDP frames carrying the engine.h datagram header are written into the UMEM
 * (the headers once per frame, then only sequence and time per send). Zero-copy where the
 * driver allows it, copy mode otherwise; no XDP program is needed to send.
 * Everything is set up at engine_create(), so that a host that cannot do it is known before
 * the test starts and the caller may still use the sockets with the socket engine.
 * Receiver, count-only (--engine xdp, the default of the XDP engines: the fastest, by far on
 * a receiver short of CPU): bpf/xdp_count.c accounts the test's flows (source and destination
 * port, payload length) as udpseq.c does — loss, reordering, duplicates, jitter — and drops
 * them before the stack, passing every other packet; user space only publishes what the
 * program's map holds. The data sockets stay open, so the 5-tuple stays the kernel's. IPv4
 * only. */
#include "engine_xdp_int.h"
#include "bpf/flow_state.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <xdp/xsk.h>

#define XDP_FRAMES 4096u         /* per sending thread: 8 MiB of UMEM */
#define XDP_RING 2048u           /* TX and completion ring entries */
#define XDP_BATCH 64u            /* frames per send call, as sendmmsg's batch */
/* Copy mode sends at most 32 frames per sendto() (the kernel's TX_BATCH_SIZE) unless the
 * socket raises it (XDP_MAX_TX_SKB_BUDGET, Linux 6.17): then an unpaced sender submits this
 * many per call and one sendto() takes them all — 256 frames a system call, not 32 (strace:
 * 31 calls per 1,000 frames before, 16 with the budget and 64-frame batches). Paced senders
 * keep XDP_BATCH: their credit is at least one batch. */
#define XDP_BIG_BATCH 256u
#ifndef XDP_MAX_TX_SKB_BUDGET
#define XDP_MAX_TX_SKB_BUDGET 9 /* linux/if_xdp.h of 6.17; older kernels refuse it */
#endif
/* After the device said busy (EBUSY: a veth peer's 256-frame ring full, a driver's queue
 * stopped), the sender sleeps this long before it kicks again: long enough for the peer's
 * NAPI poll to drain a budget of frames, far shorter than the engine's 1 ms back-off, which
 * in copy mode (frames leave only inside sendto) would idle the link. */
#define XDP_BUSY_BACKOFF_NS 50000ull

extern const char NS_XDP_COUNT_OBJ[];
extern const unsigned long NS_XDP_COUNT_OBJ_len;

bool engine_xdp_available(char *why, size_t n)
{
	if (why && n)
		why[0] = '\0';
	return true;
}

static uint16_t ip_checksum(const uint8_t *h, size_t len)
{
	uint32_t sum = 0;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The 42 header bytes every frame of a stream starts with. The UDP checksum is 0 (none,
 * allowed on IPv4): the payload's sequence and time change per frame. */
static void build_header(const struct xdp_path *p, uint32_t payload, uint8_t *h)
{
	memcpy(h, p->dst_mac, 6);
	memcpy(h + 6, p->src_mac, 6);
	h[12] = 0x08, h[13] = 0x00;
	uint8_t *ip = h + 14;
	uint16_t tot = htons((uint16_t)(20 + 8 + payload));
	memset(ip, 0, 20);
	ip[0] = 0x45;
	memcpy(ip + 2, &tot, 2);
	ip[6] = 0x40; /* don't fragment */
	ip[8] = 64;   /* TTL */
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &p->local.sin_addr, 4);
	memcpy(ip + 16, &p->peer.sin_addr, 4);
	uint16_t ck = htons(ip_checksum(ip, 20));
	memcpy(ip + 10, &ck, 2);
	uint8_t *udp = ip + 20;
	uint16_t ulen = htons((uint16_t)(8 + payload));
	memcpy(udp, &p->local.sin_port, 2);
	memcpy(udp + 2, &p->peer.sin_port, 2);
	memcpy(udp + 4, &ulen, 2);
	udp[6] = udp[7] = 0;
}

/* ---- sender ---- */

struct xdp_tx {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq, tx;
	struct xsk_ring_cons cq;
	void *area;
	char ifname[IF_NAMESIZE];
	uint32_t free[XDP_FRAMES];
	uint32_t nfree;
	uint32_t outstanding;
};

/* The thread's AF_XDP socket on its own transmit queue of ifname. */
static int tx_open(struct e_thread *t, const char *ifname, struct ns_err *err)
{
	uint32_t queues = xdp_queue_count(ifname, "tx");
	if (t->idx >= queues)
		return ns_err_code(err, NS_E_USAGE,
				   "xdp: %s has %u transmit queue%s: at most that many threads "
				   "with the XDP engine", ifname, queues, queues == 1 ? "" : "s");
	struct xdp_tx *x = calloc(1, sizeof(*x));
	if (!x)
		return ns_err_sys(err, "xdp: allocation");
	t->priv = x;
	snprintf(x->ifname, sizeof(x->ifname), "%s", ifname);
	size_t len = (size_t)XDP_FRAMES * XDP_FRAME_SIZE;
	x->area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		return ns_err_sys(err, "xdp: UMEM of %zu bytes", len);
	}
	struct xsk_umem_config ucfg = {.fill_size = XDP_RING, .comp_size = XDP_RING,
				       .frame_size = XDP_FRAME_SIZE};
	int rc = xsk_umem__create(&x->umem, x->area, len, &x->fq, &x->cq, &ucfg);
	if (rc)
		return xdp_err_refused(err, -rc, "UMEM registration", " (needs root: CAP_NET_RAW)");
	/* zero-copy where the driver has it, else copy mode (veth, virtio, ENA) */
	static const struct { uint16_t flags; const char *mode; } modes[] = {
		{XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP, "zero-copy"},
		{XDP_COPY | XDP_USE_NEED_WAKEUP, "copy"},
		{XDP_COPY, "copy"},
	};
	const char *mode = NULL;
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]) && !mode; i++) {
		struct xsk_socket_config scfg = {
			.rx_size = 0, .tx_size = XDP_RING,
			.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
			.bind_flags = modes[i].flags,
		};
		rc = xdp_socket_create(&x->xsk, ifname, t->idx, x->umem, NULL, &x->tx, &scfg);
		if (rc == 0)
			mode = modes[i].mode;
	}
	if (!mode) {
		char what[64];
		snprintf(what, sizeof(what), "AF_XDP socket on %s queue %u", ifname, t->idx);
		return xdp_err_refused(err, -rc, what, NULL);
	}
	/* every frame starts as a whole datagram of zeros; headers go in per send */
	for (uint32_t i = 0; i < XDP_FRAMES; i++)
		x->free[i] = XDP_FRAMES - 1 - i;
	x->nfree = XDP_FRAMES;
	if (t->idx == 0)
		snprintf(t->e->mode, sizeof(t->e->mode), "xdp tx %s", mode);
	t->batch = XDP_BATCH;
	/* an unpaced sender hands the kernel a large batch per call where it takes one */
	int budget = XDP_RING;
	if (!t->e->cfg.rate_bps && setsockopt(xsk_socket__fd(x->xsk), SOL_XDP, XDP_MAX_TX_SKB_BUDGET,
					      &budget, sizeof(budget)) == 0)
		t->batch = XDP_BIG_BATCH;
	t->backoff_ns = XDP_BUSY_BACKOFF_NS;
	return 0;
}

/* Per stream: its frame header, and its thread's socket with the first of its streams. */
static int xdp_send_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	if (e->unit + XDP_HDR_LEN > XDP_FRAME_SIZE)
		return ns_err_code(err, NS_E_USAGE,
				   "xdp: a %u-byte payload does not fit a %u-byte frame", e->unit,
				   XDP_FRAME_SIZE);
	struct xdp_path p;
	if (xdp_path_of(s->fd, true, &p, err) < 0)
		return -1;
	uint8_t *h = malloc(XDP_HDR_LEN);
	if (!h)
		return ns_err_sys(err, "xdp: allocation");
	build_header(&p, e->unit, h);
	s->priv = h;
	struct xdp_tx *x = s->t->priv;
	if (!x && tx_open(s->t, p.ifname, err) < 0)
		return -1;
	x = s->t->priv;
	if (strcmp(x->ifname, p.ifname))
		return ns_err_code(err, NS_E_USAGE, "xdp: one thread's streams leave by "
				   "different interfaces");
	s->wait_fd = xsk_socket__fd(x->xsk);
	return 0;
}

static int xdp_send_thread_init(struct e_thread *t, struct ns_err *err)
{
	(void)t;
	(void)err;
	return 0;
}

static void reap(struct xdp_tx *x)
{
	uint32_t idx;
	uint32_t n = xsk_ring_cons__peek(&x->cq, XDP_RING, &idx);
	for (uint32_t i = 0; i < n; i++)
		x->free[x->nfree++] = (uint32_t)(*xsk_ring_cons__comp_addr(&x->cq, idx + i) /
						 XDP_FRAME_SIZE);
	if (n)
		xsk_ring_cons__release(&x->cq, n);
	x->outstanding -= n;
}

/* Copy mode transmits inside sendto(), a bounded number of frames per call (32 in Linux's
 * generic path): call it until the kernel has taken every descriptor of the TX ring,
 * reaping completions as they come. Progress is the ring's consumer moving, not
 * completions: on a veth a frame completes only when the peer has freed it, later. The
 * device busy ends the kicking at once, as kicking again only spins until it drains:
 * EBUSY (the driver dropped the frame, NET_XMIT_DROP: a veth peer's ring full on kernels
 * without its backpressure) or EAGAIN / ENOBUFS with nothing taken (its queue stopped, or
 * the completion ring full of frames the peer still holds). Returns true then. */
#define XDP_KICKS 16

static uint32_t tx_pending(const struct xdp_tx *x)
{
	return x->tx.cached_prod - __atomic_load_n(x->tx.consumer, __ATOMIC_ACQUIRE);
}

static bool kick(struct xdp_tx *x)
{
	for (int i = 0; i < XDP_KICKS; i++) {
		uint32_t before = tx_pending(x);
		if (!before || (i > 0 && !xsk_ring_prod__needs_wakeup(&x->tx)))
			break;
		int rc = sendto(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 ? errno : 0;
		reap(x);
		if (rc == EBUSY)
			return true;
		if (tx_pending(x) == before)
			return rc == EAGAIN || rc == ENOBUFS;
		if (rc && rc != EAGAIN && rc != ENOBUFS)
			break;
	}
	return false;
}

/* A kick that found the device busy: counted, and the thread backs off XDP_BUSY_BACKOFF_NS. */
static bool kick_busy(struct e_thread *t, struct xdp_tx *x)
{
	if (!kick(x))
		return false;
	t->tx_busy++;
	return true;
}

static int xdp_send(struct e_thread *t, struct e_stream *s, uint32_t max_units, uint64_t now_ns,
		    uint64_t *bytes)
{
	struct xdp_tx *x = t->priv;
	uint32_t len = t->e->unit;
	reap(x);
	if (!x->nfree) {
		bool busy = kick_busy(t, x);
		if (busy || !x->nfree)
			return E_BACKOFF;
	}
	uint32_t want = max_units < t->batch ? max_units : t->batch;
	if (want > x->nfree)
		want = x->nfree;
	uint32_t idx;
	uint32_t got = xsk_ring_prod__reserve(&x->tx, want, &idx);
	if (!got) {
		kick_busy(t, x);
		return E_BACKOFF;
	}
	uint64_t ts = htobe64(now_ns);
	for (uint32_t i = 0; i < got; i++) {
		uint64_t addr = (uint64_t)x->free[--x->nfree] * XDP_FRAME_SIZE;
		uint8_t *f = xsk_umem__get_data(x->area, addr);
		uint64_t seq = htobe64(s->next_seq + i);
		memcpy(f, s->priv, XDP_HDR_LEN);
		memcpy(f + XDP_HDR_LEN, &seq, 8);
		memcpy(f + XDP_HDR_LEN + 8, &ts, 8);
		struct xdp_desc *d = xsk_ring_prod__tx_desc(&x->tx, idx + i);
		d->addr = addr;
		d->len = XDP_HDR_LEN + len;
	}
	xsk_ring_prod__submit(&x->tx, got);
	x->outstanding += got;
	bool busy = kick_busy(t, x);
	s->next_seq += got;
	e_add(&s->packets, got);
	e_add(&s->bytes, (uint64_t)got * len);
	*bytes = (uint64_t)got * len;
	return busy ? E_BACKOFF : E_PROGRESS;
}

/* What is still in the TX ring at the end goes out before the socket closes. */
static void xdp_send_end(struct e_stream *s)
{
	struct xdp_tx *x = s->t->priv;
	for (int i = 0; x && x->outstanding && i < 1000; i++) {
		kick(x);
		reap(x);
		if (x->outstanding)
			usleep(100);
	}
}

static void xdp_send_thread_fini(struct e_thread *t)
{
	struct xdp_tx *x = t->priv;
	if (!x)
		return;
	if (x->xsk)
		xsk_socket__delete(x->xsk);
	if (x->umem)
		xsk_umem__delete(x->umem);
	if (x->area)
		munmap(x->area, (size_t)XDP_FRAMES * XDP_FRAME_SIZE);
	free(x);
	t->priv = NULL;
}

static void xdp_streams_fini(struct engine *e)
{
	for (uint32_t i = 0; e->streams && i < e->n; i++) {
		free(e->streams[i].priv);
		e->streams[i].priv = NULL;
	}
}

const struct engine_ops engine_xdp_send_ops = {
	.name = "xdp-send",
	.setup = xdp_send_setup,
	.thread_init = xdp_send_thread_init,
	.send = xdp_send,
	.end = xdp_send_end,
	.thread_fini = xdp_send_thread_fini,
	.fini = xdp_streams_fini,
};

/* ---- receiver: count-only ---- */

static int xdp_count_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	struct xdp_path p;
	if (xdp_path_of(s->fd, false, &p, err) < 0)
		return -1;
	struct xdp_prog *r = e->priv;
	if (!r) {
		if (!(r = e->priv = calloc(1, sizeof(*r))))
			return ns_err_sys(err, "xdp: allocation");
		uint32_t len = e->unit;
		if (xdp_prog_attach(r, NS_XDP_COUNT_OBJ, NS_XDP_COUNT_OBJ_len, "xdp_count", &len,
				    sizeof(len), &p, err) < 0)
			return -1;
		snprintf(e->mode, sizeof(e->mode), "xdp rx count-only%s", r->how);
	}
	if (r->ifindex != p.ifindex)
		return ns_err_code(err, NS_E_USAGE, "xdp: the streams arrive on different interfaces");
	uint32_t *key = malloc(sizeof(*key));
	if (!key)
		return ns_err_sys(err, "xdp: allocation");
	*key = xdp_flow_key(&p);
	s->priv = key;
	struct flow_state *zero = calloc(1, sizeof(*zero));
	int rc = zero ? bpf_map_update_elem(xdp_prog_map(r, "flows"), key, zero, BPF_NOEXIST) : -1;
	free(zero);
	if (rc != 0)
		return ns_err_sys(err, "xdp: registering the flow");
	return 0;
}

static int xdp_recv_thread_init(struct e_thread *t, struct ns_err *err)
{
	t->buf_len = sizeof(struct flow_state); /* the map's value; socket leftovers fit too */
	t->buf = engine_buf_alloc(t->buf_len);
	return t->buf ? 0 : ns_err_sys(err, "xdp: receive buffer");
}

/* Publishes the program's accounting; what still reaches the socket (greetings, datagrams of
 * another length) is read and dropped so that poll does not spin on it. */
static int xdp_count_recv(struct e_thread *t, struct e_stream *s)
{
	struct xdp_prog *r = t->e->priv;
	while (recv(s->fd, t->buf, t->buf_len, MSG_DONTWAIT) >= 0)
		;
	struct flow_state *f = (struct flow_state *)t->buf;
	if (bpf_map_lookup_elem(xdp_prog_map(r, "flows"), s->priv, f) != 0)
		return E_BLOCKED;
	atomic_store_explicit(&s->packets, f->packets, memory_order_relaxed);
	atomic_store_explicit(&s->bytes, f->bytes, memory_order_relaxed);
	atomic_store_explicit(&s->highest_plus1, f->highest_plus1, memory_order_relaxed);
	atomic_store_explicit(&s->lost, f->highest_plus1 > f->packets ? f->highest_plus1 - f->packets
								   : 0, memory_order_relaxed);
	atomic_store_explicit(&s->out_of_order, f->out_of_order, memory_order_relaxed);
	atomic_store_explicit(&s->duplicates, f->duplicates, memory_order_relaxed);
	double j = (double)f->jitter16_ns / 16 / 1e6;
	uint64_t jb;
	memcpy(&jb, &j, sizeof(jb));
	atomic_store_explicit(&s->jitter_bits, jb, memory_order_relaxed);
	return E_BLOCKED;
}

static void xdp_count_fini(struct engine *e)
{
	struct xdp_prog *r = e->priv;
	if (r) {
		xdp_prog_detach(r);
		free(r);
		e->priv = NULL;
	}
	xdp_streams_fini(e);
}

const struct engine_ops engine_xdp_count_ops = {
	.name = "xdp-count",
	.setup = xdp_count_setup,
	.thread_init = xdp_recv_thread_init,
	.recv = xdp_count_recv,
	.fini = xdp_count_fini,
};
