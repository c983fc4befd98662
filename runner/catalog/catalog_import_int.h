/* catalog_import's formats, for its files only: a format is recognised by a JSON path its
 * documents have, and read by SQL over them into the working tables of catalog_import.c. */
#ifndef NS_CATALOG_IMPORT_INT_H
#define NS_CATALOG_IMPORT_INT_H

struct ci_format {
	const char *name;       /* "Azure Retail Prices" */
	const char *key;        /* a JSON path only this format's documents have */
	const char *sql;        /* ?1 document, ?2 --as-of, ?3 source, ?4 zone */
	const char *source;     /* what its prices are, for their source attribute */
	int needs_zone;         /* the zone comes from the file's name (Scaleway) */
};

/* The provider's family of a type, as SQL over the expression x (the type's name): AWS's is the
 * part before the dot ("m5.large": m5), NULL for a name without one. */
#define AWS_FAMILY(x) "CASE WHEN instr(" x ", '.') > 1 THEN substr(" x ", 1, instr(" x ", '.') - 1) END"

/* Azure, Google Cloud (SKUs and machine types), Scaleway, Hetzner, AWS spot history; ends
 * with a NULL name. */
extern const struct ci_format ci_cloud_formats[];
/* Google Cloud machine prices from the rates and shapes read (?2 --as-of). */
extern const char CI_GCP_COMPOSE_SQL[];

#endif
