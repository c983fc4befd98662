/* engine_xdp_rx: the XDP engine's receiver with the socket engine's accounting (--engine xdp-rx).
 * bpf/xdp_rx.c sends the test's flows (destination address, ports, payload length) to an
 * AF_XDP socket on each receive queue of the interface and passes every other packet to the
 * kernel. One thread reads every queue's ring, parses Ethernet/IPv4/UDP and the datagram
 * header and feeds each stream's udpseq as engine_udp.c does: loss, reordering, duplicates,
 * jitter. One thread because a stream's datagrams may arrive on any queue (RSS) and its
 * accounting must have one owner. Zero-copy where the driver has it, copy mode otherwise;
 * the program runs natively where the driver has XDP, else in generic (SKB) mode. AF_XDP
 * gives no receive timestamps: arrival is one clock read per ring batch. */
#include "engine_xdp_int.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include <bpf/bpf.h>
#include <linux/if_xdp.h>
#include <xdp/xsk.h>

#define XDP_RX_MAX_QUEUES 64u       /* the program's socket map (bpf/xdp_rx.c) */
#define XDP_RXQ_RING 4096u           /* receive ring entries per socket */
#define XDP_RX_FRAMES_MAX 8192u     /* UMEM frames per socket: 16 MiB */
#define XDP_RX_FRAMES_MIN 1024u
/* All queues' UMEM together: a 64-queue NIC gets 1024 frames a queue, not 64 x 8 MiB. */
#define XDP_RX_BUDGET (64u << 20)
#define XDP_RX_BATCH 256u           /* descriptors taken from a ring at a time */

extern const char NS_XDP_RX_OBJ[];
extern const unsigned long NS_XDP_RX_OBJ_len;

struct rx_queue {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fq;
	struct xsk_ring_cons cq, rx;
	void *area;
};

struct xdp_rxe {
	struct xdp_prog prog;
	int flows_fd;
	struct rx_queue q[XDP_RX_MAX_QUEUES];
	uint32_t nq, frames;
	/* flow key -> stream, open addressing; slot empty when stream == NULL */
	uint32_t *keys;
	struct e_stream **by_key;
	uint32_t mask;
	struct e_stream **dirty;    /* streams with new datagrams since their last publication */
	uint32_t ndirty;
	bool *is_dirty;             /* by stream id */
};

/* Published like the socket engine's receiver (engine_udp.c). */
static void publish(struct e_stream *s)
{
	struct udpseq *u = s->seq;
	atomic_store_explicit(&s->lost, udpseq_lost(u), memory_order_relaxed);
	atomic_store_explicit(&s->out_of_order, u->out_of_order, memory_order_relaxed);
	atomic_store_explicit(&s->duplicates, u->duplicates, memory_order_relaxed);
	atomic_store_explicit(&s->highest_plus1, u->highest_plus1, memory_order_relaxed);
	double j = udpseq_jitter_ms(u);
	uint64_t jb;
	memcpy(&jb, &j, sizeof(jb));
	atomic_store_explicit(&s->jitter_bits, jb, memory_order_relaxed);
}

static int queue_open(struct xdp_rxe *r, uint32_t qi, const char *ifname, const char **mode,
		      struct ns_err *err)
{
	struct rx_queue *q = &r->q[qi];
	size_t len = (size_t)r->frames * XDP_FRAME_SIZE;
	q->area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (q->area == MAP_FAILED) {
		q->area = NULL;
		return ns_err_sys(err, "xdp: UMEM of %zu bytes", len);
	}
	struct xsk_umem_config ucfg = {.fill_size = r->frames, .comp_size = XDP_RXQ_RING,
				       .frame_size = XDP_FRAME_SIZE};
	int rc = xsk_umem__create(&q->umem, q->area, len, &q->fq, &q->cq, &ucfg);
	if (rc)
		return xdp_err_refused(err, -rc, "UMEM registration", " (needs root: CAP_NET_RAW)");
	static const struct { uint16_t flags; const char *mode; } modes[] = {
		{XDP_ZEROCOPY, "zero-copy"},
		{XDP_COPY, "copy"},
	};
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]) && !q->xsk; i++) {
		struct xsk_socket_config scfg = {
			.rx_size = XDP_RXQ_RING, .tx_size = 0,
			.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
			.bind_flags = modes[i].flags,
		};
		rc = xdp_socket_create(&q->xsk, ifname, qi, q->umem, &q->rx, NULL, &scfg);
		if (rc == 0 && !*mode)
			*mode = modes[i].mode;
	}
	if (!q->xsk) {
		char what[64];
		snprintf(what, sizeof(what), "AF_XDP socket on %s queue %u", ifname, qi);
		return xdp_err_refused(err, -rc, what, NULL);
	}
	uint32_t idx;
	if (xsk_ring_prod__reserve(&q->fq, r->frames, &idx) != r->frames)
		return ns_err_code(err, NS_E_FAIL, "xdp: filling the fill ring");
	for (uint32_t i = 0; i < r->frames; i++)
		*xsk_ring_prod__fill_addr(&q->fq, idx + i) = (uint64_t)i * XDP_FRAME_SIZE;
	xsk_ring_prod__submit(&q->fq, r->frames);
	int fd = xsk_socket__fd(q->xsk);
	if (bpf_map_update_elem(xdp_prog_map(&r->prog, "xsks"), &qi, &fd, BPF_ANY) != 0)
		return ns_err_sys(err, "xdp: registering the socket of queue %u", qi);
	return 0;
}

