/* sysstat: the host-wide figures a test reports next to its own counters — the kernel's UDP
 * receive drop counters of every socket on the host (a test's own socket's drops are
 * SO_RXQ_OVFL's, engine.h; its CPU its engine threads', engine_cpu_ns). */
#ifndef NS_SYSSTAT_H
#define NS_SYSSTAT_H

#include <stdint.h>

#include "lib/err.h"

/* UDP receive drops of the host: InErrors of Udp and Udp6 in /proc/net/snmp(6), which the
 * kernel increments for every RcvbufErrors drop too (so the two are not summed). */
int sysstat_udp_drops(uint64_t *drops, struct ns_err *err);
/* Parses the text of /proc/net/snmp: the "Udp:" header/value pair. Exposed for tests. */
int sysstat_parse_snmp(const char *text, const char *prefix, uint64_t *drops, struct ns_err *err);

/* The host's CPU time so far (/proc/stat "cpu" line, clock ticks of all CPUs): all of it
 * and the part the hypervisor gave to others while this guest wanted it (steal). Two reads
 * make a test's steal share, sysstat_steal_pct. */
struct sysstat_cpu {
	uint64_t total, steal;
};
int sysstat_cpu_read(struct sysstat_cpu *c, struct ns_err *err);
/* Parses the text of /proc/stat. Exposed for tests. */
int sysstat_parse_stat(const char *text, struct sysstat_cpu *c, struct ns_err *err);
/* The calling thread's time so far waiting on a run queue for a CPU it wanted
 * (/proc/thread-self/schedstat, second field): what a busy host took from it. -1 when the
 * kernel does not keep it (no CONFIG_SCHED_INFO). */
int sysstat_thread_runq_ns(uint64_t *wait_ns);
/* Steal between two reads, % of all CPU time then; 0 when nothing was read. */
double sysstat_steal_pct(const struct sysstat_cpu *a, const struct sysstat_cpu *b);

#endif
