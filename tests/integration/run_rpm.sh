#!/bin/bash
# Responsiveness in a matrix (issue 41): the responsiveness axis on a priced loopback pair
# runs the test through the agent (schemas/responsiveness.md), stores its row (result_rpm,
# v_responsiveness: RPM, idle RPM and RPM per $/hour of the pair's price), keeps the loaded
# test as the case's result (v_results, v_latency_under_load), and the report shows RPM and
# RPM per $/hour beside the latency under load (HTML and Markdown), report.json's
# responsiveness[] and export (OpenMetrics netsweep_responsiveness_rpm, NDJSON) the same RPM. A responsiveness case with
# UDP is refused at load, naming the file and line. The rx-copy axis (skip: MSG_TRUNC) reaches
# the agent's receiver and v_cpu_per_bit says so, with both ends' CPU per GB and where their
# threads ran. Consistency only: no speed bound.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/lo_agent.sh"
command -v sqlite3 >/dev/null || { skip "run responsiveness" "sqlite3 is not installed"; exit 0; }
lo_agent_setup run_rpm
start_agent "$TMP/agent.log" || { fail "agent on loopback" "$(cat "$TMP/agent.log")"; exit 1; }
port=$PORT
cat >"$TMP/m.xml" <<X
<matrix name="rpm" repeats="1" order="as-written" cooldown="0s">
  <pairs>
    <pair name="small" instance-type="m4.large" region="ap-northeast-1" agent="127.0.0.1:$port"/>
  </pairs>
  <axes>
    <axis name="responsiveness"><value>true</value></axis>
    <axis name="rx-copy"><value>skip</value></axis>
    <axis name="rate"><value>200M</value></axis>
    <axis name="duration"><value>1</value></axis>
  </axes>
</matrix>
X
DB=$TMP/r.db
timeout 200 "$NS" run "$TMP/m.xml" --db "$DB" --quiet >"$TMP/log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then pass "a responsiveness matrix runs"; else fail "a responsiveness matrix runs" "exit $rc: $(tail -n 3 "$TMP/log")"; fi
q() { sqlite3 "$DB" "$1" 2>&1; }
row=$(q "select count(*), sum(rpm > 0 and rpm_idle > rpm * 0 and connections between 1 and 16
	and foreign_probes > 0 and self_samples > 0 and usd_per_hour > 0
	and abs(rpm_per_usd_hour - rpm / usd_per_hour) < 1e-6 * rpm) from v_responsiveness
	where status = 'ok'")
lul=$(q "select count(*) from v_latency_under_load where status = 'ok' and test = 'tcp_rr'")
if [ "$row" = "1|1" ] && [ "$lul" = 1 ]; then
	pass "v_responsiveness: RPM, its probes and RPM per \$/hour of the pair; the loaded test in v_latency_under_load"
else
	fail "v_responsiveness row" "'$row', latency under load '$lul': $(q 'select * from v_responsiveness'; q 'select error from results')"
fi
"$NS" report --db "$DB" -o "$TMP/rep" >"$TMP/rep.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q 'RPM per \$/hour' "$TMP/rep/index.html" && grep -q 'Idle RPM' "$TMP/rep/index.html" &&
	grep -q 'Receiver CPU s/GB' "$TMP/rep/index.html" && grep -q 'Sender CPU s/GB' "$TMP/rep/report.md" &&
	grep -q 'RPM per \\\?\$/hour' "$TMP/rep/report.md"; then
	pass "the report shows RPM and RPM per \$/hour beside the latency under load, and each end's CPU s/GB (HTML and Markdown)"
else
	fail "the report shows RPM beside latency under load" "exit $rc: $(tail -n 2 "$TMP/rep.log"); $(grep -c RPM "$TMP/rep/report.md" 2>/dev/null)"
fi
# The loaded test's goodput says its unit (issue 42: no bare figure where a rate is meant).
gp=$(xmllint --html --xpath "string(//table[@id='latency-under-load-table']/tbody/tr[1]/td[3])" \
	"$TMP/rep/index.html" 2>/dev/null)
grep -qE '^[0-9.]+ [kMG]bit/s$' <<<"$gp" && grep -qE '^\| small \| .* \| [0-9.]+ [kMG]bit/s \|' "$TMP/rep/report.md" &&
	pass "the latency-under-load table gives the goodput with its unit ($gp)" ||
	fail "the latency-under-load table gives the goodput with its unit" "'$gp'"
