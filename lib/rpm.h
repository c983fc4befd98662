/* rpm: the arithmetic of the responsiveness test (the IETF IPPM draft "Responsiveness under
 * Working Conditions", draft-ietf-ippm-responsiveness; its parameters as goresponsiveness
 * defaults them): when the load-generating connections' goodput has saturated, the
 * single-sided trimmed means of the probes' round trips, and RPM, round trips per minute:
 *   RPM = 60 s / ((TM(foreign) + TM(self)) / 2)
 * foreign: probes on connections of their own; self: round trips on the loaded connections.
 * Pure: no I/O. schemas/responsiveness.md states the method and what netsweep does
 * differently from goresponsiveness and Apple's networkQuality. */
#ifndef NS_RPM_H
#define NS_RPM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/lathist.h"

#define RPM_MAD 4           /* moving-average distance: intervals in each moving average, and
			       moving averages that must agree */
#define RPM_SDT_PCT 5.0     /* standard-deviation tolerance: saturated when the last RPM_MAD
			       moving averages' standard deviation is within 5 % of their mean */
#define RPM_TRIM_PCT 5.0    /* the slowest 5 % of the round trips are dropped (single-sided) */
#define RPM_MNP 16          /* most load-generating connections */
#define RPM_MPS 100.0       /* foreign probes per second */
#define RPM_ID_S 1.0        /* interval of the saturation search, seconds */
#define RPM_SELF_INTERVAL_S 0.1 /* the loaded connections' RTT is read this often */

/* The goodput series of the saturation search: one figure per interval, each with one more
 * load-generating connection than the one before. */
struct rpm_sat {
	double goodput[RPM_MNP];
	double ma[RPM_MNP];        /* moving average of the last RPM_MAD goodputs, once there */
	uint32_t n;
	bool saturated;
};
void rpm_sat_init(struct rpm_sat *s);
/* Adds the next interval's goodput (bits/s); returns whether goodput has saturated (stays
 * true). At most RPM_MNP figures are taken. */
bool rpm_sat_add(struct rpm_sat *s, double goodput_bps);

/* Mean of v[0..n) without its slowest trim_pct % (at least one value kept); sorts v.
 * 0 when n == 0. */
double rpm_trimmed_mean(double *v, size_t n, double trim_pct);
/* The same over a histogram's counts, in nanoseconds (each bucket at its middle, within
 * LATHIST_REL_ERROR); 0 when empty. */
double rpm_hist_trimmed_mean_ns(const struct lathist *h, double trim_pct);
/* Round trips per minute from the two trimmed means in seconds (either <= 0: the other alone;
 * both: 0). */
double rpm_of(double foreign_s, double self_s);

#endif
