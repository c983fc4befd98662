/* engine_xdp_int: what the AF_XDP sender and count-only receiver (engine_xdp.c) and the AF_XDP
 * receiver (engine_xdp_rx.c) share, from engine_xdp_base.c: the path of a data socket
 * (interface, addresses, next hop), the checks that refuse what AF_XDP cannot carry, and
 * loading and attaching an XDP program compiled into the binary. Every failure that says "this
 * host, device or account cannot do it" has the code NS_E_UNSUPPORTED, on which a test may
 * fall back to the socket engine. */
#ifndef NS_ENGINE_XDP_INT_H
#define NS_ENGINE_XDP_INT_H

#include <net/if.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "runner/engine/engine_int.h"

struct bpf_object;
struct xsk_socket;
struct xsk_umem;
struct xsk_ring_cons;
struct xsk_ring_prod;
struct xsk_socket_config;

#define XDP_FRAME_SIZE 2048u     /* one frame per UMEM chunk: payloads up to ~2000 bytes */
#define XDP_HDR_LEN 42u          /* Ethernet 14 + IPv4 20 + UDP 8 */

/* The 5-tuple and next hop of a connected IPv4 UDP socket. */
struct xdp_path {
	char ifname[IF_NAMESIZE];
	int ifindex;
	struct sockaddr_in local, peer;
	uint32_t nexthop;        /* network order */
	uint8_t src_mac[6], dst_mac[6];
};

/* Interface, addresses and next hop of a stream's connected socket (need_mac: the next hop's
 * MAC too); refuses what AF_XDP cannot carry: IPv6, loopback and devices without an Ethernet
 * header, bonds and tunnels. */
int xdp_path_of(int fd, bool need_mac, struct xdp_path *p, struct ns_err *err);
/* Key of a flow as the receiver sees it: the peer's port << 16 | ours. */
uint32_t xdp_flow_key(const struct xdp_path *p);
/* Receive ("rx") or transmit ("tx") queues of an interface, at least 1. */
uint32_t xdp_queue_count(const char *ifname, const char *dir);
/* ns_err_sys with code NS_E_UNSUPPORTED (a privilege or device refused), unless ENOMEM. */
int xdp_err_refused(struct ns_err *err, int errnum, const char *what, const char *hint);

/* An XDP program compiled into the binary, loaded with its read-only settings and attached
 * through a bpf_link, which the kernel removes when the process dies, even by SIGKILL:
 * natively where the driver has XDP, else (or when the driver refuses) in generic (SKB)
 * mode. NETSWEEP_TEST_XDP_GENERIC=1 asks for generic mode only, a test hook that stands for
 * a driver without native XDP (tests/integration/xdp_netns.sh). */
struct xdp_prog {
	struct bpf_object *obj;
	int link_fd;             /* the bpf_link, when attached */
	bool attached;
	int ifindex;
	char how[16];            /* " native", " generic", " offloaded" or "" */
};
int xdp_prog_attach(struct xdp_prog *x, const char *obj, size_t obj_len, const char *prog_name,
		    const void *settings, size_t settings_len, const struct xdp_path *p,
		    struct ns_err *err);
/* xsk_socket__create, waiting up to a couple of seconds while the queue is taken (-EBUSY):
 * a socket closed just before still holds it until the kernel's deferred release has run. */
int xdp_socket_create(struct xsk_socket **xsk, const char *ifname, uint32_t queue,
		      struct xsk_umem *umem, struct xsk_ring_cons *rx, struct xsk_ring_prod *tx,
		      const struct xsk_socket_config *cfg);
/* The fd of a map of the loaded program, -1 if it has none of that name. */
int xdp_prog_map(const struct xdp_prog *x, const char *name);
void xdp_prog_detach(struct xdp_prog *x);

#endif
