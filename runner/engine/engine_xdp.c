/* engine_xdp: UDP over AF_XDP, for small-packet rates a kernel socket cannot reach.
 * Sender: one AF_XDP socket per thread on its own queue of the route's interface; whole
 * Ethernet/IPv4/UDP frames carrying the engine.h datagram header are written into the UMEM
 * (the headers once per frame, then only sequence and time per send). Zero-copy where the
 * driver allows it, copy mode otherwise; no XDP program is needed to send.
 * Receiver: count-only — bpf/xdp_count.c counts and drops the test's flows (source and
 * destination port, payload length) before the stack and passes every other packet; it is
 * attached through a bpf_link, which the kernel removes when the process dies, even by
 * SIGKILL. The data sockets stay open, so the 5-tuple stays the kernel's. IPv4 only. */
#include "engine_int.h"

#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <xdp/xsk.h>

#define XDP_FRAME_SIZE 2048u     /* one frame per UMEM chunk: payloads up to ~2000 bytes */
#define XDP_FRAMES 4096u         /* per sending thread: 8 MiB of UMEM */
#define XDP_RING 2048u           /* TX and completion ring entries */
#define XDP_BATCH 64u            /* frames per send call, as sendmmsg's batch */
#define XDP_HDR_LEN 42u          /* Ethernet 14 + IPv4 20 + UDP 8 */

extern const char NS_XDP_COUNT_OBJ[];
extern const unsigned long NS_XDP_COUNT_OBJ_len;

bool engine_xdp_available(char *why, size_t n)
{
	if (why && n)
		why[0] = '\0';
	return true;
}

/* The 5-tuple and next hop of a connected IPv4 UDP socket. */
struct xdp_path {
	char ifname[IF_NAMESIZE];
	int ifindex;
	struct sockaddr_in local, peer;
	uint32_t nexthop;        /* network order */
	uint8_t src_mac[6], dst_mac[6];
};

/* The route to dst from /proc/net/route (this namespace's): longest prefix, lowest metric. */
static int route_lookup(uint32_t dst, struct xdp_path *p, struct ns_err *err)
{
	FILE *f = fopen("/proc/net/route", "r");
	if (!f)
		return ns_err_sys(err, "xdp: /proc/net/route");
	char line[256], ifn[IF_NAMESIZE + 8];
	unsigned d, g, flags, refcnt, use, metric, mask;
	int best_len = -1;
	unsigned best_metric = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%16s %x %x %x %u %u %u %x", ifn, &d, &g, &flags, &refcnt, &use,
			   &metric, &mask) != 8 || !(flags & 1 /* RTF_UP */))
			continue;
		if ((dst & mask) != (d & mask))
			continue;
		int len = __builtin_popcount(mask);
		if (len > best_len || (len == best_len && metric < best_metric)) {
			best_len = len;
			best_metric = metric;
			snprintf(p->ifname, sizeof(p->ifname), "%.15s", ifn);
			p->nexthop = (flags & 2 /* RTF_GATEWAY */) ? g : dst;
		}
	}
	fclose(f);
	if (best_len < 0)
		return ns_err_code(err, NS_E_UNREACHABLE, "xdp: no route to %s",
				   inet_ntoa((struct in_addr){dst}));
	return 0;
}

/* The next hop's MAC from the neighbour table (the data connection's greeting resolved it). */
static int neigh_lookup(struct xdp_path *p, struct ns_err *err)
{
	FILE *f = fopen("/proc/net/arp", "r");
	if (!f)
		return ns_err_sys(err, "xdp: /proc/net/arp");
	char line[256], ip[64], hw[64], mask[64], dev[IF_NAMESIZE + 8];
	unsigned type, flags;
	int found = 0;
	while (!found && fgets(line, sizeof(line), f)) {
		struct in_addr a;
		if (sscanf(line, "%63s %x %x %63s %63s %16s", ip, &type, &flags, hw, mask, dev) != 6 ||
		    inet_aton(ip, &a) == 0 || a.s_addr != p->nexthop || strcmp(dev, p->ifname) ||
		    !(flags & 2 /* ATF_COM */))
			continue;
		found = sscanf(hw, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &p->dst_mac[0], &p->dst_mac[1],
			       &p->dst_mac[2], &p->dst_mac[3], &p->dst_mac[4], &p->dst_mac[5]) == 6;
	}
	fclose(f);
	if (!found)
		return ns_err_code(err, NS_E_UNREACHABLE, "xdp: no neighbour entry for %s on %s",
				   inet_ntoa((struct in_addr){p->nexthop}), p->ifname);
	return 0;
}

