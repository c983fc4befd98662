/* sockopt: data-socket options from probe_params (see sockopt.h). */
#include "sockopt.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

int sockopt_nodelay(int fd, struct ns_err *err)
{
	int one = 1;
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		return ns_err_sys(err, "setting TCP_NODELAY");
	return 0;
}

int sockopt_apply(int fd, const struct probe_params *p, struct ns_err *err)
{
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
