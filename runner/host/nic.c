/* nic: route lookup over rtnetlink, NIC facts over SIOCETHTOOL, the root qdisc over an
 * RTM_GETQDISC dump, IRQ CPUs from /proc/interrupts and /proc/irq. Nothing here sends a packet:
 * a UDP connect() only asks the kernel for a source address. */
#include "nic.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ifaddrs.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "lib/units.h"

#define NL_BUF 32768

void nic_note(struct nic_notes *notes, const char *fmt, ...)
{
	if (!notes || notes->n >= NIC_MAX_NOTES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(notes->text[notes->n++], NIC_NOTE_LEN, fmt, ap);
	va_end(ap);
}

/* ---- rtnetlink ---- */

typedef int (*nl_cb)(const struct nlmsghdr *h, void *arg);

/* Sends one request and feeds every answer to cb until the dump ends (or, for a plain request,
 * the first answer). A one-second receive timeout keeps a confused kernel from hanging us. */
static int nl_talk(struct nlmsghdr *req, nl_cb cb, void *arg, struct ns_err *err)
{
	char *buf = NULL;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return ns_err_sys(err, "netlink socket");
	struct timeval tv = {.tv_sec = 1};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	bool dump = (req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	req->nlmsg_seq = 1;
	if (sendto(fd, req, req->nlmsg_len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		ns_err_sys(err, "netlink request");
		goto err;
	}
	buf = malloc(NL_BUF);
	if (!buf) {
		ns_err_code(err, NS_E_NOMEM, "out of memory");
		goto err;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, NL_BUF, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ns_err_sys(err, "netlink answer");
			goto err;
		}
		int len = (int)n;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				goto done;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				if (e->error == 0)
					goto done;
				errno = -e->error;
				ns_err_sys(err, "netlink");
				goto err;
			}
			if (cb(h, arg) < 0) {
				ns_err_set(err, "netlink: malformed answer");
				goto err;
			}
		}
		if (!dump)
			goto done;
	}
done:
	free(buf);
	close(fd);
	return 0;
err:
	free(buf);
	close(fd);
	return -1;
}

static void put_attr(struct nlmsghdr *h, size_t cap, unsigned short type, const void *data,
		     size_t len)
{
	struct rtattr *rta = (struct rtattr *)((char *)h + NLMSG_ALIGN(h->nlmsg_len));
	if (NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len) > cap)
		return;
	rta->rta_type = type;
	rta->rta_len = (unsigned short)RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	h->nlmsg_len = (uint32_t)(NLMSG_ALIGN(h->nlmsg_len) + RTA_SPACE(len));
}

struct route_answer {
	int family;
	bool want_default; /* dump mode: keep the best default route only */
	bool found;
	int ifindex;
	uint32_t priority;
	unsigned char gateway[16], prefsrc[16];
	bool has_gateway, has_prefsrc;
};

static int on_route(const struct nlmsghdr *h, void *arg)
{
	struct route_answer *a = arg;
	if (h->nlmsg_type != RTM_NEWROUTE)
		return 0;
	const struct rtmsg *rt = NLMSG_DATA(h);
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*rt)))
		return -1;
	if (rt->rtm_family != a->family)
		return 0;
	int oif = 0;
	uint32_t prio = 0, table = rt->rtm_table;
	const void *gw = NULL, *src = NULL;
	size_t alen = a->family == AF_INET ? 4 : 16;
	int len = (int)RTM_PAYLOAD(h);
	for (const struct rtattr *rta = RTM_RTA(rt); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		size_t plen = RTA_PAYLOAD(rta);
		switch (rta->rta_type) {
		case RTA_OIF:
			if (plen >= 4)
				memcpy(&oif, RTA_DATA(rta), 4);
			break;
		case RTA_PRIORITY:
			if (plen >= 4)
				memcpy(&prio, RTA_DATA(rta), 4);
			break;
		case RTA_TABLE:
			if (plen >= 4)
				memcpy(&table, RTA_DATA(rta), 4);
			break;
		case RTA_GATEWAY:
			if (plen >= alen)
				gw = RTA_DATA(rta);
			break;
		case RTA_PREFSRC:
			if (plen >= alen)
				src = RTA_DATA(rta);
			break;
		}
	}
	if (a->want_default) {
		if (rt->rtm_dst_len != 0 || table != RT_TABLE_MAIN || rt->rtm_type != RTN_UNICAST ||
		    oif == 0)
			return 0;
		if (a->found && prio >= a->priority)
			return 0;
	}
	a->found = oif != 0;
	a->ifindex = oif;
	a->priority = prio;
	a->has_gateway = gw != NULL;
	if (gw)
		memcpy(a->gateway, gw, alen);
	a->has_prefsrc = src != NULL;
	if (src)
		memcpy(a->prefsrc, src, alen);
	return 0;
}