/* The program, a socket per receive queue and the flow table, with the engine's first stream. */
static int rx_open(struct engine *e, const struct xdp_path *p, struct ns_err *err)
{
	struct xdp_rxe *r = calloc(1, sizeof(*r));
	if (!r)
		return ns_err_sys(err, "xdp: allocation");
	e->priv = r;
	uint32_t slots = 1;
	while (slots < 2 * e->n)
		slots <<= 1;
	r->mask = slots - 1;
	r->keys = calloc(slots, sizeof(*r->keys));
	r->by_key = calloc(slots, sizeof(*r->by_key));
	r->dirty = calloc(e->n, sizeof(*r->dirty));
	r->is_dirty = calloc(e->n, sizeof(*r->is_dirty));
	if (!r->keys || !r->by_key || !r->dirty || !r->is_dirty)
		return ns_err_sys(err, "xdp: allocation");
	r->nq = xdp_queue_count(p->ifname, "rx");
	if (r->nq > XDP_RX_MAX_QUEUES)
		r->nq = XDP_RX_MAX_QUEUES; /* the rest pass their packets to the kernel */
	/* a power of two (the fill ring is as big), within the budget and the bounds */
	r->frames = XDP_RX_FRAMES_MAX;
	while (r->frames > XDP_RX_FRAMES_MIN && (size_t)r->frames * r->nq * XDP_FRAME_SIZE >
						       XDP_RX_BUDGET)
		r->frames /= 2;
	struct { uint32_t payload_len, dst_addr; } settings = {e->unit, p->local.sin_addr.s_addr};
	if (xdp_prog_attach(&r->prog, NS_XDP_RX_OBJ, NS_XDP_RX_OBJ_len, "xdp_rx", &settings,
			    sizeof(settings), p, err) < 0)
		return -1;
	r->flows_fd = xdp_prog_map(&r->prog, "flows");
	const char *mode = NULL;
	for (uint32_t i = 0; i < r->nq; i++)
		if (queue_open(r, i, p->ifname, &mode, err) < 0)
			return -1;
	snprintf(e->mode, sizeof(e->mode), "xdp rx %s%s", mode, r->prog.how);
	return 0;
}

static struct e_stream **slot_of(struct xdp_rxe *r, uint32_t key)
{
	uint32_t i = (key * 2654435761u) & r->mask;
	while (r->by_key[i] && r->keys[i] != key)
		i = (i + 1) & r->mask;
	r->keys[i] = key;
	return &r->by_key[i];
}

static int xdp_rx_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	struct xdp_path p;
	if (xdp_path_of(s->fd, false, &p, err) < 0)
		return -1;
	if (!e->priv && rx_open(e, &p, err) < 0)
		return -1;
	struct xdp_rxe *r = e->priv;
	if (r->prog.ifindex != p.ifindex)
		return ns_err_code(err, NS_E_USAGE, "xdp: the streams arrive on different interfaces");
	s->seq = malloc(sizeof(*s->seq));
	if (!s->seq)
		return ns_err_sys(err, "xdp: sequence window");
	udpseq_init(s->seq);
	uint32_t key = xdp_flow_key(&p), one = 1;
	struct e_stream **slot = slot_of(r, key);
	if (*slot)
		return ns_err_code(err, NS_E_USAGE, "xdp: two streams with the same ports");
	*slot = s;
	if (bpf_map_update_elem(r->flows_fd, &key, &one, BPF_NOEXIST) != 0)
		return ns_err_sys(err, "xdp: registering the flow");
	s->wait_fd = xsk_socket__fd(r->q[s->id % r->nq].xsk);
	return 0;
}

static int xdp_rx_thread_init(struct e_thread *t, struct ns_err *err)
{
	t->buf_len = 2048; /* what still reaches the data sockets is read into it and dropped */
	t->buf = engine_buf_alloc(t->buf_len);
	return t->buf ? 0 : ns_err_sys(err, "xdp: receive buffer");
}

/* One frame: ours if it is IPv4/UDP of a registered flow with the test's payload length
 * (the program checked as much, but a frame in the ring is input all the same). */
