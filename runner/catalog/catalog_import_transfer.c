/* catalog_import_transfer: the providers' published transfer prices as catalog <transfer>
 * rules (schemas/transfer-pricing.md says each provider's rule and what is left out). Each
 * format's SQL reads one document into the working table xfer (a rule's tiers as rows by
 * their lower bound, in GB of 10^9 bytes); ci_write_transfers writes them out. Bindings as for
 * the prices: ?1 the document, ?2 the --as-of override, ?3 the source text, ?4 a Scaleway
 * file's zone. */
#include "catalog_import_int.h"

#include <stdio.h>
#include <string.h>

#include <libxml/tree.h>
#include <sqlite3.h>

#define XFER_UPSERT \
	" ON CONFLICT (provider, region, relation, peer, lo) DO UPDATE SET billed = excluded.billed," \
	" currency = excluded.currency, as_of = excluded.as_of, source = excluded.source," \
	" per_gb = excluded.per_gb;"

const char CI_XFER_SCHEMA_SQL[] =
	"CREATE TABLE xfer (provider TEXT NOT NULL, region TEXT NOT NULL, relation TEXT NOT NULL,"
	" peer TEXT NOT NULL DEFAULT '', billed TEXT NOT NULL, currency TEXT NOT NULL,"
	" as_of TEXT NOT NULL, source TEXT NOT NULL, lo REAL NOT NULL, per_gb REAL NOT NULL,"
	" PRIMARY KEY (provider, region, relation, peer, lo));";

/* AWS Price List "Data Transfer" products (the AWSDataTransfer offer, or the AmazonEC2 offer's
 * data transfer products) as dt (sku, attributes) and dtp (sku, a dimension). */
#define AWS_XFER_COMMON \
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo," \
	" per_gb) SELECT 'aws', json_extract(a, '$.fromRegionCode'), CASE json_extract(a," \
	"  '$.transferType') WHEN 'IntraRegion' THEN 'cross-zone' WHEN 'InterRegion Outbound'" \
	"  THEN 'cross-region' ELSE 'internet' END," \
	" CASE json_extract(a, '$.transferType') WHEN 'InterRegion Outbound' THEN" \
	"  json_extract(a, '$.toRegionCode') ELSE '' END," \
	" CASE json_extract(a, '$.transferType') WHEN 'IntraRegion' THEN 'both' ELSE 'sender' END," \
	" 'USD', coalesce(?2, p.eff), ?3, coalesce(p.lo, 0), p.usd FROM dt JOIN dtp p USING (sku)" \
	" WHERE p.unit = 'GB' AND p.usd >= 0 AND json_extract(a, '$.fromRegionCode') IS NOT NULL" \
	" AND (json_extract(a, '$.transferType') = 'IntraRegion'" \
	"  OR (json_extract(a, '$.transferType') = 'InterRegion Outbound'" \
	"   AND json_extract(a, '$.toRegionCode') IS NOT NULL" \
	"   AND json_extract(a, '$.toRegionCode') <> json_extract(a, '$.fromRegionCode'))" \
	"  OR (json_extract(a, '$.transferType') = 'AWS Outbound'" \
	"   AND json_extract(a, '$.toLocation') = 'External'))" XFER_UPSERT \
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo," \
	" per_gb) SELECT DISTINCT 'aws', region, 'same-zone', '', 'both', 'USD', as_of," \
	" 'AWS EC2 On-Demand pricing page: within one Availability Zone over private IP is free" \
	" (a rule of the page, not a Price List product); added by netsweep catalog import', 0, 0" \
	" FROM xfer WHERE provider = 'aws' AND relation = 'cross-zone'" \
	" ON CONFLICT (provider, region, relation, peer, lo) DO NOTHING;" \
	"DROP TABLE dt; DROP TABLE dtp;"

const char CI_AWS_XFER_OFFER_SQL[] =
	"CREATE TEMP TABLE dt AS SELECT key AS sku, json_extract(value, '$.attributes') AS a"
	" FROM json_each(?1, '$.products')"
	" WHERE json_extract(value, '$.productFamily') = 'Data Transfer';"
	"CREATE TEMP TABLE dtp AS SELECT t.key AS sku,"
	" CAST(json_extract(d.value, '$.beginRange') AS REAL) AS lo,"
	" CAST(json_extract(d.value, '$.pricePerUnit.USD') AS REAL) AS usd,"
	" json_extract(d.value, '$.unit') AS unit,"
	" substr(json_extract(o.value, '$.effectiveDate'), 1, 10) AS eff"
	" FROM json_each(?1, '$.terms.OnDemand') t, json_each(t.value) o,"
	" json_each(o.value, '$.priceDimensions') d WHERE t.key IN (SELECT sku FROM dt);"
	AWS_XFER_COMMON;

