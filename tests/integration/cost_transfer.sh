#!/bin/bash
# netsweep cost (issue 39): --type given twice keeps both types; with no --catalog every shipped
# catalog is searched, a --catalog of the user's winning over them; every row states its
# currency and no "$" heads a column or marks a EUR price; `cost transfer` lists the transfer
# rules (relation, peer, billed, tiers, currency, as-of, source) and the traffic a server
# includes, filtered by --provider and --region.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
NS() { env -u NETSWEEP_CATALOG "$NETSWEEP" "$@"; }
# the table's header and rows (the footnotes of sources come after a blank line)
table() { sed '/^$/,$d' "$1"; }

NS cost --type m5.large --type cx22 --throughput 1G >"$T/two" 2>&1
rc=$?
types=$(table "$T/two" | awk 'NR > 2 { print $1 }' | sort -u | tr '\n' ' ')
if [ "$rc" = 0 ] && [ "$types" = "cx22 m5.large " ] &&
	table "$T/two" | grep -q '^cx22 .* fsn1 .* EUR  *0\.0060 ' &&
	table "$T/two" | grep -q '^m5\.large .* us-east-1 .* on-demand  *USD  *0\.0960 '; then
	pass "cost --type m5.large --type cx22: both types (AWS from aws.xml, Hetzner from the shipped hetzner.xml)"
else
	fail "cost --type m5.large --type cx22: both types" "exit $rc types '$types' $(cat "$T/two")"
fi
if ! table "$T/two" | grep -q '\$' && table "$T/two" | sed -n 2p | grep -q 'Mbit/s/(cur/h) cur/(Gbit/s\*h)' &&
	[ "$(table "$T/two" | awk 'NR > 2 && $0 !~ / (USD|EUR) /' | wc -l)" = 0 ]; then
	pass "every row states its currency; no \$ in the table's header or rows (EUR prices beside USD ones)"
else
	fail "every row states its currency; no \$ in the table" "$(table "$T/two")"
fi

# the user's own catalog first: its price wins over the shipped one
cat >"$T/mine.xml" <<'X'
<?xml version="1.0"?>
<catalog provider="hetzner">
  <instance type="cx22">
    <price region="fsn1" per-hour="0.5" currency="EUR" as-of="2026-12-01" source="my own quote"/>
  </instance>
  <transfer region="fsn1" relation="internet" billed="sender" currency="EUR" as-of="2026-12-01"
            source="my own traffic deal">
    <tier up-to-gb="1000" per-gb="0"/>
    <tier per-gb="0.002"/>
  </transfer>
</catalog>
X
NS cost --catalog "$T/mine.xml" --type cx22 --region fsn1 >"$T/mine" 2>&1
rc=$?
if [ "$rc" = 0 ] && table "$T/mine" | grep -q '^cx22 .* fsn1 .* EUR  *0\.5000 ' &&
	[ "$(table "$T/mine" | grep -c '^cx22')" = 1 ] && grep -q "my own quote" "$T/mine"; then
	pass "a --catalog of the user's is searched first: its cx22 fsn1 price (EUR 0.5) over the shipped one"
else
	fail "the user's catalog first" "exit $rc $(cat "$T/mine")"
fi

# cost transfer
NS cost transfer --provider aws --region us-east-1 >"$T/aws" 2>&1
rc=$?
row() { grep "^$2 *$3 *$4 " "$T/$1" | head -1; }
if [ "$rc" = 0 ] && [ "$(table "$T/aws" | awk 'NR > 1' | wc -l)" = 4 ] &&
	row aws aws us-east-1 cross-zone | grep -q ' both  *USD 2026-11-30 0\.01 \[' &&
	row aws aws us-east-1 same-zone | grep -q ' USD 2026-11-30 0 \[' &&
	row aws aws us-east-1 cross-region | grep -q '(any other) *sender  *USD .* 0\.02 \[' &&
	row aws aws us-east-1 internet | grep -q 'sender  *USD 2026-11-30 0 to 100 GB, 0\.09 to 10240 GB, 0\.085 to 51200 GB, 0\.07 to 153600 GB, 0\.05 past \[' &&
	grep -q "transfer sources: \[1\] AWS" "$T/aws" && grep -q "not that it is free" "$T/aws"; then
	pass "cost transfer --provider aws --region us-east-1: same-zone free, cross-zone 0.01 billed both, cross-region 0.02 sender, internet's five tiers, each with as-of and source"
else
	fail "cost transfer --provider aws --region us-east-1" "exit $rc $(cat "$T/aws")"
fi
NS cost transfer --provider hetzner --region fsn1 >"$T/hz" 2>&1
rc=$?
if [ "$rc" = 0 ] && row hz hetzner fsn1 internet | grep -q 'sender  *EUR 2026-11-30 0\.000909495 ' &&
	row hz hetzner fsn1 cross-region | grep -q ' ash ' &&
	grep -q '^  hetzner    fsn1  *21990\.2 GB  .*cx22' "$T/hz" && ! table "$T/hz" | grep -q 'USD'; then
	pass "cost transfer --provider hetzner --region fsn1: EUR per GB past the 21990.2 GB (20 TiB) each server includes"
else
	fail "cost transfer --provider hetzner --region fsn1" "exit $rc $(cat "$T/hz")"
fi
NS cost transfer --catalog "$T/mine.xml" --provider hetzner --region fsn1 >"$T/hzm" 2>&1
if row hzm hetzner fsn1 internet | grep -q '0 to 1000 GB, 0\.002 past' && grep -q "my own traffic deal" "$T/hzm"; then
	pass "cost transfer: the user's rule replaces the shipped one of the same provider, region and relation"
else
	fail "cost transfer: the user's rule replaces the shipped one" "$(cat "$T/hzm")"
fi
NS cost transfer --no-default-catalog --catalog "$T/mine.xml" >"$T/only" 2>&1
if [ "$(table "$T/only" | awk 'NR > 1' | wc -l)" = 1 ]; then
	pass "cost transfer --no-default-catalog: only the given catalog's rule"
else
	fail "cost transfer --no-default-catalog" "$(cat "$T/only")"
fi
NS cost transfer --provider nosuch >"$T/none" 2>&1
rc=$?
if [ "$rc" = 1 ] && grep -q "no transfer rule in the catalogs for provider nosuch" "$T/none"; then
	pass "cost transfer --provider nosuch: exit 1, says so"
else
	fail "cost transfer --provider nosuch" "exit $rc $(cat "$T/none")"
fi
NS cost transfer extra >"$T/op" 2>&1
rc1=$?
NS cost transfer --bogus >"$T/bo" 2>&1
rc2=$?
printf '<catalog><transfer region="r" relation="internet" billed="x" currency="EUR" as-of="2026-01-01" source="s"><tier per-gb="1"/></transfer></catalog>\n' >"$T/bad.xml"
NS cost transfer --catalog "$T/bad.xml" >"$T/bad" 2>&1
rc3=$?
if [ "$rc1" = 2 ] && [ "$rc2" = 2 ] && [ "$rc3" = 2 ] && grep -q "$T/bad.xml:1:.*billed" "$T/bad"; then
	pass "cost transfer: an operand, an unknown option, a broken catalog (file:line and the field) exit 2"
else
	fail "cost transfer: usage errors" "$rc1 $rc2 $rc3 $(cat "$T/op" "$T/bo" "$T/bad")"
fi
NS cost --help >"$T/help" 2>&1
if grep -q "cost transfer" "$T/help" && grep -q "repeat it for several" "$T/help"; then
	pass "cost --help documents transfer and a repeated --type"
else
	fail "cost --help" "$(cat "$T/help")"
fi
finish
