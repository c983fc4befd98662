#!/bin/bash
# Long-run mode (issue 11) through a credit shaper: tbf at 40 mbit with a 200 mbit peak and a
# 40 MB bucket lets TCP run fast for ~2 s, then holds it at 40 mbit. A matrix case with
# until="sustained" steady="3s" and a 60 s bound must end well before 60 s saying
# ended=sustained, store a sustained rate within 7 % of 40 Mbit/s' goodput share (1448
# payload bytes per 1514-byte frame tbf counts; unless the result says the tool's CPU set
# it), keep its samples compact (sums only), and the report
# must rank the pair per dollar on that sustained rate, not on the whole test's, and give
# the case's probe command with --until and --steady. Unshaped, a
# long-run probe runs to its bound and says ended=duration; with both directions shaped, a
# --bidir long-run probe ends early once both held (the agent's series and its own).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECKS=("long run: ended early on a steady sustained rate" "long run: sustained rate stored"
	"long run: ranked per dollar on the sustained rate" "long run unshaped: ends at the bound"
	"long run --bidir: ends once both directions held")
netns_need_netsweep "${CHECKS[@]}"
NETSWEEP=$NETNS_NETSWEEP
export NETSWEEP_IMDS=0

S=10.66.11.1 R=10.66.11.2 PORT=7111
netns_pair i11l ls lr "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
if ! netns_agent lr "$R" "$PORT"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
GOODPUT=$(awk 'BEGIN { printf "%.0f", 40e6 * 1448 / 1514 }')

OUT=$NETNS_TMP/probe.json
# lr_starved BY...: one of the limiting factors names the tool's CPU (the thread's own, or
# waiting for one: sender_runq_pct / receiver_runq_pct >= 20 %). On a busy machine a starved
# end's 0.25 s rates dip by a fifth and more (seen at load 9: 31 Mbit/s among 40s), two halves
# of the steady window then differ by more than the rule's 10 % and a long run rightly goes on
# to its bound; what is asserted then is that its result says why.
lr_starved() {
	local b
	for b in "$@"; do [[ $b = sender_cpu || $b = receiver_cpu || $b = steal ]] && return 0; done
	return 1
}
# paced, so that a loaded machine's own ups and downs cannot look like a step
if netns_probe ls "$OUT" "$R:$PORT" -t 3 -i 0.25 -b 50M --until sustained --steady 1; then
	ended=$(netns_json "$OUT" '$.ended') dur=$(netns_json "$OUT" '$.duration_s')
	if [ "$ended" = duration ] && awk -v d="$dur" 'BEGIN { exit !(d >= 2.9) }'; then
		pass "${CHECKS[3]}: ended=$ended after $dur s"
	else
		fail "${CHECKS[3]}" "ended=$ended after $dur s; $(netns_json "$OUT" '$.sum.receiver.shaping')"
	fi
else
	fail "${CHECKS[3]}" "probe failed: $(netns_probe_why "$OUT")"
fi

dev=$(netns_dev ls) &&
	ip netns exec "$(_netns_resolve ls)" tc qdisc replace dev "$dev" root tbf rate 40mbit \
		burst 40mb peakrate 200mbit mtu 1600 latency 100ms ||
	{ fail "namespace setup" "tc failed"; exit 1; }
M=$NETNS_TMP/longrun.xml DB=$NETNS_TMP/longrun.db
cat >"$M" <<X
<matrix name="longrun-tbf" repeats="1" cooldown="0s" interval="0.25s">
  <pairs>
    <pair name="credit" agent="$R:$PORT" instance-type="m5.large" region="us-east-1"/>
  </pairs>
  <axes>
    <axis name="duration"><value>60s</value></axis>
    <axis name="until"><value>sustained</value></axis>
    <axis name="steady"><value>3s</value></axis>
  </axes>
</matrix>
X
# the runner (the sender here) at the harness's raised priority, as netns_probe runs its probe
t0=$(date +%s)
timeout -k 5 120 ip netns exec "$(_netns_resolve ls)" $NETNS_NICE_CMD "$NETSWEEP" run "$M" --db "$DB" --quiet \
	>"$NETNS_TMP/run.log" 2>&1
