#include "ethstats.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

_Static_assert(ETHSTATS_NAME_LEN == ETH_GSTRING_LEN, "ethtool's string length");

void ethstats_free(struct ethstats *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->val);
	s->name = NULL;
	s->val = NULL;
	s->n = 0;
}

static int alloc_n(struct ethstats *out, uint32_t n, struct ns_err *err)
{
	out->n = n;
	out->name = calloc(n ? n : 1, sizeof(*out->name));
	out->val = calloc(n ? n : 1, sizeof(*out->val));
	if (!out->name || !out->val) {
		ethstats_free(out);
		return ns_err_code(err, NS_E_NOMEM, "ethtool statistics: allocation");
	}
	return 0;
}

int ethstats_from(struct ethstats *out, const char *const *names, const uint64_t *vals,
		  uint32_t n, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	if (n > ETHSTATS_MAX)
		return ns_err_code(err, NS_E_INPUT, "ethtool statistics: %u counters, at most %d", n,
				   ETHSTATS_MAX);
	if (alloc_n(out, n, err) < 0)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		strncpy(out->name[i], names[i], ETHSTATS_NAME_LEN - 1);
		out->val[i] = vals[i];
	}
	return 0;
}

static int eth_ioctl(int fd, const char *ifname, void *data)
{
	struct ifreq ifr;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr);
}

/* The three calls: the count of the stats string set, the names, the values. The count is
 * asked again with the values (GSTATS says how many it filled), so a driver that changed its
 * set in between is caught rather than misread. */
int ethstats_read(const char *ifname, struct ethstats *out, struct ns_err *err)
{
	memset(out, 0, sizeof(*out));
	if (!ifname || !*ifname || strlen(ifname) >= IFNAMSIZ)
		return ns_err_code(err, NS_E_INPUT, "ethtool statistics: bad interface name");
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ns_err_sys(err, "ethtool statistics: socket");
	struct ethtool_gstrings *gs = NULL;
	struct ethtool_stats *st = NULL;
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info;
	memset(&info, 0, sizeof(info));
	info.hdr.cmd = ETHTOOL_GSSET_INFO;
	info.hdr.sset_mask = 1ull << ETH_SS_STATS;
	if (eth_ioctl(fd, ifname, &info) < 0) {
		ns_err_sys(err, "ethtool statistics of %s: ETHTOOL_GSSET_INFO", ifname);
		goto fail;
	}
	uint32_t n = info.hdr.sset_mask ? info.len : 0;
	if (!n) {
		ns_err_code(err, NS_E_IO, "ethtool statistics of %s: the driver has none", ifname);
		goto fail;
	}
	if (n > ETHSTATS_MAX) {
		ns_err_code(err, NS_E_LIMIT, "ethtool statistics of %s: %u counters, at most %d",
			    ifname, n, ETHSTATS_MAX);
		goto fail;
	}
	gs = calloc(1, sizeof(*gs) + (size_t)n * ETH_GSTRING_LEN);
	st = calloc(1, sizeof(*st) + (size_t)n * sizeof(uint64_t));
	if (!gs || !st || alloc_n(out, n, err) < 0) {
		ns_err_code(err, NS_E_NOMEM, "ethtool statistics: allocation");
		goto fail;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	if (n && (eth_ioctl(fd, ifname, gs) < 0 || eth_ioctl(fd, ifname, st) < 0)) {
		ns_err_sys(err, "ethtool statistics of %s: ETHTOOL_GSTRINGS/GSTATS", ifname);
		goto fail;
	}
	if (gs->len != n || st->n_stats != n) {
		ns_err_code(err, NS_E_IO, "ethtool statistics of %s: the counter set changed", ifname);
		goto fail;
	}
	for (uint32_t i = 0; i < n; i++) {
		memcpy(out->name[i], gs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		out->name[i][ETH_GSTRING_LEN - 1] = '\0';
		out->val[i] = st->data[i];
	}
	free(gs);
	free(st);
	close(fd);
	return 0;
fail:
	free(gs);
	free(st);
	ethstats_free(out);
	close(fd);
	return -1;
}

bool ethstats_get(const struct ethstats *s, const char *name, uint64_t *val)
{
	for (uint32_t i = 0; i < s->n; i++) {
		if (!strcmp(s->name[i], name)) {
			*val = s->val[i];
			return true;
		}
	}
	return false;
}

/* Whether a word of name (between underscores) starts with one of the drop/error stems:
 * "rx_queue_0_drops", "tx_timeout_count", "alloc_rx_buff_failed", but not ENA's
 * "queue_0_tx_unmask_interrupt", whose "err" is inside a word that counts no error. */
static bool drop_word(const char *name)
{
	static const char *const stems[] = {"drop", "discard", "err", "fail", "miss",
					    "fifo", "overrun", "timeout"};
	for (const char *w = name; *w; w++) {
		if (w != name && w[-1] != '_')
			continue;
		for (size_t i = 0; i < sizeof(stems) / sizeof(stems[0]); i++)
			if (!strncmp(w, stems[i], strlen(stems[i])))
				return true;
	}
	return false;
}

enum ethstats_kind ethstats_kind(const char *name)
{
	static const char suffix[] = "_allowance_exceeded";
	size_t n = strlen(name), k = sizeof(suffix) - 1;
	if (n > k && !strcmp(name + n - k, suffix))
		return ETHSTATS_ALLOWANCE;
	return drop_word(name) ? ETHSTATS_DROP : ETHSTATS_OTHER;
}

uint32_t ethstats_deltas(const struct ethstats *before, const struct ethstats *after,
			 struct ethstats_delta *out, uint32_t cap, bool *shaped)
{
	uint32_t k = 0;
	*shaped = false;
	for (int pass = ETHSTATS_ALLOWANCE; pass <= ETHSTATS_DROP; pass++) {
		for (uint32_t i = 0; i < after->n && k < cap; i++) {
			if ((int)ethstats_kind(after->name[i]) != pass)
				continue;
			uint64_t b;
			if (!ethstats_get(before, after->name[i], &b))
				continue; /* a counter that appeared in between: no baseline */
			uint64_t d = after->val[i] > b ? after->val[i] - b : 0;
			if (pass == ETHSTATS_DROP && !d)
				continue;
			if (pass == ETHSTATS_ALLOWANCE && d)
				*shaped = true;
			memcpy(out[k].name, after->name[i], ETHSTATS_NAME_LEN);
			out[k].kind = (enum ethstats_kind)pass;
			out[k].delta = d;
			k++;
		}
	}
	return k;
}
