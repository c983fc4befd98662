#include "niccount.h"

#include <ctype.h>
#include <net/if.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "nic.h"

/* A counter's growth between the readings; 0 when it is new or went backwards (reset). A
 * driver lists its counters in the same order each time: the same index is tried first, so a
 * NIC with thousands of queue counters is not searched name by name. */
static uint64_t delta_at(const struct ethstats *before, const struct ethstats *after,
			 uint32_t i)
{
	uint64_t b;
	if (i < before->n && !strcmp(before->name[i], after->name[i]))
		b = before->val[i];
	else if (!ethstats_get(before, after->name[i], &b))
		return 0;
	return after->val[i] > b ? after->val[i] - b : 0;
}

static uint64_t delta_of(const struct ethstats *before, const struct ethstats *after,
			 const char *name, bool *present)
{
	for (uint32_t i = 0; i < after->n; i++)
		if (!strcmp(after->name[i], name)) {
			*present = true;
			return delta_at(before, after, i);
		}
	return 0;
}

/* name is pre + decimal digits + post (a per-queue counter). */
static bool queue_name(const char *name, const char *pre, const char *post)
{
	size_t lp = strlen(pre), ln = strlen(name), ls = strlen(post);
	if (ln <= lp + ls || strncmp(name, pre, lp) || strcmp(name + ln - ls, post))
		return false;
	for (size_t i = lp; i < ln - ls; i++)
		if (!isdigit((unsigned char)name[i]))
			return false;
	return true;
}

/* The packets of one direction: the driver's total when it has one, else the first family of
 * per-queue counters it has (a driver with totals often has per-queue ones as well). */
struct pkt_family { const char *total, *pre[3], *post[3]; };

static uint64_t packets(const struct ethstats *before, const struct ethstats *after,
			const struct pkt_family *f)
{
	bool present = false;
	uint64_t sum = delta_of(before, after, f->total, &present);
	for (int k = 0; !present && k < 3 && f->pre[k]; k++)
		for (uint32_t i = 0; i < after->n; i++)
			if (queue_name(after->name[i], f->pre[k], f->post[k])) {
				present = true;
				sum += delta_at(before, after, i);
			}
	return sum;
}

void niccount_summary(const struct ethstats *before, const struct ethstats *after,
		      struct probe_nic *out)
{
	static const struct pkt_family rx = {"rx_packets",
					     {"queue_", "rx_queue_", "rx_queue_"},
					     {"_rx_cnt", "_packets", "_xdp_packets"}};
	static const struct pkt_family tx = {"tx_packets",
					     {"queue_", "tx_queue_", NULL},
					     {"_tx_cnt", "_packets", NULL}};
	struct {
		const char *name;
		uint64_t *to;
	} ena[] = {
		{"bw_in_allowance_exceeded", &out->bw_in_allowance_exceeded},
		{"bw_out_allowance_exceeded", &out->bw_out_allowance_exceeded},
		{"pps_allowance_exceeded", &out->pps_allowance_exceeded},
		{"conntrack_allowance_exceeded", &out->conntrack_allowance_exceeded},
		{"linklocal_allowance_exceeded", &out->linklocal_allowance_exceeded},
	};
	out->allowance_counters = 0;
	out->drops = 0;
	for (size_t k = 0; k < sizeof(ena) / sizeof(ena[0]); k++) {
		bool present = false;
		*ena[k].to = delta_of(before, after, ena[k].name, &present);
	}
	for (uint32_t i = 0; i < after->n; i++) {
		enum ethstats_kind kind = ethstats_kind(after->name[i]);
		if (kind == ETHSTATS_ALLOWANCE)
			out->allowance_counters++;
		else if (kind == ETHSTATS_DROP && !strstr(after->name[i], "xdp_drops"))
			out->drops += delta_at(before, after, i);
	}
	out->rx_packets = packets(before, after, &rx);
	out->tx_packets = packets(before, after, &tx);
}

void niccount_add_link(const struct linkstats *delta, struct probe_nic *out)
{
	out->rx_packets = delta->rx_packets;
	out->tx_packets = delta->tx_packets;
	out->rx_bytes = delta->rx_bytes;
	out->tx_bytes = delta->tx_bytes;
	uint64_t drops = linkstats_drops(delta);
	if (drops > out->drops)
		out->drops = drops;
}

bool niccount_shaped(const struct probe_nic *n)
{
	return n->bw_in_allowance_exceeded || n->bw_out_allowance_exceeded ||
	       n->pps_allowance_exceeded || n->conntrack_allowance_exceeded ||
	       n->linklocal_allowance_exceeded;
}

static bool is_loopback(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	bool lo = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_LOOPBACK);
	close(fd);
	return lo;
}

int niccount_begin(struct niccount *n, const struct sockaddr *peer, socklen_t peer_len,
		   struct ns_err *err)
{
	char host[NI_MAXHOST];
	struct nic_route r;
	memset(n, 0, sizeof(*n));
	n->started = true;
	int gai = getnameinfo(peer, peer_len, host, sizeof(host), NULL, 0, NI_NUMERICHOST);
	if (gai != 0)
		return ns_err_code(err, NS_E_INPUT, "NIC counters: the peer's address: %s",
				   gai_strerror(gai));
	if (nic_route_lookup(host, &r, err) < 0) {
		ns_err_prefix(err, "NIC counters");
		return -1;
	}
	if (is_loopback(r.ifname))
		return 0;
	if (strlen(r.ifname) >= sizeof(n->ifname))
		return ns_err_code(err, NS_E_INPUT, "NIC counters: interface name %s", r.ifname);
	/* either source alone is worth keeping: a driver without ethtool statistics still has
	 * the interface's own */
	struct ns_err eth_err = {0};
	n->have_link = linkstats_read(r.ifname, &n->link_before, err) == 0;
	n->have_eth = ethstats_read(r.ifname, &n->before, &eth_err) == 0;
	if (!n->have_link && !n->have_eth)
		return -1;
	snprintf(n->ifname, sizeof(n->ifname), "%s", r.ifname);
	return 1;
}

int niccount_end(struct niccount *n, struct probe_nic *out, struct ns_err *err)
{
	struct ethstats after;
	struct linkstats link_after, delta;
	memset(out, 0, sizeof(*out));
	if (!n->ifname[0])
		return 0;
	int rc = 0;
	if (n->have_eth) {
		rc = ethstats_read(n->ifname, &after, err);
		if (rc == 0) {
			niccount_summary(&n->before, &after, out);
			ethstats_free(&after);
		}
	}
	if (rc == 0 && n->have_link) {
		rc = linkstats_read(n->ifname, &link_after, err);
		if (rc == 0) {
			linkstats_delta(&n->link_before, &link_after, &delta);
			niccount_add_link(&delta, out);
		}
	}
	if (rc == 0)
		snprintf(out->ifname, sizeof(out->ifname), "%s", n->ifname);
	else
		memset(out, 0, sizeof(*out));
	niccount_free(n);
	return rc;
}

void niccount_free(struct niccount *n)
{
	ethstats_free(&n->before);
	n->ifname[0] = '\0';
}
