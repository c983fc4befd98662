#!/bin/bash
# catalog import of the providers' transfer prices (schemas/transfer-pricing.md) from their
# published formats (tests/fixtures/aws/offer-datatransfer-us-east-1.json and get-products-
# datatransfer-eu-west-1.json, azure/retail-prices-bandwidth.json, gcp/skus-network.json,
# hetzner/server-types.json, scaleway/products-servers-fr-par-1.json): each rule has the right
# relation, billed side, tiers, currency and source, what a format holds beside them (inbound
# products, other routings, destination-priced SKUs) is left out, and the catalog written
# loads; a broken rule in a catalog is refused naming file, line and field.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$HERE/../..
FX=$ROOT/tests/fixtures
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
command -v xmllint >/dev/null || { skip "catalog_transfer" "xmllint missing (libxml2-utils)"; finish; exit; }

imp() { local out=$1; shift; "$NETSWEEP" catalog import -o "$T/$out" "$@" >"$T/log" 2>&1; }
x() { xmllint --xpath "string($2)" "$T/$1" 2>/dev/null; }
valid() { xmllint --noout --schema "$ROOT/schemas/catalog.xsd" "$T/$1" 2>/dev/null; }
# rule FILE REGION RELATION [PEER]: the XPath of one rule
rule() { local p=""; [ -n "$4" ] && p=" and @peer-region='$4'"; [ -z "$4" ] && p=" and not(@peer-region)"
	echo "//transfer[@region='$2' and @relation='$3'$p]"; }
tiers() { xmllint --xpath "$(rule "$@")/tier" "$T/$1" 2>/dev/null | tr -d ' \n'; }

