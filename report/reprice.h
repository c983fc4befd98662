/* reprice: `report --catalog FILE` — the run's pairs priced from a catalog file
 * (schemas/catalog.xsd) instead of the prices the run stored, and the run's costs and ranking
 * recomputed with them. The report reads the catalog itself (libxml2 against the schema),
 * never through the runner's code. */
#ifndef RP_REPRICE_H
#define RP_REPRICE_H

#include <stddef.h>

#include "lib/err.h"
#include "data.h"

/* Prices every endpoint the catalog has a price for (instance type and region) of the pricing
 * model ("on-demand", "spot", "reserved") and term ("1yr"; "" otherwise), in its currency;
 * *n_priced counts them, the others keep the run's price. Errors name the file. */
int rp_reprice(struct rp_data *d, const char *catalog_path, const char *model,
	       const char *term, size_t *n_priced, struct ns_err *err);

#endif