static void account(struct engine *e, struct xdp_rxe *r, const uint8_t *f, uint32_t len,
		    uint64_t arrival)
{
	uint32_t unit = e->unit;
	if (len < XDP_HDR_LEN + unit || f[12] != 0x08 || f[13] != 0x00 || f[14] != 0x45 ||
	    f[23] != 17 /* UDP */ || ((uint32_t)f[38] << 8 | f[39]) != unit + 8)
		return;
	uint32_t key = (uint32_t)f[34] << 24 | (uint32_t)f[35] << 16 | (uint32_t)f[36] << 8 | f[37];
	uint32_t i = (key * 2654435761u) & r->mask;
	while (r->by_key[i] && r->keys[i] != key)
		i = (i + 1) & r->mask;
	struct e_stream *s = r->by_key[i];
	const uint8_t *p = f + XDP_HDR_LEN;
	if (!s || (e->cfg.not_data_len && !memcmp(p, e->cfg.not_data, e->cfg.not_data_len)))
		return;
	uint64_t seq, ts;
	memcpy(&seq, p, 8);
	memcpy(&ts, p + 8, 8);
	if (!udpseq_add(s->seq, be64toh(seq), be64toh(ts), arrival))
		return; /* a duplicate: counted in udpseq, not as data */
	e_add(&s->packets, 1);
	e_add(&s->bytes, unit);
	if (!r->is_dirty[s->id]) {
		r->is_dirty[s->id] = true;
		r->dirty[r->ndirty++] = s;
	}
}

/* Up to a batch from one queue's ring; the frames go back to the fill ring. */
static uint32_t drain_queue(struct engine *e, struct xdp_rxe *r, struct rx_queue *q)
{
	uint32_t idx_rx, idx_fq;
	uint32_t n = xsk_ring_cons__peek(&q->rx, XDP_RX_BATCH, &idx_rx);
	if (!n) {
		if (xsk_ring_prod__needs_wakeup(&q->fq))
			recvfrom(xsk_socket__fd(q->xsk), NULL, 0, MSG_DONTWAIT, NULL, NULL);
		return 0;
	}
	uint64_t arrival = engine_real_ns() - e->t0_real_ns;
	/* every frame is in the fill ring, the receive ring or our hands: room for n */
	uint32_t got = xsk_ring_prod__reserve(&q->fq, n, &idx_fq);
	for (uint32_t i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx, idx_rx + i);
		uint64_t addr = xsk_umem__extract_addr(d->addr);
		account(e, r, xsk_umem__get_data(q->area, xsk_umem__add_offset_to_addr(d->addr)),
			d->len, arrival);
		if (i < got)
			*xsk_ring_prod__fill_addr(&q->fq, idx_fq + i) = addr - addr % XDP_FRAME_SIZE;
	}
	if (got)
		xsk_ring_prod__submit(&q->fq, got);
	xsk_ring_cons__release(&q->rx, n);
	return n;
}

/* The rings' own drops (ring full, no fill buffer): loss in this test's receive path, as
 * SO_RXQ_OVFL is for a socket; all on the first stream, the sum is what is reported. */
static uint64_t ring_drops(const struct xdp_rxe *r)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < r->nq; i++) {
		struct xdp_statistics st;
		socklen_t l = sizeof(st);
		if (getsockopt(xsk_socket__fd(r->q[i].xsk), SOL_XDP, XDP_STATISTICS, &st, &l) == 0)
			sum += st.rx_dropped + st.rx_ring_full;
	}
	return sum;
}

/* The thread's first stream reads every queue (one thread owns all streams); the others only
 * wait. With nothing in the rings, what reached the data sockets is read and dropped. */
static int xdp_rx_recv(struct e_thread *t, struct e_stream *s)
{
	struct engine *e = t->e;
	struct xdp_rxe *r = e->priv;
	if (s != t->streams[0])
		return E_BLOCKED;
	uint32_t got = 0;
	for (uint32_t i = 0; i < r->nq; i++)
		got += drain_queue(e, r, &r->q[i]);
	for (uint32_t i = 0; i < r->ndirty; i++) {
		r->is_dirty[r->dirty[i]->id] = false;
		publish(r->dirty[i]);
	}
	r->ndirty = 0;
	if (got)
		return E_PROGRESS;
	for (uint32_t i = 0; i < t->n; i++)
		while (recv(t->streams[i]->fd, t->buf, t->buf_len, MSG_DONTWAIT) >= 0)
			;
	atomic_store_explicit(&s->sock_drops, ring_drops(r), memory_order_relaxed);
	return E_BLOCKED;
}

static void xdp_rx_fini(struct engine *e)
{
	struct xdp_rxe *r = e->priv;
	if (!r)
		return;
	xdp_prog_detach(&r->prog);
	for (uint32_t i = 0; i < r->nq; i++) {
		struct rx_queue *q = &r->q[i];
		if (q->xsk)
			xsk_socket__delete(q->xsk);
		if (q->umem)
			xsk_umem__delete(q->umem);
		if (q->area)
			munmap(q->area, (size_t)r->frames * XDP_FRAME_SIZE);
	}
	free(r->keys);
	free(r->by_key);
	free(r->dirty);
	free(r->is_dirty);
	free(r);
	e->priv = NULL;
}

const struct engine_ops engine_xdp_rx_ops = {
	.name = "xdp-rx",
	.setup = xdp_rx_setup,
	.thread_init = xdp_rx_thread_init,
	.recv = xdp_rx_recv,
	.fini = xdp_rx_fini,
};
