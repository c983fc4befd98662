#!/bin/bash
# catalog import on small fixtures in AWS's own formats (tests/fixtures/aws: a bulk offer file,
# aws pricing get-products output, aws ec2 describe-instance-types output) gives a valid catalog
# with the fixtures' on-demand Linux prices; a report re-priced with it (report --catalog)
# ranks the pairs by those prices, not the ones the run stored, and says so.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$HERE/../..
FX=$ROOT/tests/fixtures/aws
T=$(mktemp -d) || exit 1
AGENT=
trap '[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null; rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0 NETSWEEP_GNUPLOT=none
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

if "$NETSWEEP" catalog import -o "$T/cat.xml" "$FX/offer-ec2-us-east-1.json" \
	"$FX/get-products-eu-west-1.json" "$FX/describe-instance-types.json" >"$T/log" 2>&1 &&
	grep -q "2 instance types, 4 prices" "$T/log"; then
	pass "catalog import of an offer file, get-products and describe-instance-types"
else
	fail "catalog import of an offer file, get-products and describe-instance-types" "$(cat "$T/log")"
fi
if xmllint --noout --schema "$ROOT/schemas/catalog.xsd" "$T/cat.xml" 2>/dev/null; then pass "the catalog is valid against catalog.xsd"; else fail "the catalog is valid against catalog.xsd"; fi
x() { xmllint --xpath "string($1)" "$T/cat.xml" 2>/dev/null; }
# The fixtures' Linux on-demand prices; the Windows (7.20) and dedicated (0.106) ones left out.
if [ "$(x "//instance[@type='c5n.18xlarge']/price[@region='us-east-1']/@usd-per-hour")" = 3.888 ] &&
	[ "$(x "//instance[@type='c5n.18xlarge']/price[@region='eu-west-1']/@usd-per-hour")" = 4.392 ] &&
	[ "$(x "//instance[@type='m5.large']/price[@region='us-east-1']/@usd-per-hour")" = 0.096 ] &&
	[ "$(x "//instance[@type='m5.large']/price[@region='eu-west-1']/@usd-per-hour")" = 0.107 ] &&
	[ "$(x "count(//price)")" = 4 ]; then
	pass "prices match the fixtures (on-demand Linux, shared tenancy only)"
else
	fail "prices match the fixtures (on-demand Linux, shared tenancy only)" "$(grep price "$T/cat.xml")"
fi
if [ "$(x "//instance[@type='c5n.18xlarge']/price[@region='us-east-1']/@as-of")" = 2024-06-05 ] &&
	x "//instance[@type='m5.large']/price[@region='us-east-1']/@source" | grep -q "offer file version 20240605181542" &&
	[ "$(x "//instance[@type='m5.large']/network/@baseline-gbps")" = 0.75 ] &&
	[ "$(x "//instance[@type='m5.large']/network/@gbps")" = 10 ] &&
	[ "$(x "//instance[@type='c5n.18xlarge']/network/@efa")" = true ] &&
	[ "$(x "//instance[@type='c5n.18xlarge']/@enhanced")" = ena ] &&
	[ "$(x "//instance[@type='c5n.18xlarge']/@memory-gib")" = 192 ]; then
	pass "dates, sources and describe-instance-types figures (baseline, peak, ENA, EFA)"
else
	fail "dates, sources and describe-instance-types figures (baseline, peak, ENA, EFA)" "$(cat "$T/cat.xml")"
fi
"$NETSWEEP" catalog import -o "$T/one.xml" --region eu-west-1 "$FX/offer-ec2-us-east-1.json" "$FX/get-products-eu-west-1.json" >/dev/null 2>&1
if [ "$(xmllint --xpath 'count(//price)' "$T/one.xml" 2>/dev/null)" = 2 ]; then pass "--region keeps that region's prices"; else fail "--region keeps that region's prices"; fi
echo '{"Reservations": []}' >"$T/other.json"
expect_exit "an input of another kind exits 2" 2 "$NETSWEEP" catalog import -o "$T/x.xml" "$T/other.json"

# A run priced the other way round (the pair's price is twice the instance's: 2 x 3.888), re-priced by the imported catalog.
cat >"$T/run-prices.xml" <<'X'
<catalog name="backwards">
  <instance type="c5n.18xlarge"><price region="us-east-1" usd-per-hour="0.01" as-of="2020-01-01" source="made up"/></instance>
  <instance type="m5.large"><price region="us-east-1" usd-per-hour="50" as-of="2020-01-01" source="made up"/></instance>
</catalog>
X
"$NETSWEEP" agent --quiet --listen 127.0.0.1:7214 &
AGENT=$!
for _ in $(seq 50); do ss -Hltn 'sport = :7214' | grep -q . && break; sleep 0.1; done
cat >"$T/m.xml" <<'X'
<matrix name="reprice" cooldown="0s">
  <pairs>
    <pair name="big" instance-type="c5n.18xlarge" region="us-east-1" agent="127.0.0.1:7214"/>
    <pair name="small" instance-type="m5.large" region="us-east-1" agent="127.0.0.1:7214"/>
  </pairs>
  <axes><axis name="rate"><value>50M</value></axis><axis name="duration"><value>0.3</value></axis></axes>
</matrix>
X
"$NETSWEEP" run "$T/m.xml" --db "$T/r.db" --catalog "$T/run-prices.xml" --quiet >"$T/log" 2>&1 ||
	{ fail "a two-pair run" "$(tail -n 3 "$T/log")"; finish; exit; }
"$NETSWEEP" report --db "$T/r.db" -o "$T/own" >/dev/null 2>&1
"$NETSWEEP" report --db "$T/r.db" -o "$T/re" --catalog "$T/cat.xml" >"$T/rep" 2>&1
own=$(sqlite3 "$T/r.db" "select instance_type from v_cost_ranking where rank = 1")
if grep -q "prices from --catalog $T/cat.xml for 2 of 2 pairs" "$T/rep" &&
	grep -q "Prices.*--catalog" "$T/re/report.md" && grep -q "| 7.776 |" "$T/re/report.md" &&
	grep -q "for 2 of 2 pairs" "$T/re/index.html" && grep -q "| Billed cost | " "$T/re/report.md"; then
	pass "report --catalog says which prices it used"
else
	fail "report --catalog says which prices it used" "$(cat "$T/rep")"
fi
re_rank=$(grep -A30 -i "cost" "$T/re/report.md" | grep -E '^\| *1 ' | head -n 1)
own_rank=$(grep -A30 -i "cost" "$T/own/report.md" | grep -E '^\| *1 ' | head -n 1)
if [ "$own" = c5n.18xlarge ] && echo "$own_rank" | grep -q c5n.18xlarge && echo "$re_rank" | grep -q m5.large; then
	pass "re-priced, the ranking follows the catalog's prices (m5.large first, not c5n.18xlarge)"
else
	fail "re-priced, the ranking follows the catalog's prices (m5.large first, not c5n.18xlarge)" "own: $own_rank / re: $re_rank"
fi
finish
