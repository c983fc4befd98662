#include "catalog_import.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/tree.h>
#include <libxml/xmlsave.h>
#include <sqlite3.h>

#include "lib/catalog/catalog.h"
#include "catalog_import_int.h"
#include "lib/atomicfile.h"
#include "lib/sys/datadir.h"
#include "lib/sql/jsonr.h"

/* Working tables: what every input adds, merged; then written out in type order. */
static const char SCHEMA_SQL[] =
	"CREATE TABLE itype (type TEXT PRIMARY KEY, vcpus INTEGER, mem REAL, label TEXT,"
	" gbps REAL, baseline REAL, ena TEXT, efa INTEGER, provider TEXT, up_to INTEGER, family TEXT);"
	"CREATE TABLE price (type TEXT, region TEXT, pricing TEXT NOT NULL DEFAULT 'on-demand',"
	" term TEXT NOT NULL DEFAULT '', currency TEXT NOT NULL DEFAULT 'USD', amount REAL,"
	" win TEXT, as_of TEXT, source TEXT, incl REAL, PRIMARY KEY (type, region, pricing, term));"
	"CREATE TABLE gcp_rate (family TEXT, region TEXT, usage TEXT, what TEXT, rate REAL,"
	" currency TEXT, eff TEXT, source TEXT, PRIMARY KEY (family, region, usage, what));"
	"CREATE TABLE gcp_shape (type TEXT PRIMARY KEY, vcpus INTEGER, mem REAL);"
	"CREATE TABLE regions (r TEXT PRIMARY KEY);"
	"CREATE TABLE kinds (k TEXT PRIMARY KEY);"
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
	"INSERT INTO itype (type, vcpus, mem, label, gbps, provider, up_to, family)"
	" SELECT json_extract(a, '$.instanceType'), CAST(json_extract(a, '$.vcpu') AS INTEGER),"
	" CAST(replace(json_extract(a, '$.memory'), ',', '') AS REAL),"
	" json_extract(a, '$.networkPerformance'),"
	" CASE WHEN json_extract(a, '$.networkPerformance') LIKE '%Gigabit' THEN CAST(replace("
	"  json_extract(a, '$.networkPerformance'), 'Up to ', '') AS REAL) END, 'aws',"
	" json_extract(a, '$.networkPerformance') LIKE 'Up to %', " AWS_FAMILY("json_extract(a, '$.instanceType')")
	" FROM prod WHERE" LINUX_ON_DEMAND " GROUP BY 1"
	" ON CONFLICT (type) DO UPDATE SET family = coalesce(family, excluded.family),"
	" vcpus = coalesce(vcpus, excluded.vcpus),"
	" mem = coalesce(mem, excluded.mem), label = coalesce(label, excluded.label),"
	" gbps = coalesce(gbps, excluded.gbps), provider = coalesce(provider, excluded.provider),"
	" up_to = coalesce(up_to, excluded.up_to);"
	"INSERT INTO price (type, region, amount, as_of, source)"
	" SELECT json_extract(p.a, '$.instanceType'), json_extract(p.a, '$.regionCode'),"
	" CAST(o.usd AS REAL), coalesce(?1, substr(coalesce(p.pub, o.eff), 1, 10)), ?2"
	" FROM prod p JOIN od o ON o.sku = p.sku WHERE" LINUX_ON_DEMAND
	" AND o.unit = 'Hrs' AND CAST(o.usd AS REAL) > 0"
	" AND json_extract(p.a, '$.regionCode') IS NOT NULL"
	" AND (NOT EXISTS (SELECT 1 FROM regions) OR json_extract(p.a, '$.regionCode') IN"
	"  (SELECT r FROM regions))"
	" ON CONFLICT (type, region, pricing, term) DO UPDATE SET amount = excluded.amount,"
	" as_of = excluded.as_of, source = excluded.source;"
	"DELETE FROM prod; DELETE FROM od;";

/* describe-instance-types: the authority on the figures it states. Bandwidth of all network
 * cards together (instances with several cards advertise the sum); without NetworkCards, the
 * figure of a "N Gigabit" label. "Up to" types burst to their peak and sustain their baseline. */