static int route_query(int family, const void *dst, struct route_answer *a, struct ns_err *err)
{
	struct {
		struct nlmsghdr h;
		struct rtmsg rt;
		char attrs[64];
	} req;
	memset(&req, 0, sizeof(req));
	memset(a, 0, sizeof(*a));
	a->family = family;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	req.h.nlmsg_type = RTM_GETROUTE;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.rt.rtm_family = (unsigned char)family;
	if (dst) {
		size_t alen = family == AF_INET ? 4 : 16;
		req.rt.rtm_dst_len = (unsigned char)(alen * 8);
		put_attr(&req.h, sizeof(req), RTA_DST, dst, alen);
	} else {
		req.h.nlmsg_flags |= NLM_F_DUMP;
		a->want_default = true;
	}
	return nl_talk(&req.h, on_route, a, err);
}

/* The source address the kernel picks for dst: connect() on a UDP socket sends nothing. */
static int source_for(const struct sockaddr *dst, socklen_t dlen, char *out, size_t len)
{
	int fd = socket(dst->sa_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int rc = -1;
	if (connect(fd, dst, dlen) == 0 && getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		const void *a = ss.ss_family == AF_INET
					? (const void *)&((struct sockaddr_in *)&ss)->sin_addr
					: (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
		if (inet_ntop(ss.ss_family, a, out, (socklen_t)len))
			rc = 0;
	}
	close(fd);
	return rc;
}

/* The interface holding a local address: the fallback when netlink is not available. */
static int ifname_for_source(const char *source, char *ifname)
{
	struct ifaddrs *ifa, *p;
	if (getifaddrs(&ifa) < 0)
		return -1;
	int rc = -1;
	for (p = ifa; p && rc < 0; p = p->ifa_next) {
		if (!p->ifa_addr || (p->ifa_addr->sa_family != AF_INET && p->ifa_addr->sa_family != AF_INET6))
			continue;
		char buf[NIC_ADDR_LEN];
		const void *a = p->ifa_addr->sa_family == AF_INET
					? (const void *)&((struct sockaddr_in *)p->ifa_addr)->sin_addr
					: (const void *)&((struct sockaddr_in6 *)p->ifa_addr)->sin6_addr;
		if (inet_ntop(p->ifa_addr->sa_family, a, buf, sizeof(buf)) && strcmp(buf, source) == 0) {
			snprintf(ifname, IF_NAMESIZE, "%s", p->ifa_name);
			rc = 0;
		}
	}
	freeifaddrs(ifa);
	return rc;
}

/* First address of the interface in that family: the default route's likely source. */
static void first_address(int ifindex, int family, char *out, size_t len)
{
	char name[IF_NAMESIZE];
	struct ifaddrs *ifa;
	if (!if_indextoname((unsigned)ifindex, name) || getifaddrs(&ifa) < 0)
		return;
	for (struct ifaddrs *p = ifa; p; p = p->ifa_next) {
		if (!p->ifa_addr || p->ifa_addr->sa_family != family || strcmp(p->ifa_name, name))
			continue;
		const void *a = family == AF_INET
					? (const void *)&((struct sockaddr_in *)p->ifa_addr)->sin_addr
					: (const void *)&((struct sockaddr_in6 *)p->ifa_addr)->sin6_addr;
		if (family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)a))
			continue;
		if (inet_ntop(family, a, out, (socklen_t)len))
			break;
	}
	freeifaddrs(ifa);
}

