/* sysstat: the host-side figures a test reports next to its own counters — this process's
 * CPU use (user + system over wall time) and the kernel's UDP receive drop counters, so that a
 * report can tell loss in the network from loss in the receiver's socket buffer. */
#ifndef NS_SYSSTAT_H
#define NS_SYSSTAT_H

#include <stdint.h>

#include "lib/err.h"

struct sysstat_cpu {
	double wall_s;   /* CLOCK_MONOTONIC */
	double cpu_s;    /* user + system of the whole process (getrusage RUSAGE_SELF) */
};

void sysstat_cpu_now(struct sysstat_cpu *c);
/* CPU % of one core between two samples (0 when no time passed). */
double sysstat_cpu_percent(const struct sysstat_cpu *a, const struct sysstat_cpu *b);

/* UDP receive drops of the host: InErrors of Udp and Udp6 in /proc/net/snmp(6), which the
 * kernel increments for every RcvbufErrors drop too (so the two are not summed). */
int sysstat_udp_drops(uint64_t *drops, struct ns_err *err);
/* Parses the text of /proc/net/snmp: the "Udp:" header/value pair. Exposed for tests. */
int sysstat_parse_snmp(const char *text, const char *prefix, uint64_t *drops, struct ns_err *err);

#endif
