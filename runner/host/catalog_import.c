#include "catalog_import.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <libxml/tree.h>
#include <libxml/xmlsave.h>
#include <sqlite3.h>

#include "catalog.h"

/* Working tables: what every input adds, merged; then written out in type order. */
static const char SCHEMA_SQL[] =
	"CREATE TABLE itype (type TEXT PRIMARY KEY, vcpus INTEGER, mem REAL, label TEXT,"
	" gbps REAL, baseline REAL, ena TEXT, efa INTEGER);"
	"CREATE TABLE price (type TEXT, region TEXT, usd REAL, as_of TEXT, source TEXT,"
	" PRIMARY KEY (type, region));"
	"CREATE TABLE regions (r TEXT PRIMARY KEY);"
	"CREATE TABLE prod (sku TEXT, a TEXT, pub TEXT);"
	"CREATE TABLE od (sku TEXT, usd TEXT, unit TEXT, eff TEXT);";

/* A price list's products and on-demand terms, whichever form it came in, as prod and od.
 * ?1 is the document. */
static const char OFFER_SQL[] =
	"INSERT INTO prod SELECT key, json_extract(value, '$.attributes'),"
	" json_extract(?1, '$.publicationDate') FROM json_each(?1, '$.products')"
	" WHERE json_extract(value, '$.productFamily') LIKE 'Compute Instance%';"
	"INSERT INTO od SELECT t.key, json_extract(d.value, '$.pricePerUnit.USD'),"
	" json_extract(d.value, '$.unit'), json_extract(o.value, '$.effectiveDate')"
	" FROM json_each(?1, '$.terms.OnDemand') t, json_each(t.value) o,"
	" json_each(o.value, '$.priceDimensions') d;";
static const char GET_PRODUCTS_SQL[] =
	"INSERT INTO prod SELECT json_extract(e.value, '$.product.sku'),"
	" json_extract(e.value, '$.product.attributes'), json_extract(e.value, '$.publicationDate')"
	" FROM json_each(?1, '$.PriceList') e"
	" WHERE json_extract(e.value, '$.product.productFamily') LIKE 'Compute Instance%';"
	"INSERT INTO od SELECT json_extract(e.value, '$.product.sku'),"
	" json_extract(d.value, '$.pricePerUnit.USD'), json_extract(d.value, '$.unit'),"
	" json_extract(o.value, '$.effectiveDate') FROM json_each(?1, '$.PriceList') e,"
	" json_each(e.value, '$.terms.OnDemand') o, json_each(o.value, '$.priceDimensions') d;";

/* On-demand Linux on shared tenancy, no preinstalled software, no license, no reservation:
 * the price of an instance the runner launches. ?1 as_of override, ?2 source. */
#define LINUX_ON_DEMAND \
	" json_extract(a, '$.instanceType') IS NOT NULL" \
	" AND json_extract(a, '$.operatingSystem') = 'Linux'" \
	" AND json_extract(a, '$.tenancy') = 'Shared'" \
	" AND coalesce(json_extract(a, '$.preInstalledSw'), 'NA') = 'NA'" \
	" AND coalesce(json_extract(a, '$.capacitystatus'), 'Used') = 'Used'" \
	" AND coalesce(json_extract(a, '$.licenseModel'), 'No License required') = 'No License required'"
static const char PRICES_SQL[] =
	"INSERT INTO itype (type, vcpus, mem, label, gbps)"
	" SELECT json_extract(a, '$.instanceType'), CAST(json_extract(a, '$.vcpu') AS INTEGER),"
	" CAST(replace(json_extract(a, '$.memory'), ',', '') AS REAL),"
	" json_extract(a, '$.networkPerformance'),"
	" CASE WHEN json_extract(a, '$.networkPerformance') LIKE '%Gigabit' THEN CAST(replace("
	"  json_extract(a, '$.networkPerformance'), 'Up to ', '') AS REAL) END"
	" FROM prod WHERE" LINUX_ON_DEMAND " GROUP BY 1"
	" ON CONFLICT (type) DO UPDATE SET vcpus = coalesce(vcpus, excluded.vcpus),"
	" mem = coalesce(mem, excluded.mem), label = coalesce(label, excluded.label),"
	" gbps = coalesce(gbps, excluded.gbps);"
	"INSERT INTO price (type, region, usd, as_of, source)"
	" SELECT json_extract(p.a, '$.instanceType'), json_extract(p.a, '$.regionCode'),"
	" CAST(o.usd AS REAL), coalesce(?1, substr(coalesce(p.pub, o.eff), 1, 10)), ?2"
	" FROM prod p JOIN od o ON o.sku = p.sku WHERE" LINUX_ON_DEMAND
	" AND o.unit = 'Hrs' AND CAST(o.usd AS REAL) > 0"
	" AND json_extract(p.a, '$.regionCode') IS NOT NULL"
	" AND (NOT EXISTS (SELECT 1 FROM regions) OR json_extract(p.a, '$.regionCode') IN"
	"  (SELECT r FROM regions))"
	" ON CONFLICT (type, region) DO UPDATE SET usd = excluded.usd, as_of = excluded.as_of,"
	" source = excluded.source;"
	"DELETE FROM prod; DELETE FROM od;";

