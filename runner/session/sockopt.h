/* sockopt: the per-test socket options a probe asks for (-w, -M, -N, -C, -S/--dscp,
 * --dont-fragment), applied to data
 * sockets before connect() or listen() so that window scaling and MSS take effect on the
 * handshake. Pacing (SO_MAX_PACING_RATE) and UDP_SEGMENT belong to the engine. */
#ifndef NS_SOCKOPT_H
#define NS_SOCKOPT_H

#include "lib/err.h"
#include "runner/proto/probe.h"

/* Applies the TOS / traffic class, don't-fragment, the window (SO_SNDBUF and SO_RCVBUF), and
 * for TCP MSS, TCP_NODELAY and the congestion control algorithm. Returns -1 with err naming the option that the kernel refused. */
int sockopt_apply(int fd, const struct probe_params *p, struct ns_err *err);

/* TCP_NODELAY only (accepted sockets do not inherit it on every kernel). */
int sockopt_nodelay(int fd, struct ns_err *err);

/* The TOS byte (IPv4) or traffic class (IPv6) the socket really carries, -1 if unknown. */
int sockopt_tos_applied(int fd);
/* The path MTU a connected socket knows (IP_MTU / IPV6_MTU), -1 if unknown. */
int sockopt_path_mtu(int fd);
/* --dont-fragment on UDP: -1 (NS_E_USAGE) naming the path MTU when the test's datagram with
 * its IP and UDP headers does not fit that of fd, a connected sending socket; 0 otherwise. */
int sockopt_check_mtu(int fd, const struct probe_params *p, struct ns_err *err);

#define SOCKOPT_FD_RESERVE 64      /* descriptors besides the data streams: control, logs,
				    * the handshakes and pipes of an agent */
/* Raises RLIMIT_NOFILE to its hard limit, then checks that a test's data streams (both
 * directions counted) fit: -1 with NS_E_LIMIT and the numbers otherwise, instead of
 * "Too many open files" half-way through the connects. */
int sockopt_fd_room(const struct probe_params *p, struct ns_err *err);

#endif
