/* niccount: one end's NIC counters over a test — the interface the route to the peer takes,
 * its ethtool statistics (ethstats.h) read before the data flows and after it stopped, and
 * the documented set of struct probe_nic from the two readings:
 *   - ENA's five allowance counters by name (bw_in_, bw_out_, pps_, conntrack_,
 *     linklocal_allowance_exceeded); one that moved means the provider shaped the test;
 *   - drops: every drop/error counter of the driver (ethstats_kind) summed, except XDP
 *     programs' own drops (*xdp_drops: the XDP engine's receiver drops the test there);
 *   - rx/tx packets: the driver's total (rx_packets, ixgbevf) or else its per-queue counters
 *     summed (ENA queue_N_rx_cnt, virtio_net rx_queue_N_packets, veth rx_queue_N_xdp_packets;
 *     tx likewise); 0 when the driver has none (xen-netfront/vif, veth's tx). */
#ifndef NS_NICCOUNT_H
#define NS_NICCOUNT_H

#include <stdbool.h>
#include <sys/socket.h>

#include "lib/err.h"
#include "runner/proto/probe.h"
#include "ethstats.h"

struct niccount {
	char ifname[sizeof(((struct probe_nic *)0)->ifname)];
	struct ethstats before;
	bool started;
};

/* Reads the counters of the interface towards peer. Returns 1 when read, 0 when there is
 * nothing to read (the route goes over loopback), -1 (err set) when the interface's counters
 * cannot be read. niccount_end may be called in every case. */
int niccount_begin(struct niccount *n, const struct sockaddr *peer, socklen_t peer_len,
		   struct ns_err *err);
/* Reads again and fills out (all zero with ifname "" when nothing was read at the start);
 * frees the first reading. -1 (err set, out zeroed) when the second reading failed. */
int niccount_end(struct niccount *n, struct probe_nic *out, struct ns_err *err);
void niccount_free(struct niccount *n);

/* The documented set from two readings (pure: fixtures use it). ifname is left alone. */
void niccount_summary(const struct ethstats *before, const struct ethstats *after,
		      struct probe_nic *out);
/* An allowance counter of this end moved: the provider held packets back. */
bool niccount_shaped(const struct probe_nic *n);

#endif
