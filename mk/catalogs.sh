#!/bin/sh
# mk/catalogs.sh NETSWEEP OUTDIR: the shipped catalogs of providers other than AWS's on-demand
# list (data/catalog/azure.xml, gcp.xml, scaleway.xml, hetzner.xml, aws-spot.xml), each written
# by `netsweep catalog import` from the fixtures in that provider's published format
# (tests/fixtures/), transfer prices included (schemas/transfer-pricing.md), so that the shipped data and the importers agree. `make catalogs` writes
# them into data/catalog/; tests/integration/catalog_shipped.sh checks that data/catalog holds
# exactly what this writes.
set -e
ns=$1 out=$2
fx=$(cd "$(dirname "$0")/../tests/fixtures" && pwd)
note="a handful of common types from netsweep's test fixture of the provider's own format (prices modelled on its list as of the dates below): import a fresh list before buying"
"$ns" catalog import -o "$out/azure.xml" --description "Azure VMs: $note" \
	"$fx/azure/retail-prices-page1.json" "$fx/azure/retail-prices-page2.json" \
	"$fx/azure/retail-prices-bandwidth.json"
"$ns" catalog import -o "$out/gcp.xml" --description "Google Cloud machine types: $note" \
	"$fx/gcp/skus-compute-engine.json" "$fx/gcp/skus-network.json"
"$ns" catalog import -o "$out/scaleway.xml" --as-of 2026-11-30 --description "Scaleway Instances: $note" \
	"$fx/scaleway/products-servers-fr-par-1.json"
"$ns" catalog import -o "$out/hetzner.xml" --as-of 2026-11-30 --description "Hetzner Cloud: $note" \
	"$fx/hetzner/server-types.json"
"$ns" catalog import -o "$out/aws-spot.xml" --description "AWS EC2 spot: $note" \
	"$fx/aws/spot-price-history.json"
