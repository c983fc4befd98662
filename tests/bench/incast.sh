#!/bin/bash
# Incast benchmark (make bench; not a test): 4 and 8 concurrent clients, each in its own
# namespace, into one server through one bottleneck of our choosing — the lab's incast
# topology (`netsweep lab up --clients N`: client namespaces on a bridge in front of the
# server's veth), its tbf replaced by one of two bottlenecks at BENCH_INCAST_RATE goodput
# (BENCH_INCAST_QUEUES, default both):
#   fifo: tbf, with fq_codel under it where the kernel has it (flow queueing gives equal TCP
#         flows equal shares), else tbf's own FIFO of BENCH_INCAST_LIMIT (default 1 MB): how
#         TCP itself shares a drop-tail queue, which varies from run to run;
#   htb:  one htb class at the rate with a leaf per client (its fair share, the whole rate to
#         borrow, a FIFO of BENCH_INCAST_LIMIT), chosen by source address: a scheduler that
#         shares between hosts, where every tool should see equal shares.
# Every tool uses BENCH_INCAST_CC (default cubic:
# a host defaulting to bbr shares a FIFO far less evenly — measured here, 8 clients through
# 4 MB: Jain 0.70 netsweep, 0.81 iperf2, 0.71 iperf3; through 1 MB with cubic over 20 s all
# three were 0.92-0.97). Side by side, the same path, one client stream each,
# BENCH_INCAST_SECS (default 20 s; the fairness of a FIFO needs time to settle):
#   netsweep: one agent, an incast group case (its clients started together, v_group_fairness)
#   iperf2:   one `iperf -s`, which serves several clients at once
#   iperf3:   one `iperf3 -s` per port, one client each (iperf3 serves one test at a time)
# Goals: netsweep's total within 5 % of the bottleneck's goodput, Jain's index >= 0.95 (the
# htb bottleneck; through a FIFO the index is TCP's, printed beside iperf2's and iperf3's); the
# ratios of netsweep's total to iperf2's and iperf3's totals are printed.
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
NS=${NETSWEEP:-$ROOT/build/netsweep}
RATE=${BENCH_INCAST_RATE:-400M}
SECS=${BENCH_INCAST_SECS:-20}
LIMIT=${BENCH_INCAST_LIMIT:-1mb}
QUEUES=${BENCH_INCAST_QUEUES:-fifo htb}
CC=${BENCH_INCAST_CC:-cubic} # every tool's congestion control, the same (the host's default may be bbr)
P=nsbinc
export NETSWEEP_IMDS=0
if [ "$(id -u)" != 0 ] || ! command -v tc >/dev/null 2>&1; then
	echo "SKIP incast bench: needs root and iproute2 (network namespaces, tc)"
	exit 0
fi
T=$(mktemp -d)
export NETSWEEP_LAB_DIR=$T/lab
trap '"$NS" lab down --prefix "$P" >/dev/null 2>&1; rm -rf "$T"' EXIT
have() { command -v "$1" >/dev/null 2>&1; }
goodput=$(awk -v r="$RATE" 'BEGIN {
	m = 1; if (r ~ /[Gg]$/) m = 1e9; else if (r ~ /[Mm]$/) m = 1e6; else if (r ~ /[Kk]$/) m = 1e3
	sub(/[GgMmKk]$/, "", r); print r * m }')
tbf=$(awk -v g="$goodput" 'BEGIN { printf "%.0f", g * 1514 / 1448 }') # headers of full segments
mbps() { awk -v b="$1" 'BEGIN { if (b == "" || b == 0) print "n/a"; else printf "%.1f Mbit/s", b / 1e6 }'; }

