/* store_catalog: the run's catalog snapshot in the store — its pairs' instance types
 * (run_instance_types), every price quote of their regions in each pricing model and currency
 * (run_price_quotes; an on-demand US-dollar one also in run_prices, which the views rank on)
 * the catalog's exchange rates (run_fx), its transfer rules (run_transfer_prices) and the
 * matrix's monthly transfer volume (run_transfer_volume). An entry the run already has is kept as it is:
 * a resumed run keeps the prices it started with. */
#ifndef NS_STORE_CATALOG_H
#define NS_STORE_CATALOG_H

#include <stdint.h>

#include "lib/err.h"
#include "lib/catalog/catalog.h"
#include "store.h"

int store_put_instance_type(struct store *s, int64_t run_id, const struct catalog_instance *i,
			    struct ns_err *err);
int store_put_price(struct store *s, int64_t run_id, const struct catalog_price *p,
		    struct ns_err *err);
int store_put_fx(struct store *s, int64_t run_id, const struct catalog_fx *f,
		 struct ns_err *err);
/* One transfer rule of the catalog (run_transfer_prices, tiers as JSON). */
int store_put_transfer(struct store *s, int64_t run_id, const struct catalog_transfer *t,
		       struct ns_err *err);
/* The matrix's monthly-transfer in decimal GB (run_transfer_volume; > 0). */
int store_put_transfer_volume(struct store *s, int64_t run_id, double monthly_gb,
			      struct ns_err *err);

#endif