const char CI_AWS_XFER_GET_PRODUCTS_SQL[] =
	"CREATE TEMP TABLE dt AS SELECT json_extract(e.value, '$.product.sku') AS sku,"
	" json_extract(e.value, '$.product.attributes') AS a FROM json_each(?1, '$.PriceList') e"
	" WHERE json_extract(e.value, '$.product.productFamily') = 'Data Transfer';"
	"CREATE TEMP TABLE dtp AS SELECT json_extract(e.value, '$.product.sku') AS sku,"
	" CAST(json_extract(d.value, '$.beginRange') AS REAL) AS lo,"
	" CAST(json_extract(d.value, '$.pricePerUnit.USD') AS REAL) AS usd,"
	" json_extract(d.value, '$.unit') AS unit,"
	" substr(json_extract(o.value, '$.effectiveDate'), 1, 10) AS eff"
	" FROM json_each(?1, '$.PriceList') e, json_each(e.value, '$.terms.OnDemand') o,"
	" json_each(o.value, '$.priceDimensions') d"
	" WHERE json_extract(e.value, '$.product.productFamily') = 'Data Transfer';"
	AWS_XFER_COMMON;

/* Azure Retail Prices, serviceName "Bandwidth": internet egress from the "Standard Data
 * Transfer Out" meters routed over Microsoft's network (productName "Rtn Preference: MGN"),
 * tiers from tierMinimumUnits, and a free same zone for their regions; the "Intra Continent Data Transfer Out" meter is staged with
 * peer '~continent' and made one rule per peer region of the same continent once every
 * input is read (CI_XFER_FINISH_SQL). */
const char CI_AZURE_XFER_SQL[] =
	"CREATE TEMP TABLE bw AS SELECT json_extract(value, '$.armRegionName') AS region,"
	" json_extract(value, '$.meterName') AS meter, json_extract(value, '$.productName') AS product,"
	" CAST(coalesce(json_extract(value, '$.tierMinimumUnits'), 0) AS REAL) AS lo,"
	" CAST(json_extract(value, '$.retailPrice') AS REAL) AS price,"
	" json_extract(value, '$.currencyCode') AS currency,"
	" substr(json_extract(value, '$.effectiveStartDate'), 1, 10) AS eff"
	" FROM json_each(?1, '$.Items') WHERE json_extract(value, '$.serviceName') = 'Bandwidth'"
	" AND json_extract(value, '$.unitOfMeasure') = '1 GB'"
	" AND coalesce(json_extract(value, '$.type'), 'Consumption') = 'Consumption'"
	" AND json_extract(value, '$.armRegionName') IS NOT NULL"
	" AND CAST(json_extract(value, '$.retailPrice') AS REAL) >= 0"
	" AND json_extract(value, '$.currencyCode') GLOB '[A-Z][A-Z][A-Z]';"
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT 'azure', region, CASE meter WHEN 'Standard Data Transfer Out' THEN"
	"  'internet' ELSE 'cross-region' END, CASE meter WHEN 'Standard Data Transfer Out' THEN ''"
	"  ELSE '~continent' END, 'sender', currency, coalesce(?2, eff), ?3, lo, price FROM bw"
	" WHERE (meter = 'Standard Data Transfer Out' AND product = 'Rtn Preference: MGN')"
	" OR meter = 'Intra Continent Data Transfer Out'" XFER_UPSERT
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT DISTINCT 'azure', region, 'same-zone', '', 'both', currency,"
	" coalesce(?2, eff), 'Azure bandwidth pricing page as summarised by lucidity.cloud: transfers"
	" within the same Availability Zone are free (not a meter); added by netsweep catalog import',"
	" 0, 0 FROM bw WHERE meter = 'Standard Data Transfer Out' AND product = 'Rtn Preference: MGN'"
	" ON CONFLICT (provider, region, relation, peer, lo) DO NOTHING;"
	"DROP TABLE bw;";

/* Google Cloud Billing Catalog, resourceFamily "Network": the InterzoneEgress SKUs (usage
 * unit GiBy, converted to per GB), charged at the source, and the pricing page's free same
 * zone for their regions. Inter-region and internet SKUs are priced by destination continent
 * and left out. */
