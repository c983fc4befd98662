#!/bin/bash
# report.json beside index.html validates against schemas/report.schema.json and carries the
# page's numbers: the ranking's Mbit/s per $/hour, the comparison's changes and p, the
# findings in the page's order. The ranking rule (report --rank-by, the matrix's rank-by in
# run_rank) is one definition for the page, report.json, ranking.csv and v_cost_ranking.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
bash "$here/../fixtures/report_fixture.sh" nights "$tmp/n.db" 2 2 ||
	{ fail "fixture" "report_fixture.sh nights"; finish; exit; }
export NETSWEEP_GNUPLOT=none
"$NETSWEEP" report --db "$tmp/n.db" --baseline previous -o "$tmp/o" >/dev/null 2>&1 ||
	{ fail "report" "exit $?"; finish; exit; }
json=$tmp/o/report.json html=$tmp/o/index.html
[ -s "$json" ] && pass "report.json written" || fail "report.json written"
if ! command -v python3 >/dev/null; then
	skip "report.json validation" "python3 is not installed: NOT CHECKED (apt-get install python3)"
	finish; exit
fi
if out=$(python3 "$here/../lib/json_schema_check.py" "$root/schemas/report.schema.json" "$json"); then
	pass "report.json validates against schemas/report.schema.json"
else
	fail "report.json validates against schemas/report.schema.json" "$(head -3 <<<"$out")"
fi
# The checker itself must catch a broken document.
python3 - "$json" "$tmp/bad.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["ranking"]["rows"][0]["rank"] = "first"; del d["run"]["id"]
json.dump(d, open(sys.argv[2], "w"))
PY
if ! python3 "$here/../lib/json_schema_check.py" "$root/schemas/report.schema.json" "$tmp/bad.json" >/dev/null; then
	pass "the checker refuses a broken report.json"
else
	fail "the checker refuses a broken report.json"
