/* catalog: instance types and their hourly prices, read from XML files validated against
 * schemas/catalog.xsd (data/catalog/aws.xml by default; --catalog FILE adds more, later files
 * override earlier entries of the same instance type / region). */
#ifndef NS_CATALOG_H
#define NS_CATALOG_H

#include <stddef.h>

#include "lib/err.h"

struct catalog_instance {
	char type[64];              /* "m4.large" */
	int vcpus;                  /* 0 = unknown */
	double memory_gib;          /* 0 = unknown */
	char network_label[64];     /* "Moderate", "High", "Up to 25 Gigabit", "100 Gigabit" */
	double network_gbps;        /* advertised (burst where stated); 0 = unknown */
	double baseline_gbps;       /* 0 = not stated */
	char enhanced[16];          /* "none", "vif", "ixgbevf", "ena" */
};

struct catalog_price {
	char type[64];
	char region[32];            /* "ap-northeast-1" */
	double usd_per_hour;
	char as_of[16];             /* "2016-05-01" */
	char source[256];
};

struct catalog {
	struct catalog_instance *instances;
	size_t n_instances;
	struct catalog_price *prices;
	size_t n_prices;
};

/* Default catalog: $NETSWEEP_CATALOG if set, else NETSWEEP_DATADIR "/catalog/aws.xml". */
const char *catalog_default_path(void);

void catalog_init(struct catalog *c);
/* Loads and validates one file, merging it over what c holds. Errors name file and line. */
int catalog_load(struct catalog *c, const char *path, struct ns_err *err);
const struct catalog_instance *catalog_instance(const struct catalog *c, const char *type);
const struct catalog_price *catalog_price(const struct catalog *c, const char *type,
					  const char *region);
void catalog_free(struct catalog *c);

#endif
