#!/bin/bash
# The catalog files against schemas/catalog.xsd (xmllint and the built-in validator), clear
# errors for malformed catalogs, user catalogs overriding the default, and the wire table.
source "$(dirname "$0")/../lib/check.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d) || exit 1
trap 'rm -rf "$TMP"' EXIT

if command -v xmllint >/dev/null 2>&1; then
	for f in "$ROOT"/data/catalog/*.xml; do
		check "xmllint: $(basename "$f") matches catalog.xsd" \
			xmllint --noout --schema "$ROOT/schemas/catalog.xsd" "$f"
	done
else
	skip "xmllint validation" "xmllint missing (Debian package libxml2-utils)"
fi

out=$("$NETSWEEP" cost --type m4 --region ap-northeast-1 --throughput 436M --basis sender)
grep -Eq '^m4\.large .* 0\.1830 2015-06-01 +2383 ' <<<"$out" &&
	pass "cost: m4.large in Tokyo at 436 Mbit/s is 2383 Mbit/s per \$/hour" ||
	fail "cost: m4.large in Tokyo at 436 Mbit/s is 2383 Mbit/s per \$/hour" "got: $out"
grep -q 'price sources:.*m4-family bandwidth-per-dollar' <<<"$out" && pass "cost: prices name their source" ||
	fail "cost: prices name their source"

out=$("$NETSWEEP" cost --catalog "$ROOT/data/catalog/scaleway-example.xml" --type scaleway.c2s)
grep -q '^scaleway.c2s .* fr-par-1 ' <<<"$out" && pass "cost --catalog adds a user catalog" ||
	fail "cost --catalog adds a user catalog" "got: $out"

cat >"$TMP/spot.xml" <<'XML'
<?xml version="1.0"?>
<catalog name="spot">
  <instance type="c5n.18xlarge">
    <price region="us-east-1" usd-per-hour="1.2345" as-of="2026-11-01" source="test spot"/>
  </instance>
</catalog>
XML
out=$("$NETSWEEP" cost --catalog "$TMP/spot.xml" --type c5n.18xlarge --region us-east-1)
grep -q '^c5n.18xlarge .* 100 .* 1\.2345 2026-11-01' <<<"$out" && pass "later catalog overrides a price" ||
	fail "later catalog overrides a price" "got: $out"

printf '<?xml version="1.0"?>\n<catalog>\n  <instance type="m4.large">\n  </instanc>\n</catalog>\n' \
	>"$TMP/broken.xml"
err=$("$NETSWEEP" cost --catalog "$TMP/broken.xml" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] && [[ $err == *"$TMP/broken.xml:4:"* ]] &&
	pass "malformed catalog: exit 2 naming file:line" ||
	fail "malformed catalog: exit 2 naming file:line" "exit $rc: $err"
if command -v xmllint >/dev/null 2>&1; then
	! xmllint --noout --schema "$ROOT/schemas/catalog.xsd" "$TMP/broken.xml" 2>/dev/null &&
		pass "xmllint rejects the malformed catalog" || fail "xmllint rejects the malformed catalog"
fi

sed 's/enhanced="ena"/enhanced="sr-iov"/' "$ROOT/data/catalog/aws.xml" >"$TMP/invalid.xml"
err=$("$NETSWEEP" cost --no-default-catalog --catalog "$TMP/invalid.xml" 2>&1 >/dev/null)
rc=$?
[ "$rc" = 2 ] && [[ $err =~ $TMP/invalid.xml:[0-9]+:.*enhanced ]] &&
	pass "schema-invalid catalog: exit 2 naming file:line and attribute" ||
	fail "schema-invalid catalog: exit 2 naming file:line and attribute" "exit $rc: $err"

expect_exit "missing catalog file exits 2" 2 "$NETSWEEP" cost --catalog "$TMP/none.xml"
expect_exit "unknown type exits 1" 1 "$NETSWEEP" cost --type z9.huge

out=$("$NETSWEEP" cost wire --speed 10G --sizes 64,1518)
grep -Eq '^ +64 +18 +14880952 ' <<<"$out" && grep -Eq '^ +1518 +1472 +812744 ' <<<"$out" &&
	pass "cost wire: 10GbE 14880952 pps at 64 B, 812744 at 1518 B" ||
	fail "cost wire: 10GbE 14880952 pps at 64 B, 812744 at 1518 B" "got: $out"
grep -Eq '^ +1500 +1448 +94\.15% ' <<<"$out" && pass "cost wire: TCP share at MTU 1500" ||
	fail "cost wire: TCP share at MTU 1500" "got: $out"
expect_exit "cost wire without --speed exits 2" 2 "$NETSWEEP" cost wire
expect_exit "cost wire rejects a 10-byte frame" 2 "$NETSWEEP" cost wire --speed 10G --sizes 10
finish
