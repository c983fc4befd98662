#!/bin/bash
# The news first: two nights of three m4 pairs where the m4.xlarge link carries 60 % on the
# second night. The page opens with what changed (the regressions by size, each pair's
# Mbit/s per $/hour and rank then and now), then the best per dollar; findings are ordered by
# importance. The environment keeps declared and detected attributes apart and marks a
# contradiction.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
fx=$here/../fixtures/report_fixture.sh
bash "$fx" nights "$tmp/n.db" 2 2 && bash "$fx" basic "$tmp/b.db" ||
	{ fail "fixtures" "report_fixture.sh nights/basic"; finish; exit; }
export NETSWEEP_GNUPLOT=none
"$NETSWEEP" report --db "$tmp/n.db" --baseline previous -o "$tmp/o" >/dev/null 2>&1 ||
	{ fail "report with a baseline" "exit $?"; finish; exit; }
html=$tmp/o/index.html

head=$(xp "$html" 'string(//p[@id="headline"])')
if [[ $head == "Against run 1: 2 regressions, 0 improvements. Worst: m4.xlarge"*"-40.0 %"* ]]; then
	pass "headline opens with the regressions"
else
	fail "headline opens with the regressions" "$head"
fi
order=$(xp "$html" '//main/section/@id' | sed 's/.*="\(.*\)"/\1/' | tr -d ' ' | tr '\n' ' ')
if [[ $order == "news cost findings "* ]]; then pass "sections: news, best per dollar, findings first"
else fail "sections: news, best per dollar, findings first" "$order"; fi

keys=$(xp "$html" "//table[@id='changes-table']/tbody/tr/@data-case-key" | sed 's/.*="\(.*\)"/\1/' | tr -d ' ' | tr '\n' ' ')
if [ "$keys" = "m4.xlarge-s1 m4.xlarge-s8 " ] || [ "$keys" = "m4.xlarge-s8 m4.xlarge-s1 " ]; then
	pass "what changed: exactly the two m4.xlarge cases"
else
	fail "what changed: exactly the two m4.xlarge cases" "$keys"
fi
# The pairs whose rank improved (m4.2xlarge 2 to 1, m4.large 3 to 2, their figures the same)
# are green, never red; m4.xlarge, down 40 % and to rank 3, is red; no change reads "-0.0 %".
cls=$(xp "$html" "//table[@id='cost-change-table']/tbody/tr/@class" | tr -d ' ' | tr '\n' ' ')
chg=$(xp "$html" "//table[@id='cost-change-table']/tbody/tr/td[4]/text()" | tr '\n' ' ')
if [ "$cls" = 'class="improvement" class="improvement" class="regression" ' ] && [[ $chg != *"-0.0"* ]]; then
	pass "per dollar then and now: an improved rank green, the fall red, no -0.0 % ($chg)"
else
	fail "per dollar then and now: row colours" "classes $cls; changes $chg"
fi
# Per dollar, from the database: the best case's median over the sender's price.
row="//table[@id='cost-change-table']/tbody/tr[@data-pair='m4.xlarge']"
want=$(sqlite3 "$tmp/n.db" "SELECT group_concat(v, ' ') FROM (SELECT round(max(g) / 0.366) AS v FROM
	(SELECT c.run_id, c.id, (SELECT fwd_rcv_bps / 1e6 FROM results r WHERE r.case_id = c.id
	 ORDER BY fwd_rcv_bps LIMIT 1 OFFSET 2) AS g FROM cases c JOIN endpoints e ON e.id = c.endpoint_id
	 WHERE e.name = 'm4.xlarge') GROUP BY run_id ORDER BY run_id)")
got="$(xp "$html" "string($row/td[2])") $(xp "$html" "string($row/td[3])")"
got=$(awk '{ printf "%d %d", $1, $2 }' <<<"$got")
want=$(awk '{ printf "%d %d", $1, $2 }' <<<"$want")
if [ "$got" = "$want" ] && [ "$(xp "$html" "string($row/td[5])")$(xp "$html" "string($row/td[6])")" = 13 ] &&
   [ "$(xp "$html" "string($row/td[4])")" = "-40.0 %" ]; then
	pass "per dollar then and now: m4.xlarge $want, -40.0 %, rank 1 to 3"
