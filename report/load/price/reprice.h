/* reprice: `report --catalog FILE` — the run's pairs priced from a catalog file
 * (schemas/catalog.xsd) instead of the prices the run stored, and the run's costs and ranking
 * recomputed with them, read by lib/catalog (the runner's loader too: one parser). */
#ifndef RP_REPRICE_H
#define RP_REPRICE_H

#include <stddef.h>

#include "lib/err.h"
#include "report/load/data.h"
#include "report/load/price/pricing.h"

/* Prices every endpoint the catalog has a price for (instance type and region) of p's pricing
 * model and term, in its currency; *n_priced counts them, the others keep the run's price.
 * The file's exchange rates join p's over the run's (under --fx). Errors name the file. */
int rp_reprice(struct rp_data *d, const char *catalog_path, struct rp_pricing *p,
	       size_t *n_priced, struct ns_err *err);

#endif
