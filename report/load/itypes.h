/* itypes: what the run's instance types say of themselves (run_instance_types) — the provider,
 * the advertised and baseline bandwidth and whether it is "up to" — and a lab pair's emulation
 * scale, onto each endpoint; analyze/advertised.h holds the cases against them. */
#ifndef RP_ITYPES_H
#define RP_ITYPES_H

#include <sqlite3.h>

#include "lib/err.h"
#include "report/load/data.h"

/* Fills d's endpoints' provider, adv_* and emu_scale (1 without emulation). NS_E_INPUT. */
int rp_itypes_load(sqlite3 *db, struct rp_data *d, struct ns_err *err);

#endif
