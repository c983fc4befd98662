#!/bin/bash
# A matrix with <search> on the loopback default: every UDP case becomes a rate search whose
# answers land in the database (v_search_goals, v_search_trials) beside a normal result row;
# TCP cases run as usual; a bad <search> attribute is refused with file:line:field.
source "$(dirname "$0")/../lib/check.sh"
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0

cat >"$T/m.xml" <<'XML'
<matrix name="search-loopback">
  <axes>
    <axis name="protocol"><value>udp</value><value>tcp</value></axis>
    <axis name="length"><value>256</value><value>1024</value></axis>
    <axis name="duration"><value>0.3s</value></axis>
  </axes>
  <search goals="0,1%" width="2%" initial-duration="0.3s" final-duration="0.5s" max-pps="5k" min-pps="500" confirm-packets="1000"/>
</matrix>
XML
DB=$T/s.db
if "$NETSWEEP" run "$T/m.xml" --db "$DB" --quiet >"$T/out" 2>&1; then
	pass "a matrix with <search> runs"
else
	fail "a matrix with <search> runs" "$(tail -3 "$T/out")"
fi
q() { sqlite3 "$DB" "$1" 2>/dev/null; }
rows=$(q "select count(*) from v_search_goals")
met=$(q "select count(*) from v_search_goals where met and abs(lower_pps - 5000) < 1")
if [ "$rows" = 4 ] && [ "$met" = 4 ]; then
	pass "each UDP case stored its search: 2 sizes x 2 goals, the 5k pps maximum met on loopback"
else
	fail "each UDP case stored its search" "rows $rows, met at 5000 pps: $met (want 4, 4)"
fi
tcp=$(q "select count(*) from v_results r where protocol = 'tcp' and status = 'ok'
	and not exists (select 1 from searches s where s.result_id = r.result_id)")
udp=$(q "select count(*) from v_results r join searches s on s.result_id = r.result_id
	where protocol = 'udp' and status = 'ok' and fwd_snd_pps > 4500")
if [ "$tcp" = 2 ] && [ "$udp" = 2 ]; then
	pass "TCP cases run as tests, UDP results hold the confirming trial at the answer"
else
	fail "TCP cases run as tests, UDP results hold the confirming trial at the answer" "tcp $tcp, udp $udp"
fi
bound=$("$NETSWEEP" run "$T/m.xml" --dry-run 2>/dev/null | sed -n 's/.*at most \([0-9]*\) trials.*/\1/p')
most=$(q "select max(n) from (select count(*) n from v_search_trials group by result_id)")
if [ -n "$bound" ] && [ -n "$most" ] && [ "$most" -le "$bound" ]; then
	pass "the dry run states the worst case and each search kept within it ($most <= $bound trials)"
else
	fail "the dry run states the worst case" "bound '$bound', most '$most'"
fi

# The report reads the searches from the database: make one goal unmet and declare a 10G link
# there, as a run on a lossy path would have stored, and look for the sentence, the table,
# the wire rate (10e9 / ((256 + 46 + 20) x 8) = 3,881,987.6 pps) and the chart.
q "update searches set search_json = json_set(search_json, '\$.goals[0].met', json('false'),
	'\$.goals[0].lower_pps', json('null'), '\$.goals[0].note', 'no load met the 0 % loss goal')
	where result_id = (select min(result_id) from searches);
	update searches set search_json = json_set(search_json, '\$.goals[1].sender_limited', json('true'),
	'\$.goals[1].at_least_pps', 4321, '\$.goals[1].note',
	'the sender could not offer more than 4321 packets/s here (asked for 5000): PDR 1 % is at least 4321 packets/s')
	where result_id = (select max(result_id) from searches);
	update endpoints set link_bps = 10000000000"
"$NETSWEEP" report --db "$DB" -o "$T/rep" >"$T/rout" 2>&1
html=$T/rep/index.html
rows=$(xmllint --html --xpath "count(//table[@id='search-table']/tbody/tr[td])" "$html" 2>/dev/null)
wire=$(xmllint --html --xpath "string(//table[@id='search-table']/tbody/tr[td][1]/td[last()]/@data-value)" "$html" 2>/dev/null)
if [ "$rows" = 2 ] && [ "${wire%.*}" = 3881987 ] && grep -q "NDR not met: no load met the 0 % loss goal" "$html" &&
	grep -q "## Zero-loss rate search" "$T/rep/report.md"; then
	pass "the report shows each search's bounds, the wire rate and why a goal was not met"
else
	fail "the report shows each search's bounds" "rows '$rows', wire '$wire': $(head -2 "$T/rout")"
fi
# A goal the sender bounded: a floor in the table ("≥"), never a plain figure, and the sentence.
name="the report marks a sender-limited goal as a floor with its sentence"
if [ "$(grep -c 'sender-limited' "$html")" -ge 1 ] && grep -q '≥ 4321' "$html" &&
	grep -q 'PDR 1 % limited by the sender, not the path: the sender could not offer more than 4321' "$html" &&
	grep -q '≥ 4321 (sender)' "$T/rep/report.md"; then
	pass "$name"
else
	fail "$name" "$(grep -o '[^<>]*4321[^<>]*' "$html" "$T/rep/report.md" | head -3)"
fi
if ! command -v gnuplot >/dev/null 2>&1; then
	skip "the search chart renders" "gnuplot not installed"
elif [ -s "$T/rep/search_size.svg" ] && grep -q "wire rate" "$T/rep/search_size.gp" &&
	xmllint --html --xpath "//section[@id='charts']//svg" "$html" >/dev/null 2>&1; then
	pass "the search chart renders (NDR/PDR vs payload, wire rate)"
else
	fail "the search chart renders" "$(ls "$T/rep" | tr '\n' ' ')"
fi

sed 's/width="2%"/width="two"/' "$T/m.xml" >"$T/bad.xml"
"$NETSWEEP" run "$T/bad.xml" --dry-run >"$T/out" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "bad.xml:7: search: width: 'two'" "$T/out"; then
	pass "a bad <search> attribute names file, line and field (exit 2)"
else
	fail "a bad <search> attribute names file, line and field" "exit $rc: $(head -2 "$T/out")"
fi
finish