const char CI_GCP_XFER_SQL[] =
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT 'gcp', r.value, 'cross-zone', '', 'sender',"
	" json_extract(t.value, '$.unitPrice.currencyCode'),"
	" coalesce(?2, substr(json_extract(s.value, '$.pricingInfo[0].effectiveTime'), 1, 10)), ?3,"
	" CAST(coalesce(json_extract(t.value, '$.startUsageAmount'), 0) AS REAL) * 1.073741824,"
	" (CAST(coalesce(json_extract(t.value, '$.unitPrice.units'), 0) AS REAL) +"
	"  coalesce(json_extract(t.value, '$.unitPrice.nanos'), 0) / 1e9) / 1.073741824"
	" FROM json_each(?1, '$.skus') s, json_each(s.value, '$.serviceRegions') r,"
	" json_each(s.value, '$.pricingInfo[0].pricingExpression.tieredRates') t"
	" WHERE json_extract(s.value, '$.category.resourceFamily') = 'Network'"
	" AND json_extract(s.value, '$.category.resourceGroup') = 'InterzoneEgress'"
	" AND json_extract(s.value, '$.pricingInfo[0].pricingExpression.usageUnit') = 'GiBy'"
	" AND json_extract(t.value, '$.unitPrice.currencyCode') GLOB '[A-Z][A-Z][A-Z]'" XFER_UPSERT
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT DISTINCT 'gcp', region, 'same-zone', '', 'both', currency, as_of,"
	" 'Google Cloud VPC pricing page: data transfer to the same zone over internal IPv4/IPv6"
	" in the same VPC has no charge (not a SKU); added by netsweep catalog import', 0, 0"
	" FROM xfer WHERE provider = 'gcp' AND relation = 'cross-zone'"
	" ON CONFLICT (provider, region, relation, peer, lo) DO NOTHING;";

/* Hetzner's network zones (Cloud: fsn1, nbg1, hel1 eu-central; ash us-east; hil us-west; sin
 * ap-southeast): traffic inside one is internal and free. */
#define HZ_ZONE(x) "CASE " x " WHEN 'fsn1' THEN 'eu-central' WHEN 'nbg1' THEN 'eu-central'" \
	" WHEN 'hel1' THEN 'eu-central' WHEN 'ash' THEN 'us-east' WHEN 'hil' THEN 'us-west'" \
	" WHEN 'sin' THEN 'ap-southeast' END"

/* Hetzner Cloud server_types: per location, outgoing traffic past the included allowance at
 * price_per_tb_traffic (net, EUR per TiB; the highest where types differ) as the internet
 * rule; free within a location and to the locations of its network zone, the internet rate to
 * the other locations the input names. The allowance itself goes on each price (incl). */
const char CI_HETZNER_XFER_SQL[] =
	"CREATE TEMP TABLE hx AS WITH h AS (SELECT value AS t FROM json_each(?1, '$.server_types')"
	"  UNION ALL SELECT json_extract(?1, '$.server_type') WHERE json_type(?1, '$.server_type')"
	"  = 'object')"
	" SELECT json_extract(p.value, '$.location') AS loc,"
	" max(CAST(json_extract(p.value, '$.price_per_tb_traffic.net') AS REAL)) / 1099.511627776"
	"  AS per_gb FROM h, json_each(h.t, '$.prices') p"
	" WHERE json_extract(p.value, '$.location') IS NOT NULL"
	" AND json_type(p.value, '$.price_per_tb_traffic.net') IS NOT NULL GROUP BY 1;"
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT 'hetzner', loc, 'internet', '', 'sender', 'EUR', coalesce(?2, date('now')),"
	" ?3, 0, per_gb FROM hx WHERE true" XFER_UPSERT
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT 'hetzner', loc, 'same-zone', '', 'both', 'EUR', coalesce(?2, date('now')),"
	" ?3, 0, 0 FROM hx WHERE true" XFER_UPSERT
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT 'hetzner', a.loc, 'cross-region', b.loc,"
	" CASE WHEN " HZ_ZONE("a.loc") " = " HZ_ZONE("b.loc") " THEN 'both' ELSE 'sender' END,"
	" 'EUR', coalesce(?2, date('now')), ?3, 0,"
	" CASE WHEN " HZ_ZONE("a.loc") " = " HZ_ZONE("b.loc") " THEN 0 ELSE a.per_gb END"
	" FROM hx a, hx b WHERE a.loc <> b.loc AND " HZ_ZONE("a.loc") " IS NOT NULL"
	" AND " HZ_ZONE("b.loc") " IS NOT NULL" XFER_UPSERT
	"DROP TABLE hx;";

/* Scaleway: its billing pages list no per-GB traffic charge for Instances (hours, flexible
 * IPv4s and volumes are what is billed): zero rules for the file's zone (?4). */
const char CI_SCALEWAY_XFER_SQL[] =
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT 'scaleway', ?4, r.value, '', 'both', 'EUR', coalesce(?2, date('now')), ?3,"
	" 0, 0 FROM json_each('[\"same-zone\",\"cross-zone\",\"internet\"]') r"
	" WHERE json_type(?1, '$.servers') = 'object'" XFER_UPSERT;