static const char TYPES_SQL[] =
	"INSERT INTO itype (type, vcpus, mem, label, gbps, baseline, ena, efa, provider, up_to,"
	" family) SELECT json_extract(t.value, '$.InstanceType'), json_extract(t.value, '$.VCpuInfo.DefaultVCpus'),"
	" json_extract(t.value, '$.MemoryInfo.SizeInMiB') / 1024.0,"
	" json_extract(t.value, '$.NetworkInfo.NetworkPerformance'),"
	" coalesce((SELECT sum(json_extract(c.value, '$.PeakBandwidthInGbps')) FROM"
	"  json_each(t.value, '$.NetworkInfo.NetworkCards') c),"
	"  CASE WHEN json_extract(t.value, '$.NetworkInfo.NetworkPerformance') LIKE '%Gigabit'"
	"  THEN CAST(replace(json_extract(t.value, '$.NetworkInfo.NetworkPerformance'), 'Up to ',"
	"  '') AS REAL) END),"
	" (SELECT sum(json_extract(c.value, '$.BaselineBandwidthInGbps')) FROM"
	"  json_each(t.value, '$.NetworkInfo.NetworkCards') c),"
	" CASE json_extract(t.value, '$.NetworkInfo.EnaSupport') WHEN 'required' THEN 'ena'"
	"  WHEN 'supported' THEN 'ena' END,"
	" json_extract(t.value, '$.NetworkInfo.EfaSupported'), 'aws',"
	" json_extract(t.value, '$.NetworkInfo.NetworkPerformance') LIKE 'Up to %',"
	" " AWS_FAMILY("json_extract(t.value, '$.InstanceType')")
	" FROM json_each(?1, '$.InstanceTypes') t WHERE json_extract(t.value, '$.InstanceType') IS NOT NULL"
	" ON CONFLICT (type) DO UPDATE SET vcpus = coalesce(excluded.vcpus, vcpus),"
	" mem = coalesce(excluded.mem, mem), label = coalesce(excluded.label, label),"
	" gbps = coalesce(excluded.gbps, gbps), baseline = coalesce(excluded.baseline, baseline),"
	" ena = coalesce(excluded.ena, ena), efa = coalesce(excluded.efa, efa),"
	" provider = coalesce(provider, excluded.provider), up_to = coalesce(excluded.up_to, up_to),"
	" family = coalesce(family, excluded.family);";

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

/* The input's format, from its content: an AWS one (FMT_*), FMT_CLOUD + the index of a
 * ci_cloud_formats entry, FMT_UNKNOWN, or -1 when it is not JSON. */
#define FMT_CLOUD 16
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
	if (fmt != FMT_UNKNOWN ||
	    sqlite3_prepare_v2(db, "SELECT json_type(?1, ?2)", -1, &st, NULL) != SQLITE_OK)
		return fmt;
	sqlite3_bind_text(st, 1, doc, (int)len, SQLITE_STATIC);
	for (int i = 0; ci_cloud_formats[i].name; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 2, ci_cloud_formats[i].key, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			fmt = FMT_CLOUD + i;
			break;
		}
	}
	sqlite3_finalize(st);
	return fmt;
}

/* A Scaleway zone in a file name ("products-fr-par-2.json"): two letters, three, a digit. */
static bool zone_in_name(const char *base, char *zone, size_t len)
{
	for (const char *p = base; *p; p++) {
		int ok = 1;
		const char *shape = "aa-aaa-0";
		for (int k = 0; shape[k] && ok; k++)
			ok = shape[k] == 'a' ? p[k] >= 'a' && p[k] <= 'z'
			     : shape[k] == '0' ? p[k] >= '0' && p[k] <= '9' : p[k] == shape[k];
		if (ok && !(p[8] >= '0' && p[8] <= '9') && (p == base || p[-1] < 'a' || p[-1] > 'z')) {
			snprintf(zone, len, "%.8s", p);
			return true;
		}
	}
	return false;
}

static int import_cloud(sqlite3 *db, const struct catalog_import_opts *o, const char *path,
			const char *base, const char *doc, size_t len, int which, struct ns_err *err)
{
	const struct ci_format *f = &ci_cloud_formats[which];
	char source[256], zone[16] = "";
	if (f->needs_zone && !zone_in_name(base, zone, sizeof(zone)))
		return ns_err_code(err, NS_E_INPUT, "%s: %s for which zone? Name the file after it "
				   "(products-fr-par-1.json): the document does not say", path,
				   f->name);
	snprintf(source, sizeof(source), "%s; imported by netsweep catalog import from %.60s",
		 f->source, base);
	const char *v[] = {doc, o->as_of, source, zone[0] ? zone : NULL};
	size_t lens[] = {len, 0, 0, 0};
	if (exec_bound(db, f->sql, v, 4, lens, path, err) < 0)
		return -1;
	if (!f->xsql)
		return 0;
	snprintf(source, sizeof(source), "%.170s; imported by netsweep catalog import from %.40s",
		 f->xsource, base);
	return exec_bound(db, f->xsql, v, 4, lens, path, err);
}

