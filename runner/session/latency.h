/* latency: the requester's end of a request/response test — the streams' latency histograms
 * merged at the omit mark, at every interval boundary and at the end, and the figures of each
 * interval and of the measured time from their differences (percentiles from the merged
 * counts, never averaged over streams). */
#ifndef NS_SESSION_LATENCY_H
#define NS_SESSION_LATENCY_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/err.h"
#include "lib/lathist.h"
#include "runner/engine/engine.h"
#include "runner/proto/probe.h"

struct lat_end {
	struct lathist h[4];       /* omit mark, last boundary, now, scratch */
	bool omit_taken;
	struct probe_latency_interval *ivl;
	uint32_t n_ivl, cap_ivl;
};

struct lat_end *lat_end_new(struct ns_err *err);
void lat_end_free(struct lat_end *l);
void lat_end_mark_omit(struct lat_end *l, const struct engine *eng);
/* One interval [start_s, end_s) of dt seconds, lost requests in it. */
void lat_end_interval(struct lat_end *l, const struct engine *eng, double start_s, double end_s,
		      double dt, bool omitted, uint64_t lost);
/* The measured time: from the omit mark (or the start) to now, dur seconds; moves the interval
 * series and the histogram's text into out (out->histogram NULL when out of memory). */
int lat_end_result(struct lat_end *l, const struct engine *eng, double dur, uint64_t lost,
		   struct probe_latency *out, struct ns_err *err);
/* The figures of one histogram over dur seconds. */
void lat_figures(const struct lathist *h, double dur, uint64_t lost,
		 struct probe_latency_figures *f);

#endif
