#!/bin/bash
# Request/response benchmark (make bench; not a test, issue 24): netsweep's TCP_RR against
# sockperf ping-pong (unthrottled) and iperf2 --bounceback (--bounceback-period 0: back to
# back) on one path, a veth pair between two namespaces of our own, with the same 100-byte
# request and response (iperf2's bounceback hangs below its 100-byte default; sockperf and
# netsweep take the same size). Prints each tool's transactions/s and
# round-trip p50 (sockperf prints half the round trip: doubled here; iperf2 reports only the
# mean round trip, which stands in) and the ratios the issue
# judges on: netsweep's rate >= 0.9 x sockperf's, its p50 within 2 x sockperf's.
# Two placements, since cross-CPU wake-ups dominate a small round trip: as the scheduler puts
# the two ends, and both ends pinned to one CPU (BENCH_RR_CPU, default 0). Each tool runs
# BENCH_RR_SECS (default 5) per placement, in turn, so that they share the machine's state.
# Issue 41's goal: with both ends pinned, netsweep's rate >= 1.0 x sockperf's; netsweep's line
# says the placement its result recorded (cpu_placement, client_cpus, agent_cpus).
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS_NICE= # every tool at the same priority
source "$HERE/../lib/netns.sh"
netns_require

SECS=${BENCH_RR_SECS:-5}
CPU=${BENCH_RR_CPU:-0}
MSG=100
A=10.66.24.1 B=10.66.24.2 P_NS=5341 P_SP=5342 P_IP=5343
netns_pair r24 rc rs "$A" "$B" >/dev/null || { echo "bench: namespace setup failed" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
netns_netsweep_ready && netns_agent rs "$B" "$P_NS" || { echo "bench: netsweep agent did not start" >&2; exit 1; }
have sockperf && { netns_exec rs sockperf sr --tcp -i "$B" -p "$P_SP" >/dev/null 2>&1 &
	netns_wait_tcp rs "$B" "$P_SP" 5 || echo "bench: sockperf sr did not start" >&2; }
have iperf && { netns_exec rs iperf -s -B "$B" -p "$P_IP" >/dev/null 2>&1 &
	netns_wait_tcp rs "$B" "$P_IP" 5 || echo "bench: iperf -s did not start" >&2; }

J=$NETNS_TMP/rr.json
ratio() {
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$4" -v le="$5" 'BEGIN {
		if (a == "" || b == "" || b + 0 == 0) { printf "  %-40s n/a\n", n; exit }
		r = a / b; ok = le ? r <= t : r >= t
		printf "  %-40s %.2fx (target %s %.1fx: %s)\n", n, r, le ? "<=" : ">=", t, ok ? "met" : "NOT met" }'
}

# placement LABEL PIN: PIN "" = the scheduler's choice, else a CPU for both ends of each tool.
placement() {
	local label=$1 pin=$2 ts="" ns_place ns_rate ns_p50 ns_cpu sp_rate sp_p50 ip_rate ip_mean
	[ -n "$pin" ] && ts="taskset -c $pin"
	echo "-- $label"
	netns_probe rc "$J" "$B:$P_NS" --rr tcp --request $MSG --response $MSG -t "$SECS" -i 0 \
		-A "${pin:-none}"
	ns_rate=$(netns_json "$J" '$.latency.transactions_per_second')
	ns_p50=$(netns_json "$J" '$.latency.p50_us')
	ns_cpu=$(netns_json "$J" '$.latency.client_cpu')
	ns_place="$(netns_json "$J" '$.cpu_placement'): client CPUs $(netns_json "$J" '$.client_cpus'), agent CPUs $(netns_json "$J" '$.agent_cpus')"
	[ -n "$ns_rate" ] || echo "  netsweep failed: $(netns_probe_why "$J")"
	if have sockperf; then
		# the server's CPU: its process, re-pinned for this placement
		[ -n "$pin" ] && for p in $(pgrep -x sockperf); do taskset -pc "$pin" "$p" >/dev/null; done
		[ -z "$pin" ] && for p in $(pgrep -x sockperf); do taskset -pc "0-$(($(nproc) - 1))" "$p" >/dev/null; done
		timeout -s KILL $((SECS + 20)) ip netns exec r24-rc $ts sockperf pp --tcp -i "$B" -p "$P_SP" -m $MSG -t "$SECS" >"$NETNS_TMP/sp.txt" 2>&1
		sp_rate=$(sed 's/\x1b\[[0-9;]*m//g' "$NETNS_TMP/sp.txt" | awk '/\[Valid Duration\]/ {
			for (i = 1; i <= NF; i++) { if ($i ~ /^RunTime=/) { sub("RunTime=", "", $i); t = $i }
				if ($i ~ /^ReceivedMessages=/) { sub("ReceivedMessages=", "", $i); n = $i } }
			if (t > 0) printf "%.0f", n / t }')
		# sockperf reports half the round trip as its latency: twice it is the round trip
		sp_p50=$(sed 's/\x1b\[[0-9;]*m//g' "$NETNS_TMP/sp.txt" | awk '/percentile 50.000/ { printf "%.3f", 2 * $NF }')
	fi
	if have iperf; then
		timeout -s KILL $((SECS + 20)) ip netns exec r24-rc $ts iperf -c "$B" -p "$P_IP" --bounceback --bounceback-period 0 -l $MSG \
			-t "$SECS" >"$NETNS_TMP/ip.txt" 2>&1
		# the total line: "... N=avg/min/max/stdev ms ... R rps"; N over the interval is the rate
		read -r ip_rate ip_mean < <(awk '/sec/ && /rps/ { line = $0 } END {
			n = split(line, f, " "); for (i = 1; i <= n; i++) {
				if (f[i] ~ /^[0-9.]+-[0-9.]+$/) { split(f[i], t, "-"); dur = t[2] - t[1] }
				if (f[i] ~ /^[0-9]+=[0-9.]+\//) { split(f[i], c, "="); cnt = c[1]; split(c[2], s, "/"); avg = s[1] } }
			if (dur > 0) printf "%.0f %.1f\n", cnt / dur, avg * 1000 }' "$NETNS_TMP/ip.txt")
	fi
	printf "  %-22s %12s %12s\n" tool "trans/s" "p50 RTT us"
	printf "  %-22s %12s %12s   (client CPU %s; placement %s)\n" "netsweep --rr tcp" "${ns_rate%.*}" "$ns_p50" "${ns_cpu:-?}" "$ns_place"
	printf "  %-22s %12s %12s   (2 x its one-way figure)\n" "sockperf ping-pong" "${sp_rate:-n/a}" "${sp_p50:-n/a}"
	printf "  %-22s %12s %12s   (mean, iperf2 has no p50)\n" "iperf2 --bounceback" "${ip_rate:-n/a}" "${ip_mean:-n/a}"
	ratio "rate: netsweep / sockperf" "$ns_rate" "$sp_rate" "$([ -n "$pin" ] && echo 1.0 || echo 0.9)"
	ratio "p50: netsweep / sockperf" "$ns_p50" "$sp_p50" 2 1
	ratio "rate: netsweep / iperf2 bounceback" "$ns_rate" "$ip_rate" 0.9
}

echo "netsweep TCP_RR vs sockperf ping-pong vs iperf2 --bounceback, veth, ${MSG}-byte messages, $SECS s each"
placement "unpinned (the scheduler places both ends)" ""
placement "both ends on CPU $CPU" "$CPU"
