/* catalog: instance types and their hourly prices, read from XML files validated against
 * schemas/catalog.xsd (data/catalog/aws.xml by default; --catalog FILE adds more, later files
 * override earlier entries of the same instance type / region). */
#ifndef NS_CATALOG_H
#define NS_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/err.h"
#include "lib/xml/xsdcheck.h"

struct catalog_instance {
	char type[64];              /* "m4.large" */
	int vcpus;                  /* 0 = unknown */
	double memory_gib;          /* 0 = unknown */
	char network_label[64];     /* "Moderate", "High", "Up to 25 Gigabit", "100 Gigabit" */
	double network_gbps;        /* advertised (burst where stated); 0 = unknown */
	double baseline_gbps;       /* 0 = not stated */
	char enhanced[16];          /* "none", "vif", "ixgbevf", "ena" */
	bool up_to;                 /* network_gbps is a burst ("Up to 25 Gigabit") */
	char provider[32];          /* "aws", "scaleway", ...; "" = not stated */
	char family[64];            /* the provider's: "m5", "Dsv5", "n2-standard", "PRO2", "cx";
				     * "" = none (the type answers to its exact name only) */
};

/* A price's model: pay as you go, interruptible capacity (a summary of a moving price over a
 * window), or a commitment of a term. */
enum catalog_pricing { CATALOG_ON_DEMAND, CATALOG_SPOT, CATALOG_RESERVED };

struct catalog_price {
	char type[64];
	char region[32];            /* "ap-northeast-1" */
	enum catalog_pricing pricing;
	char term[8];               /* reserved: "1yr", "3yr"; "" otherwise */
	char currency[4];           /* ISO 4217; "USD" when the catalog does not say */
	double per_hour;            /* in currency, per instance-hour */
	char window[256];           /* spot: what the figure summarises; "" otherwise */
	char as_of[16];             /* "2016-05-01" */
	char source[256];
	double included_gb_month;   /* traffic included per server per month, GB; 0 = none */
};

/* "on-demand", "spot", "reserved" and back; -1 for anything else. */
const char *catalog_pricing_name(enum catalog_pricing p);
int catalog_pricing_parse(const char *s, enum catalog_pricing *p);
/* A matrix's pricing attribute: "on-demand", "spot" or "reserved:TERM" (NULL = on-demand)
 * into its model and term ("" unless reserved). -1 when it is none of those. */
int catalog_pricing_split(const char *s, enum catalog_pricing *p, char term[8]);

/* An exchange rate: usd US dollars per unit of currency. */
struct catalog_fx {
	char currency[4];
	double usd;
	char as_of[16];
	char source[256];
};
#define CATALOG_MAX_FX 64

/* Files larger than this are refused before parsing (lib/xml/xsdcheck.h says why). */
#define CATALOG_MAX_BYTES XSDCHECK_CATALOG_MAX_BYTES

/* A transfer price rule (schemas/catalog.xsd's <transfer>, schemas/transfer-pricing.md): per GB
 * moved between two ends of one relation, in volume tiers of a month's cumulative GB. */
struct catalog_tier {
	double upto_gb;             /* INFINITY for the last */
	double per_gb;              /* >= 0, in the rule's currency */
};

struct catalog_transfer {
	char *provider, *region;
	char *relation;             /* "same-zone", "cross-zone", "cross-region", "internet" */
	char *peer_region;          /* cross-region only; NULL = any other region */
	char *billed;               /* "sender", "receiver", "both": each billed side pays per_gb */
	char *currency, *as_of, *source;
	size_t ntiers;              /* >= 1, upto_gb ascending, the last INFINITY */
	struct catalog_tier *tiers;
};

struct catalog_index;

struct catalog {
	struct catalog_instance *instances;
	size_t n_instances;
	struct catalog_price *prices;
	size_t n_prices;
	struct catalog_fx fx[CATALOG_MAX_FX]; /* a later file's rate replaces one of its currency */
	size_t n_fx;
	struct catalog_transfer *transfers; /* a later file's rule replaces one of the same
					     * provider, region, relation and peer region */
	size_t ntransfers;
	struct catalog_index *ix;   /* hash of instances by type, prices by type + region */
};

/* Default catalog: $NETSWEEP_CATALOG if set, else ns_datadir() "/catalog/aws.xml". */
const char *catalog_default_path(void);

void catalog_init(struct catalog *c);
/* Loads and validates one file, merging it over what c holds. Errors name file and line.
 * Only regular files of at most CATALOG_MAX_BYTES are read (a FIFO is refused at once);
 * loading and merging take time linear in the entries. */
int catalog_load(struct catalog *c, const char *path, struct ns_err *err);
const struct catalog_instance *catalog_instance(const struct catalog *c, const char *type);
/* The on-demand price of type in region (in whatever currency the catalog gives it). */
const struct catalog_price *catalog_price(const struct catalog *c, const char *type,
					  const char *region);
/* The price of one model (term: "1yr"... for reserved, "" or NULL otherwise). */
const struct catalog_price *catalog_price_of(const struct catalog *c, const char *type,
					     const char *region, enum catalog_pricing pricing,
					     const char *term);
void catalog_free(struct catalog *c);

/* The transfer rule of provider and region for relation: for "cross-region" the one naming
 * peer_region, else the one for any other region; NULL when the catalog has none. */
const struct catalog_transfer *catalog_transfer_find(const struct catalog *c, const char *provider,
						     const char *region, const char *relation,
						     const char *peer_region);

/* Whether the catalog's type answers to want (lib/names/itype.h: its exact name, or its family as
 * the catalog states it); NULL want: every type. */
bool catalog_type_matches(const struct catalog *c, const char *type, const char *want);
/* Whether any type of the catalog answers to want. */
bool catalog_type_known(const struct catalog *c, const char *want);

/* The shipped catalogs beside the default one (the .xml files of data/catalog/: other providers, spot)
 * that know type — that price it in region, with a region — to fn with the file's name and
 * path, in directory order; how many did. Files that do not load are skipped. */
size_t catalog_shipped_with(const char *type, const char *region,
			    void (*fn)(void *ctx, const char *name, const char *path), void *ctx);

/* The known instance type nearest to type by edit distance (for "did you mean"), NULL when
 * none is within a few edits. */
const char *catalog_nearest_type(const struct catalog *c, const char *type);

#endif
