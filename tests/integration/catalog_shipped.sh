#!/bin/bash
# The shipped catalogs of other providers (data/catalog/azure.xml, gcp.xml, scaleway.xml,
# hetzner.xml, aws-spot.xml) are exactly what the importers write from the fixtures in the
# providers' formats (mk/catalogs.sh, `make catalogs`): data and code agree. Each loads beside
# the default catalog, its prices dated.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
if ! sh "$ROOT/mk/catalogs.sh" "$NETSWEEP" "$T" >"$T/log" 2>&1; then
	fail "mk/catalogs.sh writes the catalogs" "$(cat "$T/log")"
	finish; exit
fi
for f in azure gcp scaleway hetzner aws-spot; do
	if cmp -s "$T/$f.xml" "$ROOT/data/catalog/$f.xml"; then
		pass "data/catalog/$f.xml is what catalog import writes from the fixtures"
	else
		fail "data/catalog/$f.xml is what catalog import writes from the fixtures" \
			"run make catalogs; $(diff "$ROOT/data/catalog/$f.xml" "$T/$f.xml" | head -8)"
	fi
	out=$("$NETSWEEP" cost --no-default-catalog --catalog "$ROOT/data/catalog/$f.xml" 2>&1)
	n=$(grep -Ec ' 20[0-9]{2}-[01][0-9]-[0-3][0-9]$' <<<"$out")
	want=$(grep -c '<price ' "$ROOT/data/catalog/$f.xml")
	if [ "$n" = "$want" ] && [ "$n" -ge 3 ] &&
		"$NETSWEEP" cost --catalog "$ROOT/data/catalog/$f.xml" >/dev/null 2>&1; then
		pass "$f.xml loads beside aws.xml, each of its $want prices dated"
	else
		fail "$f.xml loads beside aws.xml, each of its $want prices dated" "$n dated rows; $out"
	fi
done
finish
