/* itype: which instance types a name a user gives selects — `cost --type`, `run --only
 * instance-type=`, `export --type` and every other place that selects or groups by type. A
 * type answers to its own name exactly, or to its family: the provider's own notion (AWS m5,
 * Azure Dsv5, GCP n2-standard, Scaleway PRO2, Hetzner cx), as the catalog states it
 * (schemas/catalog.xsd, instance/@family) and the store keeps it (run_instance_types.family). */
#ifndef NS_ITYPE_H
#define NS_ITYPE_H

#include <stdbool.h>
#include <stddef.h>

/* Whether type (of family; NULL or "" = not stated) answers to want: want is the type's name
 * exactly, or its family without regard to case (Azure writes DSv3 and Dsv3 alike). NULL or ""
 * want selects every type. */
bool itype_matches(const char *type, const char *family, const char *want);

/* The family of a catalog entry that states none: an AWS-style name's part before its dot
 * ("m5.large" -> "m5"), as catalogs before the family attribute meant it; "" for any other
 * name (it then answers to its exact name only). */
void itype_family_implied(const char *type, char *out, size_t cap);

#endif