else
	fail "per dollar then and now: m4.xlarge" "page '$got' rank $(xp "$html" "string($row/td[5])")->$(xp "$html" "string($row/td[6])"), database '$want'"
fi
kinds=$(xp "$html" "//section[@id='findings']//li/@data-kind" | sed 's/.*="\(.*\)"/\1/' | tr -d ' ' | tr '\n' ' ')
if [[ $kinds == "change change cost-change cost-change cost-change "* ]] && [[ $kinds == *" cost scaling "* ]]; then
	pass "findings in order of importance"
else
	fail "findings in order of importance" "$kinds"
fi
first_cc=$(xp "$html" "string((//section[@id='findings']//li[@data-kind='cost-change'])[1])")
if [[ $first_cc == "Per dollar, m4.xlarge went from"*"rank 1 to 3"*"regression"* ]]; then
	pass "the per-dollar fall comes before rank-only moves"
else
	fail "the per-dollar fall comes before rank-only moves" "$first_cc"
fi
if grep -n '^## ' "$tmp/o/report.md" | head -2 | tr '\n' ' ' | grep -q '## What changed.*## Best per dollar'; then
	pass "report.md opens with what changed, then the best per dollar"
else
	fail "report.md opens with what changed, then the best per dollar" "$(grep '^## ' "$tmp/o/report.md" | head -3)"
fi
# One unit on the page: every goodput of this run is below 10 Gbit/s, so all say Mbit/s.
if ! grep -q '[0-9] Gbit/s' "$html" && grep -q '1400 Mbit/s' "$html"; then pass "one unit per page (Mbit/s)"
else fail "one unit per page (Mbit/s)" "$(grep -o '[0-9.]* Gbit/s' "$html" | head -3)"; fi

"$NETSWEEP" report --db "$tmp/n.db" -o "$tmp/nb" >/dev/null 2>&1
if xp "$tmp/nb/index.html" 'string(//section[@id="news"])' | grep -q 'No baseline'; then
	pass "without a baseline the news says so"
else
	fail "without a baseline the news says so"
fi

# Declared vs detected: the nights pairs declared instance types but no host reported one.
row="//table[@id='environment-table']/tbody/tr[@data-endpoint='m4.xlarge'][@data-side='agent']"
if [ "$(xp "$tmp/nb/index.html" "string($row/td[3])")" = m4.xlarge ] &&
   [ "$(xp "$tmp/nb/index.html" "string($row/td[4])")" = "not reported" ]; then
	pass "environment: a declared instance type is not shown as detected"
else
	fail "environment: a declared instance type is not shown as detected" "$(xp "$tmp/nb/index.html" "string($row)")"
fi
# A host that says it is another instance type: the cell is marked and a warning says so.
sqlite3 "$tmp/b.db" "UPDATE endpoints SET agent_info = json_set(agent_info, '$.cloud.instance_type',
	'c5n.9xlarge') WHERE name = 'c5n-pair'"
"$NETSWEEP" report --db "$tmp/b.db" -o "$tmp/b" >/dev/null 2>&1
row="//table[@id='environment-table']/tbody/tr[@data-endpoint='c5n-pair'][@data-side='agent']"
cls=$(xp "$tmp/b/index.html" "string($row/td[4]/@class)")
w=$(xp "$tmp/b/index.html" "string(//section[@id='environment']//p[contains(@class,'mismatch-note')])")
ok_client=$(xp "$tmp/b/index.html" "count(//table[@id='environment-table']/tbody/tr[@data-endpoint='c5n-pair'][@data-side='client']/td[@class='mismatch'])")
if [ "$cls" = mismatch ] && [[ $w == *"declared instance type c5n.18xlarge, but the host reports c5n.9xlarge"* ]] &&
   [ "$ok_client" = 0 ]; then
	pass "environment: a mismatch is marked and explained"
else
	fail "environment: a mismatch is marked and explained" "class '$cls', note '$w', client marks $ok_client"
fi
finish