rc=$? took=$(($(date +%s) - t0))
netns_clear ls
q() { sqlite3 "$DB" "$1" 2>&1; }
ended=$(q "SELECT json_extract(probe_json, '\$.ended') FROM results")
dur=$(q "SELECT round(duration_s, 2) FROM results")
by=$(q "SELECT coalesce(limited_by, '') FROM v_results")
if [ "$rc" = 0 ] && [ "$ended" = sustained ] && awk -v d="$dur" 'BEGIN { exit !(d > 2 && d < 30) }'; then
	pass "${CHECKS[0]}: ended=$ended after $dur s of 60 (run took ${took} s)"
elif [ "$rc" = 0 ] && [ "$ended" = duration ] && lr_starved "$by"; then
	pass "${CHECKS[0]}: ended=$ended after $dur s, limited_by $by (the machine, not the link, set the series)"
else
	fail "${CHECKS[0]}" "exit $rc, ended='$ended' after '$dur' s; $(tail -2 "$NETNS_TMP/run.log"); $(q "SELECT 'Mbit/s per interval: ' || group_concat(printf('%.0f', json_extract(value, '\$.bits_per_second') / 1e6), ' ') FROM results, json_each(probe_json, '\$.intervals') WHERE json_extract(value, '\$.stream') = -1"); limited_by '$by'"
