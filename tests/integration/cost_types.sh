#!/bin/bash
# Every provider's instance type names (issue 34): `cost --type` with an exact Azure, GCP,
# Scaleway, Hetzner or AWS name returns its prices, a family as the provider names it (the
# catalog's family attribute: Dsv5, n2-standard, PRO2, cx, m5) returns the family and nothing
# else — with each shipped catalog and with what each importer writes from its fixtures; and
# a matrix whose pairs have such types runs, is priced in the report and is selected by
# `run --only instance-type=`.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$HERE/../..
FX=$ROOT/tests/fixtures
CAT=$ROOT/data/catalog
T=$(mktemp -d) || exit 1
AGENT=
trap '[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0

# types FILE WANT: the distinct types `cost --type WANT` lists from FILE alone, sorted
types() {
	"$NETSWEEP" cost --no-default-catalog --catalog "$1" --type "$2" 2>"$T/err" |
		awk 'NR > 1 && NF > 3 && $1 != "price" && $1 !~ /^\[/ { print $1 }' | sort -u | tr '\n' ' '
}
# price FILE TYPE REGION: the first price `cost --type TYPE --region REGION` shows
price() {
	"$NETSWEEP" cost --no-default-catalog --catalog "$1" --type "$2" --region "$3" 2>/dev/null |
		awk -v t="$2" '$1 == t { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9][0-9][0-9][0-9]$/) { print $i; exit } }'
}
# expect NAME FILE WANT TYPES...: cost --type WANT lists exactly TYPES
expect() {
	local name=$1 file=$2 want=$3 got
	shift 3
	got=$(types "$file" "$want")
	if [ "$got" = "$* " ]; then pass "$name: --type $want lists $*"
	else fail "$name: --type $want lists $*" "got '$got' $(cat "$T/err")"; fi
}
# expect_price NAME FILE TYPE REGION FIGURE
expect_price() {
	local got
	got=$(price "$2" "$3" "$4")
	if [ "$got" = "$5" ]; then pass "$1: --type $3 --region $4 costs $5 an hour"
	else fail "$1: --type $3 --region $4 costs $5 an hour" "got '$got'"; fi
}

# the shipped catalogs, then the importers' own output from their fixtures
"$NETSWEEP" catalog import -o "$T/azure.xml" "$FX/azure/retail-prices-page1.json" "$FX/azure/retail-prices-page2.json" >/dev/null 2>&1
"$NETSWEEP" catalog import -o "$T/gcp.xml" "$FX/gcp/skus-compute-engine.json" "$FX/gcp/machine-types.json" >/dev/null 2>&1
"$NETSWEEP" catalog import -o "$T/scaleway.xml" "$FX/scaleway/products-servers-fr-par-1.json" >/dev/null 2>&1
"$NETSWEEP" catalog import -o "$T/hetzner.xml" "$FX/hetzner/server-types.json" >/dev/null 2>&1
"$NETSWEEP" catalog import -o "$T/aws.xml" "$FX/aws/offer-ec2-us-east-1.json" "$FX/aws/describe-instance-types.json" >/dev/null 2>&1
"$NETSWEEP" catalog import -o "$T/aws-spot.xml" "$FX/aws/spot-price-history.json" >/dev/null 2>&1
for where in shipped imported; do
	d=$CAT
	[ "$where" = imported ] && d=$T
	expect "$where azure" "$d/azure.xml" Standard_D2s_v5 Standard_D2s_v5
	expect "$where azure" "$d/azure.xml" Dsv5 Standard_D2s_v5 Standard_D4s_v5
	expect "$where azure" "$d/azure.xml" dsv3 Standard_D2s_v3 Standard_D4s_v3
	expect_price "$where azure" "$d/azure.xml" Standard_D2s_v5 eastus 0.0960
	expect "$where gcp" "$d/gcp.xml" n2-standard-2 n2-standard-2
	expect_price "$where gcp" "$d/gcp.xml" n2-standard-2 us-central1 0.0971
	expect "$where scaleway" "$d/scaleway.xml" PRO2-S PRO2-S
	expect "$where scaleway" "$d/scaleway.xml" DEV1 DEV1-M DEV1-S
	expect_price "$where scaleway" "$d/scaleway.xml" PRO2-S fr-par-1 0.2386
	expect "$where hetzner" "$d/hetzner.xml" cx22 cx22
	expect "$where hetzner" "$d/hetzner.xml" cx cx22 cx32
	expect_price "$where hetzner" "$d/hetzner.xml" cx22 fsn1 0.0060
	expect "$where aws spot" "$d/aws-spot.xml" c5n c5n.18xlarge