fi
jq() { python3 -c "import json,sys; d=json.load(open('$json')); print($1)"; }
same_list() { # name json-list page-list
	if [ -n "$2" ] && [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "json '$2', page '$3'"; fi
}
same_list "ranking: Mbit/s per \$/hour as on the page" \
	"$(jq "' '.join('%.0f' % r['mbps_per_usd_hour'] for r in d['ranking']['rows'])")" \
	"$(xp "$html" "//table[@id='cost-table']/tbody/tr/td[7]" | sed 's/<[^>]*>//g' | tr '\n' ' ' | sed 's/ *$//')"
same_list "comparison: changes as on the page" \
	"$(jq "' '.join('%+.1f %%' % c['change_pct'] for c in d['comparison']['cases'])" | sed 's/% /%|/g')" \
	"$(xp "$html" "//table[@id='comparison-table']/tbody/tr/td[5]" | sed 's/<[^>]*>//g' | tr '\n' '|' | sed 's/|$//')"
same_list "comparison: verdicts as on the page" \
	"$(jq "'|'.join(c['verdict'] for c in d['comparison']['cases'])")" \
	"$(xp "$html" "//table[@id='comparison-table']/tbody/tr/td[7]" | sed 's/<[^>]*>//g' | tr '\n' '|' | sed 's/|$//')"
same_list "findings: the page's, in its order" \
	"$(jq "'|'.join(f['kind'] for f in d['findings'])")" \
	"$(xp "$html" "//section[@id='findings']//li/@data-kind" | sed 's/.*="\(.*\)"/\1/' | tr -d ' ' | tr '\n' '|' | sed 's/|$//')"
regs=$(jq "d['comparison']['regressions']")
[ "$regs" = 2 ] && pass "comparison: 2 regressions" || fail "comparison: 2 regressions" "$regs"

# The ranking rule. best: m4.xlarge ranks first on its 8-stream case (1400 Mbit/s / 0.366 in
# run 1); on streams=1, m4.large leads (436 / 0.183). Page, report.json, ranking.csv agree.
rank_of() { jq "' '.join(r['pair'] + ':' + r['case_key'] for r in d['ranking']['rows'])"; }
"$NETSWEEP" report --db "$tmp/n.db" --run 1 -o "$tmp/r1" >/dev/null 2>&1
json=$tmp/r1/report.json
best=$(rank_of)
"$NETSWEEP" report --db "$tmp/n.db" --run 1 --rank-by streams=1 -o "$tmp/r1s" >/dev/null 2>&1
json=$tmp/r1s/report.json
one=$(rank_of)
rule=$(jq "d['ranking']['rule']")
if [[ $best == "m4.xlarge:m4.xlarge-s8 "* ]] && [[ $one == "m4.large:m4.large-s1 m4.xlarge:m4.xlarge-s1 m4.2xlarge:m4.2xlarge-s1" ]] &&
   [ "$rule" = streams=1 ]; then
	pass "--rank-by streams=1 ranks each pair's 1-stream case"
else
	fail "--rank-by streams=1 ranks each pair's 1-stream case" "best: $best; streams=1 ($rule): $one"
fi
if xp "$tmp/r1s/index.html" 'string(//p[@id="rank-rule"])' | grep -q 'Ranked on: streams=1' &&
   [ "$(cut -d, -f3,8 "$tmp/r1s/ranking.csv" | sed 1d | tr '\n' ' ')" = "m4.large,m4.large-s1 m4.xlarge,m4.xlarge-s1 m4.2xlarge,m4.2xlarge-s1 " ]; then
	pass "the page states the rule; ranking.csv ranks alike"
else
	fail "the page states the rule; ranking.csv ranks alike" "$(cat "$tmp/r1s/ranking.csv")"
fi
expect_exit "--rank-by with an unknown key exits 2" 2 "$NETSWEEP" report --db "$tmp/n.db" --rank-by colour=blue -o "$tmp/x"
# The stored rule (a matrix's rank-by lands in run_rank) drives the report and the view alike.
# The views read columns the migration ladder adds (v_cost_ranking: run_instance_types'
# network_up_to, store version 26), which the fixture's schema file alone lacks: the database
# is migrated in place first, as run migrates one (db prune, keeping every night, changes
# nothing else).
"$NETSWEEP" db prune --keep-nights 1000000 --db "$tmp/n.db" >/dev/null 2>&1
sqlite3 "$tmp/n.db" "INSERT INTO run_rank VALUES (1, 'streams=1')"
"$NETSWEEP" report --db "$tmp/n.db" --run 1 -o "$tmp/r1m" >/dev/null 2>&1
json=$tmp/r1m/report.json
page=$(jq "' '.join('%s:%.6f' % (r['pair'], r['mbps_per_usd_hour']) for r in d['ranking']['rows'])")
view=$(sqlite3 "$tmp/n.db" "SELECT group_concat(endpoint || ':' || printf('%.6f', mbps_per_usd_hour), ' ')
	FROM (SELECT * FROM v_cost_ranking WHERE run_id = 1 ORDER BY rank)")
if [ "$page" = "$view" ] && [[ $page == m4.large:* ]]; then
	pass "a stored rank-by: report and v_cost_ranking agree ($view)"
else
	fail "a stored rank-by: report and v_cost_ranking agree" "report '$page', view '$view'"
fi
view2=$(sqlite3 "$tmp/n.db" "SELECT group_concat(endpoint || ':' || case_key, ' ')
	FROM (SELECT * FROM v_cost_ranking WHERE run_id = 2 ORDER BY rank)")
json=$tmp/o/report.json
page2=$(jq "' '.join(r['pair'] + ':' + r['case_key'] for r in d['ranking']['rows'])")
if [ "$page2" = "$view2" ]; then pass "best case per pair: report and v_cost_ranking agree"
else fail "best case per pair: report and v_cost_ranking agree" "report '$page2', view '$view2'"; fi
finish
