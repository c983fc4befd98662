/* changepoint: where a series of run medians steps to a new level. The method, stated on the
 * page: binary segmentation — the split that maximises |Welch's t| between the runs before
 * and after it is kept when that test gives p < alpha and the two means differ by more than
 * min_change_pct of the earlier one (each side at least RP_CP_MIN_SIDE runs); each side is
 * then searched the same way. NAN values (a run without the case) are skipped. */
#ifndef RP_CHANGEPOINT_H
#define RP_CHANGEPOINT_H

#include <stddef.h>

#define RP_CP_MIN_SIDE 2

struct rp_step {
	size_t at;            /* index of the first value of the new level */
	double before, after; /* means of the segments either side (within the segment searched) */
	double change_pct, p;
};

/* Fills up to max steps, in index order; returns how many. */
size_t rp_changepoints(const double *v, size_t n, double alpha, double min_change_pct,
		       struct rp_step *out, size_t max);

#endif