# report.json and export carry the same RPM as v_responsiveness (one repeat: its median is it);
# the OpenMetrics text passes promtool where it is installed.
want=$(q "select rpm, rpm_idle from v_responsiveness where status = 'ok'")
rj=$(jq -r '.responsiveness | length as $n | .[0] | "\($n)|\(.pair)|\(.rpm)|\(.rpm_idle)|\(.rpm_per_usd_hour > 0)"' \
	"$TMP/rep/report.json" 2>&1)
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && (a - b) ^ 2 < (1e-9 * a) ^ 2) }'; }
IFS='|' read -r n_rj pair_rj rpm_rj idle_rj usd_rj <<<"$rj"
IFS='|' read -r rpm_db idle_db <<<"$want"
if [ "$n_rj" = 1 ] && [ "$pair_rj" = small ] && same "$rpm_rj" "$rpm_db" && same "$idle_rj" "$idle_db" &&
	[ "$usd_rj" = true ]; then
	pass "report.json: responsiveness[] has the pair's RPM, idle RPM and RPM per \$/hour ($rpm_rj RPM)"
else
	fail "report.json: responsiveness[]" "'$rj' against v_responsiveness '$want'"
fi
"$NS" export --db "$DB" --format openmetrics >"$TMP/x.om" 2>"$TMP/x.err"
om=$(sed -n 's/^netsweep_responsiveness_rpm{.*pair="small".*} \([0-9.e+]*\)\( .*\)\?$/\1/p' "$TMP/x.om")
omi=$(sed -n 's/^netsweep_responsiveness_idle_rpm{.*pair="small".*} \([0-9.e+]*\)\( .*\)\?$/\1/p' "$TMP/x.om")
nd=$("$NS" export --db "$DB" --format ndjson 2>&1 | jq -r 'select(.responsiveness) | .responsiveness |
	"\(.rpm)|\(.connections)"')
if same "$om" "$rpm_db" && same "$omi" "$idle_db" && same "${nd%%|*}" "$rpm_db" && [ "${nd##*|}" -ge 1 ] 2>/dev/null; then
	pass "export: netsweep_responsiveness_rpm and _idle_rpm (OpenMetrics), responsiveness in NDJSON"
else
	fail "export: RPM" "openmetrics '$om' '$omi', ndjson '$nd', store '$want': $(head -c 300 "$TMP/x.err")"
fi
if command -v promtool >/dev/null; then
	promtool check metrics <"$TMP/x.om" >"$TMP/lint" 2>&1 &&
		pass "the export with RPM passes promtool check metrics" ||
		fail "the export with RPM passes promtool check metrics" "$(head -n 5 "$TMP/lint")"
else
	skip "the export with RPM passes promtool check metrics" "promtool is not installed"
fi
cpu=$(q "select rx_path, fwd_snd_cpu_s_per_gb > 0, fwd_rcv_cpu_s_per_gb > 0, cpu_placement
	from v_cpu_per_bit where status = 'ok'")
if [ "$cpu" = "skip|1|1|none" ]; then
	pass "rx-copy skip reached the receiver; v_cpu_per_bit has both ends' CPU per GB and the placement"
else
	fail "v_cpu_per_bit after rx-copy skip" "'$cpu' (want skip|1|1|none)"
fi
sed -e 's/<value>true<\/value><\/axis>/<value>true<\/value><\/axis>\n    <axis name="protocol"><value>udp<\/value><\/axis>/' "$TMP/m.xml" >"$TMP/bad.xml"
out=$("$NS" run "$TMP/bad.xml" --db "$TMP/bad.db" --dry-run 2>&1)
rc=$?
if [ "$rc" != 0 ] && [[ $out == *bad.xml:*responsiveness* ]]; then
	pass "a UDP responsiveness case is refused at load, naming the file"
else
	fail "a UDP responsiveness case is refused at load" "exit $rc: $out"
fi
# the agent's caps hold for each of the test's own tests: the search stops at its
# --max-streams and the result says so
start_agent "$TMP/capped.log" --max-streams 2 || { fail "capped agent" "$(cat "$TMP/capped.log")"; finish; }
"$NS" probe 127.0.0.1 -p "$PORT" -t 0.5 -b 50M --responsiveness --json >"$TMP/capped.json" 2>"$TMP/capped.err"
rc=$?
got=$(sqlite3 :memory: "select json_extract(j, '\$.responsiveness.connections') || '|' ||
	(json_extract(j, '\$.warnings') like '%max-streams%') from (select readfile('$TMP/capped.json') as j)" 2>&1)
if [ "$rc" = 0 ] && [ "$got" = "2|1" ]; then
	pass "an agent's --max-streams stops the search at its cap, and the result says so"
else
	fail "an agent's --max-streams stops the search" "exit $rc, '$got': $(head -c 300 "$TMP/capped.err")"
fi
finish
