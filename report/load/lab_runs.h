/* lab_runs: whether a run's pairs were emulated by `netsweep lab` (table endpoint_emulation, store
 * version 4) and the headline words that say so — also when a lab run is compared with a run
 * on real instances, which the report then must not leave unsaid. */
#ifndef RP_LAB_H
#define RP_LAB_H

#include <sqlite3.h>

#include "report/load/data.h"
#include "report/model/fmt.h"

/* Fills each endpoint's lab_scale; a database from before version 4 has no lab pairs. */
int rp_lab_load(sqlite3 *db, struct rp_data *d, struct ns_err *err);
/* The scale of the run's lab pairs as written ("1/100"), or NULL for real instances. */
const char *rp_lab_scale(const struct rp_data *d);
/* How many of the run's pairs were emulated, and (scale) the first one's scale as a number. */
size_t rp_lab_pairs(const struct rp_data *d, double *scale);
/* What report.json and the exports say of an emulated run's figures. */
#define RP_LAB_NOTE "throughput and per-dollar figures are the lab's (network namespaces shaped " \
	"with tbf to the instance types' figures times the scale), not measured on cloud instances"
/* The headline's opening words for a lab run, and for a baseline of the other kind. */
void rp_lab_headline(const struct rp_data *d, const struct rp_data *base, struct rp_buf *b);

#endif
