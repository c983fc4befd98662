/* catalog_import_clouds: the price lists of providers other than AWS's Price List, each as
 * SQL over SQLite's JSON functions into catalog_import.c's working tables (itype, price,
 * gcp_rate, gcp_shape). Every statement binds ?1 the document, ?2 the --as-of override (NULL
 * = the list's own date), ?3 the source text, ?4 the zone a Scaleway file is of. What each
 * keeps and what it leaves out is said in `netsweep catalog import --help`. */
#include "catalog_import_int.h"

#include <stddef.h>

/* Azure Retail Prices API (prices.azure.com/api/retail/prices), one page per file: Virtual
 * Machines meters by the hour. Kept: Linux pay-as-you-go (type Consumption), its Spot meter
 * (skuName "... Spot") and reservations, whose retailPrice is the whole term's price
 * (spread here over its hours). Left out: Windows meters (productName "... Windows"), Low
 * Priority meters, Dev/Test prices (type DevTestConsumption) and non-primary meter regions. */
static const char AZURE_SQL[] =
	"CREATE TEMP TABLE az AS SELECT json_extract(value, '$.armSkuName') AS type,"
	" json_extract(value, '$.armRegionName') AS region,"
	" CASE WHEN json_extract(value, '$.type') = 'Reservation' THEN 'reserved'"
	"  WHEN json_extract(value, '$.skuName') LIKE '% Spot' THEN 'spot' ELSE 'on-demand' END"
	"  AS pricing,"
	" CASE WHEN json_extract(value, '$.type') = 'Reservation' THEN"
	"  CAST(json_extract(value, '$.reservationTerm') AS INTEGER) || 'yr' ELSE '' END AS term,"
	" json_extract(value, '$.currencyCode') AS currency,"
	" CAST(json_extract(value, '$.retailPrice') AS REAL) / CASE WHEN json_extract(value,"
	"  '$.type') = 'Reservation' THEN CAST(json_extract(value, '$.reservationTerm') AS INTEGER)"
	"  * 8760.0 ELSE 1 END AS amount,"
	" substr(json_extract(value, '$.effectiveStartDate'), 1, 10) AS eff,"
	" CASE WHEN json_extract(value, '$.productName') LIKE 'Virtual Machines % Series' THEN"
	"  substr(json_extract(value, '$.productName'), 18,"
	"  length(json_extract(value, '$.productName')) - 24) END AS family"
	" FROM json_each(?1, '$.Items')"
	" WHERE json_extract(value, '$.serviceName') = 'Virtual Machines'"
	" AND json_extract(value, '$.unitOfMeasure') = '1 Hour'"
	" AND json_extract(value, '$.type') IN ('Consumption', 'Reservation')"
	" AND json_extract(value, '$.productName') NOT LIKE '%Windows%'"
	" AND json_extract(value, '$.skuName') NOT LIKE '%Low Priority%'"
	" AND coalesce(json_extract(value, '$.isPrimaryMeterRegion'), 1) = 1"
	" AND json_extract(value, '$.armSkuName') IS NOT NULL"
	" AND json_extract(value, '$.armRegionName') IS NOT NULL"
	" AND (json_extract(value, '$.type') <> 'Reservation' OR"
	"  CAST(json_extract(value, '$.reservationTerm') AS INTEGER) BETWEEN 1 AND 10);"
	"INSERT INTO itype (type, provider, family) SELECT type, 'azure', min(CASE WHEN"
	"  family <> '' AND family NOT GLOB '*[^A-Za-z0-9._-]*' AND length(family) < 64 THEN"
	"  family END) FROM az GROUP BY type"
	" ON CONFLICT (type) DO UPDATE SET provider = coalesce(provider, excluded.provider),"
	" family = coalesce(family, excluded.family);"
	"INSERT INTO price (type, region, pricing, term, currency, amount, win, as_of, source)"
	" SELECT type, region, pricing, term, currency, amount,"
	" CASE pricing WHEN 'spot' THEN 'Azure Spot price as listed from ' || eff ||"
	"  ' (it moves with demand; evictions not counted)' END, coalesce(?2, eff), ?3"
	" FROM az WHERE amount > 0 AND currency GLOB '[A-Z][A-Z][A-Z]'"
	" ON CONFLICT (type, region, pricing, term) DO UPDATE SET currency = excluded.currency,"
	" amount = excluded.amount, win = excluded.win, as_of = excluded.as_of,"
	" source = excluded.source;"
	"DROP TABLE az;";

