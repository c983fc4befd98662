#!/bin/bash
# netsweep report on a fixture database: files written, HTML opened in headless Chromium with
# no console errors, every chart present and non-empty, tables holding the database's
# numbers, and a matrix named <script>alert(1)</script> rendered as text.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
db=$tmp/basic.db out=$tmp/out

bash "$here/../fixtures/report_fixture.sh" basic "$db" || { fail "fixture" "report_fixture.sh basic"; finish; exit; }
if ! command -v gnuplot >/dev/null; then
	fail "gnuplot installed" "this test checks rendered charts; install gnuplot-nox (make deps)"
fi
expect_exit "report exits 0" 0 "$NETSWEEP" report --db "$db" -o "$out"
for f in index.html report.md results.csv; do
	if [ -s "$out/$f" ]; then pass "$f written"; else fail "$f written"; fi
done
charts="streams pps_size gbps_size per_dollar series cpu"
for c in $charts; do
	if [ -s "$out/$c.gp" ] && [ -s "$out/$c.dat" ] && [ -s "$out/$c.svg" ]; then
		pass "chart $c: .gp .dat .svg"
	else
		fail "chart $c: .gp .dat .svg" "missing or empty in $out"
	fi
done
if grep -Eiq '(src|href)="(https?:)?//' "$out/index.html"; then
	fail "no network resources" "$(grep -Eio '(src|href)="(https?:)?//[^"]*' "$out/index.html" | head -1)"
else
	pass "no network resources"
fi

if ! browse "$out/index.html" "$tmp/page"; then
	if [ -z "$CHROMIUM" ]; then
		skip "browser checks" "chromium is not installed (apt-get install chromium)"
	else
		fail "chromium loads the page" "$(tail -3 "$tmp/page.log")"
	fi
	finish
	exit
fi
dom=$tmp/page.dom
if grep -q ':CONSOLE' "$tmp/page.log"; then
	fail "no console messages" "$(grep ':CONSOLE' "$tmp/page.log" | head -2)"
else
	pass "no console messages"
fi
if [ "$(stat -c %s "$tmp/page.png" 2>/dev/null || echo 0)" -gt 50000 ]; then
	pass "screenshot taken"
else
	fail "screenshot taken" "no or tiny $tmp/page.png"
fi
# The hostile matrix name: text in the title, the heading and the summary; never an element.
if [ "$(grep -c '<script' "$dom")" = 0 ] &&
   [ "$(xp "$dom" 'string(//h1)')" = 'netsweep: <script>alert(1)</script>, run 1' ]; then
	pass "<script> matrix name renders as text"
else
	fail "<script> matrix name renders as text" "h1: $(xp "$dom" 'string(//h1)')"
fi
if xp "$dom" 'string(//section[@id="results"])' | grep -q 'agent <b>unreachable</b> & gone'; then
	pass "error text from the database shown as text"
else
	fail "error text from the database shown as text"
fi
for c in $charts; do
	n=$(xp "$dom" "count(//figure[@id='chart-$c']/svg//path)")
	status=$(xp "$dom" "string(//figure[@id='chart-$c']/@data-status)")
	if [ "$status" = ok ] && [ "${n:-0}" -gt 5 ]; then
		pass "chart $c inline in the page ($n paths)"
	else
		fail "chart $c inline in the page" "status '$status', $n paths"
	fi
done
# Results: each case's median receiver goodput (3 repeats: the middle one) and its repeat count.
bad=0 n=0
while IFS='|' read -r key med ok total; do
	n=$((n + 1))
	got=$(xp "$dom" "string(//table[@id='results-table']//tr[@data-case-key='$key']/td[4]/@data-value)")
	cnt=$(xp "$dom" "string(//table[@id='results-table']//tr[@data-case-key='$key']/td[3])")
	if [ -n "$med" ] && ! same_num "$got" "$med"; then
		bad=$((bad + 1)); echo "  $key: median $got in page, $med in database"
	fi
	[ "$cnt" = "$ok / $total" ] || { bad=$((bad + 1)); echo "  $key: '$cnt' vs $ok / $total"; }