static void fill_from_answer(struct nic_route *r, const struct route_answer *a)
{
	r->ifindex = a->ifindex;
	if (!if_indextoname((unsigned)a->ifindex, r->ifname))
		r->ifname[0] = '\0';
	if (a->has_gateway)
		inet_ntop(a->family, a->gateway, r->gateway, sizeof(r->gateway));
	if (a->has_prefsrc && !r->source[0])
		inet_ntop(a->family, a->prefsrc, r->source, sizeof(r->source));
}

int nic_route_lookup(const char *peer, struct nic_route *r, struct ns_err *err)
{
	memset(r, 0, sizeof(*r));
	struct route_answer a;
	if (!peer) {
		if (route_query(AF_INET, NULL, &a, err) == 0 && a.found) {
			fill_from_answer(r, &a);
			if (!r->source[0])
				first_address(a.ifindex, AF_INET, r->source, sizeof(r->source));
			return r->ifname[0] ? 0 : ns_err_set(err, "default route: interface %d has no name",
							     a.ifindex);
		}
		if (route_query(AF_INET6, NULL, &a, err) == 0 && a.found) {
			fill_from_answer(r, &a);
			if (!r->source[0])
				first_address(a.ifindex, AF_INET6, r->source, sizeof(r->source));
			return r->ifname[0] ? 0 : ns_err_set(err, "default route: interface %d has no name",
							     a.ifindex);
		}
		return ns_err_set(err, "no default route");
	}

	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM}, *ai = NULL;
	int gai = getaddrinfo(peer, "9", &hints, &ai);
	if (gai != 0)
		return ns_err_set(err, "peer '%s': %s", peer, gai_strerror(gai));
	/* An agent on a dual-stack socket sees IPv4 peers as ::ffff:a.b.c.d: IPv4 routes them. */
	struct sockaddr_storage ss;
	socklen_t sl = (socklen_t)ai->ai_addrlen;
	memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ai->ai_addr;
	if (ai->ai_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};
		memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], 4);
		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, &s4, sizeof(s4));
		sl = sizeof(s4);
	}
	int family = ss.ss_family;
	const void *dst = family == AF_INET ? (const void *)&((struct sockaddr_in *)&ss)->sin_addr
					    : (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr;
	if (source_for((struct sockaddr *)&ss, sl, r->source, sizeof(r->source)) < 0) {
		int saved = errno;
		freeaddrinfo(ai);
		errno = saved;
		return ns_err_sys(err, "no route to peer %s", peer);
	}
	struct ns_err nl_err;
	if (route_query(family, dst, &a, &nl_err) == 0 && a.found) {
		fill_from_answer(r, &a);
	} else if (ifname_for_source(r->source, r->ifname) == 0) {
		r->ifindex = (int)if_nametoindex(r->ifname);
	} else {
		freeaddrinfo(ai);
		return ns_err_set(err, "peer %s: cannot tell the interface of source %s", peer, r->source);
	}
	freeaddrinfo(ai);
	return 0;
}

/* ---- ethtool ---- */