/* Google Cloud Billing Catalog (cloudbilling services/6F81-5844-456A/skus): predefined
 * machines' per-vCPU ("<FAMILY> [Predefined ]Instance Core running in ...", usage unit h)
 * and per-GiB ("... Instance Ram ...", GiBy.h) rates, on demand, Spot/Preemptible and
 * committed use ("Commitment v1: <FAMILY> Cpu/Ram in ... for 1 Year"). Left out: custom,
 * sole-tenant and extended-memory SKUs, and every other resource. The rates are composed
 * into machine prices with the machine shapes (gcp_shape) once every input is read. */
static const char GCP_SQL[] =
	"CREATE TEMP TABLE g AS SELECT json_extract(s.value, '$.description') AS d,"
	" json_extract(s.value, '$.category.usageType') AS usage,"
	" json_extract(s.value, '$.pricingInfo[0].pricingExpression.usageUnit') AS unit,"
	" (SELECT CAST(json_extract(t.value, '$.unitPrice.units') AS REAL) +"
	"  coalesce(json_extract(t.value, '$.unitPrice.nanos'), 0) / 1e9 FROM"
	"  json_each(s.value, '$.pricingInfo[0].pricingExpression.tieredRates') t WHERE"
	"  CAST(json_extract(t.value, '$.unitPrice.units') AS REAL) +"
	"  coalesce(json_extract(t.value, '$.unitPrice.nanos'), 0) > 0"
	"  ORDER BY json_extract(t.value, '$.startUsageAmount') LIMIT 1) AS rate,"
	" json_extract(s.value, '$.pricingInfo[0].pricingExpression.tieredRates[0].unitPrice"
	".currencyCode') AS currency,"
	" substr(json_extract(s.value, '$.pricingInfo[0].effectiveTime'), 1, 10) AS eff,"
	" s.value AS sku FROM json_each(?1, '$.skus') s"
	" WHERE json_extract(s.value, '$.category.resourceFamily') = 'Compute'"
	" AND json_extract(s.value, '$.category.usageType') IN"
	"  ('OnDemand', 'Preemptible', 'Commit1Yr', 'Commit3Yr')"
	" AND json_extract(s.value, '$.description') NOT LIKE '%Custom%'"
	" AND json_extract(s.value, '$.description') NOT LIKE '%Sole Tenancy%'"
	" AND json_extract(s.value, '$.description') NOT LIKE '%Extended%';"
	"CREATE TEMP TABLE g2 AS SELECT usage, unit, rate, currency, eff, sku,"
	" CASE WHEN d LIKE '% Instance Core running in %' OR d LIKE 'Commitment v1: % Cpu in %'"
	"  THEN 'core' WHEN d LIKE '% Instance Ram running in %' OR d LIKE 'Commitment v1: % Ram in %'"
	"  THEN 'ram' END AS what,"
	" replace(replace(replace(d, 'Commitment v1: ', ''), 'Spot Preemptible ', ''),"
	"  'Preemptible ', '') AS rest FROM g;"
	"INSERT INTO gcp_rate (family, region, usage, what, rate, currency, eff, source)"
	" SELECT upper(substr(rest, 1, instr(rest, ' ') - 1)), r.value, usage, what, rate,"
	" currency, eff, ?3 FROM g2, json_each(g2.sku, '$.serviceRegions') r"
	" WHERE what IS NOT NULL AND rate > 0 AND instr(rest, ' ') > 1"
	" AND unit = CASE what WHEN 'core' THEN 'h' ELSE 'GiBy.h' END"
	" AND currency GLOB '[A-Z][A-Z][A-Z]'"
	" ON CONFLICT (family, region, usage, what) DO UPDATE SET rate = excluded.rate,"
	" currency = excluded.currency, eff = excluded.eff, source = excluded.source;"
	"DROP TABLE g; DROP TABLE g2;";

/* `gcloud compute machine-types list --format=json` (or the Compute API's list items):
 * each machine type's vCPUs and memory, to compose the Billing Catalog's rates with. */
