#!/bin/bash
# The one XSD validator (lib/xml/xsdcheck) as each of its callers reports it: a matrix
# (run --dry-run; a misspelt name gets lib/xml/xmlhint's hint instead), a catalog (cost --catalog) and the report's re-pricing catalog (report
# --catalog) with a schema error on line 3 each exit 2 naming FILE:3 and the validator's own
# words (the element and attribute it blames), and a catalog of 100,000 bad elements is refused
# at its first error as fast as a file of one.
source "$(dirname "$0")/../lib/check.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

# expect_xsd NAME FILE WORDS COMMAND...: exit 2, stderr with FILE:3: and WORDS
expect_xsd() {
	local name=$1 file=$2 words=$3; shift 3
	local out rc
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" = 2 ] && [[ "$out" == *"$file:3:"* ]] && [[ "$out" == *"$words"* ]]; then
		pass "$name: $out"
	else
		fail "$name" "exit $rc (want 2), message '$out' (want $file:3: and '$words')"
	fi
}

printf '<?xml version="1.0"?>\n<catalog name="x">\n  <instance type="a.b" vcpus="two"/>\n</catalog>\n' >"$T/bad-catalog.xml"
cat >"$T/bad-matrix.xml" <<'XML'
<?xml version="1.0"?>
<matrix name="m"
  repeats="many">
  <axes><axis name="streams"><value>1</value></axis></axes>
</matrix>
XML
cat >"$T/misspelt.xml" <<'XML'
<?xml version="1.0"?>
<matrix name="m" repeats="1">
  <axes><axis name="streams"><value>1</value></axis></axes><pairs bogus="1"/>
</matrix>
XML
words="Element 'instance', attribute 'vcpus': 'two' is not a valid value"
expect_xsd "run --dry-run names the matrix's line and the validator's message" \
	"$T/bad-matrix.xml" "Element 'matrix', attribute 'repeats': 'many' is not a valid value" \
	"$NETSWEEP" run "$T/bad-matrix.xml" --dry-run
# a name the schema does not have: the hint from the same schema says what it allows instead
expect_xsd "run --dry-run: an attribute of an element that takes none says so" \
	"$T/misspelt.xml" "<pairs> has no attribute 'bogus': it takes none" \
	"$NETSWEEP" run "$T/misspelt.xml" --dry-run
expect_xsd "cost --catalog names the catalog's line and the validator's message" \
	"$T/bad-catalog.xml" "$words" "$NETSWEEP" cost --no-default-catalog --catalog "$T/bad-catalog.xml"
if bash "$ROOT/tests/fixtures/report_fixture.sh" m4 "$T/m4.db" >/dev/null 2>"$T/fixture.log"; then
	expect_xsd "report --catalog names the catalog's line and the validator's message" \
		"$T/bad-catalog.xml" "$words" "$NETSWEEP" report --db "$T/m4.db" --catalog "$T/bad-catalog.xml" -o "$T/out"
else
	fail "report --catalog names the catalog's line and the validator's message" "fixture: $(tail -1 "$T/fixture.log")"
fi

# 100,000 bad instances after the first: the first error stops the reading
{
	printf '<?xml version="1.0"?>\n<catalog name="x">\n'
	for _ in $(seq 1000); do printf '  <instance type="a.b" vcpus="two"/>\n'; done
} >"$T/one.xml"
{
	printf '<?xml version="1.0"?>\n<catalog name="x">\n'
	yes '  <instance type="a.b" vcpus="two"/>' | head -n 100000
	printf '</catalog>\n'
} >"$T/many.xml"
t0=$(date +%s%N)
out=$("$NETSWEEP" cost --no-default-catalog --catalog "$T/many.xml" 2>&1)
rc=$?
t1=$(date +%s%N)
"$NETSWEEP" cost --no-default-catalog --catalog "$T/one.xml" >/dev/null 2>&1
t2=$(date +%s%N)
many_ms=$(((t1 - t0) / 1000000)) one_ms=$(((t2 - t1) / 1000000))
# a generous bound for a loaded machine: reading all 100,000 errors takes seconds
if [ "$rc" = 2 ] && [[ "$out" == *"many.xml:3:"* ]] && [ "$many_ms" -lt $((one_ms * 5 + 2000)) ]; then
	pass "a catalog of 100,000 errors stops at the first: ${many_ms} ms (one of 1,000: ${one_ms} ms)"
else
	fail "a catalog of 100,000 errors stops at the first" "exit $rc, ${many_ms} ms vs ${one_ms} ms: $out"
fi
finish
