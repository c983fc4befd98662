/* caps: a test's request against the agent's limits. */
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
