/* caps: a test's request against the agent's limits, and the open files of all its tests together. */
#include "caps.h"

#include "runner/session/sockopt.h"

int agent_caps_check(const struct agent *a, const struct probe_params *p, struct ns_err *err)
{
	const struct agent_opts *o = &a->o;
	double length = p->omit_s + p->duration_s;
	if (o->max_duration_s > 0 && length > o->max_duration_s)
		return ns_err_code(err, NS_E_LIMIT, "omit + duration %g s exceeds this agent's "
				   "--max-duration of %g s", length, o->max_duration_s);
	if (o->max_streams && p->streams > o->max_streams)
		return ns_err_code(err, NS_E_LIMIT, "%u streams exceed this agent's --max-streams "
				   "of %u", (unsigned)p->streams, (unsigned)o->max_streams);
	if (o->max_rate_bps && p->rate_bps == 0)
		return ns_err_code(err, NS_E_LIMIT, "an unpaced test exceeds this agent's --max-rate "
				   "of %llu bit/s (ask for -b at most that)",
				   (unsigned long long)o->max_rate_bps);
	if (o->max_rate_bps && p->rate_bps > o->max_rate_bps)
		return ns_err_code(err, NS_E_LIMIT, "a rate of %llu bit/s exceeds this agent's "
				   "--max-rate of %llu bit/s", (unsigned long long)p->rate_bps,
				   (unsigned long long)o->max_rate_bps);
	/* the cap is the agent's traffic, both ways together */
	if (o->max_rate_bps && p->dir == NS_DIR_BIDIR && p->rate_bps > o->max_rate_bps / 2)
		return ns_err_code(err, NS_E_LIMIT, "a --bidir test at %llu bit/s each way exceeds "
				   "this agent's --max-rate of %llu bit/s for both together (ask "
				   "for -b at most %llu)", (unsigned long long)p->rate_bps,
				   (unsigned long long)o->max_rate_bps,
				   (unsigned long long)(o->max_rate_bps / 2));
	return sockopt_fd_room(p, err);
}

int agent_fds_take(struct conn *c, const struct probe_params *p, struct ns_err *err)
{
	struct agent *a = c->a;
	uint64_t need = (uint64_t)p->streams * (p->dir == NS_DIR_BIDIR ? 2 : 1) +
			(p->lat_probe[0] ? 1 : 0);
	uint64_t held = atomic_load(&a->fds_held);
	do {
		if (a->fd_limit != UINT64_MAX && held + need + SOCKOPT_FD_RESERVE > a->fd_limit)
			return ns_err_code(err, NS_E_BUSY, "busy: the tests running hold %llu data "
					   "streams; with this test's %llu this agent would need %llu "
					   "open files and may open %llu; try again later",
					   (unsigned long long)held, (unsigned long long)need,
					   (unsigned long long)(held + need + SOCKOPT_FD_RESERVE),
					   (unsigned long long)a->fd_limit);
	} while (!atomic_compare_exchange_weak(&a->fds_held, &held, held + need));
	c->fds_taken = need;
	return 0;
}

void agent_fds_give(struct conn *c)
{
	if (c->fds_taken) {
		atomic_fetch_sub(&c->a->fds_held, c->fds_taken);
		c->fds_taken = 0;
	}
}