/* Interface, addresses and next hop of the stream's connected socket; refuses what AF_XDP
 * cannot carry (IPv6, loopback, devices without an Ethernet header). */
static int path_of(int fd, bool need_mac, struct xdp_path *p, struct ns_err *err)
{
	socklen_t l = sizeof(p->local), pl = sizeof(p->peer);
	memset(p, 0, sizeof(*p));
	if (getsockname(fd, (struct sockaddr *)&p->local, &l) < 0 ||
	    getpeername(fd, (struct sockaddr *)&p->peer, &pl) < 0)
		return ns_err_sys(err, "xdp: the data socket's addresses");
	if (p->local.sin_family != AF_INET || p->peer.sin_family != AF_INET)
		return ns_err_code(err, NS_E_USAGE, "xdp: the XDP engine carries IPv4 only");
	if (route_lookup(p->peer.sin_addr.s_addr, p, err) < 0)
		return -1;
	p->ifindex = (int)if_nametoindex(p->ifname);
	if (!p->ifindex)
		return ns_err_sys(err, "xdp: interface %s", p->ifname);
	struct ifreq ifr = {0};
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->ifname);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int rc = s < 0 ? -1 : ioctl(s, SIOCGIFHWADDR, &ifr);
	if (s >= 0)
		close(s);
	if (rc < 0)
		return ns_err_sys(err, "xdp: hardware address of %s", p->ifname);
	if (ifr.ifr_hwaddr.sa_family != 1 /* ARPHRD_ETHER */)
		return ns_err_code(err, NS_E_USAGE,
				   "xdp: %s is not an Ethernet device (loopback, tunnel): the XDP "
				   "engine needs one", p->ifname);
	memcpy(p->src_mac, ifr.ifr_hwaddr.sa_data, 6);
	return need_mac ? neigh_lookup(p, err) : 0;
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
	uint32_t free[XDP_FRAMES];
	uint32_t nfree;
	uint32_t outstanding;
};

static int xdp_send_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	if (e->unit + XDP_HDR_LEN > XDP_FRAME_SIZE)
		return ns_err_code(err, NS_E_USAGE,
				   "xdp: a %u-byte payload does not fit a %u-byte frame", e->unit,
				   XDP_FRAME_SIZE);
	struct xdp_path p;
	if (path_of(s->fd, true, &p, err) < 0)
		return -1;
	uint8_t *h = malloc(XDP_HDR_LEN + IF_NAMESIZE + sizeof(int));
	if (!h)
		return ns_err_sys(err, "xdp: allocation");
	build_header(&p, e->unit, h);
	memcpy(h + XDP_HDR_LEN, p.ifname, IF_NAMESIZE);
	s->priv = h;
	return 0;
}