run_n() {
	local n=$1 queue=$2
	local json=$T/lab$n-$queue.json db=$T/inc$n-$queue.db
	"$NS" lab down --prefix "$P" >/dev/null 2>&1
	if ! "$NS" lab up --prefix "$P" --rate "bench=$RATE" --clients "$n" bench >"$json" 2>"$T/up.err"; then
		echo "  lab up failed: $(cat "$T/up.err")"
		return 1
	fi
	local sv=$(sed -n 's/.*"namespace": "\(.*\)".*/\1/p' "$json" | head -1)
	local sv_addr=$(sed -n 's/.*"agent": "\(.*\):5301".*/\1/p' "$json" | head -1)
	# the clients' own addresses (their tests' sources), in the lab's order
	local caddr=($(tr -d ' \n' <"$json" | sed -n 's/.*"clients":\[\([^]]*\)\].*/\1/p' | tr -d '"' |
		tr ',' '\n' | sed 's/:[0-9]*$//'))
	if [ "$queue" = htb ]; then
		[ "${#caddr[@]}" = "$n" ] || { echo "  found ${#caddr[@]} client addresses, wanted $n"; return 1; }
		# the bottleneck: bridge -> server (the incast direction)
		# htb: one class at the bottleneck's rate, a leaf per client (a fair share each, and
		# the whole rate to borrow), chosen by the client's source address: a scheduler that
		# shares between hosts, as fq shares between flows
		tc qdisc replace dev "$sv" root handle 1: htb r2q 1000 &&
			tc class add dev "$sv" parent 1: classid 1:1 htb rate "${tbf}bit" burst 64kb cburst 64kb ||
			{ echo "  tc failed"; return 1; }
		for k in $(seq "$n"); do
			tc class add dev "$sv" parent 1:1 classid "1:$((10 + k))" htb rate "$((tbf / n))bit" \
				ceil "${tbf}bit" burst 64kb cburst 64kb &&
				tc qdisc add dev "$sv" parent "1:$((10 + k))" bfifo limit "$LIMIT" &&
				tc filter add dev "$sv" parent 1: protocol ip prio 1 u32 \
					match ip src "${caddr[$((k - 1))]}/32" flowid "1:$((10 + k))" ||
				{ echo "  tc failed"; return 1; }
		done
		QUEUE="htb, a class per client, limit $LIMIT each"
	else
		# tbf, with fq_codel under it where the kernel has it (flow queueing), else its own
		# FIFO of BENCH_INCAST_LIMIT
		tc qdisc replace dev "$sv" root handle 1: tbf rate "${tbf}bit" burst 64kb limit "$LIMIT" ||
			{ echo "  tc failed"; return 1; }
		QUEUE="tbf FIFO, limit $LIMIT"
		tc qdisc add dev "$sv" parent 1:1 handle 10: fq_codel 2>/dev/null && QUEUE="tbf + fq_codel"
	fi
	local clients=() k=0
	while read -r ns; do clients+=("$ns"); done < <("$NS" lab status --prefix "$P" |
		tr -d ' ' | grep '"role":"client"' | sed 's/.*"namespace":"\([^"]*\)".*/\1/')
	[ "${#clients[@]}" = "$n" ] || { echo "  found ${#clients[@]} client namespaces, wanted $n"; return 1; }
	# netsweep: the incast group of the lab pair's n clients, one case
	{
		echo "<matrix name=\"incast-bench\"><pairs><group name=\"g\" kind=\"incast\" instance-type=\"bench\" agent=\"192.0.2.1\">"
		for k in $(seq "$n"); do echo "<member name=\"c$k\" client=\"192.0.2.$((10 + k))\"/>"; done
		echo "</group></pairs><axes><axis name=\"duration\"><value>${SECS}s</value></axis>"
		echo "<axis name=\"omit\"><value>1s</value></axis>"
		echo "<axis name=\"congestion\"><value>$CC</value></axis></axes></matrix>"
	} >"$T/m$n.xml"
	"$NS" run "$T/m$n.xml" --lab "$json" --db "$db" >"$T/run$n.log" 2>&1 ||
		echo "  netsweep run failed: $(tail -n 2 "$T/run$n.log")"
	read -r ns_tot jain spread < <(sqlite3 "$db" "select total_bps, round(jain, 4), round(start_spread_ms, 1) from v_group_fairness" | tr '|' ' ')
	# iperf2: one server, n clients at once
	local ip2="" ip2_jain="" ip3_jain=""
	if have iperf; then
		ip netns exec "$sv" iperf -s -p 5311 >/dev/null 2>&1 &
		local spid=$!
		sleep 0.5
		for k in $(seq 0 $((n - 1))); do
			ip netns exec "${clients[$k]}" iperf -c "$sv_addr" -p 5311 -t "$SECS" -Z "$CC" -y C >"$T/ip2.$k" 2>/dev/null &
		done
		wait $(jobs -p | grep -v "^$spid$") 2>/dev/null
		kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
		ip2=$(cat "$T"/ip2.* | awk -F, '{ s += $NF } END { print s + 0 }')
		ip2_jain=$(cat "$T"/ip2.* | awk -F, '{ s += $NF; q += $NF * $NF; n++ } END { if (q > 0) printf "%.4f", s * s / (n * q) }')
		rm -f "$T"/ip2.*
	fi
	# iperf3: a server per port, one client each
	local ip3=""
	if have iperf3; then
		local pids=()
		for k in $(seq 0 $((n - 1))); do
			ip netns exec "$sv" iperf3 -s -1 -p $((5321 + k)) >/dev/null 2>&1 &
			pids+=($!)
		done
		sleep 0.5
		local cp=()
		for k in $(seq 0 $((n - 1))); do
			ip netns exec "${clients[$k]}" iperf3 -c "$sv_addr" -p $((5321 + k)) -t "$SECS" -C "$CC" -J >"$T/ip3.$k" 2>/dev/null &
			cp+=($!)
		done
		wait "${cp[@]}" 2>/dev/null
		kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null
		ip3=0
		local each=""
		for k in $(seq 0 $((n - 1))); do
			v=$(sqlite3 :memory: "select json_extract(readfile('$T/ip3.$k'), '\$.end.sum_received.bits_per_second')" 2>/dev/null)
			ip3=$(awk -v a="$ip3" -v b="${v:-0}" 'BEGIN { print a + b }')
			each="$each ${v:-0}"
		done
		ip3_jain=$(echo "$each" | awk '{ for (i = 1; i <= NF; i++) { s += $i; q += $i * $i } if (q > 0) printf "%.4f", s * s / (NF * q) }')
	fi
	echo "$n clients into one agent through $(mbps "$goodput") goodput ($QUEUE), $CC, ${SECS} s:"
	echo "  netsweep  $(mbps "$ns_tot")  = $(awk -v a="$ns_tot" -v g="$goodput" 'BEGIN { printf "%.1f", a / g * 100 }') % of the bottleneck (goal >= 95 %: $(awk -v a="$ns_tot" -v g="$goodput" 'BEGIN { print (a >= 0.95 * g) ? "met" : "NOT met" }')); Jain's index $jain (goal >= 0.95: $(awk -v j="$jain" 'BEGIN { print (j >= 0.95) ? "met" : "NOT met" }')); start spread $spread ms"
	echo "  iperf2    $(mbps "$ip2")   (one iperf -s, $n clients; Jain's index ${ip2_jain:-n/a})"
	echo "  iperf3    $(mbps "$ip3")   ($n iperf3 -s, one per port; Jain's index ${ip3_jain:-n/a})"
	awk -v a="$ns_tot" -v b="$ip2" -v c="$ip3" 'BEGIN {
		if (b > 0) printf "  netsweep / iperf2 %.3fx\n", a / b
		if (c > 0) printf "  netsweep / iperf3 %.3fx\n", a / c }'
	sqlite3 "$db" "select '    ' || name || ' ' || round(rcv_mbps, 1) || ' Mbit/s, start +' || round(start_offset_ms, 1) || ' ms' from v_group_clients order by client"
}

for q in $QUEUES; do
	run_n 4 "$q"
	run_n 8 "$q"
done
exit 0