fi
sus=$(q "SELECT sustained_bps FROM result_phases WHERE direction = 'fwd'")
whole=$(q "SELECT fwd_rcv_bps FROM results")
# compact samples: the sums only (runner/sweep/compact.h), in the table and the result's JSON
per_stream=$(q "SELECT count(*) FROM samples WHERE stream <> -1")
json_streams=$(q "SELECT count(*) FROM results, json_each(probe_json, '\$.intervals')
	WHERE json_extract(value, '\$.stream') <> -1")
# the rate, unless the stored result says the tool's CPU set it (netns_rate_or_flag)
q "SELECT probe_json FROM results" >"$NETNS_TMP/longrun.json"
CHECK_MSG=""
if [ -n "$sus" ] && [ "$per_stream" = 0 ] && [ "$json_streams" = 0 ] &&
	netns_within "$(jq -r '.sum.receiver.shaping.sustained_bps' "$NETNS_TMP/longrun.json")" "$sus" 0.01 &&
	netns_rate_or_flag "$NETNS_TMP/longrun.json" "$GOODPUT" 7 .sum.receiver.shaping.sustained_bps; then
	pass "${CHECKS[1]}: $(awk -v x="$sus" 'BEGIN { printf "%.2f", x / 1e6 }') Mbit/s (goodput share $GOODPUT bit/s; whole test $(awk -v x="$whole" 'BEGIN { printf "%.1f", x / 1e6 }'))$CHECK_MSG, samples: sums only"
else
	fail "${CHECKS[1]}" "sustained '$sus' bit/s (the result JSON: $(jq -c '.sum.receiver.shaping' "$NETNS_TMP/longrun.json" 2>&1 | head -c 200)) against $GOODPUT (whole test $whole)$CHECK_MSG; per-stream rows: $per_stream samples, $json_streams JSON"
fi
NETSWEEP_GNUPLOT=none "$NETSWEEP" report --db "$DB" -o "$NETNS_TMP/rep" >/dev/null 2>&1
ranked=$(sqlite3 :memory: "SELECT json_extract(readfile('$NETNS_TMP/rep/report.json'), '\$.ranking.rows[0].mbps')")
view=$(q "SELECT mbps FROM v_cost_ranking WHERE sustained = 1")
# the run's cost: the seconds the case ran, not its 60 s bound
billed_s=$(q "SELECT round(usd * 3600 / (SELECT usd_per_hour FROM v_endpoint_prices), 1) FROM v_run_cost")
# Ranked on the sustained rate, within 0.5 %, and (a case that ended early on it) under 0.8 of
# the whole test's mean, which the ~2 s burst lifts; a case that ran to its 60 s bound (above:
# only with its result saying the machine starved it) has a whole-test mean too close to tell.
# Charged the seconds the case ran (within 1 s), not its 60 s bound.
apart=0.8 stopped='In long-run mode it ran [0-9]* s of its 60 s bound: it stopped once'
[ "$ended" = sustained ] || apart=1e9 stopped='In long-run mode it ran to its 60 s bound: the rate never held'
within() { awk -v r="$1" -v s="$sus" -v w="$whole" -v a="$apart" \
	'BEGIN { d = r - s / 1e6; if (d < 0) d = -d; exit !(d <= 0.005 * s / 1e6 && r < a * w / 1e6) }'; }
if [ -n "$sus" ] && [ -n "$ranked" ] && within "$ranked" && within "$view" &&
	awk -v b="$billed_s" -v d="$dur" 'BEGIN { e = b - d; if (e < 0) e = -e; exit !(b > 2 && e <= 1) }' &&
	grep -q 'sustained' "$NETNS_TMP/rep/report.md" &&
	grep -q -- '--until sustained --steady 3' "$NETNS_TMP/rep/report.md" &&
	grep -q "$stopped" "$NETNS_TMP/rep/report.md"; then
	pass "${CHECKS[2]}: ranked on $ranked Mbit/s (v_cost_ranking $view), not the whole test's $(awk -v x="$whole" 'BEGIN { printf "%.1f", x / 1e6 }'); charged $billed_s s"
else
	fail "${CHECKS[2]}" "ranked on '$ranked' Mbit/s, view '$view'; sustained '$sus', whole '$whole'; charged '$billed_s' s; probe command: $(grep -o 'netsweep probe [^`]*' "$NETNS_TMP/rep/report.md" | head -1)"
fi

# --bidir: the forward series comes live from the agent, the reverse one is the probe's own
for n in ls lr; do
	dev=$(netns_dev $n) && ip netns exec "$(_netns_resolve $n)" tc qdisc replace dev "$dev" root \
		tbf rate 40mbit burst 40mb peakrate 200mbit mtu 1600 latency 100ms ||
		{ fail "namespace setup" "tc failed"; exit 1; }
done
# lr_series: each direction's Mbit/s per interval, for a failure's message
lr_series() {
	sqlite3 :memory: "SELECT group_concat(d || ': ' || r, '; ') FROM (SELECT json_extract(value, '\$.direction') AS d, group_concat(printf('%.0f', json_extract(value, '\$.bits_per_second') / 1e6), ' ') AS r FROM json_each(readfile('$OUT'), '\$.intervals') WHERE json_extract(value, '\$.stream') = -1 GROUP BY d)"
}
if netns_probe ls "$OUT" "$R:$PORT" -t 60 -i 0.25 --until sustained --steady 3 --bidir; then
	ended=$(netns_json "$OUT" '$.ended') dur=$(netns_json "$OUT" '$.duration_s')
	f=$(netns_json "$OUT" '$.sum.receiver.shaping.sustained_bps')
	r=$(netns_json "$OUT" '$.sum_reverse.receiver.shaping.sustained_bps')
	if [ "$ended" = sustained ] && [ -n "$f" ] && [ -n "$r" ] &&
		awk -v d="$dur" 'BEGIN { exit !(d > 2 && d < 30) }'; then
		pass "${CHECKS[4]}: after $dur s, sustained $(awk -v x="$f" -v y="$r" 'BEGIN { printf "%.1f and %.1f", x / 1e6, y / 1e6 }') Mbit/s"
	elif fb=$(netns_json "$OUT" '$.sum.limit.limited_by') rb=$(netns_json "$OUT" '$.sum_reverse.limit.limited_by') &&
		[ "$ended" = duration ] && lr_starved "$fb" "$rb"; then
		pass "${CHECKS[4]}: ended=$ended after $dur s, limited_by $fb and $rb (the machine, not the link, set the series)"
	else
		fail "${CHECKS[4]}" "ended=$ended after $dur s, sustained '$f' and '$r', limited_by '$fb' and '$rb'; $(lr_series)"
	fi
else
	fail "${CHECKS[4]}" "probe failed: $(netns_probe_why "$OUT")"
fi
netns_clear ls
netns_clear lr
finish