static uint32_t queue_count(const char *ifname)
{
	char path[128];
	uint32_t n = 0;
	for (;; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/tx-%u", ifname, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n ? n : 1;
}

static int xdp_send_thread_init(struct e_thread *t, struct ns_err *err)
{
	if (!t->n)
		return 0;
	const char *ifname = (const char *)t->streams[0]->priv + XDP_HDR_LEN;
	for (uint32_t i = 1; i < t->n; i++)
		if (strcmp(ifname, (const char *)t->streams[i]->priv + XDP_HDR_LEN))
			return ns_err_code(err, NS_E_USAGE, "xdp: one thread's streams leave by "
					   "different interfaces");
	uint32_t queues = queue_count(ifname);
	if (t->idx >= queues)
		return ns_err_code(err, NS_E_USAGE,
				   "xdp: %s has %u transmit queue%s: at most that many threads "
				   "with the XDP engine", ifname, queues, queues == 1 ? "" : "s");
	struct xdp_tx *x = calloc(1, sizeof(*x));
	if (!x)
		return ns_err_sys(err, "xdp: allocation");
	t->priv = x;
	size_t len = (size_t)XDP_FRAMES * XDP_FRAME_SIZE;
	x->area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (x->area == MAP_FAILED) {
		x->area = NULL;
		return ns_err_sys(err, "xdp: UMEM of %zu bytes", len);
	}
	struct xsk_umem_config ucfg = {.fill_size = XDP_RING, .comp_size = XDP_RING,
				       .frame_size = XDP_FRAME_SIZE};
	int rc = xsk_umem__create(&x->umem, x->area, len, &x->fq, &x->cq, &ucfg);
	if (rc) {
		errno = -rc;
		return ns_err_sys(err, "xdp: UMEM registration (needs root: CAP_NET_RAW)");
	}
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
		rc = xsk_socket__create(&x->xsk, ifname, t->idx, x->umem, NULL, &x->tx, &scfg);
		if (rc == 0)
			mode = modes[i].mode;
	}
	if (!mode) {
		errno = -rc;
		return ns_err_sys(err, "xdp: AF_XDP socket on %s queue %u", ifname, t->idx);
	}
	/* every frame starts as a whole datagram of zeros; headers go in per send */
	for (uint32_t i = 0; i < XDP_FRAMES; i++)
		x->free[i] = XDP_FRAMES - 1 - i;
	x->nfree = XDP_FRAMES;
	for (uint32_t i = 0; i < t->n; i++)
		t->streams[i]->wait_fd = xsk_socket__fd(x->xsk);
	if (t->idx == 0)
		snprintf(t->e->mode, sizeof(t->e->mode), "xdp tx %s", mode);
	t->batch = XDP_BATCH;
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
 * generic path): call it until the ring is drained or the kernel says "later" (EAGAIN,
 * EBUSY, ENOBUFS), reaping completions as they come. */
#define XDP_KICKS 16