done < <(sqlite3 "$db" "SELECT c.case_key,
	(SELECT fwd_rcv_bps FROM results r WHERE r.case_id = c.id AND r.status = 'ok'
	 ORDER BY fwd_rcv_bps LIMIT 1 OFFSET 1),
	(SELECT count(*) FROM results r WHERE r.case_id = c.id AND r.status = 'ok'),
	(SELECT count(*) FROM results r WHERE r.case_id = c.id) FROM cases c")
if [ "$bad" = 0 ] && [ "$n" -gt 10 ]; then pass "results table holds the database's medians ($n cases)"
else fail "results table holds the database's medians" "$bad mismatches of $n"; fi
# A bidir case shows its return direction (half the forward goodput in the fixture).
ret=$(xp "$dom" "string(//table[@id='results-table']//tr[@data-case-key='m5-bidir']/td[14]/@data-value)")
fwd=$(xp "$dom" "string(//table[@id='results-table']//tr[@data-case-key='m5-bidir']/td[4]/@data-value)")
if [ -n "$ret" ] && same_num "$ret" "$(awk -v f="$fwd" 'BEGIN { printf "%.17g", f / 2 }')"; then
	pass "bidir return direction shown"
else
	fail "bidir return direction shown" "return '$ret', forward '$fwd'"
fi
# The wire-rate columns of the packet-size data agree with the store's v_wire_rate view.
bad=0
while IFS='|' read -r len pps gbps; do
	line=$(awk -v l="$len" '$1 == l { print $6, $7; exit }' "$out/pps_size.dat")
	same_num "$(awk -v v="$pps" 'BEGIN { printf "%.6g", v / 1e6 }')" "${line% *}" &&
	same_num "$(awk -v v="$gbps" 'BEGIN { printf "%.6g", v / 1e9 }')" "${line#* }" ||
		{ bad=$((bad + 1)); echo "  length $len: view $pps / $gbps, chart data '$line'"; }
done < <(sqlite3 "$db" "SELECT DISTINCT length, wire_pps, wire_goodput_bps FROM v_wire_rate WHERE run_id = 1")
if [ "$bad" = 0 ]; then pass "wire rate in chart data matches v_wire_rate"; else fail "wire rate in chart data matches v_wire_rate" "$bad differ"; fi
# Cost: 28 Gbit/s (best case) at 2 x 3.888 $/hour; the unpriced pair says missing.
row=$(xp "$dom" "string(//table[@id='cost-table']/tbody/tr[1])")
if echo "$row" | grep -q 'c5n.18xlarge' && echo "$row" | grep -q '3601' &&
   xp "$dom" "string(//table[@id='cost-table']/tbody/tr[2])" | grep -q 'missing'; then
	pass "cost table: per-dollar figure and missing price"
else
	fail "cost table: per-dollar figure and missing price" "$row"
fi
# Run cost: the 39 ok results of the c5n pair, 10 s each at 7.776 $/hour; the 9 ok results of
# the unpriced m5 pair are not counted (and said so), its 3 failed ones cost nothing.
note='at least $0.8424 of instance time.* 9 successful results of pairs without a price are not counted'
if xp "$out/index.html" "string(//section[@id='cost'])" | grep -q "$note" &&
   xp "$out/index.html" "string(//section[@id='summary'])" | grep -q 'at least $0.8424 (9 successful results of pairs without a price not counted)' &&
   grep -q "^This run cost $note" "$out/report.md" &&
   grep -q '^| Run cost | at least $0.8424 (9 successful results of pairs without a price not counted) |$' "$out/report.md"; then
	pass "run cost: ok results only, the unpriced ones noted in HTML and Markdown"
else
	fail "run cost: ok results only, the unpriced ones noted in HTML and Markdown" \
		"$(grep -i 'run cost' "$out/report.md")"
fi
# Environment and method come from the hostinfo JSON and the cases.
env=$(xp "$dom" "string(//section[@id='environment'])")
if echo "$env" | grep -q 'ena' && echo "$env" | grep -q '2.8.0g' && echo "$env" | grep -q '9001' &&
   echo "$env" | grep -q 'Platinum 8124M' && echo "$env" | grep -q 'mq'; then
	pass "environment from hostinfo"
else
	fail "environment from hostinfo" "$env"
fi
if xp "$dom" "string(//section[@id='method'])" | grep -q -- 'netsweep probe 10.0.0.2:5301 -u -P 1 -l 64 -t 10'; then
	pass "method lists equivalent probe commands"
else
	fail "method lists equivalent probe commands"
fi
find=$(xp "$dom" "string(//section[@id='findings'])")
for want in 'most throughput per dollar' 'stops scaling with streams at 4' \
	    "sender's CPU was saturated" "receiver's socket buffer" 'before the receiver'; do
	if echo "$find" | grep -q "$want"; then pass "finding: $want"; else fail "finding: $want"; fi
done
# CSV: one row per result plus the header, the database's exact values.
rows=$(($(wc -l < "$out/results.csv") - 1))
want=$(sqlite3 "$db" "SELECT count(*) FROM results")
if [ "$rows" = "$want" ]; then pass "results.csv has every result ($rows)"; else fail "results.csv rows" "$rows vs $want"; fi
if grep -q '"agent <b>unreachable</b> & gone"\|agent <b>unreachable</b> & gone' "$out/results.csv" &&
   grep -q '^1,tcp-s8-fq0,7,' "$out/results.csv"; then
	pass "results.csv holds keys and error text"
else
	fail "results.csv holds keys and error text"
fi
if grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$out/report.md" && ! grep -q '<script' "$out/report.md" &&
   grep -q '!\[Throughput vs streams\](streams.svg)' "$out/report.md"; then
	pass "report.md escapes names and links charts"
else
	fail "report.md escapes names and links charts"
fi
finish