/* describe-instance-types: the authority on the figures it states. Bandwidth of all network
 * cards together (instances with several cards advertise the sum). */
static const char TYPES_SQL[] =
	"INSERT INTO itype (type, vcpus, mem, label, gbps, baseline, ena, efa)"
	" SELECT json_extract(t.value, '$.InstanceType'), json_extract(t.value, '$.VCpuInfo.DefaultVCpus'),"
	" json_extract(t.value, '$.MemoryInfo.SizeInMiB') / 1024.0,"
	" json_extract(t.value, '$.NetworkInfo.NetworkPerformance'),"
	" (SELECT sum(json_extract(c.value, '$.PeakBandwidthInGbps')) FROM"
	"  json_each(t.value, '$.NetworkInfo.NetworkCards') c),"
	" (SELECT sum(json_extract(c.value, '$.BaselineBandwidthInGbps')) FROM"
	"  json_each(t.value, '$.NetworkInfo.NetworkCards') c),"
	" CASE json_extract(t.value, '$.NetworkInfo.EnaSupport') WHEN 'required' THEN 'ena'"
	"  WHEN 'supported' THEN 'ena' END,"
	" json_extract(t.value, '$.NetworkInfo.EfaSupported')"
	" FROM json_each(?1, '$.InstanceTypes') t WHERE json_extract(t.value, '$.InstanceType') IS NOT NULL"
	" ON CONFLICT (type) DO UPDATE SET vcpus = coalesce(excluded.vcpus, vcpus),"
	" mem = coalesce(excluded.mem, mem), label = coalesce(excluded.label, label),"
	" gbps = coalesce(excluded.gbps, gbps), baseline = coalesce(excluded.baseline, baseline),"
	" ena = coalesce(excluded.ena, ena), efa = coalesce(excluded.efa, efa);";

enum format { FMT_UNKNOWN, FMT_OFFER, FMT_GET_PRODUCTS, FMT_INSTANCE_TYPES };

static int db_fail(sqlite3 *db, const char *path, struct ns_err *err)
{
	return ns_err_code(err, NS_E_INPUT, "%s: %s", path, sqlite3_errmsg(db));
}

/* Runs every statement of sql with the same bindings (?1..?n from vals, NULL = null). */
static int exec_bound(sqlite3 *db, const char *sql, const char *const *vals, int n_vals,
		      const size_t *lens, const char *path, struct ns_err *err)
{
	const char *tail = sql;
	while (tail && *tail) {
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK)
			return db_fail(db, path, err);
		if (!st)
			break;
		for (int i = 0; i < n_vals && i < sqlite3_bind_parameter_count(st); i++)
			if (vals[i])
				sqlite3_bind_text(st, i + 1, vals[i], lens && lens[i] ? (int)lens[i] : -1,
						  SQLITE_STATIC);
		int rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE && rc != SQLITE_ROW)
			return db_fail(db, path, err);
	}
	return 0;
}