static int import_one(sqlite3 *db, const struct catalog_import_opts *o, const char *path,
		      unsigned *seen, struct ns_err *err)
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
		ns_err_code(err, NS_E_INPUT, "%s: not a price list this import knows (AWS products/"
			    "PriceList/InstanceTypes/SpotPriceHistory, Azure Items, Google Cloud skus "
			    "or machine types, Scaleway servers, Hetzner server_types)", path);
	} else if (fmt >= FMT_CLOUD) {
		*seen |= 1u << (fmt - FMT_CLOUD + 1);
		rc = import_cloud(db, o, path, base, doc, len, fmt - FMT_CLOUD, err);
	} else if (fmt == FMT_INSTANCE_TYPES) {
		const char *v[] = {doc};
		*seen |= 1u;
		rc = exec_bound(db, TYPES_SQL, v, 1, &len, path, err);
	} else {
		snprintf(source, sizeof(source), "AWS Price List %s%.40s%s, on-demand Linux, shared "
			 "tenancy; imported by netsweep catalog import from %.80s",
			 fmt == FMT_OFFER ? "offer file" : "API (aws pricing get-products)",
			 version[0] ? " version " : "", version, base);
		const char *v[] = {doc};
		const char *pv[] = {o->as_of, source};
		*seen |= 1u;
		rc = exec_bound(db, fmt == FMT_OFFER ? OFFER_SQL : GET_PRODUCTS_SQL, v, 1, &len, path,
				err) < 0 ||
		     exec_bound(db, PRICES_SQL, pv, 2, NULL, path, err) < 0 ? -1 : 0;
		/* its "Data Transfer" products, if any: transfer rules */
		snprintf(source, sizeof(source), "AWS Price List %s%.40s%s, Data Transfer products "
			 "(IntraRegion, InterRegion Outbound, AWS Outbound); imported by netsweep "
			 "catalog import from %.60s", fmt == FMT_OFFER ? "offer file" : "API",
			 version[0] ? " version " : "", version, base);
		const char *xv[] = {doc, o->as_of, source};
		size_t xl[] = {len, 0, 0};
		if (rc == 0)
			rc = exec_bound(db, fmt == FMT_OFFER ? CI_AWS_XFER_OFFER_SQL
					: CI_AWS_XFER_GET_PRODUCTS_SQL, xv, 3, xl, path, err);
	}
	free(doc);
	return rc;
}

static int count_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Google Cloud's rates become machine prices with the machine shapes: the inputs' own, else
 * the shipped table (data/catalog/gcp-machine-types.json). Then --region and --pricing. */
