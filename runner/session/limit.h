/* limit: what set a direction's figure, as far as the tool can tell, from what both ends
 * measured of themselves — the sender's offered rate against the rate asked, each end's busiest
 * thread, the hypervisor's steal, the sender's time on full socket buffers, the time its pacer
 * dropped — and the receiver's figures against the sender's. Pure: the caller fills the
 * measured inputs of struct probe_limit and the direction's figures. */
#ifndef NS_LIMIT_H
#define NS_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "runner/proto/probe.h"

/* A sender within 3 % of its rate is on target: the pacer's own granularity (a 1 ms lump, a
 * last partial batch, timer slack) costs well under 1 %, and a shortfall past 3 % is larger
 * than a rate comparison between two cases should absorb. */
#define LIMIT_SHORTFALL_PCT 3.0
/* A thread at 90 % of a core is saturated: the rest is its own wake-ups and scheduling. */
#define LIMIT_CPU_BUSY_PCT 90.0
/* Steal of 10 % of a host's CPU time: a share the hypervisor took that can decide a figure
 * (a crowded or burstable instance); a few percent is background on most clouds. */
#define LIMIT_STEAL_PCT 10.0
/* A sender that waited on full socket buffers for a fifth of its time was held by what drains
 * them (TCP: the window; UDP: the device queue), not by its own CPU. */
#define LIMIT_BLOCKED_PCT 20.0

/* A thread that waited on a run queue for a fifth of its time for a CPU it wanted was held by
 * the host's other work (/proc/thread-self/schedstat): the tool was starved, not the path
 * slow. An idle host keeps this under 1 %. */
#define LIMIT_RUNQ_PCT 20.0

/* Fills l->shortfall_pct, sender_limited, cause and limited_by from l's measured inputs
 * (asked_bps, the thread CPU, steal, blocked and pace-lost shares) and d's figures; sets
 * l->offered_bps from d->sender. */
void limit_judge(struct probe_limit *l, const struct probe_direction *d, enum ns_proto proto);
/* One line for `probe`'s warnings about a sender-limited direction ("" when it is not):
 * "forward: the sender offered 37.0 of 50.0 Mbit/s asked (26 % short): pacer wake-ups
 * late ...". */
void limit_warning(const struct probe_limit *l, const char *dir, char *buf, size_t n);
/* The words for l->limited_by ("the sender's CPU"), "" for none. */
const char *limit_words(const char *limited_by);

#endif