static const char GCP_SHAPES_SQL[] =
	"INSERT INTO gcp_shape (type, vcpus, mem) SELECT json_extract(value, '$.name'),"
	" json_extract(value, '$.guestCpus'), json_extract(value, '$.memoryMb') / 1024.0"
	" FROM json_each(?1) WHERE json_extract(value, '$.guestCpus') > 0"
	" AND json_extract(value, '$.memoryMb') > 0 AND json_extract(value, '$.name') IS NOT NULL"
	" ON CONFLICT (type) DO NOTHING;";

/* Machine prices: vCPUs x the family's core rate + GiB x its RAM rate, per region and usage
 * type, where both rates are known in one currency. */
const char CI_GCP_COMPOSE_SQL[] =
	"INSERT INTO itype (type, vcpus, mem, provider, family) SELECT s.type, s.vcpus, s.mem, 'gcp',"
	" CASE WHEN rtrim(s.type, '0123456789') <> s.type THEN rtrim(rtrim(s.type, '0123456789'),"
	"  '-') ELSE substr(s.type, 1, instr(s.type, '-') - 1) END"
	" FROM gcp_shape s WHERE EXISTS (SELECT 1 FROM gcp_rate r WHERE r.family ="
	"  upper(substr(s.type, 1, instr(s.type, '-') - 1)))"
	" ON CONFLICT (type) DO UPDATE SET vcpus = coalesce(vcpus, excluded.vcpus),"
	" mem = coalesce(mem, excluded.mem), provider = coalesce(provider, excluded.provider),"
	" family = coalesce(family, excluded.family);"
	"INSERT INTO price (type, region, pricing, term, currency, amount, win, as_of, source)"
	" SELECT s.type, c.region, CASE c.usage WHEN 'OnDemand' THEN 'on-demand'"
	"  WHEN 'Preemptible' THEN 'spot' ELSE 'reserved' END,"
	" CASE c.usage WHEN 'Commit1Yr' THEN '1yr' WHEN 'Commit3Yr' THEN '3yr' ELSE '' END,"
	" c.currency, s.vcpus * c.rate + s.mem * m.rate,"
	" CASE c.usage WHEN 'Preemptible' THEN 'GCP Spot VM rates as listed from ' || c.eff ||"
	"  ' (Google may change them up to once a day)' END,"
	" coalesce(?2, max(c.eff, m.eff)), c.source || printf(' (%d vCPU x %g + %g GiB x %g)',"
	"  s.vcpus, c.rate, s.mem, m.rate)"
	" FROM gcp_shape s JOIN gcp_rate c ON c.family = upper(substr(s.type, 1,"
	"  instr(s.type, '-') - 1)) AND c.what = 'core'"
	" JOIN gcp_rate m ON m.family = c.family AND m.region = c.region AND m.usage = c.usage"
	"  AND m.what = 'ram' AND m.currency = c.currency"
	" WHERE true ON CONFLICT (type, region, pricing, term) DO UPDATE SET"
	" currency = excluded.currency, amount = excluded.amount, win = excluded.win,"
	" as_of = excluded.as_of, source = excluded.source;";

/* Scaleway Instance API, GET /instance/v1/zones/ZONE/products/servers: one zone per file,
 * the zone taken from the file's name (?4). Hourly prices are in euros. Left out: Windows
 * types (names ending -WIN) and types at their end of service. */
static const char SCALEWAY_SQL[] =
	"INSERT INTO itype (type, vcpus, mem, label, gbps, provider, up_to, family)"
	" SELECT key, json_extract(value, '$.ncpus'), json_extract(value, '$.ram') / 1073741824.0,"
	" CASE WHEN json_extract(value, '$.network.sum_internal_bandwidth') > 0 THEN"
	"  printf('%g Gbit/s internal, %g Gbit/s internet',"
	"  json_extract(value, '$.network.sum_internal_bandwidth') / 1e9,"
	"  json_extract(value, '$.network.sum_internet_bandwidth') / 1e9) END,"
	" json_extract(value, '$.network.sum_internal_bandwidth') / 1e9, 'scaleway', 0,"
	" CASE WHEN instr(key, '-') > 1 THEN substr(key, 1, instr(key, '-') - 1) END"
	" FROM json_each(?1, '$.servers') WHERE key NOT LIKE '%-WIN'"
	" AND coalesce(json_extract(value, '$.end_of_service'), 0) = 0"
	" ON CONFLICT (type) DO UPDATE SET family = excluded.family,"
	" vcpus = excluded.vcpus, mem = excluded.mem,"
	" label = coalesce(excluded.label, label), gbps = coalesce(excluded.gbps, gbps),"
	" provider = excluded.provider, up_to = excluded.up_to;"
	"INSERT INTO price (type, region, pricing, term, currency, amount, as_of, source)"
	" SELECT key, ?4, 'on-demand', '', 'EUR', CAST(json_extract(value, '$.hourly_price') AS REAL),"
	" coalesce(?2, date('now')), ?3 FROM json_each(?1, '$.servers') WHERE key NOT LIKE '%-WIN'"
	" AND coalesce(json_extract(value, '$.end_of_service'), 0) = 0"
	" AND CAST(json_extract(value, '$.hourly_price') AS REAL) > 0"
	" ON CONFLICT (type, region, pricing, term) DO UPDATE SET amount = excluded.amount,"
	" as_of = excluded.as_of, source = excluded.source;";

