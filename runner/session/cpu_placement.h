/* cpu_placement: where each end's engine threads run. A figure of a small round trip or of
 * loopback throughput depends on it more than on anything else (both ends of a TCP_RR on one
 * CPU or two: p50 7 us or 56 us), so every test chooses it and its result records it.
 *   -A LIST (params.affinity): the client's threads, thread i on LIST[i % n]; the agent's
 *     too unless --agent-affinity (params.agent_affinity) names its own, "none" or "auto".
 *   -A none: nobody is pinned (the scheduler's choice, recorded as such).
 *   no -A: the default. A throughput test stays unpinned (recorded "none"): on a busy 2-CPU
 *     host (load 12-16) TCP -P 2 on loopback with the client's threads on CPU 0 and the
 *     agent's on CPU 1 moved 0.8-3.4 Gbit/s, unpinned 28-41, as a pinned thread waits
 *     behind others on its CPU while the other is free. A request/response test of one
 *     stream is pinned ("auto"): on loopback both ends on one CPU (the last this process may
 *     use: a turn then needs no cross-CPU wake-up; on a busy 2-CPU host 37,000 against
 *     2,000-3,000 transactions/s on two CPUs), elsewhere the requester on one CPU of the
 *     client and the answerer on one the agent picks ("auto": the last it may use). With
 *     several streams one CPU would serialise them: unpinned. */
#ifndef NS_PLACEMENT_H
#define NS_PLACEMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/err.h"
#include "runner/proto/probe.h"

/* The client's end, before the test is asked for: resolves the default in p (affinity and
 * agent_affinity become CPU lists, "none" or "auto") and says how in how ("given", "auto",
 * "none"). ctl: the connected control socket (whether the agent is this host). */
void placement_resolve(struct probe_params *p, int ctl, char *how, size_t how_len);
/* The CPUs one end's engine threads are pinned to (agent_end: the agent's), each checked to
 * exist on this host; *n = 0 when none. */
int session_cpus(const struct probe_params *p, bool agent_end, int *cpus, uint32_t cap,
		 uint32_t *n, struct ns_err *err);

struct session_end;
struct proto_dir_summary;
/* After the test, direction d (dur its measured seconds): what each end's threads ran on
 * (res->client_cpus, agent_cpus; bidir "fwd/rev"), the TCP receiver's path (res->rx_path,
 * with a warning when receive zero-copy fell back or mapped nothing) and both ends' CPU
 * seconds per GB (res->dirs[d]'s sender and receiver cpu_s_per_gb, from their cpu_percent).
 * me: the client's end; as: the agent's summary of it, NULL when none came. */
void placement_note(struct probe_result *res, uint32_t d, const struct session_end *me,
		    const struct proto_dir_summary *as, double dur);

#endif