done
expect "shipped gcp" "$CAT/gcp.xml" n2-standard n2-standard-16 n2-standard-2 n2-standard-32 n2-standard-4 n2-standard-8
expect "imported gcp" "$T/gcp.xml" n2-standard n2-standard-2 n2-standard-4
expect "shipped aws" "$CAT/aws.xml" m5 m5.12xlarge m5.16xlarge m5.24xlarge m5.2xlarge m5.4xlarge m5.8xlarge m5.large m5.xlarge
expect "shipped aws" "$CAT/aws.xml" m5.large m5.large
expect "imported aws" "$T/aws.xml" c5n c5n.18xlarge
# no prefix guessing: a name is its own, a family only what the catalog states
for c in "hetzner c" "hetzner cx2" "azure Standard" "azure Standard_D2s" "scaleway PRO" "gcp n2"; do
	set -- $c
	"$NETSWEEP" cost --no-default-catalog --catalog "$CAT/$1.xml" --type "$2" >"$T/none" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q "nothing in the catalog matches type $2" "$T/none"; then
		pass "$1: --type $2 (a prefix, no type nor family) matches nothing"
	else
		fail "$1: --type $2 matches nothing" "exit $rc $(cat "$T/none")"
	fi
done

# every shipped catalog is searched by default (issue 39); with one catalog as the default
# ($NETSWEEP_CATALOG) another provider's name says which shipped catalog has it, and the
# --catalog that adds it
for c in "cx22 hetzner EUR" "Standard_D2s_v5 azure USD" "n2-standard-2 gcp USD"; do
	set -- $c
	env -u NETSWEEP_CATALOG "$NETSWEEP" cost --type "$1" >"$T/all" 2>&1
	rc=$?
	if [ "$rc" = 0 ] && grep -q "^$1 .* $3 " "$T/all"; then
		pass "cost --type $1 with the default catalogs finds it in the shipped $2.xml, in $3"
	else
		fail "cost --type $1 with the default catalogs" "exit $rc $(cat "$T/all")"
	fi
	NETSWEEP_CATALOG=$CAT/aws.xml "$NETSWEEP" cost --type "$1" >"$T/hint" 2>&1
	rc=$?
	if [ "$rc" = 1 ] && grep -q "the shipped catalog $2.xml has type $1: add --catalog .*/$2.xml" "$T/hint" &&
		[ "$(grep -c "the shipped catalog" "$T/hint")" = 1 ]; then
		pass "cost --type $1 with NETSWEEP_CATALOG=aws.xml names $2.xml"
	else
		fail "cost --type $1 hint" "exit $rc $(cat "$T/hint")"
	fi
done

# a matrix of those types on loopback: priced in the report; --only instance-type= selects
NS=$T/netsweep
cp "$NETSWEEP" "$NS" || { fail "copy netsweep" "$NETSWEEP missing"; exit 1; }
loopback_agent "$T"
AGENT=$AGENT_PID port=$AGENT_PORT
[ -n "$port" ] || { fail "agent on loopback" "$(cat "$T/agent.log")"; exit 1; }
cat >"$T/m.xml" <<EOF2
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="clouds" repeats="1" order="as-written" cooldown="0s" case-timeout="15s">
  <pairs>
    <pair name="az" instance-type="Standard_D2s_v5" region="eastus" agent="127.0.0.1:$port"/>
    <pair name="gc" instance-type="n2-standard-2" region="us-central1" agent="127.0.0.1:$port"/>
    <pair name="sw" instance-type="PRO2-S" region="fr-par-1" agent="127.0.0.1:$port"/>
    <pair name="hz" instance-type="cx22" region="fsn1" agent="127.0.0.1:$port"/>
  </pairs>
  <axes><axis name="duration"><value>0.3s</value></axis></axes>
