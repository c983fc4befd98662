/* steady: the stop rule of long-run mode — a test runs until its receiver's rate stepped down
 * (lib/phases.h) and the rate after the step held steady for a stated time. Fed the interval
 * sums as they come; keeps the series (rate and times only) and decides on it. Pure. */
#ifndef NS_STEADY_H
#define NS_STEADY_H

#include <stdbool.h>
#include <stdint.h>

/* Default steady time of a long-run case: long enough that a cloud instance's baseline is a
 * level, not a pause in the burst (AWS credits last minutes; a minute of baseline is a
 * purchasing figure). */
#define STEADY_DEFAULT_S 60.0
/* The two halves of the last steady_s may differ by at most this share of its mean: a level,
 * not a slope still falling. */
#define STEADY_TOLERANCE 0.1
/* Intervals the steady time must span at least (as many as lib/phases needs after a step). */
#define STEADY_MIN_INTERVALS 4
/* Series kept at most (the protocol's bound on one test's intervals). */
#define STEADY_MAX_INTERVALS 100000

struct steady {
	double steady_s;
	double *rate, *t0, *t1;
	uint32_t n, cap;
	double checked_to;   /* series time of the last decision: decided again every
	                        STEADY_RECHECK_SHARE of steady_s of new series, not per interval */
	bool reached;
	double knee_s;       /* once reached: where the step was (series time) */
};

void steady_init(struct steady *s, double steady_s);
void steady_free(struct steady *s);
/* One more interval [start_s, end_s) at bps, in time order. -1: out of memory or over
 * STEADY_MAX_INTERVALS (the interval is not kept). */
int steady_add(struct steady *s, double start_s, double end_s, double bps);
/* Whether the rate has stepped down and then held for steady_s (sticky once true). */
bool steady_reached(struct steady *s);

#endif