static int finish_inputs(sqlite3 *db, const struct catalog_import_opts *o, unsigned *seen,
			 struct ns_err *err)
{
	if (count_rows(db, "SELECT count(*) FROM gcp_rate") > 0) {
		if (count_rows(db, "SELECT count(*) FROM gcp_shape") == 0) {
			char shapes[4096];
			snprintf(shapes, sizeof(shapes), "%s/catalog/gcp-machine-types.json",
				 ns_datadir());
			if (import_one(db, o, shapes, seen, err) < 0)
				return -1;
		}
		const char *v[] = {NULL, o->as_of};
		if (exec_bound(db, CI_GCP_COMPOSE_SQL, v, 2, NULL, "Google Cloud", err) < 0)
			return -1;
	}
	const char *v[] = {NULL};
	if (exec_bound(db, CI_XFER_FINISH_SQL, v, 0, NULL, "--region", err) < 0)
		return -1;
	return exec_bound(db, "DELETE FROM price WHERE (EXISTS (SELECT 1 FROM regions) AND region"
			  " NOT IN (SELECT r FROM regions)) OR (EXISTS (SELECT 1 FROM kinds) AND"
			  " pricing NOT IN (SELECT k FROM kinds));"
			  "DELETE FROM itype WHERE type NOT IN (SELECT type FROM price) AND"
			  " (vcpus IS NULL AND gbps IS NULL);", v, 0, NULL, "--region", err);
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

/* The formats seen, for the catalog's description ("AWS Price List, Azure Retail Prices"). */
static void formats_seen(unsigned seen, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = '\0';
	for (int i = 0; i < 16; i++) {
		if (!(seen & (1u << i)))
			continue;
		const char *name = i == 0 ? "AWS Price List / describe-instance-types"
				   : ci_cloud_formats[i - 1].name;
		if (i > 1 && !strcmp(name, ci_cloud_formats[i - 2].name))
			continue;
		int w = snprintf(buf + n, len - n, "%s%s", n ? ", " : "", name);
		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
}

static void prop_text(xmlNodePtr n, const char *name, sqlite3_stmt *st, int col, size_t max)
{
	const unsigned char *v = sqlite3_column_text(st, col);
	char b[256];
	if (!v || !*v)
		return;
	snprintf(b, sizeof(b) < max + 1 ? sizeof(b) : max + 1, "%s", (const char *)v);
	xmlNewProp(n, BAD_CAST name, BAD_CAST b);
}

static void write_price(xmlNodePtr in, sqlite3_stmt *prices)
{
	char amount[64];
	xmlNodePtr p = xmlNewChild(in, NULL, BAD_CAST "price", NULL);
	decimal(sqlite3_column_double(prices, 1), amount, sizeof(amount));
	const char *cur = (const char *)sqlite3_column_text(prices, 4);
	const char *pricing = (const char *)sqlite3_column_text(prices, 5);
	xmlNewProp(p, BAD_CAST "region", sqlite3_column_text(prices, 0));
	if (cur && strcmp(cur, "USD") != 0) {
		xmlNewProp(p, BAD_CAST "per-hour", BAD_CAST amount);
		xmlNewProp(p, BAD_CAST "currency", BAD_CAST cur);
	} else {
		xmlNewProp(p, BAD_CAST "usd-per-hour", BAD_CAST amount);
	}
	if (pricing && strcmp(pricing, "on-demand") != 0)
		xmlNewProp(p, BAD_CAST "pricing", BAD_CAST pricing);
	prop_text(p, "term", prices, 6, 7);
	prop_text(p, "window", prices, 7, 255);
	prop_num(p, "included-gb-month", prices, 8, false);
	xmlNewProp(p, BAD_CAST "as-of", sqlite3_column_text(prices, 2));
	prop_text(p, "source", prices, 3, 255);
}

static int write_xml(sqlite3 *db, const struct catalog_import_opts *o, const char *out,
		     unsigned seen, struct catalog_import_stats *stats, struct ns_err *err)
{
	sqlite3_stmt *types = NULL, *prices = NULL;
	xmlDocPtr doc = xmlNewDoc(BAD_CAST "1.0");
	xmlNodePtr root = xmlNewNode(NULL, BAD_CAST "catalog");
	char desc[256], when[48] = "", formats[160], provider[32] = "";
	formats_seen(seen, formats, sizeof(formats));
	/* the prices' own dates, not today's: the same inputs write the same catalog */
	sqlite3_stmt *ds = NULL;
	if (sqlite3_prepare_v2(db, "SELECT min(as_of), max(as_of) FROM price", -1, &ds,
			       NULL) == SQLITE_OK && sqlite3_step(ds) == SQLITE_ROW &&
	    sqlite3_column_text(ds, 0)) {
		const char *lo = (const char *)sqlite3_column_text(ds, 0);
		const char *hi = (const char *)sqlite3_column_text(ds, 1);
		snprintf(when, sizeof(when), "; prices as of %.10s%s%.10s", lo,
			 strcmp(lo, hi) ? " to " : "", strcmp(lo, hi) ? hi : "");
	}
	sqlite3_finalize(ds);
	xmlDocSetRootElement(doc, root);
	/* one provider: the catalog's name and provider; several: each instance says its own */
	sqlite3_stmt *pv = NULL;
	if (sqlite3_prepare_v2(db, "SELECT min(provider) FROM itype HAVING count(DISTINCT provider)"
			       " = 1 AND count(provider) = count(*)", -1, &pv, NULL) == SQLITE_OK &&
	    sqlite3_step(pv) == SQLITE_ROW && sqlite3_column_text(pv, 0))
		snprintf(provider, sizeof(provider), "%s", (const char *)sqlite3_column_text(pv, 0));
	sqlite3_finalize(pv);
	xmlNewProp(root, BAD_CAST "name", BAD_CAST(o->name ? o->name : provider[0] ? provider
									       : "imported"));
	snprintf(desc, sizeof(desc), "Imported by netsweep catalog import from %s%s", formats,
		 when);
	xmlNewProp(root, BAD_CAST "description", BAD_CAST(o->description ? o->description : desc));
	if (provider[0])
		xmlNewProp(root, BAD_CAST "provider", BAD_CAST provider);
	int rc = -1;
	if (sqlite3_prepare_v2(db, "SELECT type, vcpus, mem, label, gbps, baseline, ena, efa,"
			       " provider, up_to, family FROM itype ORDER BY type", -1, &types,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT region, amount, as_of, source, currency, pricing, term,"
			       " win, incl FROM price WHERE type = ?1 ORDER BY region, pricing = 'reserved',"
			       " pricing, term", -1, &prices, NULL) != SQLITE_OK) {
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
		if (!provider[0])
			prop_text(in, "provider", types, 8, 31);
		prop_text(in, "family", types, 10, 63);
		xmlNodePtr net = xmlNewChild(in, NULL, BAD_CAST "network", NULL);
		const unsigned char *label = sqlite3_column_text(types, 3);
		if (label && *label && strlen((const char *)label) < 64)
			xmlNewProp(net, BAD_CAST "label", label);
		prop_num(net, "gbps", types, 4, false);
		prop_num(net, "baseline-gbps", types, 5, false);
		if (sqlite3_column_type(types, 7) != SQLITE_NULL)
			xmlNewProp(net, BAD_CAST "efa",
				   BAD_CAST(sqlite3_column_int(types, 7) ? "true" : "false"));
		if (sqlite3_column_int(types, 9) && sqlite3_column_double(types, 4) > 0)
			xmlNewProp(net, BAD_CAST "up-to", BAD_CAST "true");
		stats->instance_types++;
		sqlite3_reset(prices);
		sqlite3_bind_text(prices, 1, type, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(prices) == SQLITE_ROW) {
			write_price(in, prices);
			stats->prices++;
		}
	}
	if (ci_write_transfers(db, root, &stats->transfers) < 0) {
		ns_err_set(err, "catalog import: %s", sqlite3_errmsg(db));
		goto out;
	}
	if (stats->instance_types == 0 && stats->transfers == 0) {
		ns_err_code(err, NS_E_INPUT, "catalog import: no instance type or transfer price found "
			    "in the inputs");
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
	struct jsonr *reader = NULL;
	sqlite3 *db = NULL;
	struct atomicfile af = {0};
	int rc = -1;
	memset(stats, 0, sizeof(*stats));
	/* the price lists are JSON turned into rows by SQL: lib/sql/jsonr's connection holds them */
	if (jsonr_open(&reader, err) < 0)
		goto out;
	db = jsonr_sql(reader);
	if (sqlite3_exec(db, SCHEMA_SQL, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(db, CI_XFER_SCHEMA_SQL, NULL, NULL, NULL) != SQLITE_OK) {
		ns_err_set(err, "catalog import: %s", sqlite3_errmsg(db));
		goto out;
	}
	for (size_t i = 0; i < o->n_regions; i++) {
		const char *v[] = {o->regions[i]};
		if (exec_bound(db, "INSERT OR IGNORE INTO regions VALUES (?1)", v, 1, NULL, "--region",
			       err) < 0)
			goto out;
	}
	for (size_t i = 0; i < o->n_pricings; i++) {
		const char *v[] = {o->pricings[i]};
		if (exec_bound(db, "INSERT OR IGNORE INTO kinds VALUES (?1)", v, 1, NULL, "--pricing",
			       err) < 0)
			goto out;
	}
	unsigned seen = 0;
	for (size_t i = 0; i < o->n_inputs; i++)
		if (import_one(db, o, o->inputs[i], &seen, err) < 0)
			goto out;
	if (finish_inputs(db, o, &seen, err) < 0 || atomicfile_open(&af, out_path, 0644, 0, err) < 0)
		goto out;
	if (write_xml(db, o, af.tmp, seen, stats, err) < 0)
		goto out;
	/* what was written must read back (the same loader and schema as every catalog) before
	 * it takes the place of out_path */
	struct catalog cat;
	catalog_init(&cat);
	rc = catalog_load(&cat, af.tmp, err);
	catalog_free(&cat);
	if (rc < 0) {
		ns_err_prefix(err, "the catalog for %s does not validate (%s left as it was)", out_path,
			      out_path);
		goto out;
	}
	rc = atomicfile_commit(&af, err);
out:
	atomicfile_abort(&af);
	jsonr_close(reader);
	return rc;
}