static int ethtool(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

static void copy_text(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t n = strnlen(src, srclen);
	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	if (strcmp(dst, "N/A") == 0)
		dst[0] = '\0';
}

static void query_link(int fd, struct nic_info *ni)
{
	struct {
		struct ethtool_link_settings req;
		uint32_t masks[3 * 127];
	} ls;
	memset(&ls, 0, sizeof(ls));
	ls.req.cmd = ETHTOOL_GLINKSETTINGS;
	/* The handshake: the kernel answers the first call with -(words it needs). */
	if (ethtool(fd, ni->name, &ls) == 0 && ls.req.link_mode_masks_nwords < 0) {
		int8_t words = (int8_t)-ls.req.link_mode_masks_nwords;
		memset(&ls, 0, sizeof(ls));
		ls.req.cmd = ETHTOOL_GLINKSETTINGS;
		ls.req.link_mode_masks_nwords = words;
		if (ethtool(fd, ni->name, &ls) == 0 && ls.req.link_mode_masks_nwords > 0) {
			if (ls.req.speed != 0 && ls.req.speed != (uint32_t)SPEED_UNKNOWN &&
			    ls.req.speed <= INT_MAX)
				ni->speed_mbps = (int)ls.req.speed;
			ni->duplex = ls.req.duplex == DUPLEX_FULL ? 1 : ls.req.duplex == DUPLEX_HALF ? 0 : -1;
			return;
		}
	}
	struct ethtool_cmd ec;
	memset(&ec, 0, sizeof(ec));
	ec.cmd = ETHTOOL_GSET;
	if (ethtool(fd, ni->name, &ec) == 0) {
		uint32_t speed = ethtool_cmd_speed(&ec);
		if (speed != 0 && speed != (uint32_t)SPEED_UNKNOWN && speed <= INT_MAX)
			ni->speed_mbps = (int)speed;
		ni->duplex = ec.duplex == DUPLEX_FULL ? 1 : ec.duplex == DUPLEX_HALF ? 0 : -1;
	}
}

static int count_queues(const char *ifname, const char *prefix)
{
	char path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	DIR *d = opendir(path);
	if (!d)
		return -1;
	int n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
			n++;
	closedir(d);
	return n;
}

static int get_flag(int fd, const char *ifname, uint32_t cmd)
{
	struct ethtool_value v = {.cmd = cmd};
	if (ethtool(fd, ifname, &v) < 0)
		return -1;
	return v.data ? 1 : 0;
}

static void query_ethtool(struct nic_info *ni, struct nic_notes *notes)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		nic_note(notes, "ethtool: no socket: %s", strerror(errno));
		return;
	}
	struct ethtool_drvinfo di;
	memset(&di, 0, sizeof(di));
	di.cmd = ETHTOOL_GDRVINFO;
	if (ethtool(fd, ni->name, &di) == 0) {
		copy_text(ni->driver, sizeof(ni->driver), di.driver, sizeof(di.driver));
		copy_text(ni->driver_version, sizeof(ni->driver_version), di.version, sizeof(di.version));
		copy_text(ni->firmware, sizeof(ni->firmware), di.fw_version, sizeof(di.fw_version));
		copy_text(ni->bus_info, sizeof(ni->bus_info), di.bus_info, sizeof(di.bus_info));
	} else if (!ni->loopback) {
		nic_note(notes, "ethtool -i %s: %s", ni->name, strerror(errno));
	}
	if (ni->loopback && !ni->driver[0])
		snprintf(ni->driver, sizeof(ni->driver), "loopback");

	query_link(fd, ni);

	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ni->name);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0)
		ni->mtu = ifr.ifr_mtu;

	struct ethtool_channels ch;
	memset(&ch, 0, sizeof(ch));
	ch.cmd = ETHTOOL_GCHANNELS;
	if (ethtool(fd, ni->name, &ch) == 0) {
		ni->rx_queues = (int)ch.rx_count;
		ni->tx_queues = (int)ch.tx_count;
		ni->combined_queues = (int)ch.combined_count;
	} else {
		/* Drivers without channel support still expose their queues in sysfs. */
		ni->rx_queues = count_queues(ni->name, "rx-");
		ni->tx_queues = count_queues(ni->name, "tx-");
	}

	ni->gso = get_flag(fd, ni->name, ETHTOOL_GGSO);
	ni->gro = get_flag(fd, ni->name, ETHTOOL_GGRO);
	ni->tso = get_flag(fd, ni->name, ETHTOOL_GTSO);
	close(fd);
}

/* ---- qdisc ---- */

/* An interface's qdiscs from one RTM_GETQDISC dump: the root's kind and, for a multiqueue root
 * (mq, mqprio), how many of its leaves there are and how many are fq. */
struct qdisc_answer {
	int ifindex;
	char root[32];
	uint32_t root_handle;
	int leaves, fq_leaves;
};