/* Hetzner Cloud API, GET /v1/server_types (or /v1/server_types/ID): each location's hourly
 * price net of VAT, given as a string in euros; the gross (VAT-inclusive) figure is left
 * out, and so are deprecated types. */
static const char HETZNER_SQL[] =
	"CREATE TEMP TABLE h AS SELECT value AS t FROM json_each(?1, '$.server_types')"
	" UNION ALL SELECT json_extract(?1, '$.server_type') WHERE json_type(?1, '$.server_type')"
	" = 'object';"
	"DELETE FROM h WHERE coalesce(json_extract(t, '$.deprecated'), 0) <> 0"
	" OR json_type(t, '$.deprecation') = 'object';"
	"INSERT INTO itype (type, vcpus, mem, provider, family) SELECT json_extract(t, '$.name'),"
	" json_extract(t, '$.cores'), json_extract(t, '$.memory'), 'hetzner',"
	" nullif(rtrim(json_extract(t, '$.name'), '0123456789'), '') FROM h"
	" WHERE json_extract(t, '$.name') IS NOT NULL"
	" ON CONFLICT (type) DO UPDATE SET vcpus = excluded.vcpus, mem = excluded.mem,"
	" provider = excluded.provider, family = excluded.family;"
	"INSERT INTO price (type, region, pricing, term, currency, amount, as_of, source, incl)"
	" SELECT json_extract(h.t, '$.name'), json_extract(p.value, '$.location'), 'on-demand', '',"
	" 'EUR', CAST(json_extract(p.value, '$.price_hourly.net') AS REAL),"
	" coalesce(?2, date('now')), ?3, CAST(json_extract(p.value, '$.included_traffic') AS REAL)"
	" / 1e9 FROM h, json_each(h.t, '$.prices') p"
	" WHERE CAST(json_extract(p.value, '$.price_hourly.net') AS REAL) > 0"
	" AND json_extract(p.value, '$.location') IS NOT NULL"
	" ON CONFLICT (type, region, pricing, term) DO UPDATE SET amount = excluded.amount,"
	" as_of = excluded.as_of, source = excluded.source, incl = excluded.incl;"
	"DROP TABLE h;";

/* `aws ec2 describe-spot-price-history`: Linux/UNIX records only (SUSE, Red Hat and Windows
 * left out), summarised per instance type and region (its zones together) as the median of
 * the window the records cover, which the price's window attribute states. */
