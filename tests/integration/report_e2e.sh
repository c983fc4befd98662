#!/bin/bash
# End to end: `netsweep run` of a tiny loopback matrix, twice, then `netsweep report` against
# the previous run, opened in headless Chromium: no console errors, the charts drawn inline,
# the results table holding the database's medians, the comparison covering every case.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
if ! "$NETSWEEP" run --help >/dev/null 2>&1; then
	skip "report end to end" "netsweep run is not available in this build"
	finish
	exit
fi
tmp=$(mktemp -d)
# R5_KEEP=DIR keeps the report and screenshot there for a person to look at.
trap '[ -n "${R5_KEEP:-}" ] && cp -r "$tmp/out" "$tmp/page.png" "$R5_KEEP/" 2>/dev/null; rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
db=$tmp/e2e.db out=$tmp/out
# An agent of our own on loopback (any free port), so that the matrix can declare two pairs
# with instance types from the default catalog (prices) and a link speed (wire rate): then
# every chart has data.
export NETSWEEP_IMDS=0
"$NETSWEEP" agent --listen 127.0.0.1:0 2>"$tmp/agent.log" &
agent=$!
trap '[ -n "${R5_KEEP:-}" ] && cp -r "$tmp/out" "$tmp/page.png" "$R5_KEEP/" 2>/dev/null; kill $agent 2>/dev/null; wait $agent 2>/dev/null; rm -rf "$tmp"' EXIT
port=
for _ in $(seq 50); do
	port=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$tmp/agent.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { fail "agent on loopback" "$(cat "$tmp/agent.log")"; finish; exit; }
cat > "$tmp/r5-e2e.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="r5-e2e" repeats="2" order="as-written" cooldown="0s" case-timeout="15s" interval="0.2s">
  <description>report end-to-end test: TCP 1 and 2 streams on two priced pairs, paced UDP sizes</description>
  <pairs>
    <pair name="small" instance-type="m4.large" region="ap-northeast-1" agent="127.0.0.1:$port"
          price-basis="sender" link-speed="10G"/>
    <pair name="big" instance-type="m4.xlarge" region="ap-northeast-1" agent="127.0.0.1:$port"
          price-basis="sender" link-speed="10G"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="streams"><value>1</value><value>2</value></axis>
    <axis name="rate"><value>0</value><value>100M</value></axis>
    <axis name="length"><value>0</value><value>256</value><value>1024</value></axis>
    <axis name="duration"><value>0.6s</value></axis>
  </axes>
  <rules>
    <exclude><when axis="protocol" value="udp"/><when axis="rate" value="0"/></exclude>
    <exclude><when axis="protocol" value="udp"/><when axis="streams" value="2"/></exclude>
    <exclude><when axis="protocol" value="udp"/><when axis="length" value="0"/></exclude>
    <exclude><when axis="protocol" value="udp"/><when axis="pair" value="big"/></exclude>
    <exclude><when axis="protocol" value="tcp"/><when axis="rate" not="0"/></exclude>
    <exclude><when axis="protocol" value="tcp"/><when axis="length" not="0"/></exclude>
  </rules>
</matrix>
EOF
for i in 1 2; do
	if ! "$NETSWEEP" run "$tmp/r5-e2e.xml" --db "$db" --quiet >"$tmp/run$i.log" 2>&1; then
		fail "netsweep run $i" "$(tail -3 "$tmp/run$i.log")"
	fi
done
runs=$(sqlite3 "$db" "SELECT count(*) FROM runs" 2>/dev/null)
ok=$(sqlite3 "$db" "SELECT count(*) FROM results WHERE status = 'ok'" 2>/dev/null)
if [ "$runs" = 2 ] && [ "$ok" = 24 ]; then pass "two runs stored (24 results ok)"; else fail "two runs stored" "$runs runs, $ok ok results"; fi
expect_exit "report --baseline previous exits 0" 0 "$NETSWEEP" report --db "$db" --baseline previous -o "$out"
html=$out/index.html
rows=$(xp "$html" "count(//table[@id='results-table']/tbody/tr)")
cmp=$(xp "$html" "count(//table[@id='comparison-table']/tbody/tr)")
if [ "$rows" = 6 ] && [ "$cmp" = 6 ]; then pass "6 cases in results and comparison"; else fail "6 cases in results and comparison" "$rows / $cmp"; fi
# Medians of 2 repeats: the mean of both.
bad=0
while IFS='|' read -r key med; do
	got=$(xp "$html" "string(//table[@id='results-table']//tr[@data-case-key='$key']/td[4]/@data-value)")
	same_num "$got" "$med" || { bad=$((bad + 1)); echo "  $key: $got in page, $med in database"; }
done < <(sqlite3 "$db" "SELECT c.case_key, avg(r.fwd_rcv_bps) FROM results r JOIN cases c ON c.id = r.case_id
	WHERE c.run_id = 2 AND r.status = 'ok' GROUP BY c.id")
if [ "$bad" = 0 ]; then pass "results table holds the run's medians"; else fail "results table holds the run's medians" "$bad differ"; fi
if ! browse "$html" "$tmp/page"; then
	if [ -z "$CHROMIUM" ]; then skip "e2e browser checks" "chromium is not installed"; else fail "chromium loads the page"; fi
	finish
	exit
fi
if grep -q ':CONSOLE' "$tmp/page.log"; then fail "no console messages" "$(grep -m2 ':CONSOLE' "$tmp/page.log")"; else pass "no console messages"; fi
if command -v gnuplot >/dev/null; then
	for c in streams pps_size gbps_size per_dollar series cpu trend; do
		n=$(xp "$tmp/page.dom" "count(//figure[@id='chart-$c']/svg//path)")
		if [ "${n:-0}" -gt 5 ]; then pass "chart $c drawn inline"; else fail "chart $c drawn inline" "$n paths"; fi
	done
else
	fail "charts drawn" "gnuplot is not installed (make deps)"
fi
if xp "$tmp/page.dom" "string(//section[@id='environment'])" | grep -q 'm4.xlarge'; then
	pass "environment shows the pairs"
else
	fail "environment shows the pairs"
fi
# Per dollar from the catalog's Tokyo prices: median Mbit/s of each pair's best case / price.
while IFS='|' read -r it per; do
	got=$(xp "$html" "string(//table[@id='cost-table']/tbody/tr[td[2]='$it']/td[7])")
	if [ "$got" = "$per" ]; then pass "cost: $it $per Mbit/s per \$/hour"; else fail "cost: $it" "page '$got', database $per"; fi
done < <(sqlite3 "$db" "WITH m AS (SELECT c.id, e.instance_type AS it, p.usd_per_hour AS usd,
	avg(r.fwd_rcv_bps) / 1e6 AS mbps FROM results r JOIN cases c ON c.id = r.case_id
	JOIN endpoints e ON e.id = c.endpoint_id JOIN v_endpoint_prices p ON p.endpoint_id = e.id
	WHERE c.run_id = 2 AND r.status = 'ok' GROUP BY c.id)
	SELECT it, printf('%.0f', max(mbps) / usd) FROM m GROUP BY it")
finish
