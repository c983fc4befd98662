/* trial: a search trial measured by a real UDP test against an agent (probe_run). */
#ifndef NS_SEARCH_TRIAL_H
#define NS_SEARCH_TRIAL_H

#include <stdio.h>

#include "runner/proto/probe.h"
#include "search.h"

struct search_probe {
	struct probe_params base;   /* host, port, length, streams, threads, affinity, ... */
	const char *from_host;      /* a matrix pair's client agent sends; NULL = this host */
	uint16_t from_port;
	double goal_width;          /* the search's, to tell the callback a short trial */
	/* called after each trial (may be NULL): progress lines, kept results */
	void (*on_trial)(const struct search_trial *t, const struct probe_result *res, void *arg);
	void *arg;
};

/* search_trial_fn for struct search_probe: load packets/s become -b load x length x 8
 * (0 = unpaced); sent and received are the forward direction's datagrams. An agent still
 * closing the previous trial (BUSY) is asked again for a bounded while. */
int search_probe_trial(void *ctx, double load, double duration_s, struct search_trial *t,
		       struct ns_err *err);

#endif
