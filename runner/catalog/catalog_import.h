/* catalog_import: a catalog file (schemas/catalog.xsd) from what providers publish — AWS's
 * Price List bulk offer file (offers/v1.0/aws/AmazonEC2/.../index.json), the output of `aws
 * pricing get-products --service-code AmazonEC2`, of `aws ec2 describe-instance-types` and of
 * `aws ec2 describe-spot-price-history`; the Azure Retail Prices API, the Google Cloud Billing
 * Catalog (with machine shapes), Scaleway's and Hetzner's server types (catalog_import_clouds.c).
 * Each input's format is recognised from its content. JSON is read by SQLite's JSON functions
 * in an in-memory database (no JSON parser of our own); the result is written with libxml2
 * and then loaded back through catalog_load, so what is written is known to be valid. */
#ifndef NS_CATALOG_IMPORT_H
#define NS_CATALOG_IMPORT_H

#include <stddef.h>

#include "lib/err.h"

/* Inputs larger than this are refused: a whole-world EC2 offer file is several GB; use a
 * region's offer file or get-products with filters. */
#define CATALOG_IMPORT_MAX_BYTES (900u * 1024 * 1024)
#define CATALOG_IMPORT_MAX_REGIONS 32

struct catalog_import_opts {
	const char *const *inputs;
	size_t n_inputs;
	const char *regions[CATALOG_IMPORT_MAX_REGIONS]; /* prices of these regions only; none = all */
	size_t n_regions;
	const char *pricings[3];           /* on-demand, spot, reserved: these only; none = all */
	size_t n_pricings;
	const char *name;                  /* the catalog's name (default: the one provider's) */
	const char *description;           /* over the one saying what was imported */
	const char *as_of;                 /* YYYY-MM-DD over the price list's own date; NULL = its own */
};

struct catalog_import_stats {
	size_t instance_types, prices, transfers;
};

/* Reads every input and writes the catalog to out_path. Errors name the file. */
int catalog_import(const struct catalog_import_opts *o, const char *out_path,
		   struct catalog_import_stats *stats, struct ns_err *err);

#endif
