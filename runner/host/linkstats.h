/* linkstats: an interface's own statistics as the kernel keeps them for every device
 * (struct rtnl_link_stats64, what `ip -s link` shows): read through rtnetlink (RTM_GETLINK,
 * IFLA_STATS64) in the caller's network namespace, else from /sys/class/net/DEV/statistics.
 * Unlike the driver's ethtool statistics these count every packet on every driver (veth's
 * ethtool set counts only XDP packets). */
#ifndef NS_LINKSTATS_H
#define NS_LINKSTATS_H

#include <stdint.h>

#include "lib/err.h"

/* The counters kept, each named as in struct rtnl_link_stats64 and in sysfs. */
#define LINKSTATS_FIELDS(X) \
	X(rx_packets) X(tx_packets) X(rx_bytes) X(tx_bytes) X(rx_dropped) X(tx_dropped) \
	X(rx_errors) X(tx_errors) X(rx_missed_errors)

struct linkstats {
#define LINKSTATS_MEMBER(f) uint64_t f;
	LINKSTATS_FIELDS(LINKSTATS_MEMBER)
#undef LINKSTATS_MEMBER
};

/* NS_E_IO when the interface is unknown or neither source answers. */
int linkstats_read(const char *ifname, struct linkstats *out, struct ns_err *err);
/* The drop and error counters summed: rx/tx dropped, rx/tx errors and missed receives. */
uint64_t linkstats_drops(const struct linkstats *s);
/* after - before per counter; a counter that went backwards (a reset) counts 0. */
void linkstats_delta(const struct linkstats *before, const struct linkstats *after,
		     struct linkstats *out);

#endif
