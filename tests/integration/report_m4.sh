#!/bin/bash
# The m4 family benchmark (data/matrices/m4-family.xml) loaded as results (Tokyo prices,
# one stream, sender price basis): the cost table must show the post's Mbit/s per $/hour column and its ranking.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
db=$tmp/m4.db out=$tmp/out
bash "$here/../fixtures/report_fixture.sh" m4 "$db" || { fail "fixture" "report_fixture.sh m4"; finish; exit; }
expect_exit "report exits 0" 0 "$NETSWEEP" report --db "$db" -o "$out"
html=$out/index.html
# instance  per-dollar  rank  (the post's rows; 2xlarge and 4xlarge tie)
want="m4.large 2383 1
m4.xlarge 1995 2
m4.2xlarge 1318 4
m4.4xlarge 1318 4
m4.10xlarge 1609 3"
while read -r it per rank; do
	row="//table[@id='cost-table']/tbody/tr[td[2]='$it']"
	got_per=$(xp "$html" "string($row/td[7])")
	got_rank=$(xp "$html" "string($row/td[1])")
	if [ "$got_per" = "$per" ] && [ "$got_rank" = "$rank" ]; then
		pass "$it: $per Mbit/s per \$/hour, rank $rank"
	else
		fail "$it: $per Mbit/s per \$/hour, rank $rank" "page shows '$got_per', rank '$got_rank'"
	fi
done <<< "$want"
order=$(xp "$html" "//table[@id='cost-table']/tbody/tr/td[2]/text()" | tr '\n' ' ')
if [ "$order" = "m4.large m4.xlarge m4.10xlarge m4.2xlarge m4.4xlarge " ]; then
	pass "rows in ranking order"
else
	fail "rows in ranking order" "$order"
fi
if grep -q '^| 1 | m4.large | ap-northeast-1 | sender | 0.183 | 436 Mbit/s | 2383 |' "$out/report.md" &&
   grep -q '^| 4 | m4.4xlarge | ap-northeast-1 | sender | 1.464 | 1930 Mbit/s | 1318 |' "$out/report.md"; then
	pass "report.md cost table"
else
	fail "report.md cost table" "$(grep -m2 '| m4' "$out/report.md")"
fi
if xp "$html" "string(//section[@id='findings'])" | grep -q 'm4.large gives the most throughput per dollar: 2383'; then
	pass "finding names the best per dollar"
else
	fail "finding names the best per dollar"
fi
finish
