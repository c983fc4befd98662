#include "retry.h"

bool retry_agent_lost(const struct ns_err *e, const struct probe_result *res)
{
	if (res && res->n_dirs > 0)
		return false;
	return e->code == NS_E_REFUSED || e->code == NS_E_UNREACHABLE;
}

void retry_wait_init(struct retry_wait *w, double budget_s, double now)
{
	w->budget_s = budget_s > 0 ? budget_s : 0;
	w->start = now;
	w->tries = 0;
}

double retry_next_pause(struct retry_wait *w, double now)
{
	double left = w->budget_s - (now - w->start);
	if (left <= 1e-9)
		return -1;
	double pause = 0.25;
	for (unsigned i = 0; i < w->tries && pause < RETRY_PAUSE_MAX_S; i++)
		pause *= 2;
	if (pause > RETRY_PAUSE_MAX_S)
		pause = RETRY_PAUSE_MAX_S;
	if (pause > left)
		pause = left;
	w->tries++;
	return pause;
}
