#!/bin/bash
# catalog import of the other providers' published formats (tests/fixtures/{azure,gcp,
# scaleway,hetzner}, aws/spot-price-history.json, aws/describe-instance-types-older.json):
# each keeps the Linux pay-as-you-go price (or the asked kind) of the right region or zone,
# in its currency, with its bandwidth where the provider publishes one, and skips the traps
# each format holds (Azure Spot/Low Priority/Windows/DevTest meters and reservations' term
# totals, GCP's custom and sole-tenant SKUs, Hetzner's gross, Scaleway's Windows types,
# AWS's Windows/RHEL/SUSE spot records).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$HERE/../..
FX=$ROOT/tests/fixtures
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
command -v xmllint >/dev/null || { skip "catalog_clouds" "xmllint missing (libxml2-utils)"; finish; exit; }

imp() { local out=$1; shift; "$NETSWEEP" catalog import -o "$T/$out" "$@" >"$T/log" 2>&1; }
x() { xmllint --xpath "string($2)" "$T/$1" 2>/dev/null; }
valid() { xmllint --noout --schema "$ROOT/schemas/catalog.xsd" "$T/$1" 2>/dev/null; }
# the price of TYPE in REGION of one model ('' = on-demand), attribute ATTR
px() { local f=$1 t=$2 r=$3 k=$4 a=$5 sel
	if [ -z "$k" ]; then sel="not(@pricing)"; else sel="@pricing='$k'"; fi
	x "$f" "//instance[@type='$t']/price[@region='$r' and $sel]/@$a"; }

