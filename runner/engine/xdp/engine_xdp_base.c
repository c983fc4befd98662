/* engine_xdp_base: see engine_xdp_int.h. */
#include "engine_xdp_int.h"
#include "lib/settings.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <xdp/xsk.h>

int xdp_err_refused(struct ns_err *err, int errnum, const char *what, const char *hint)
{
	errno = errnum;
	ns_err_sys(err, "xdp: %s%s", what, hint ? hint : "");
	if (errnum != ENOMEM && err)
		err->code = NS_E_UNSUPPORTED;
	return -1;
}

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
	/* the kernel routed the connected socket, so its route is elsewhere: the local table
	 * (loopback, an address of this host) or policy routing, neither of which we follow */
	if (best_len < 0)
		return ns_err_code(err, NS_E_UNSUPPORTED, "xdp: %s is not reached through the main "
				   "routing table (loopback, a local address, policy routing): the XDP "
				   "engine needs the Ethernet device of a route there",
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

/* Devices that carry Ethernet frames but where an AF_XDP socket on the device is not the
 * path of the packets: a bond's or team's slaves carry them, a tunnel wraps them. */
static const char *refused_devtype(const char *ifname)
{
	static const char *const refused[] = {"bond", "team", "vxlan", "geneve", "gretap",
					      "ip6gretap", "erspan", "ip6erspan", "macsec"};
	char path[96], line[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/uevent", ifname);
	FILE *f = fopen(path, "r");
	const char *found = NULL;
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "DEVTYPE=", 8))
			continue;
		line[strcspn(line, "\n")] = '\0';
		for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
			if (!strcmp(line + 8, refused[i]))
				found = refused[i];
	}
	if (f)
		fclose(f);
	return found;
}

int xdp_path_of(int fd, bool need_mac, struct xdp_path *p, struct ns_err *err)
{
	socklen_t l = sizeof(p->local), pl = sizeof(p->peer);
	memset(p, 0, sizeof(*p));
	if (getsockname(fd, (struct sockaddr *)&p->local, &l) < 0 ||
	    getpeername(fd, (struct sockaddr *)&p->peer, &pl) < 0)
		return ns_err_sys(err, "xdp: the data socket's addresses");
	if (p->local.sin_family != AF_INET || p->peer.sin_family != AF_INET)
		return ns_err_code(err, NS_E_UNSUPPORTED, "xdp: the XDP engine carries IPv4 only");
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
		return ns_err_code(err, NS_E_UNSUPPORTED,
				   "xdp: %s is not an Ethernet device (loopback, tunnel): the XDP "
				   "engine needs one", p->ifname);
	const char *type = refused_devtype(p->ifname);
	if (type)
		return ns_err_code(err, NS_E_UNSUPPORTED,
				   "xdp: %s is a %s device: the XDP engine needs the device the "
				   "packets really leave and arrive on (a NIC or a veth)", p->ifname,
				   type);
	memcpy(p->src_mac, ifr.ifr_hwaddr.sa_data, 6);
	return need_mac ? neigh_lookup(p, err) : 0;
}

uint32_t xdp_flow_key(const struct xdp_path *p)
{
	return (uint32_t)ntohs(p->peer.sin_port) << 16 | ntohs(p->local.sin_port);
}

uint32_t xdp_queue_count(const char *ifname, const char *dir)
{
	char path[128];
	uint32_t n = 0;
	for (;; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/%s-%u", ifname, dir, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n ? n : 1;
}

/* The kernel lets go of a closed AF_XDP socket's queue in a deferred work item that needs the
 * RTNL lock: a test right after another on the same queue (a sweep, a test suite) can find it
 * still taken, for as long as a busy host keeps that worker off the CPU or the lock held. */
#define XDP_QUEUE_FREE_WAIT_NS 2000000000ll
#define XDP_QUEUE_FREE_POLL_US 20000

int xdp_socket_create(struct xsk_socket **xsk, const char *ifname, uint32_t queue,
		      struct xsk_umem *umem, struct xsk_ring_cons *rx, struct xsk_ring_prod *tx,
		      const struct xsk_socket_config *cfg)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = xsk_socket__create(xsk, ifname, queue, umem, rx, tx, cfg);
		if (rc != -EBUSY)
			return rc;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((long long)(t.tv_sec - t0.tv_sec) * 1000000000ll + (t.tv_nsec - t0.tv_nsec) >=
		    XDP_QUEUE_FREE_WAIT_NS)
			return rc; /* held by a socket that is still open */
		usleep(XDP_QUEUE_FREE_POLL_US);
	}
}

int xdp_prog_attach(struct xdp_prog *x, const char *obj, size_t obj_len, const char *prog_name,
		    const void *settings, size_t settings_len, const struct xdp_path *p,
		    struct ns_err *err)
{
	x->ifindex = p->ifindex;
	libbpf_set_print(NULL); /* not to stderr: the caller gets the error in err */
	x->obj = bpf_object__open_mem(obj, obj_len, NULL);
	if (!x->obj)
		return ns_err_sys(err, "xdp: opening the XDP program");
	struct bpf_map *rodata = NULL, *m;
	bpf_object__for_each_map(m, x->obj)
		if (strstr(bpf_map__name(m), ".rodata"))
			rodata = m;
	if (!rodata || bpf_map__set_initial_value(rodata, settings, settings_len) != 0)
		return ns_err_code(err, NS_E_FAIL, "xdp: the XDP program has no settings");
	int rc = bpf_object__load(x->obj);
	if (rc)
		return xdp_err_refused(err, -rc, "loading the XDP program",
				       " (needs root: CAP_BPF and CAP_NET_ADMIN)");
	struct bpf_program *prog = bpf_object__find_program_by_name(x->obj, prog_name);
	if (!prog)
		return ns_err_code(err, NS_E_FAIL, "xdp: the XDP program is incomplete");
	/* flags 0: native where the driver has it, generic where it has none */
	LIBBPF_OPTS(bpf_link_create_opts, native);
	LIBBPF_OPTS(bpf_link_create_opts, generic, .flags = XDP_FLAGS_SKB_MODE);
	int fd = -1;
	if (!settings_get()->test_xdp_generic)
		fd = bpf_link_create(bpf_program__fd(prog), p->ifindex, BPF_XDP, &native);
	if (fd < 0)
		fd = bpf_link_create(bpf_program__fd(prog), p->ifindex, BPF_XDP, &generic);
	if (fd < 0) {
		char what[64];
		snprintf(what, sizeof(what), "attaching to %s", p->ifname);
		return xdp_err_refused(err, errno, what, " (no XDP there, or another program)");
	}
	x->link_fd = fd;
	x->attached = true;
	struct bpf_xdp_query_opts q = {.sz = sizeof(q)};
	const char *how = "";
	if (bpf_xdp_query(p->ifindex, 0, &q) == 0)
		how = q.attach_mode == XDP_ATTACHED_DRV ? " native" :
		      q.attach_mode == XDP_ATTACHED_SKB ? " generic" :
		      q.attach_mode == XDP_ATTACHED_HW ? " offloaded" : "";
	snprintf(x->how, sizeof(x->how), "%s", how);
	return 0;
}

int xdp_prog_map(const struct xdp_prog *x, const char *name)
{
	return x->obj ? bpf_object__find_map_fd_by_name(x->obj, name) : -1;
}

void xdp_prog_detach(struct xdp_prog *x)
{
	if (x->attached)
		close(x->link_fd); /* detaches the program */
	if (x->obj)
		bpf_object__close(x->obj);
	x->attached = false;
	x->obj = NULL;
}
