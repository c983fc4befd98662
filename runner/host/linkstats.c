/* linkstats: see linkstats.h. */
#include "linkstats.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

/* One link message with its attributes; IFLA_EXT_MASK 0 asks for no VF details, which on a
 * device with many VFs would make it large. */
#define LINKSTATS_BUF 32768
/* A netlink answer from our own kernel comes at once; the timeout guards a wedged socket. */
#define LINKSTATS_TIMEOUT_US 500000

static void from_stats64(const struct rtnl_link_stats64 *k, struct linkstats *out)
{
#define COPY(f) out->f = k->f;
	LINKSTATS_FIELDS(COPY)
#undef COPY
}

/* IFLA_STATS64 out of one RTM_NEWLINK answer. 0 when found, -1 otherwise. */
static int parse_link(const char *buf, size_t len, struct linkstats *out)
{
	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE)
			return -1;
		if (h->nlmsg_type != RTM_NEWLINK || h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)))
			continue;
		const struct ifinfomsg *ifi = NLMSG_DATA(h);
		size_t alen = h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
		for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
			if (a->rta_type != IFLA_STATS64)
				continue;
			struct rtnl_link_stats64 k;
			memset(&k, 0, sizeof(k));
			size_t n = RTA_PAYLOAD(a) < sizeof(k) ? RTA_PAYLOAD(a) : sizeof(k);
			memcpy(&k, RTA_DATA(a), n); /* the attribute may be unaligned */
			from_stats64(&k, out);
			return 0;
		}
	}
	return -1;
}

static int read_netlink(unsigned ifindex, struct linkstats *out)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -1;
	struct timeval tv = {0, LINKSTATS_TIMEOUT_US};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
		char attr[RTA_SPACE(sizeof(uint32_t))];
	} req;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.i)) + RTA_SPACE(sizeof(uint32_t));
	req.h.nlmsg_type = RTM_GETLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = 1;
	req.i.ifi_family = AF_UNSPEC;
	req.i.ifi_index = (int)ifindex;
	struct rtattr *a = (struct rtattr *)req.attr;
	a->rta_type = IFLA_EXT_MASK;
	a->rta_len = RTA_LENGTH(sizeof(uint32_t));
	uint32_t mask = 0; /* no VF or other extended blocks */
	memcpy(RTA_DATA(a), &mask, sizeof(mask));
	char local[LINKSTATS_BUF];
	int rc = -1;
	struct sockaddr_nl k = {.nl_family = AF_NETLINK};
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&k, sizeof(k)) >= 0) {
		ssize_t n = recv(fd, local, sizeof(local), 0);
		if (n > 0)
			rc = parse_link(local, (size_t)n, out);
	}
	int saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

static int read_sysfs(const char *ifname, struct linkstats *out)
{
	struct {
		const char *file;
		uint64_t *to;
	} f[] = {
#define FILE_OF(x) {#x, &out->x},
		LINKSTATS_FIELDS(FILE_OF)
#undef FILE_OF
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		char path[128];
		snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", ifname, f[i].file);
		FILE *fp = fopen(path, "re");
		if (!fp)
			return -1;
		int ok = fscanf(fp, "%" SCNu64, f[i].to) == 1;
		fclose(fp);
		if (!ok)
			return -1;
	}
	return 0;
}

int linkstats_read(const char *ifname, struct linkstats *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	unsigned idx = if_nametoindex(ifname);
	if (idx == 0)
		return ns_err_code(err, NS_E_IO, "interface statistics: no interface %s", ifname);
	if (read_netlink(idx, out) == 0)
		return 0;
	/* sysfs shows the namespace it was mounted in, so it is the second choice */
	memset(out, 0, sizeof(*out));
	if (read_sysfs(ifname, out) == 0)
		return 0;
	return ns_err_code(err, NS_E_IO,
			   "interface statistics of %s: neither rtnetlink nor /sys/class/net answered",
			   ifname);
}

uint64_t linkstats_drops(const struct linkstats *s)
{
	return s->rx_dropped + s->tx_dropped + s->rx_errors + s->tx_errors + s->rx_missed_errors;
}

static uint64_t grew(uint64_t b, uint64_t a)
{
	return a > b ? a - b : 0;
}

void linkstats_delta(const struct linkstats *before, const struct linkstats *after,
		     struct linkstats *out)
{
#define GREW(f) out->f = grew(before->f, after->f);
	LINKSTATS_FIELDS(GREW)
#undef GREW
}
