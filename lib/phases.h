/* phases: the phases of one test's rate series — a burst followed by a lower sustained rate,
 * as credit-based shaping (cloud "up to N Gbit/s" instances, tbf with a large bucket) gives.
 * A change point is a sustained step down: the best two-level fit of the series, accepted
 * only when the level after it is clearly lower and stays there (one slow interval is not a
 * step). Pure: the caller passes the series. */
#ifndef NS_PHASES_H
#define NS_PHASES_H

#include <stdbool.h>
#include <stdint.h>

/* The step must take at least this share off the rate (smaller changes are TCP's own noise). */
#define PHASES_MIN_DROP 0.2
/* Intervals after the step, at least: fewer cannot tell a phase from a dip. */
#define PHASES_MIN_AFTER 4
/* Share of the intervals after the step that may rise back above the midpoint between the
 * two levels (and of those before it that may fall below): a step is a level, not a spike. */
#define PHASES_MAX_STRAY 0.15

struct phases {
	bool found;          /* a step down was found; the figures below are 0 otherwise */
	double burst_bps;    /* mean rate before the step */
	double burst_s;      /* how long the burst lasted: from the series' start to the step */
	double sustained_bps;/* mean rate after the step, the interval that holds it left out */
	uint32_t knee;       /* index of the first interval after the step */
};

/* rate_bps[i] over [start_s[i], end_s[i]), n intervals in time order. Returns p->found. */
bool phases_detect(const double *rate_bps, const double *start_s, const double *end_s,
		   uint32_t n, struct phases *p);

#endif
