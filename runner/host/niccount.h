/* niccount: one end's NIC counters over a test — the interface the route to the peer takes,
 * its own statistics (linkstats.h: what every driver counts, as `ip -s link` shows them) and
 * its driver's ethtool statistics (ethstats.h), both read before the data flows and after it
 * stopped. Packets, bytes and drops come from the interface's own statistics; the driver's
 * add what only they know (niccount_add_link):
 *   - rx/tx packets and bytes: the interface's;
 *   - drops: the larger of the interface's drop and error counters and the driver's below
 *     (the driver's are often a finer split of the same drops, sometimes more: queue drops);
 * and the documented set of struct probe_nic from the two ethtool readings:
 *   - ENA's five allowance counters by name (bw_in_, bw_out_, pps_, conntrack_,
 *     linklocal_allowance_exceeded); one that moved means the provider shaped the test;
 *   - drops: every drop/error counter of the driver (ethstats_kind) summed, except XDP
 *     programs' own drops (*xdp_drops: the XDP engine's receiver drops the test there);
 *   - rx/tx packets, when the interface's own statistics could not be read: the driver's
 *     total (rx_packets, ixgbevf) or else its per-queue counters summed (ENA queue_N_rx_cnt,
 *     virtio_net rx_queue_N_packets, veth rx_queue_N_xdp_packets; tx likewise). */
#ifndef NS_NICCOUNT_H
#define NS_NICCOUNT_H

#include <stdbool.h>
#include <sys/socket.h>

#include "lib/err.h"
#include "runner/proto/probe.h"
#include "ethstats.h"
#include "linkstats.h"

struct niccount {
	char ifname[sizeof(((struct probe_nic *)0)->ifname)];
	struct ethstats before;
	struct linkstats link_before;
	bool have_eth, have_link;   /* which readings the start had */
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
/* Over the driver's set in out: packets and bytes from the interface's own counters over the
 * test (a delta), drops the larger of the two sources (pure: fixtures use it). */
void niccount_add_link(const struct linkstats *delta, struct probe_nic *out);
/* An allowance counter of this end moved: the provider held packets back. */
bool niccount_shaped(const struct probe_nic *n);

#endif