static void kick(struct xdp_tx *x)
{
	for (int i = 0; i < XDP_KICKS && x->outstanding; i++) {
		if (!xsk_ring_prod__needs_wakeup(&x->tx) && i > 0)
			break;
		uint32_t before = x->outstanding;
		if (sendto(xsk_socket__fd(x->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0 &&
		    errno != EAGAIN && errno != EBUSY && errno != ENOBUFS)
			break;
		reap(x);
		if (x->outstanding == before)
			break;
	}
}

static int xdp_send(struct e_thread *t, struct e_stream *s, uint32_t max_units, uint64_t now_ns,
		    uint64_t *bytes)
{
	struct xdp_tx *x = t->priv;
	uint32_t len = t->e->unit;
	reap(x);
	if (!x->nfree) {
		kick(x);
		reap(x);
		if (!x->nfree)
			return E_BACKOFF;
	}
	uint32_t want = max_units < XDP_BATCH ? max_units : XDP_BATCH;
	if (want > x->nfree)
		want = x->nfree;
	uint32_t idx;
	uint32_t got = xsk_ring_prod__reserve(&x->tx, want, &idx);
	if (!got) {
		kick(x);
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
	kick(x);
	s->next_seq += got;
	e_add(&s->packets, got);
	e_add(&s->bytes, (uint64_t)got * len);
	*bytes = (uint64_t)got * len;
	return E_PROGRESS;
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

struct xdp_rx {
	struct bpf_object *obj;
	struct bpf_link *link;
	int map_fd;
	int ifindex;
};

struct flow_counts {
	uint64_t packets, bytes, highest_plus1;
};

static int load_counter(struct engine *e, const struct xdp_path *p, struct ns_err *err)
{
	struct xdp_rx *r = calloc(1, sizeof(*r));
	if (!r)
		return ns_err_sys(err, "xdp: allocation");
	e->priv = r;
	r->ifindex = p->ifindex;
	r->obj = bpf_object__open_mem(NS_XDP_COUNT_OBJ, NS_XDP_COUNT_OBJ_len, NULL);
	if (!r->obj)
		return ns_err_sys(err, "xdp: opening the counting program");
	struct bpf_map *rodata = NULL, *m;
	bpf_object__for_each_map(m, r->obj)
		if (strstr(bpf_map__name(m), ".rodata"))
			rodata = m;
	uint32_t len = e->unit;
	if (!rodata || bpf_map__set_initial_value(rodata, &len, sizeof(len)) != 0)
		return ns_err_code(err, NS_E_FAIL, "xdp: the counting program has no settings");
	int rc = bpf_object__load(r->obj);
	if (rc) {
		errno = -rc;
		return ns_err_sys(err, "xdp: loading the counting program (needs root: CAP_BPF, "
				  "CAP_NET_ADMIN)");
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(r->obj, "xdp_count");
	r->map_fd = bpf_object__find_map_fd_by_name(r->obj, "flows");
	if (!prog || r->map_fd < 0)
		return ns_err_code(err, NS_E_FAIL, "xdp: the counting program is incomplete");
	r->link = bpf_program__attach_xdp(prog, p->ifindex);
	if (!r->link) {
		int saved = errno;
		errno = saved;
		return ns_err_sys(err, "xdp: attaching to %s (another XDP program there?)",
				  p->ifname);
	}
	struct bpf_xdp_query_opts q = {.sz = sizeof(q)};
	const char *how = "";
	if (bpf_xdp_query(p->ifindex, 0, &q) == 0)
		how = q.attach_mode == XDP_ATTACHED_DRV ? " native" :
		      q.attach_mode == XDP_ATTACHED_SKB ? " generic" :
		      q.attach_mode == XDP_ATTACHED_HW ? " offloaded" : "";
	snprintf(e->mode, sizeof(e->mode), "xdp rx count-only%s", how);
	return 0;
}

static uint32_t flow_key(const struct xdp_path *p)
{
	/* as the receiver sees it: from the peer's port to ours */
	return (uint32_t)ntohs(p->peer.sin_port) << 16 | ntohs(p->local.sin_port);
}

static int xdp_recv_setup(struct engine *e, struct e_stream *s, struct ns_err *err)
{
	struct xdp_path p;
	if (path_of(s->fd, false, &p, err) < 0)
		return -1;
	if (!e->priv && load_counter(e, &p, err) < 0)
		return -1;
	struct xdp_rx *r = e->priv;
	if (r->ifindex != p.ifindex)
		return ns_err_code(err, NS_E_USAGE, "xdp: the streams arrive on different interfaces");
	uint32_t *key = malloc(sizeof(*key));
	if (!key)
		return ns_err_sys(err, "xdp: allocation");
	*key = flow_key(&p);
	s->priv = key;
	struct flow_counts zero = {0};
	if (bpf_map_update_elem(r->map_fd, key, &zero, BPF_NOEXIST) != 0)
		return ns_err_sys(err, "xdp: registering the flow");
	return 0;
}

static int xdp_recv_thread_init(struct e_thread *t, struct ns_err *err)
{
	(void)err;
	t->buf_len = 2048;
	t->buf = engine_buf_alloc(t->buf_len);
	return t->buf ? 0 : ns_err_sys(err, "xdp: receive buffer");
}

/* Publishes the program's counts; what still reaches the socket (greetings, datagrams of
 * another length) is read and dropped so that poll does not spin on it. */
static int xdp_recv(struct e_thread *t, struct e_stream *s)
{
	struct xdp_rx *r = t->e->priv;
	while (recv(s->fd, t->buf, t->buf_len, MSG_DONTWAIT) >= 0)
		;
	struct flow_counts c;
	if (bpf_map_lookup_elem(r->map_fd, s->priv, &c) == 0) {
		atomic_store_explicit(&s->packets, c.packets, memory_order_relaxed);
		atomic_store_explicit(&s->bytes, c.bytes, memory_order_relaxed);
		atomic_store_explicit(&s->highest_plus1, c.highest_plus1, memory_order_relaxed);
		atomic_store_explicit(&s->lost,
				      c.highest_plus1 > c.packets ? c.highest_plus1 - c.packets : 0,
				      memory_order_relaxed);
	}
	return E_BLOCKED;
}

static void xdp_recv_fini(struct engine *e)
{
	struct xdp_rx *r = e->priv;
	if (r) {
		if (r->link)
			bpf_link__destroy(r->link); /* detaches the program */
		if (r->obj)
			bpf_object__close(r->obj);
		free(r);
		e->priv = NULL;
	}
	xdp_streams_fini(e);
}

const struct engine_ops engine_xdp_recv_ops = {
	.name = "xdp-recv",
	.setup = xdp_recv_setup,
	.thread_init = xdp_recv_thread_init,
	.recv = xdp_recv,
	.fini = xdp_recv_fini,
};
