/* xsdcheck: an XML input file (matrix, catalog) read once, safely and in bounded time. libxml2
 * parses it with no network and no DTD (so no entities, internal or external), validates it
 * against a compiled-in XSD while it reads, and stops at the first error of either kind, so
 * a file of 80,000 errors costs what its first one does. The error names file:line and the
 * element or attribute libxml2 blames. */
#ifndef NS_XSDCHECK_H
#define NS_XSDCHECK_H

#include <stddef.h>

#include <libxml/tree.h>

#include "lib/err.h"

/* CPU-seconds one file may take to be read and checked, whatever is in it: a 4 MiB matrix or
 * a 32 MiB catalog of valid elements takes a fraction of it (2.4 s for 32 MiB on a busy
 * 2-core test machine), a file of errors stops at the first. */
#define XSDCHECK_MAX_CPU_S 10.0

/* The largest matrix: a sweep of thousands of cases fits in a few hundred kB. */
#define XSDCHECK_MATRIX_MAX_BYTES (4u << 20)
/* The largest catalog: a price list of every instance type in every region is under 2 MB, and
 * libxml2's tree takes about 10 times the file in memory. */
#define XSDCHECK_CATALOG_MAX_BYTES (32u << 20)

struct xsdcheck_spec {
	const char *what;      /* "matrix", "catalog": names the schema in messages */
	const char *xsd;       /* the schema's text, NUL-terminated */
	size_t max_bytes;      /* a larger file is refused unread (NS_E_LIMIT) */
	double max_cpu_s;      /* reading and checking stop there (NS_E_LIMIT) */
};

/* schemas/matrix.xsd and schemas/catalog.xsd (compiled in) with their size limits. */
extern const struct xsdcheck_spec xsdcheck_matrix;
extern const struct xsdcheck_spec xsdcheck_catalog;

/* The whole of path into a malloc'd, NUL-terminated buffer, if it is a regular file of at most
 * max_bytes (a FIFO or device is refused at once, without waiting for a writer). */
int xsdcheck_slurp(const char *path, size_t max_bytes, char **text, size_t *len,
		   struct ns_err *err);

/* text (len bytes, named path in messages) parsed and validated against spec->xsd: the
 * document (the caller frees it with xmlFreeDoc), or NULL with err filled (NS_E_INPUT for a
 * bad file, NS_E_LIMIT over the time limit, NS_E_NOMEM). */
xmlDocPtr xsdcheck_mem(const struct xsdcheck_spec *spec, const char *path, const char *text,
		       size_t len, struct ns_err *err);

/* xsdcheck_slurp then xsdcheck_mem. */
xmlDocPtr xsdcheck_file(const struct xsdcheck_spec *spec, const char *path, struct ns_err *err);

#endif