</matrix>
EOF2
cats=(--catalog "$CAT/azure.xml" --catalog "$CAT/gcp.xml" --catalog "$CAT/scaleway.xml" --catalog "$CAT/hetzner.xml")
DB=$T/c.db
"$NS" run "$T/m.xml" --db "$DB" --quiet "${cats[@]}" >"$T/run.log" 2>&1
rc=$?
"$NS" report --db "$DB" -o "$T/rep" >"$T/rep.log" 2>&1
rows=$(sqlite3 -separator : "$DB" "SELECT endpoint, usd_per_hour FROM v_endpoint_prices ORDER BY endpoint" 2>&1 | tr '\n' ' ')
fam=$(sqlite3 -separator : "$DB" "SELECT instance_type, family FROM run_instance_types ORDER BY instance_type" 2>&1 | tr '\n' ' ')
ranked=$(python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print(" ".join("%s:%s:%s" % (x["pair"], x["currency"], x["per_hour"]) for x in sorted(r["ranking"]["rows"], key=lambda x: x["pair"]) if x["rank"] is not None))' "$T/rep/report.json" 2>&1)
if [ "$rc" = 0 ] && [ "$rows" = "az:0.192 gc:0.194236 hz: sw: " ] &&
	[ "$ranked" = "az:USD:0.192 gc:USD:0.194236 hz:EUR:0.012 sw:EUR:0.4772" ]; then
	pass "a matrix of Azure, GCP, Scaleway and Hetzner types is priced: each pair ranked in its currency"
else
	fail "a matrix of Azure, GCP, Scaleway and Hetzner types is priced" "exit $rc; prices '$rows'; ranked '$ranked' $(tail -n 3 "$T/run.log" "$T/rep.log")"
fi
if [ "$fam" = "PRO2-S:PRO2 Standard_D2s_v5:Dsv5 cx22:cx n2-standard-2:n2-standard " ]; then
	pass "the run keeps each type's family as the catalog stated it"
else
	fail "the run keeps each type's family" "'$fam'"
fi
# export --type: the same selection over what the run stored
om=$("$NS" export --db "$DB" --type PRO2 2>&1 | sed -n 's/^netsweep_goodput_bytes_per_second{.*pair="\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
nd=$("$NS" export --db "$DB" --format ndjson --type n2-standard-2 2>&1 | python3 -c '
import json, sys
print(" ".join(sorted(set(json.loads(l)["endpoint"] for l in sys.stdin))))' 2>&1)
none=$("$NS" export --db "$DB" --format ndjson --type Standard 2>&1 | wc -l)
if [ "$om" = "sw " ] && [ "$nd" = gc ] && [ "$none" = 0 ]; then
	pass "export --type PRO2 (a family) and --type n2-standard-2 (a name): that pair's cases only; a prefix none"
else
	fail "export --type" "openmetrics '$om', ndjson '$nd', prefix $none lines"
fi
"$NS" run "$T/m.xml" --db "$T/o.db" --quiet "${cats[@]}" --only instance-type=Dsv5,cx22 >"$T/o.log" 2>&1
rc=$?
sel=$(sqlite3 "$T/o.db" "SELECT group_concat(e.name, ' ') FROM (SELECT DISTINCT e.name FROM cases c JOIN endpoints e ON e.id = c.endpoint_id ORDER BY e.name) e" 2>&1)
if [ "$rc" = 0 ] && [ "$sel" = "az hz" ]; then
	pass "run --only instance-type=Dsv5,cx22: the Azure pair by its family, the Hetzner one by its name"
else
	fail "run --only instance-type=Dsv5,cx22" "exit $rc, pairs '$sel' $(tail -2 "$T/o.log")"
fi
"$NS" run "$T/m.xml" --db "$T/n.db" --quiet "${cats[@]}" --only instance-type=Standard >"$T/n.log" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "no case left (the pairs' instance types: Standard_D2s_v5" "$T/n.log"; then
	pass "run --only instance-type=Standard: no prefix guessing, says the types there are"
else
	fail "run --only instance-type=Standard" "exit $rc $(cat "$T/n.log")"
fi
# no match: the error alone, no table header above it
out=$("$NETSWEEP" cost --type nosuchtype 2>"$T/nm.err")
rc=$?
[ "$rc" = 1 ] && [ -z "$out" ] && grep -q 'nothing in the catalog matches type nosuchtype' "$T/nm.err" &&
	pass "cost: no match prints the error and no empty table" ||
	fail "cost: no match prints the error and no empty table" "exit $rc, stdout '$out'"
# run warns of an unpriced type naming the shipped catalog that prices it, as cost does
cat >"$T/az.xml" <<'X'
<matrix name="az">
  <pairs><pair name="p" agent="127.0.0.1:5301" instance-type="Standard_D2s_v5" region="eastus"/></pairs>
  <axes><axis name="duration"><value>1</value></axis></axes>
</matrix>
X
out=$(NETSWEEP_CATALOG= "$NETSWEEP" run "$T/az.xml" --dry-run 2>&1 >/dev/null)
[[ $out == *"no price for Standard_D2s_v5 in eastus"*"(the shipped catalog azure.xml prices it: add --catalog "*"/catalog/azure.xml)"* ]] &&
	pass "run: an unpriced type's warning names the shipped catalog that prices it" ||
	fail "run: an unpriced type's warning names the shipped catalog that prices it" "$out"
finish