static char *slurp(const char *path, size_t *len, struct ns_err *err)
{
	struct stat sb;
	FILE *f = fopen(path, "rb");
	if (!f) {
		ns_err_code(err, NS_E_INPUT, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &sb) != 0 || !S_ISREG(sb.st_mode) ||
	    (uint64_t)sb.st_size > CATALOG_IMPORT_MAX_BYTES) {
		ns_err_code(err, NS_E_INPUT, "%s: %s", path, !S_ISREG(sb.st_mode) ? "not a regular file"
			    : "larger than 900 MiB (use a region's offer file or get-products with filters)");
		fclose(f);
		return NULL;
	}
	char *buf = malloc((size_t)sb.st_size + 1);
	size_t n = buf ? fread(buf, 1, (size_t)sb.st_size, f) : 0;
	fclose(f);
	if (!buf || n != (size_t)sb.st_size) {
		free(buf);
		ns_err_code(err, NS_E_INPUT, "%s: cannot read", path);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* The input's format, from its content; -1 when it is not JSON. */
static int detect(sqlite3 *db, const char *doc, size_t len, char *ver, size_t vlen)
{
	sqlite3_stmt *st = NULL;
	int fmt = -1;
	if (sqlite3_prepare_v2(db, "SELECT json_valid(?1), json_type(?1, '$.products'),"
			       " json_type(?1, '$.PriceList'), json_type(?1, '$.InstanceTypes'),"
			       " coalesce(json_extract(?1, '$.version'), '')", -1, &st, NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, doc, (int)len, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0)) {
		fmt = sqlite3_column_type(st, 1) != SQLITE_NULL   ? FMT_OFFER
		      : sqlite3_column_type(st, 2) != SQLITE_NULL ? FMT_GET_PRODUCTS
		      : sqlite3_column_type(st, 3) != SQLITE_NULL ? FMT_INSTANCE_TYPES
								  : FMT_UNKNOWN;
		snprintf(ver, vlen, "%s", (const char *)sqlite3_column_text(st, 4));
	}
	sqlite3_finalize(st);
	return fmt;
}

static int import_one(sqlite3 *db, const struct catalog_import_opts *o, const char *path,
		      struct ns_err *err)
{
	size_t len;
	char version[128] = "";
	char *doc = slurp(path, &len, err);
	if (!doc)
		return -1;
	int rc = -1, fmt = detect(db, doc, len, version, sizeof(version));
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	char source[256];
	if (fmt < 0) {
		ns_err_code(err, NS_E_INPUT, "%s: not JSON", path);
	} else if (fmt == FMT_UNKNOWN) {
		ns_err_code(err, NS_E_INPUT, "%s: neither a price list (products/PriceList) nor "
			    "describe-instance-types output (InstanceTypes)", path);
	} else if (fmt == FMT_INSTANCE_TYPES) {
		const char *v[] = {doc};
		rc = exec_bound(db, TYPES_SQL, v, 1, &len, path, err);
	} else {
		snprintf(source, sizeof(source), "AWS Price List %s%.40s%s, on-demand Linux, shared "
			 "tenancy; imported by netsweep catalog import from %.80s",
			 fmt == FMT_OFFER ? "offer file" : "API (aws pricing get-products)",
			 version[0] ? " version " : "", version, base);
		const char *v[] = {doc};
		const char *pv[] = {o->as_of, source};
		rc = exec_bound(db, fmt == FMT_OFFER ? OFFER_SQL : GET_PRODUCTS_SQL, v, 1, &len, path,
				err) < 0 ||
		     exec_bound(db, PRICES_SQL, pv, 2, NULL, path, err) < 0 ? -1 : 0;
	}
	free(doc);
	return rc;
}

/* xs:decimal text: fixed point, no exponent, no trailing zeros. */
static void decimal(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.6f", v);
	char *e = buf + strlen(buf) - 1;
	while (e > buf && *e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
}

static void prop_num(xmlNodePtr n, const char *name, sqlite3_stmt *st, int col, bool integer)
{
	char b[64];
	if (sqlite3_column_type(st, col) == SQLITE_NULL || sqlite3_column_double(st, col) <= 0)
		return;
	if (integer)
		snprintf(b, sizeof(b), "%lld", (long long)sqlite3_column_int64(st, col));
	else
		decimal(sqlite3_column_double(st, col), b, sizeof(b));
	xmlNewProp(n, BAD_CAST name, BAD_CAST b);
}

static int write_xml(sqlite3 *db, const struct catalog_import_opts *o, const char *out,
		     struct catalog_import_stats *stats, struct ns_err *err)
{
	sqlite3_stmt *types = NULL, *prices = NULL;
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr root = xmlNewNode(NULL, BAD_CAST "catalog");
	char desc[256], today[16];
	time_t t = time(NULL);
	strftime(today, sizeof(today), "%Y-%m-%d", gmtime(&t));
	xmlDocSetRootElement(doc, root);
	xmlNewProp(root, BAD_CAST "name", BAD_CAST(o->name ? o->name : "aws"));
	snprintf(desc, sizeof(desc), "Imported by netsweep catalog import on %s from the AWS Price "
		 "List and describe-instance-types (on-demand Linux prices)", today);
	xmlNewProp(root, BAD_CAST "description", BAD_CAST desc);
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT type, vcpus, mem, label, gbps, baseline, ena, efa FROM"
			       " itype ORDER BY type", -1, &types, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT region, usd, as_of, source FROM price WHERE type = ?1"
			       " ORDER BY region", -1, &prices, NULL) != SQLITE_OK) {
		ns_err_set(err, "catalog import: %s", sqlite3_errmsg(db));
		goto out;
	}
	while (sqlite3_step(types) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(types, 0);
		xmlNodePtr in = xmlNewChild(root, NULL, BAD_CAST "instance", NULL);
		xmlNewProp(in, BAD_CAST "type", BAD_CAST type);
		prop_num(in, "vcpus", types, 1, true);
		prop_num(in, "memory-gib", types, 2, false);
		if (sqlite3_column_text(types, 6))
			xmlNewProp(in, BAD_CAST "enhanced", sqlite3_column_text(types, 6));
		xmlNodePtr net = xmlNewChild(in, NULL, BAD_CAST "network", NULL);
		const unsigned char *label = sqlite3_column_text(types, 3);
		if (label && *label && strlen((const char *)label) < 64)
			xmlNewProp(net, BAD_CAST "label", label);
		prop_num(net, "gbps", types, 4, false);
		prop_num(net, "baseline-gbps", types, 5, false);
		if (sqlite3_column_type(types, 7) != SQLITE_NULL)
			xmlNewProp(net, BAD_CAST "efa",
				   BAD_CAST(sqlite3_column_int(types, 7) ? "true" : "false"));
		stats->instance_types++;
		sqlite3_reset(prices);
		sqlite3_bind_text(prices, 1, type, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(prices) == SQLITE_ROW) {
			char usd[64];
			xmlNodePtr p = xmlNewChild(in, NULL, BAD_CAST "price", NULL);
			decimal(sqlite3_column_double(prices, 1), usd, sizeof(usd));
			xmlNewProp(p, BAD_CAST "region", sqlite3_column_text(prices, 0));
			xmlNewProp(p, BAD_CAST "usd-per-hour", BAD_CAST usd);
			xmlNewProp(p, BAD_CAST "as-of", sqlite3_column_text(prices, 2));
			xmlNewProp(p, BAD_CAST "source", sqlite3_column_text(prices, 3));
			stats->prices++;
		}
	}
	if (stats->instance_types == 0) {
		ns_err_code(err, NS_E_INPUT, "catalog import: no instance type found in the inputs");
		goto out;
	}
	if (xmlSaveFormatFileEnc(out, doc, "UTF-8", 1) < 0) {
		ns_err_set(err, "%s: cannot write", out);
		goto out;
	}
	rc = 0;
out:
	sqlite3_finalize(types);
	sqlite3_finalize(prices);
	xmlFreeDoc(doc);
	return rc;
}

int catalog_import(const struct catalog_import_opts *o, const char *out_path,
		   struct catalog_import_stats *stats, struct ns_err *err)
{
	sqlite3 *db = NULL;
	int rc = -1;
	memset(stats, 0, sizeof(*stats));
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    sqlite3_exec(db, SCHEMA_SQL, NULL, NULL, NULL) != SQLITE_OK) {
		ns_err_set(err, "catalog import: %s", db ? sqlite3_errmsg(db) : "no memory");
		goto out;
	}
	for (size_t i = 0; i < o->n_regions; i++) {
		const char *v[] = {o->regions[i]};
		if (exec_bound(db, "INSERT OR IGNORE INTO regions VALUES (?1)", v, 1, NULL, "--region",
			       err) < 0)
			goto out;
	}
	for (size_t i = 0; i < o->n_inputs; i++)
		if (import_one(db, o, o->inputs[i], err) < 0)
			goto out;
	if (write_xml(db, o, out_path, stats, err) < 0)
		goto out;
	/* what was written must read back: the same loader and schema as every catalog */
	struct catalog cat;
	catalog_init(&cat);
	rc = catalog_load(&cat, out_path, err);
	catalog_free(&cat);
	if (rc < 0)
		ns_err_prefix(err, "the written catalog does not validate");
out:
	sqlite3_close(db);
	return rc;
}
