/* client_notes: a result's warnings, zero-copy notes and latency clock (client_notes.h). */
#include "client_notes.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runner/host/clockbound.h"
#include "runner/proto/proto.h"

void client_warn(struct probe_result *res, const char *w)
{
	size_t n = strlen(res->warnings);
	snprintf(res->warnings + n, sizeof(res->warnings) - n, "%s%s", n ? "; " : "", w);
}

void client_note_zerocopy(struct probe_result *res, int *zc_errno, const struct engine *eng)
{
	struct engine_zc z;
	engine_zerocopy(eng, &z);
	if (z.fallback_errno && !*zc_errno)
		*zc_errno = z.fallback_errno;
	res->zerocopy_active |= z.active && z.sends > 0;
	res->zerocopy_sends += z.sends;
	res->zerocopy_completions += z.completions;
	res->zerocopy_copied += z.copied;
}

/* The reason when this end sent (the agent reports only that it fell back). */
void client_zerocopy_warnings(const struct probe_params *p, int zc_errno, struct probe_result *res)
{
	char w[160];
	if (!p->zerocopy)
		return;
	if (!res->zerocopy_active && zc_errno == ENOBUFS) {
		client_warn(res, "-Z: the kernel would not pin the pages (ENOBUFS: locked-memory "
				 "limit, ulimit -l, or net.core.optmem_max), so sends were copied");
	} else if (!res->zerocopy_active && zc_errno) {
		snprintf(w, sizeof(w), "-Z: the kernel refused SO_ZEROCOPY on %s sockets (%s), so sends "
			 "were copied", p->proto == NS_PROTO_UDP ? "UDP" : "TCP", strerror(zc_errno));
		client_warn(res, w);
	} else if (!res->zerocopy_active) {
		client_warn(res, "-Z: the sending end's kernel refused zero-copy, so sends were copied");
	} else if (res->zerocopy_copied && res->zerocopy_copied == res->zerocopy_completions)
		client_warn(res, "-Z: the kernel copied every zero-copy send after all (delivery "
				 "to a local socket, or a device without scatter-gather)");
}

void client_latency_clock(struct probe_result *res, const struct session_end *me,
			  int32_t agent_cpu)
{
	struct probe_latency *l = &res->latency;
	struct clock_bound cb;
	struct ns_err e;
	l->client_cpu = me->eng ? engine_stream_last_cpu(me->eng, 0) : -1;
	l->agent_cpu = agent_cpu;
	if (clock_bound_read(&cb, &e) < 0) {
		snprintf(l->one_way_why, sizeof(l->one_way_why), "round trips only: %.200s", e.msg);
		return;
	}
	l->client_clock_synced = cb.synced;
	l->client_clock_maxerror_us = cb.maxerror_us;
	clock_round_trip_why(&cb, l->sum.p50_us, l->one_way_why, sizeof(l->one_way_why));
}

void client_note_nics(struct probe_result *res, struct niccount *nic,
		      const struct probe_nic *agent)
{
	struct ns_err e = {0};
	if (niccount_end(nic, &res->nic_client, &e) < 0)
		client_warn(res, e.msg);
	if (agent) {
		res->nic_agent = *agent;
		proto_printable(res->nic_agent.ifname);
	}
	res->shaped_by_provider = niccount_shaped(&res->nic_client) ||
				  niccount_shaped(&res->nic_agent);
}
