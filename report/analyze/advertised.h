/* advertised (report): against what the catalog says each pair is, as the run snapshotted it
 * (run_instance_types, read by load/itypes.h: who sells the type and the bandwidth it
 * advertises): each case's rate as a percent of that, and the
 * finding for a type that delivers less than RP_ADVERTISED_SHORT_PCT of it. An "up to" type
 * is held to its baseline on the rate it sustained after its burst, and to its peak when the
 * test stayed within the burst. A lab pair is held to the figure times its scale. */
#ifndef RP_ADVERTISED_H
#define RP_ADVERTISED_H

#include <stdbool.h>

#include "lib/err.h"
#include "report/load/data.h"
#include "report/analyze/findings.h"
#include "report/model/fmt.h"

#define RP_ADVERTISED_SHORT_PCT 90.0

struct rp_adv {
	double pct;                /* the case's rate as a percent of adv_bps; NAN = no figure */
	double adv_bps;            /* the figure held against (scaled for a lab pair) */
	bool baseline;             /* adv_bps is an "up to" type's baseline */
	bool sustained;            /* the rate is the sustained one after a burst */
};
struct rp_adv rp_advertised_case(const struct rp_data *d, const struct rp_case *c);
/* "85 % of 10 Gbit/s" / "92 % of 0.75 Gbit/s baseline (sustained)" into b; "–" without. */
void rp_advertised_text(const struct rp_adv *a, struct rp_buf *b);
/* One finding per pair whose best case delivers less than RP_ADVERTISED_SHORT_PCT. */
int rp_advertised_findings(const struct rp_data *d, struct rp_findings *f);

#endif
