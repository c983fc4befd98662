/* sysstat: the host-wide kernel UDP drop counters and CPU steal (see sysstat.h). */
#include "sysstat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Finds column `name` in a "Prefix: names..." line and returns its value from the following
 * "Prefix: values..." line. */
static int snmp_column(const char *text, const char *prefix, const char *name, uint64_t *out)
{
	size_t plen = strlen(prefix);
	const char *line = text;
	while (line && *line) {
		const char *next = strchr(line, '\n');
		if (strncmp(line, prefix, plen) == 0 && line[plen] == ':' && next) {
			const char *vals = next + 1;
			if (strncmp(vals, prefix, plen) != 0 || vals[plen] != ':')
				return -1;
			const char *h = line + plen + 1, *v = vals + plen + 1;
			const char *hend = next, *vend = strchr(vals, '\n');
			if (!vend)
				vend = vals + strlen(vals);
			while (h < hend && v < vend) {
				while (h < hend && *h == ' ') h++;
				while (v < vend && *v == ' ') v++;
				const char *hs = h;
				while (h < hend && *h != ' ') h++;
				char *ve;
				unsigned long long val = strtoull(v, &ve, 10);
				if (ve == v)
					return -1;
				v = ve;
				if ((size_t)(h - hs) == strlen(name) && strncmp(hs, name, (size_t)(h - hs)) == 0) {
					*out = val;
					return 0;
				}
			}
			return -1;
		}
		line = next ? next + 1 : NULL;
	}
	return -1;
}

int sysstat_parse_snmp(const char *text, const char *prefix, uint64_t *drops, struct ns_err *err)
{
	uint64_t rcvbuf = 0, inerr = 0;
	if (snmp_column(text, prefix, "RcvbufErrors", &rcvbuf) < 0 ||
	    snmp_column(text, prefix, "InErrors", &inerr) < 0)
		return ns_err_set(err, "no %s RcvbufErrors/InErrors counters", prefix);
	/* The kernel counts a socket-buffer drop in both RcvbufErrors and InErrors (and checksum
	 * or memory drops in InErrors only), so InErrors alone is the total; summing would double
	 * count. RcvbufErrors is still required, as proof that this is the expected table. */
	(void)rcvbuf;
	*drops = inerr;
	return 0;
}

static int read_text(const char *path, char *buf, size_t cap)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, cap - 1, f);
	fclose(f);
	buf[n] = '\0';
	return 0;
}

/* /proc/net/snmp6 has one "Udp6RcvbufErrors value" pair per line. */
static uint64_t snmp6_value(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	size_t n = strlen(name);
	while (p && p[n] != ' ' && p[n] != '\t')
		p = strstr(p + 1, name);
	return p ? strtoull(p + n, NULL, 10) : 0;
}

int sysstat_udp_drops(uint64_t *drops, struct ns_err *err)
{
	char buf[8192];
	if (read_text("/proc/net/snmp", buf, sizeof(buf)) < 0)
		return ns_err_sys(err, "reading /proc/net/snmp");
	if (sysstat_parse_snmp(buf, "Udp", drops, err) < 0)
		return -1;
	if (read_text("/proc/net/snmp6", buf, sizeof(buf)) == 0)
		*drops += snmp6_value(buf, "Udp6InErrors");
	return 0;
}

/* "cpu  user nice system idle iowait irq softirq steal guest guest_nice": guest time is
 * already inside user and nice, so it is not added again. */
int sysstat_parse_stat(const char *text, struct sysstat_cpu *c, struct ns_err *err)
{
	unsigned long long v[8] = {0};
	if (strncmp(text, "cpu ", 4) != 0 ||
	    sscanf(text + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
		   &v[4], &v[5], &v[6], &v[7]) < 4)
		return ns_err_set(err, "/proc/stat: no cpu line");
	c->total = 0;
	for (int i = 0; i < 8; i++)
		c->total += v[i];
	c->steal = v[7];
	return 0;
}

int sysstat_cpu_read(struct sysstat_cpu *c, struct ns_err *err)
{
	char buf[512];
	c->total = c->steal = 0;
	if (read_text("/proc/stat", buf, sizeof(buf)) < 0)
		return ns_err_sys(err, "reading /proc/stat");
	return sysstat_parse_stat(buf, c, err);
}

double sysstat_steal_pct(const struct sysstat_cpu *a, const struct sysstat_cpu *b)
{
	if (b->total <= a->total || b->steal < a->steal)
		return 0;
	return (double)(b->steal - a->steal) / (double)(b->total - a->total) * 100.0;
}

int sysstat_thread_runq_ns(uint64_t *wait_ns)
{
	char buf[128];
	unsigned long long run, wait;
	*wait_ns = 0;
	if (read_text("/proc/thread-self/schedstat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llu", &run, &wait) != 2)
		return -1;
	*wait_ns = wait;
	return 0;
}