/* Azure's continents for its inter-region meters: North America and Europe by region name. */
#define AZ_CONT(x) "CASE WHEN " x " GLOB '*us' OR " x " GLOB '*us[23]' OR " x " GLOB 'canada*'" \
	" THEN 'NAM' WHEN " x " IN ('northeurope', 'westeurope') OR " x " GLOB 'uk*' OR " x \
	" GLOB 'france*' OR " x " GLOB 'germany*' OR " x " GLOB 'sweden*' OR " x " GLOB 'norway*'" \
	" OR " x " GLOB 'switzerland*' OR " x " GLOB 'poland*' OR " x " GLOB 'italy*' OR " x \
	" GLOB 'spain*' THEN 'EU' END"

/* Once every input is read: Azure's intra-continent rate for each peer region of the same
 * continent that the inputs name; then --region. */
const char CI_XFER_FINISH_SQL[] =
	"INSERT INTO xfer (provider, region, relation, peer, billed, currency, as_of, source, lo,"
	" per_gb) SELECT x.provider, x.region, 'cross-region', q.r, x.billed, x.currency, x.as_of,"
	" x.source, x.lo, x.per_gb FROM xfer x, (SELECT region AS r FROM xfer WHERE provider ="
	"  'azure' UNION SELECT p.region FROM price p JOIN itype i ON i.type = p.type"
	"  WHERE i.provider = 'azure') q"
	" WHERE x.peer = '~continent' AND q.r <> x.region AND " AZ_CONT("x.region") " IS NOT NULL"
	" AND " AZ_CONT("q.r") " = " AZ_CONT("x.region")
	" ON CONFLICT (provider, region, relation, peer, lo) DO NOTHING;"
	"DELETE FROM xfer WHERE peer = '~continent';"
	"DELETE FROM xfer WHERE EXISTS (SELECT 1 FROM regions) AND region NOT IN"
	" (SELECT r FROM regions);";

/* xs:decimal text with up to 9 decimals (a per-GB price past a TiB allowance is 0.000909...). */
static void fine_decimal(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.9f", v);
	char *e = buf + strlen(buf) - 1;
	while (e > buf && *e == '0')
		*e-- = '\0';
	if (*e == '.')
		*e = '\0';
}

int ci_write_transfers(sqlite3 *db, xmlNodePtr root, size_t *n)
{
	sqlite3_stmt *rules = NULL, *tiers = NULL;
	int rc = -1;
	/* a rule's tiers must start at 0 GB: one whose first band is missing is not written */
	if (sqlite3_prepare_v2(db, "SELECT provider, region, relation, peer, min(billed),"
			       " min(currency), max(as_of), min(source) FROM xfer"
			       " GROUP BY provider, region, relation, peer HAVING min(lo) = 0"
			       " ORDER BY provider, region, relation, peer", -1, &rules,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT lo, per_gb FROM xfer WHERE provider = ?1 AND region = ?2"
			       " AND relation = ?3 AND peer = ?4 ORDER BY lo", -1, &tiers,
			       NULL) != SQLITE_OK)
		goto out;
	while (sqlite3_step(rules) == SQLITE_ROW) {
		xmlNodePtr t = xmlNewChild(root, NULL, BAD_CAST "transfer", NULL);
		static const char *const attrs[] = {"provider", "region", "relation", "peer-region",
						    "billed", "currency", "as-of", "source"};
		for (int i = 0; i < 8; i++) {
			const char *v = (const char *)sqlite3_column_text(rules, i);
			char b[256];
			if (!v || !*v)
				continue;
			snprintf(b, sizeof(b), "%s", v);
			xmlNewProp(t, BAD_CAST attrs[i], BAD_CAST b);
		}
		sqlite3_reset(tiers);
		for (int i = 0; i < 4; i++)
			sqlite3_bind_text(tiers, i + 1, (const char *)sqlite3_column_text(rules, i), -1,
					  SQLITE_TRANSIENT);
		int have = sqlite3_step(tiers);
		while (have == SQLITE_ROW) {
			char per[64], upto[64];
			xmlNodePtr k = xmlNewChild(t, NULL, BAD_CAST "tier", NULL);
			fine_decimal(sqlite3_column_double(tiers, 1), per, sizeof(per));
			have = sqlite3_step(tiers);
			if (have == SQLITE_ROW) {
				fine_decimal(sqlite3_column_double(tiers, 0), upto, sizeof(upto));
				xmlNewProp(k, BAD_CAST "up-to-gb", BAD_CAST upto);
			}
			xmlNewProp(k, BAD_CAST "per-gb", BAD_CAST per);
		}
		(*n)++;
	}
	rc = 0;
out:
	sqlite3_finalize(rules);
	sqlite3_finalize(tiers);
	return rc;
}