static int on_qdisc(const struct nlmsghdr *h, void *arg)
{
	struct qdisc_answer *a = arg;
	if (h->nlmsg_type != RTM_NEWQDISC)
		return 0;
	const struct tcmsg *tc = NLMSG_DATA(h);
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*tc)))
		return -1;
	if (tc->tcm_ifindex != a->ifindex)
		return 0;
	char kind[32] = "";
	int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)));
	for (const struct rtattr *rta = (const struct rtattr *)((const char *)tc + NLMSG_ALIGN(sizeof(*tc)));
	     RTA_OK(rta, len); rta = RTA_NEXT(rta, len))
		if (rta->rta_type == TCA_KIND)
			copy_text(kind, sizeof(kind), RTA_DATA(rta), RTA_PAYLOAD(rta));
	if (tc->tcm_parent == TC_H_ROOT) {
		snprintf(a->root, sizeof(a->root), "%s", kind);
		a->root_handle = tc->tcm_handle;
	} else if (tc->tcm_parent != TC_H_INGRESS && a->root[0] &&
		   TC_H_MAJ(tc->tcm_parent) == TC_H_MAJ(a->root_handle)) {
		/* The kernel dumps a device's root before its children. */
		a->leaves++;
		a->fq_leaves += strcmp(kind, "fq") == 0;
	}
	return 0;
}

static int qdisc_dump(int ifindex, struct qdisc_answer *a, struct ns_err *err)
{
	struct {
		struct nlmsghdr h;
		struct tcmsg tc;
	} req;
	memset(&req, 0, sizeof(req));
	memset(a, 0, sizeof(*a));
	a->ifindex = ifindex;
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(struct tcmsg));
	req.h.nlmsg_type = RTM_GETQDISC;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.tc.tcm_family = AF_UNSPEC;
	req.tc.tcm_ifindex = ifindex;
	if (nl_talk(&req.h, on_qdisc, a, err) < 0)
		return -1;
	if (!a->root[0])
		return ns_err_set(err, "no root qdisc reported");
	return 0;
}

static int fq_paces(const struct qdisc_answer *a)
{
	if (strcmp(a->root, "fq") == 0)
		return 1;
	if (strcmp(a->root, "mq") == 0 || strcmp(a->root, "mqprio") == 0)
		return a->leaves > 0 && a->leaves == a->fq_leaves;
	return 0;
}

static void query_qdisc(struct nic_info *ni, struct nic_notes *notes)
{
	struct qdisc_answer a;
	struct ns_err e;
	ni->fq_paces = -1;
	if (qdisc_dump(ni->ifindex, &a, &e) < 0) {
		nic_note(notes, "qdisc of %s: %s", ni->name, e.msg);
		return;
	}
	snprintf(ni->qdisc, sizeof(ni->qdisc), "%s", a.root);
	ni->fq_paces = fq_paces(&a);
}

int nic_fq_paces(const char *ifname, struct ns_err *err)
{
	int ifindex = ifname ? (int)if_nametoindex(ifname) : 0;
	if (ifindex == 0)
		return ns_err_sys(err, "interface %s", ifname ? ifname : "(null)");
	struct qdisc_answer a;
	if (qdisc_dump(ifindex, &a, err) < 0) {
		ns_err_prefix(err, "qdisc of %s", ifname);
		return -1;
	}
	return fq_paces(&a);
}

/* ---- IRQ CPUs ---- */

static bool word_char(char c)
{
	return isalnum((unsigned char)c) != 0;
}

bool nic_irq_line_matches(const char *line, const char *const *names, size_t n_names, int *irq)
{
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	char *end;
	long n = strtol(p, &end, 10);
	if (end == p || *end != ':' || n < 0 || n > INT_MAX)
		return false; /* "CPU0 ...", "NMI:", "LOC:" lines */
	const char *rest = end + 1;
	/* virtioN-config signals configuration changes, not traffic. */
	size_t l = strlen(rest);
	while (l > 0 && isspace((unsigned char)rest[l - 1]))
		l--;
	if (l >= 7 && strncmp(rest + l - 7, "-config", 7) == 0)
		return false;
	for (size_t i = 0; i < n_names; i++) {
		const char *name = names[i];
		size_t len = name ? strlen(name) : 0;
		if (len == 0)
			continue;
		for (const char *q = strstr(rest, name); q; q = strstr(q + 1, name)) {
			bool starts = q == rest || !word_char(q[-1]);
			bool ends = !word_char(q[len]);
			if (starts && ends) {
				*irq = (int)n;
				return true;
			}
		}
	}
	return false;
}

