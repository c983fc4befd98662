/* sockopt: data-socket options from probe_params (see sockopt.h). */
#include "sockopt.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>

int sockopt_nodelay(int fd, struct ns_err *err)
{
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return ns_err_sys(err, "setting TCP_NODELAY");
	return 0;
}

static int sock_domain(int fd)
{
	int d = AF_UNSPEC;
	socklen_t l = sizeof(d);
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &d, &l);
	return d;
}

/* -S/--dscp: the TOS byte on IPv4, the traffic class on IPv6 (and the TOS as well, which
 * IPv4-mapped destinations use). */
static int set_tos(int fd, int dom, uint32_t tos, struct ns_err *err)
{
	int v = (int)tos;
	if (dom == AF_INET6) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, sizeof(v)) < 0)
			return ns_err_sys(err, "setting the traffic class (IPV6_TCLASS) to %d", v);
		setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v));
		return 0;
	}
	if (setsockopt(fd, IPPROTO_IP, IP_TOS, &v, sizeof(v)) < 0)
		return ns_err_sys(err, "setting the TOS (IP_TOS) to %d", v);
	return 0;
}

/* --dont-fragment: never fragment locally, never clear DF; a datagram over the path MTU fails
 * with EMSGSIZE instead. */
static int set_dont_fragment(int fd, int dom, struct ns_err *err)
{
	int v4 = IP_PMTUDISC_DO, v6 = IPV6_PMTUDISC_DO, on = 1;
	if (dom == AF_INET6) {
		if (setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v6, sizeof(v6)) < 0 ||
		    setsockopt(fd, IPPROTO_IPV6, IPV6_DONTFRAG, &on, sizeof(on)) < 0)
			return ns_err_sys(err, "setting don't-fragment (IPV6_MTU_DISCOVER)");
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v4, sizeof(v4));
		return 0;
	}
	if (setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v4, sizeof(v4)) < 0)
		return ns_err_sys(err, "setting don't-fragment (IP_MTU_DISCOVER)");
	return 0;
}

int sockopt_tos_applied(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);
	int dom = sock_domain(fd);
	if (dom == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &v, &l) < 0
			    : getsockopt(fd, IPPROTO_IP, IP_TOS, &v, &l) < 0)
		return -1;
	return v;
}

int sockopt_path_mtu(int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);
	if (sock_domain(fd) == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_MTU, &v, &l) < 0
					: getsockopt(fd, IPPROTO_IP, IP_MTU, &v, &l) < 0)
		return -1;
	return v;
}

int sockopt_check_mtu(int fd, const struct probe_params *p, struct ns_err *err)
{
	if (!p->dont_fragment || p->proto != NS_PROTO_UDP)
		return 0;
	int mtu = sockopt_path_mtu(fd);
	uint32_t len = p->length ? p->length : NS_UDP_DEFAULT_LEN;
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	bool v6 = getpeername(fd, (struct sockaddr *)&peer, &pl) == 0 && peer.ss_family == AF_INET6 &&
		  !IN6_IS_ADDR_V4MAPPED(&((struct sockaddr_in6 *)&peer)->sin6_addr);
	uint32_t hdr = v6 ? 48 : 28; /* IP + UDP headers */
	if (mtu > 0 && len + hdr > (uint32_t)mtu)
		return ns_err_code(err, NS_E_USAGE, "a %u-byte datagram (%u with IP and UDP headers) "
				   "does not fit the path MTU of %d bytes (--dont-fragment)",
				   (unsigned)len, (unsigned)(len + hdr), mtu);
	return 0;
}

int sockopt_apply(int fd, const struct probe_params *p, struct ns_err *err)
{
	int dom = sock_domain(fd);
	if (p->tos && set_tos(fd, dom, p->tos, err) < 0)
		return -1;
	if (p->dont_fragment && set_dont_fragment(fd, dom, err) < 0)
		return -1;
	if (p->window) {
		int w = (int)p->window;
		if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &w, sizeof(w)) < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &w, sizeof(w)) < 0)
			return ns_err_sys(err, "setting the window (SO_SNDBUF/SO_RCVBUF) to %d", w);
	}
	if (p->proto != NS_PROTO_TCP)
		return 0;
	if (p->mss) {
		int m = (int)p->mss;
		if (setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &m, sizeof(m)) < 0)
			return ns_err_sys(err, "setting the MSS (TCP_MAXSEG) to %d", m);
	}
	if (p->nodelay && sockopt_nodelay(fd, err) < 0)
		return -1;
	if (p->congestion[0] &&
	    setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, p->congestion, strlen(p->congestion)) < 0)
		return ns_err_sys(err, "congestion control '%s' (see "
				  "/proc/sys/net/ipv4/tcp_available_congestion_control)",
				  p->congestion);
	return 0;
}

int sockopt_fd_room(const struct probe_params *p, struct ns_err *err)
{
	uint64_t streams = (uint64_t)p->streams * (p->dir == NS_DIR_BIDIR ? 2 : 1);
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 0;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && streams + SOCKOPT_FD_RESERVE > (uint64_t)rl.rlim_cur)
		return ns_err_code(err, NS_E_LIMIT, "%llu data streams need %llu open files; this "
				   "process may open %llu (raise ulimit -n / LimitNOFILE)",
				   (unsigned long long)streams,
				   (unsigned long long)(streams + SOCKOPT_FD_RESERVE),
				   (unsigned long long)rl.rlim_cur);
	return 0;
}