# Azure: two pages of the Retail Prices API.
if imp az.xml "$FX/azure/retail-prices-page1.json" "$FX/azure/retail-prices-page2.json" && valid az.xml &&
	[ "$(px az.xml Standard_D2s_v3 eastus '' usd-per-hour)" = 0.096 ] &&
	[ "$(px az.xml Standard_D2s_v3 westeurope '' usd-per-hour)" = 0.11 ] &&
	[ "$(px az.xml Standard_D2s_v3 eastus spot usd-per-hour)" = 0.0115 ] &&
	[ "$(x az.xml "count(//instance[@type='Standard_D2s_v3']/price[@region='eastus'])")" = 4 ] &&
	[ "$(x az.xml "//instance[@type='Standard_D2s_v3']/price[@term='1yr']/@usd-per-hour")" = 0.056507 ] &&
	[ "$(x az.xml "//instance[@type='Standard_D2s_v3']/price[@term='3yr']/@usd-per-hour")" = 0.036682 ] &&
	[ "$(x az.xml "count(//instance[@type='Standard_F2s_v2']/price)")" = 1 ] &&
	[ "$(x az.xml "/catalog/@provider")" = azure ] &&
	x az.xml "//instance[@type='Standard_D2s_v3']/price[@pricing='spot']/@window" | grep -q "as listed from 2026-11-01"; then
	pass "azure: Linux pay-as-you-go 0.096, Spot 0.0115, reservations per hour of their term; Windows, Low Priority, DevTest, non-primary left out"
else
	fail "azure: Linux pay-as-you-go 0.096, Spot 0.0115, reservations per hour of their term; Windows, Low Priority, DevTest, non-primary left out" "$(cat "$T/log"; grep -v source= "$T/az.xml" | head -30)"
fi
if imp az-od.xml --pricing on-demand --region eastus "$FX/azure/retail-prices-page1.json" "$FX/azure/retail-prices-page2.json" &&
	[ "$(x az-od.xml "count(//price)")" = 5 ] && [ "$(x az-od.xml "count(//price[@pricing])")" = 0 ]; then
	pass "azure: --pricing on-demand --region eastus keeps those only"
else
	fail "azure: --pricing on-demand --region eastus keeps those only" "$(cat "$T/log")"
fi

# Google Cloud: per-vCPU and per-GiB rates composed with the machine shapes given beside them.
if imp gcp.xml "$FX/gcp/skus-compute-engine.json" "$FX/gcp/machine-types.json" && valid gcp.xml &&
	[ "$(px gcp.xml n2-standard-2 us-central1 '' usd-per-hour)" = 0.097118 ] &&
	[ "$(px gcp.xml n2-standard-4 europe-west1 '' usd-per-hour)" = 0.213668 ] &&
	[ "$(px gcp.xml n2-standard-2 us-central1 spot usd-per-hour)" = 0.023492 ] &&
	[ "$(x gcp.xml "//instance[@type='n2-standard-2']/price[@term='1yr']/@usd-per-hour")" = 0.061182 ] &&
	[ "$(px gcp.xml e2-standard-2 us-central1 '' usd-per-hour)" = 0.067006 ] &&
	[ "$(x gcp.xml "count(//instance)")" = 3 ] &&
	[ "$(x gcp.xml "//instance[@type='n2-standard-4']/@memory-gib")" = 16 ]; then
	pass "gcp: n2-standard-2 = 2 x 0.031611 + 8 x 0.004237 (custom, sole-tenant, extended SKUs left out), Spot and 1-year commitment too"
else
	fail "gcp: n2-standard-2 = 2 x 0.031611 + 8 x 0.004237 (custom, sole-tenant, extended SKUs left out), Spot and 1-year commitment too" "$(cat "$T/log"; grep -v source= "$T/gcp.xml" | head -30)"
fi
if imp gcp2.xml "$FX/gcp/skus-compute-engine.json" &&
	[ "$(px gcp2.xml n1-standard-4 us-central1 '' usd-per-hour)" = 0.189999 ] &&
	[ "$(x gcp2.xml "count(//instance[starts-with(@type, 'c2-')])")" = 0 ]; then
	pass "gcp: without machine types the shipped shapes are used (n1-standard-4; no c2 rates, no c2 types)"
else
	fail "gcp: without machine types the shipped shapes are used (n1-standard-4; no c2 rates, no c2 types)" "$(cat "$T/log")"
fi

# Scaleway: one zone per file, the zone from the file's name; EUR; bandwidth from the API.
if imp scw.xml "$FX/scaleway/products-servers-fr-par-1.json" && valid scw.xml &&
	[ "$(px scw.xml PRO2-S fr-par-1 '' per-hour)" = 0.2386 ] &&
	[ "$(px scw.xml PRO2-S fr-par-1 '' currency)" = EUR ] &&
	[ "$(x scw.xml "//instance[@type='PRO2-S']/network/@gbps")" = 1.6 ] &&
	[ "$(x scw.xml "//instance[@type='DEV1-S']/@memory-gib")" = 2 ] &&
	[ "$(x scw.xml "count(//instance[@type='POP2-2C-8G-WIN' or @type='START1-S'])")" = 0 ] &&
	[ "$(x scw.xml "count(//instance)")" = 5 ]; then
	pass "scaleway: PRO2-S EUR 0.2386 in fr-par-1, 1.6 Gbit/s internal; Windows and end-of-service types left out"
else
	fail "scaleway: PRO2-S EUR 0.2386 in fr-par-1, 1.6 Gbit/s internal; Windows and end-of-service types left out" "$(cat "$T/log")"
fi
cp "$FX/scaleway/products-servers-fr-par-1.json" "$T/servers.json"
expect_exit "scaleway: a file whose name names no zone exits 2" 2 "$NETSWEEP" catalog import -o "$T/z.xml" "$T/servers.json"

# Hetzner: net, not gross; strings; deprecated types out.
if imp hz.xml "$FX/hetzner/server-types.json" && valid hz.xml &&
	[ "$(px hz.xml cx22 fsn1 '' per-hour)" = 0.006 ] &&
	[ "$(px hz.xml cpx21 ash '' per-hour)" = 0.0136 ] &&
	[ "$(px hz.xml cx22 fsn1 '' currency)" = EUR ] &&
	[ "$(x hz.xml "count(//instance[@type='cx11'])")" = 0 ] &&
	[ "$(x hz.xml "count(//instance[@type='cx22']/price)")" = 3 ]; then
	pass "hetzner: cx22 EUR 0.006 net in fsn1 (gross 0.00714 left out), deprecated cx11 left out"
else
	fail "hetzner: cx22 EUR 0.006 net in fsn1 (gross 0.00714 left out), deprecated cx11 left out" "$(cat "$T/log")"
fi

# AWS spot history: the median of the Linux/UNIX records per type and region, window stated.
if imp spot.xml "$FX/aws/spot-price-history.json" && valid spot.xml &&
	[ "$(px spot.xml m5.large us-east-1 spot usd-per-hour)" = 0.03855 ] &&
	[ "$(px spot.xml m5.large eu-west-1 spot usd-per-hour)" = 0.0412 ] &&
	[ "$(px spot.xml c5n.18xlarge us-east-1 spot usd-per-hour)" = 0.6104 ] &&
	px spot.xml m5.large us-east-1 spot window | grep -q "median of 14 Linux/UNIX spot prices in us-east-1a, us-east-1b from 2026-11-24T06:14 to 2026-11-30T06:14"; then
	pass "aws spot: m5.large us-east-1 median 0.03855 of 14 Linux/UNIX records in two zones (Windows, RHEL, SUSE left out), window stated"
else
	fail "aws spot: m5.large us-east-1 median 0.03855 of 14 Linux/UNIX records in two zones (Windows, RHEL, SUSE left out), window stated" "$(cat "$T/log"; cat "$T/spot.xml")"
fi

# AWS bandwidth: baseline and peak where the cards state them, the label's figure where not.
if imp types.xml "$FX/aws/describe-instance-types-older.json" "$FX/aws/describe-instance-types.json" && valid types.xml &&
	[ "$(x types.xml "//instance[@type='c5n.large']/network/@baseline-gbps")" = 3 ] &&
	[ "$(x types.xml "//instance[@type='c5n.large']/network/@gbps")" = 25 ] &&
	[ "$(x types.xml "//instance[@type='c5n.large']/network/@up-to")" = true ] &&
	[ "$(x types.xml "//instance[@type='m5.large']/network/@up-to")" = true ] &&
	[ "$(x types.xml "//instance[@type='c5n.18xlarge']/network/@up-to")" = "" ] &&
	[ "$(x types.xml "//instance[@type='m4.10xlarge']/network/@gbps")" = 10 ] &&
	[ "$(x types.xml "//instance[@type='m4.large']/network/@gbps")" = "" ]; then
	pass "aws bandwidth: c5n.large up to 25, baseline 3; m4.10xlarge 10 from its label; Moderate has none"
else
	fail "aws bandwidth: c5n.large up to 25, baseline 3; m4.10xlarge 10 from its label; Moderate has none" "$(cat "$T/log"; cat "$T/types.xml")"
fi

# Several providers in one catalog: each instance names its own; netsweep cost shows kinds.
if imp all.xml "$FX/aws/spot-price-history.json" "$FX/scaleway/products-servers-fr-par-1.json" && valid all.xml &&
	[ "$(x all.xml "//instance[@type='PRO2-S']/@provider")" = scaleway ] &&
	[ "$(x all.xml "//instance[@type='m5.large']/@provider")" = aws ] &&
	out=$("$NETSWEEP" cost --no-default-catalog --catalog "$T/all.xml" --catalog "$T/az.xml") &&
	grep -Eq '^PRO2-S .* fr-par-1 +on-demand +EUR +0\.2386 ' <<<"$out" &&
	grep -Eq '^m5\.large .* us-east-1 +spot +USD +0\.0386 ' <<<"$out" &&
	grep -Eq '^Standard_D2s_v3 .* eastus +reserved 1yr +USD +0\.0565 ' <<<"$out"; then
	pass "two providers in one catalog, each instance its provider; netsweep cost lists pricing and currency"
else
	fail "two providers in one catalog, each instance its provider; netsweep cost lists pricing and currency" "$(cat "$T/log"; echo "$out")"
fi
finish