static void add_cpus(struct nic_info *ni, const int *cpus, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < ni->n_irq_cpus && ni->irq_cpus[j] < cpus[i])
			j++;
		if (j < ni->n_irq_cpus && ni->irq_cpus[j] == cpus[i])
			continue;
		if (ni->n_irq_cpus >= NIC_MAX_CPUS)
			return;
		memmove(&ni->irq_cpus[j + 1], &ni->irq_cpus[j], (ni->n_irq_cpus - j) * sizeof(int));
		ni->irq_cpus[j] = cpus[i];
		ni->n_irq_cpus++;
	}
}

static bool read_line_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok && buf[0];
}

static void irq_affinity(struct nic_info *ni, int irq, int *scratch)
{
	static const char *const files[] = {"effective_affinity_list", "smp_affinity_list"};
	char path[96], text[4096];
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/irq/%d/%s", irq, files[i]);
		size_t n;
		if (read_line_file(path, text, sizeof(text)) &&
		    units_parse_cpulist(text, scratch, UNITS_MAX_CPUS, &n, NULL) == 0 && n > 0) {
			add_cpus(ni, scratch, n);
			return;
		}
	}
}

static void query_irqs(struct nic_info *ni, struct nic_notes *notes)
{
	if (ni->loopback)
		return;
	/* virtio NICs name their IRQs after the virtio device (virtio2-input.0), PCI NICs often
	 * after the interface (eth0-TxRx-0) or the bus address (mlx5_comp0@pci:0000:00:05.0). */
	char devname[64] = "", link[256], path[128];
	snprintf(path, sizeof(path), "/sys/class/net/%s/device", ni->name);
	ssize_t l = readlink(path, link, sizeof(link) - 1);
	if (l > 0) {
		link[l] = '\0';
		const char *base = strrchr(link, '/');
		snprintf(devname, sizeof(devname), "%.63s", base ? base + 1 : link);
	}
	const char *names[3] = {ni->name, devname, ni->bus_info};
	FILE *f = fopen("/proc/interrupts", "re");
	if (!f) {
		nic_note(notes, "irq cpus: /proc/interrupts: %s", strerror(errno));
		return;
	}
	int *scratch = malloc(UNITS_MAX_CPUS * sizeof(int));
	char *line = NULL;
	size_t cap = 0;
	while (scratch && getline(&line, &cap, f) > 0) {
		int irq;
		if (nic_irq_line_matches(line, names, 3, &irq))
			irq_affinity(ni, irq, scratch);
	}
	free(line);
	free(scratch);
	fclose(f);
}

int nic_query(const char *ifname, struct nic_info *ni, struct nic_notes *notes, struct ns_err *err)
{
	memset(ni, 0, sizeof(*ni));
	if (!ifname || strlen(ifname) >= IF_NAMESIZE)
		return ns_err_set(err, "interface name '%s' is invalid", ifname ? ifname : "(null)");
	snprintf(ni->name, sizeof(ni->name), "%s", ifname);
	ni->ifindex = (int)if_nametoindex(ifname);
	if (ni->ifindex == 0)
		return ns_err_sys(err, "interface %s", ifname);
	ni->speed_mbps = ni->duplex = ni->mtu = -1;
	ni->rx_queues = ni->tx_queues = ni->combined_queues = -1;
	ni->gso = ni->gro = ni->tso = -1;

	char flags[32];
	char path[96];
	snprintf(path, sizeof(path), "/sys/class/net/%s/flags", ifname);
	if (read_line_file(path, flags, sizeof(flags)))
		ni->loopback = (strtoul(flags, NULL, 0) & IFF_LOOPBACK) != 0;
	else
		ni->loopback = strcmp(ifname, "lo") == 0;

	query_ethtool(ni, notes);
	query_qdisc(ni, notes);
	query_irqs(ni, notes);
	return 0;
}