# AWS: the AWSDataTransfer offer file of us-east-1.
R=aws.xml
if imp $R "$FX/aws/offer-datatransfer-us-east-1.json" && valid $R &&
	grep -q "5 transfer rules" "$T/log" &&
	[ "$(x $R "$(rule $R us-east-1 cross-zone)/@billed")" = both ] &&
	[ "$(tiers $R us-east-1 cross-zone)" = '<tierper-gb="0.01"/>' ] &&
	[ "$(x $R "$(rule $R us-east-1 cross-region us-west-2)/@billed")" = sender ] &&
	[ "$(x $R "$(rule $R us-east-1 cross-region us-west-2)/tier/@per-gb")" = 0.02 ] &&
	[ "$(x $R "$(rule $R us-east-1 cross-region eu-west-1)/tier/@per-gb")" = 0.02 ] &&
	[ "$(x $R "count(//transfer[@region='us-west-2'])")" = 0 ] &&
	[ "$(tiers $R us-east-1 internet)" = '<tierup-to-gb="10240"per-gb="0.09"/><tierup-to-gb="51200"per-gb="0.085"/><tierup-to-gb="153600"per-gb="0.07"/><tierper-gb="0.05"/>' ] &&
	[ "$(x $R "$(rule $R us-east-1 same-zone)/tier/@per-gb")" = 0 ] &&
	x $R "$(rule $R us-east-1 same-zone)/@source" | grep -q "not a Price List product" &&
	x $R "$(rule $R us-east-1 internet)/@source" | grep -q "offer file version 20261130001523" &&
	[ "$(x $R "$(rule $R us-east-1 internet)/@currency")" = USD ] &&
	[ "$(x $R "$(rule $R us-east-1 internet)/@as-of")" = 2026-11-01 ]; then
	pass "aws offer: IntraRegion cross-zone billed both 0.01, InterRegion Outbound per peer 0.02 (inbound left out), internet in 4 tiers, same-zone free (its own source)"
else
	fail "aws offer: IntraRegion cross-zone billed both 0.01, InterRegion Outbound per peer 0.02 (inbound left out), internet in 4 tiers, same-zone free (its own source)" "$(cat "$T/log"; cat "$T/$R")"
fi
R=awsgp.xml
if imp $R "$FX/aws/get-products-datatransfer-eu-west-1.json" "$FX/aws/get-products-eu-west-1.json" && valid $R &&
	[ "$(x $R "count(//transfer)")" = 3 ] && [ "$(x $R "count(//instance)")" = 2 ] &&
	[ "$(x $R "$(rule $R eu-west-1 cross-zone)/tier/@per-gb")" = 0.01 ] &&
	[ "$(x $R "count($(rule $R eu-west-1 internet)/tier)")" = 4 ] &&
	x $R "$(rule $R eu-west-1 internet)/@source" | grep -q "AWS Price List API"; then
	pass "aws get-products: the data transfer products beside the instance prices of another file"
else
	fail "aws get-products: the data transfer products beside the instance prices of another file" "$(cat "$T/log"; cat "$T/$R")"
fi
if imp awsr.xml --region eu-west-1 "$FX/aws/offer-datatransfer-us-east-1.json" "$FX/aws/get-products-datatransfer-eu-west-1.json" &&
	[ "$(x awsr.xml "count(//transfer)")" = 3 ] && [ "$(x awsr.xml "count(//transfer[@region!='eu-west-1'])")" = 0 ]; then
	pass "aws: --region keeps that region's rules only"
else
	fail "aws: --region keeps that region's rules only" "$(cat "$T/log")"
fi

# Azure: the Bandwidth meters beside the VM pages.
R=az.xml
if imp $R "$FX/azure/retail-prices-page1.json" "$FX/azure/retail-prices-bandwidth.json" && valid $R &&
	[ "$(tiers $R eastus internet)" = '<tierup-to-gb="100"per-gb="0"/><tierper-gb="0.087"/>' ] &&
	[ "$(x $R "$(rule $R eastus internet)/@billed")" = sender ] &&
	[ "$(x $R "$(rule $R eastus cross-region westus2)/tier/@per-gb")" = 0.02 ] &&
	[ "$(x $R "$(rule $R westeurope cross-region northeurope)/tier/@per-gb")" = 0.02 ] &&
	[ "$(x $R "count($(rule $R eastus cross-region westeurope))")" = 0 ] &&
	[ "$(x $R "count(//transfer[@relation='cross-region' and not(@peer-region)])")" = 0 ] &&
	[ "$(x $R "count(//transfer[@relation='cross-zone'])")" = 0 ] &&
	[ "$(x $R "$(rule $R eastus same-zone)/tier/@per-gb")" = 0 ] &&
	x $R "$(rule $R eastus same-zone)/@source" | grep -q "not a meter" &&
	[ "$(x $R "count(//instance[@type='Standard_D2s_v3']/price)")" -ge 1 ]; then
	pass "azure: internet tiers from tierMinimumUnits (100 GB free), intra-continent 0.02 per peer of the same continent only, same zone free (its own source), no rule between continents or zones"
else
	fail "azure: internet tiers from tierMinimumUnits (100 GB free), intra-continent 0.02 per peer of the same continent only, no rule between continents or zones" "$(cat "$T/log"; cat "$T/$R")"
fi

# Google Cloud: InterzoneEgress per GiB -> per GB; the destination-priced internet SKU out.
R=gcp.xml
if imp $R "$FX/gcp/skus-compute-engine.json" "$FX/gcp/skus-network.json" && valid $R &&
	[ "$(x $R "$(rule $R us-central1 cross-zone)/tier/@per-gb")" = 0.009313226 ] &&
	[ "$(x $R "$(rule $R us-central1 cross-zone)/@billed")" = sender ] &&
	[ "$(x $R "$(rule $R europe-west1 cross-zone)/tier/@per-gb")" = 0.009313226 ] &&
	[ "$(x $R "count(//transfer[@relation='internet'])")" = 0 ] &&
	[ "$(x $R "$(rule $R us-central1 same-zone)/tier/@per-gb")" = 0 ] &&
	x $R "$(rule $R us-central1 same-zone)/@source" | grep -q "not a SKU" &&
	[ "$(x $R "count(//instance)")" -ge 3 ]; then
	pass "gcp: inter-zone 0.01/GiB = 0.009313226/GB billed at the source, same zone free (its own source); internet SKUs (priced by destination) left out"
else
	fail "gcp: inter-zone 0.01/GiB = 0.009313226/GB billed at the source; internet SKUs (priced by destination) left out" "$(cat "$T/log"; cat "$T/$R")"
fi

# Hetzner: included traffic per server on each price, the overage per TiB as per GB.
R=hz.xml
if imp $R --as-of 2026-11-30 "$FX/hetzner/server-types.json" && valid $R &&
	[ "$(x $R "//instance[@type='cx22']/price[@region='fsn1']/@included-gb-month")" = 21990.232556 ] &&
	[ "$(x $R "//instance[@type='cpx21']/price[@region='ash']/@included-gb-month")" = 1099.511628 ] &&
	[ "$(x $R "$(rule $R fsn1 internet)/tier/@per-gb")" = 0.000909495 ] &&
	[ "$(x $R "$(rule $R fsn1 internet)/@currency")" = EUR ] &&
	[ "$(x $R "$(rule $R fsn1 cross-region nbg1)/tier/@per-gb")" = 0 ] &&
	[ "$(x $R "$(rule $R hel1 cross-region fsn1)/tier/@per-gb")" = 0 ] &&
	[ "$(x $R "$(rule $R fsn1 cross-region ash)/tier/@per-gb")" = 0.000909495 ] &&
	[ "$(x $R "$(rule $R ash same-zone)/tier/@per-gb")" = 0 ] &&
	[ "$(x $R "count(//transfer[@currency!='EUR'])")" = 0 ]; then
	pass "hetzner: 20 TiB included in EU (1 TiB ash) per server, EUR 1/TiB past it = 0.000909495/GB; free inside the eu-central network zone, the internet rate to ash"
else
	fail "hetzner: 20 TiB included in EU (1 TiB ash) per server, EUR 1/TiB past it = 0.000909495/GB; free inside the eu-central network zone, the internet rate to ash" "$(cat "$T/log"; cat "$T/$R")"
fi

# Scaleway: free rules for the file's zone, saying why.
R=scw.xml
if imp $R --as-of 2026-11-30 "$FX/scaleway/products-servers-fr-par-1.json" && valid $R &&
	[ "$(x $R "count(//transfer[@region='fr-par-1'])")" = 3 ] &&
	[ "$(x $R "sum(//transfer/tier/@per-gb)")" = 0 ] &&
	x $R "$(rule $R fr-par-1 internet)/@source" | grep -q "no per-GB traffic is listed"; then
	pass "scaleway: same-zone, cross-zone and internet at EUR 0 for fr-par-1, the source saying the billing lists no traffic charge"
else
	fail "scaleway: same-zone, cross-zone and internet at EUR 0 for fr-par-1, the source saying the billing lists no traffic charge" "$(cat "$T/log"; cat "$T/$R")"
fi

# The shipped catalogs: each provider's rules for its regions, each with as-of and source.
ok=1 why=""
for c in aws azure gcp hetzner scaleway; do
	f=$ROOT/data/catalog/$c.xml
	n=$(xmllint --xpath "count(//transfer)" "$f" 2>/dev/null)
	bare=$(xmllint --xpath "count(//transfer[not(@as-of) or not(@source) or not(@currency)])" "$f" 2>/dev/null)
	[ "${n:-0}" -ge 1 ] && [ "$bare" = 0 ] || { ok=0; why="$why $c:$n/$bare"; }
done
if [ $ok = 1 ]; then pass "shipped catalogs: aws, azure, gcp, hetzner, scaleway each carry transfer rules with currency, as-of and source"
else fail "shipped catalogs: aws, azure, gcp, hetzner, scaleway each carry transfer rules with currency, as-of and source" "$why"; fi

# A broken rule: file, line and field.
cat >"$T/bad.xml" <<'X'
<?xml version="1.0"?>
<catalog provider="aws">
  <transfer region="us-east-1" relation="internet" billed="sender" currency="USD"
            as-of="2026-11-30" source="t">
    <tier up-to-gb="100" per-gb="0"/>
  </transfer>
</catalog>
X
if out=$("$NETSWEEP" cost --no-default-catalog --catalog "$T/bad.xml" 2>&1); then
	fail "a broken rule is refused naming file, line and field" "exit 0: $out"
elif echo "$out" | grep -q "$T/bad.xml:[56]:.*up-to-gb"; then
	pass "a broken rule is refused naming file, line and field"
else
	fail "a broken rule is refused naming file, line and field" "$out"
fi
finish
