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

#endif
