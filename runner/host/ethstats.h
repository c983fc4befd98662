/* ethstats: a network interface's own statistics through the ethtool ioctl
 * (ETHTOOL_GSSET_INFO, ETHTOOL_GSTRINGS, ETHTOOL_GSTATS — no ethtool binary), and the
 * documented subset a result keeps from two readings:
 *   - allowance counters, a name ending in "_allowance_exceeded": the cloud provider's own
 *     shaping (ENA: bw_in_, bw_out_, pps_, conntrack_, linklocal_allowance_exceeded), kept
 *     always; one that moved means the provider held packets back;
 *   - drop and error counters, a name with a word (between underscores) starting "drop",
 *     "discard", "err", "fail", "miss", "fifo", "overrun" or "timeout" (ixgbevf,
 *     xen-netfront/vif, virtio_net, veth, ENA per-queue counters), kept when they moved. */
#ifndef NS_ETHSTATS_H
#define NS_ETHSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"

#define ETHSTATS_NAME_LEN 32   /* ETH_GSTRING_LEN */
#define ETHSTATS_MAX 8192      /* counters read at most: a 128-queue NIC has a few thousand */

struct ethstats {
	uint32_t n;
	char (*name)[ETHSTATS_NAME_LEN];
	uint64_t *val;
};

enum ethstats_kind { ETHSTATS_OTHER = 0, ETHSTATS_ALLOWANCE, ETHSTATS_DROP };

struct ethstats_delta {
	char name[ETHSTATS_NAME_LEN];
	enum ethstats_kind kind;
	uint64_t delta;
};

/* Reads every counter of ifname. NS_E_IO when the driver has none (lo) or no such call. */
int ethstats_read(const char *ifname, struct ethstats *out, struct ns_err *err);
/* The same from parallel arrays (fixtures): names are cut to ETHSTATS_NAME_LEN - 1. */
int ethstats_from(struct ethstats *out, const char *const *names, const uint64_t *vals,
		  uint32_t n, struct ns_err *err);
void ethstats_free(struct ethstats *s);
/* The value of a counter by name; false when absent. */
bool ethstats_get(const struct ethstats *s, const char *name, uint64_t *val);

enum ethstats_kind ethstats_kind(const char *name);
/* The documented subset's deltas from before to after (matched by name; a counter that went
 * backwards, a driver reset, counts 0), at most cap, allowance counters first. *shaped is set
 * when an allowance counter moved. Returns the number written. */
uint32_t ethstats_deltas(const struct ethstats *before, const struct ethstats *after,
			 struct ethstats_delta *out, uint32_t cap, bool *shaped);

#endif