static const char SPOT_SQL[] =
	"CREATE TEMP TABLE sp AS SELECT json_extract(value, '$.InstanceType') AS type,"
	" json_extract(value, '$.AvailabilityZone') AS az,"
	" rtrim(json_extract(value, '$.AvailabilityZone'), 'abcdefghijklmnopqrstuvwxyz') AS region,"
	" CAST(json_extract(value, '$.SpotPrice') AS REAL) AS usd,"
	" json_extract(value, '$.Timestamp') AS ts FROM json_each(?1, '$.SpotPriceHistory')"
	" WHERE json_extract(value, '$.ProductDescription') IN ('Linux/UNIX',"
	"  'Linux/UNIX (Amazon VPC)') AND CAST(json_extract(value, '$.SpotPrice') AS REAL) > 0"
	" AND json_extract(value, '$.InstanceType') IS NOT NULL;"
	"CREATE TEMP TABLE spm AS WITH o AS (SELECT type, region, usd,"
	"  row_number() OVER (PARTITION BY type, region ORDER BY usd) AS rn,"
	"  count(*) OVER (PARTITION BY type, region) AS n FROM sp)"
	" SELECT type, region, avg(usd) AS usd, max(n) AS n FROM o"
	" WHERE rn IN ((n + 1) / 2, (n + 2) / 2) GROUP BY type, region;"
	"INSERT INTO itype (type, provider, family) SELECT DISTINCT type, 'aws', " AWS_FAMILY("type")
	" FROM spm WHERE true ON CONFLICT (type) DO UPDATE SET"
	" provider = coalesce(provider, excluded.provider), family = coalesce(family, excluded.family);"
	"INSERT INTO price (type, region, pricing, term, currency, amount, win, as_of, source)"
	" SELECT m.type, m.region, 'spot', '', 'USD', m.usd,"
	" printf('median of %d Linux/UNIX spot prices in %s from %s to %s', m.n,"
	"  (SELECT group_concat(az, ', ') FROM (SELECT DISTINCT az FROM sp s WHERE s.type = m.type"
	"   AND s.region = m.region ORDER BY az)),"
	"  (SELECT substr(min(ts), 1, 16) FROM sp s WHERE s.type = m.type AND s.region = m.region),"
	"  (SELECT substr(max(ts), 1, 16) FROM sp s WHERE s.type = m.type AND s.region = m.region)),"
	" coalesce(?2, (SELECT substr(max(ts), 1, 10) FROM sp s WHERE s.type = m.type"
	"  AND s.region = m.region)), ?3 FROM spm m WHERE true"
	" ON CONFLICT (type, region, pricing, term) DO UPDATE SET amount = excluded.amount,"
	" win = excluded.win, as_of = excluded.as_of, source = excluded.source;"
	"DROP TABLE sp; DROP TABLE spm;";

const struct ci_format ci_cloud_formats[] = {
	{"Azure Retail Prices", "$.Items", AZURE_SQL,
	 "Azure Retail Prices API: Linux pay-as-you-go, Spot and reservation meters (Windows, Low "
	 "Priority and Dev/Test left out)", 0,
	 CI_AZURE_XFER_SQL,
	 "Azure Retail Prices API, Bandwidth: Standard Data Transfer Out (Rtn Preference: MGN) and "
	 "Intra Continent Data Transfer Out meters"},
	{"Google Cloud Billing Catalog", "$.skus", GCP_SQL,
	 "Google Cloud Billing Catalog: predefined vCPU and RAM rates composed per machine type", 0,
	 CI_GCP_XFER_SQL,
	 "Google Cloud Billing Catalog: Network InterzoneEgress SKUs, per GiB converted to per GB"},
	{"gcloud machine types", "$[0].guestCpus", GCP_SHAPES_SQL, "gcloud machine types", 0, NULL,
	 NULL},
	{"Scaleway instance products", "$.servers", SCALEWAY_SQL,
	 "Scaleway Instance API products/servers: hourly price in EUR (Windows types left out)", 1,
	 CI_SCALEWAY_XFER_SQL,
	 "Scaleway docs, Understanding Scaleway Instance pricing (2025-08-19): Instance hours, "
	 "flexible IPv4s and volumes are billed, no per-GB traffic is listed"},
	{"Hetzner Cloud server types", "$.server_types", HETZNER_SQL,
	 "Hetzner Cloud API server_types: hourly price net of VAT in EUR (gross left out)", 0,
	 CI_HETZNER_XFER_SQL,
	 "Hetzner Cloud API server_types price_per_tb_traffic (net EUR per TiB past included_traffic); "
	 "internal traffic in a network zone free (Hetzner Cloud billing FAQ)"},
	{"Hetzner Cloud server types", "$.server_type", HETZNER_SQL,
	 "Hetzner Cloud API server_types: hourly price net of VAT in EUR (gross left out)", 0,
	 CI_HETZNER_XFER_SQL,
	 "Hetzner Cloud API server_types price_per_tb_traffic (net EUR per TiB past included_traffic); "
	 "internal traffic in a network zone free (Hetzner Cloud billing FAQ)"},
	{"AWS spot price history", "$.SpotPriceHistory", SPOT_SQL,
	 "aws ec2 describe-spot-price-history: median of the window's Linux/UNIX prices", 0, NULL,
	 NULL},
	{NULL, NULL, NULL, NULL, 0, NULL, NULL},
};
