#!/bin/bash
# Burst and sustained phases (issue 11) through a credit shaper: tbf with a 100 MB bucket at
# 40 mbit and a 200 mbit peak lets a TCP test run fast until the bucket is empty, then holds
# it at 40 mbit. A 20 s test must report the burst phase, a sustained rate within 5 % of
# 40 Mbit/s' goodput share (1448 payload bytes per 1514-byte frame tbf counts) unless the
# result says the tool's CPU set it (netns_rate_or_flag), and a knee within 1 s of where its
# own interval series crosses halfway between the two levels (those two only when the result
# does not say the tool set its rate: netns_flagged). An unshaped test reports no step.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECKS=("tbf credit: burst, sustained rate and knee" "unshaped: no step")
netns_need_netsweep "${CHECKS[@]}"

S=10.66.12.1 R=10.66.12.2 PORT=7112
netns_pair i11s ss sr "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
if ! netns_agent sr "$R" "$PORT"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
OUT=$NETNS_TMP/probe.json
f() { netns_json "$OUT" "$1"; }
GOODPUT=$(awk 'BEGIN { printf "%.0f", 40e6 * 1448 / 1514 }')

credit() {
	local dev
	dev=$(netns_dev ss) || return 1
	ip netns exec "$(_netns_resolve ss)" tc qdisc replace dev "$dev" root tbf rate 40mbit \
		burst 100mb peakrate 200mbit mtu 1600 latency 100ms || { CHECK_MSG="tc failed"; return 1; }
	netns_probe ss "$OUT" "$R:$PORT" -t 20 -i 0.5
	local rc=$?
	netns_clear ss
	[ "$rc" = 0 ] || { CHECK_MSG="probe failed: $(netns_probe_why "$OUT")"; return 1; }
	local b bs s cross
	b=$(f '$.sum.receiver.shaping.burst_bps') bs=$(f '$.sum.receiver.shaping.burst_s')
	s=$(f '$.sum.receiver.shaping.sustained_bps')
	[ -n "$s" ] || { CHECK_MSG="no shaping reported: $(f '$.sum.receiver')"; return 1; }
	# where the series itself crosses halfway: the start of the first interval below it
	cross=$(sqlite3 :memory: "select min(json_extract(value, '\$.start_s'))
		from json_each(readfile('$OUT'), '\$.intervals')
		where json_extract(value, '\$.stream') = -1
		and json_extract(value, '\$.bits_per_second') < ($b + $s) / 2")
	CHECK_MSG="burst $(awk -v x="$b" 'BEGIN { printf "%.1f", x / 1e6 }') Mbit/s for ${bs} s, sustained $(awk -v x="$s" 'BEGIN { printf "%.2f", x / 1e6 }') Mbit/s (goodput share $GOODPUT), the series crosses at ${cross:-?} s"
	netns_rate_or_flag "$OUT" "$GOODPUT" 5 .sum.receiver.shaping.sustained_bps || return 1
	# the burst and its knee are rates too: asserted only when the tool did not set them
	if netns_flagged "$OUT"; then
		CHECK_MSG="$CHECK_MSG; burst and knee not asserted: the result says the tool set its rate"
		return 0
	fi
	awk -v k="$bs" -v c="$cross" -v b="$b" -v s="$s" 'BEGIN {
		d = k - c; if (d < 0) d = -d; exit !(c != "" && d <= 1 && b > 2 * s) }'
}
netns_check_runs "${CHECKS[0]}" credit

unshaped() {
	netns_probe ss "$OUT" "$R:$PORT" -t 4 -i 0.25 || {
		CHECK_MSG="probe failed: $(netns_probe_why "$OUT")"
		return 1
	}
	local sh
	sh=$(sqlite3 :memory: "select json_type(readfile('$OUT'), '\$.sum.receiver.shaping')")
	CHECK_MSG="shaping is ${sh:-missing} at $(f '$.sum.receiver.bits_per_second') bit/s"
	[ "$sh" = null ]
}
netns_check_runs "${CHECKS[1]}" unshaped

finish
