/* catalog_import's formats, for its files only: a format is recognised by a JSON path its
 * documents have, and read by SQL over them into the working tables of catalog_import.c. */
#ifndef NS_CATALOG_IMPORT_INT_H
#define NS_CATALOG_IMPORT_INT_H

#include <stddef.h>

struct ci_format {
	const char *name;       /* "Azure Retail Prices" */
	const char *key;        /* a JSON path only this format's documents have */
	const char *sql;        /* ?1 document, ?2 --as-of, ?3 source, ?4 zone */
	const char *source;     /* what its prices are, for their source attribute */
	int needs_zone;         /* the zone comes from the file's name (Scaleway) */
	const char *xsql;       /* its transfer rules into xfer (catalog_import_transfer.c), or NULL */
	const char *xsource;    /* what those rules are, for their source attribute */
};

/* The provider's family of a type, as SQL over the expression x (the type's name): AWS's is the
 * part before the dot ("m5.large": m5), NULL for a name without one. */
#define AWS_FAMILY(x) "CASE WHEN instr(" x ", '.') > 1 THEN substr(" x ", 1, instr(" x ", '.') - 1) END"

/* Azure, Google Cloud (SKUs and machine types), Scaleway, Hetzner, AWS spot history; ends
 * with a NULL name. */
extern const struct ci_format ci_cloud_formats[];
/* Google Cloud machine prices from the rates and shapes read (?2 --as-of). */
extern const char CI_GCP_COMPOSE_SQL[];

/* Transfer rules (catalog_import_transfer.c): the working table, each format's SQL, what is
 * done once every input is read, and the writer of the <transfer> elements. */
extern const char CI_XFER_SCHEMA_SQL[];
extern const char CI_AWS_XFER_OFFER_SQL[];
extern const char CI_AWS_XFER_GET_PRODUCTS_SQL[];
extern const char CI_AZURE_XFER_SQL[];
extern const char CI_GCP_XFER_SQL[];
extern const char CI_HETZNER_XFER_SQL[];
extern const char CI_SCALEWAY_XFER_SQL[];
extern const char CI_XFER_FINISH_SQL[];
struct sqlite3;
struct _xmlNode;
/* Appends a <transfer> per rule to root, counting them in *n; -1 on an SQL error. */
int ci_write_transfers(struct sqlite3 *db, struct _xmlNode *root, size_t *n);

#endif
