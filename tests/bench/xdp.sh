#!/bin/bash
# AF_XDP benchmark (make bench; not a test): 64-byte UDP over a veth pair between two
# namespaces, received datagrams/s of netsweep --engine xdp (counted in the XDP program: the
# default), of --engine xdp-rx (AF_XDP receive path, full accounting), of netsweep's
# socket engine and of iperf3 -u -b 0 -l 64, side by side in one invocation, with the 10GbE
# wire rate at 64-byte frames (14.88 Mpps) for reference. Target (issues 15, 22): xdp >= 3x
# iperf3 and >= 3x the socket engine. The yardstick is a bare AF_XDP copy-mode sender
# (tests/lib/xdp_raw_tx.c: one prebuilt frame, no accounting) into a peer that drops at
# XDP (tests/bpf/xdp_drop.c): the share of its rate each engine reaches is printed, as the
# mean and round by round. Each ratio is given of the means and for each round (the same
# round's two runs), with how many rounds missed the target.
# The machine's load is printed with the figures: on a shared host they move by 2x.
# The veth has two queues per end: netsweep with 2 threads and streams is measured too, the
# XDP engine sending on both queues, against the socket engine with 2 threads.
# BENCH_XDP_SECS (default 5) and BENCH_ROUNDS (default 2, alternating order).
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS_NICE=
# two queues per end: the engines' second thread sends on its own queue and the receiving
# end's second NAPI context takes it (the 1-thread figures use queue 0 alone)
NETNS_VETH_QUEUES=2
source "$HERE/../lib/netns.sh"
netns_require

SECS=${BENCH_XDP_SECS:-5}
ROUNDS=${BENCH_ROUNDS:-2}
S=10.66.18.1 R=10.66.18.2 P_NS=5301 P_IPERF3=5321
netns_pair bx s r "$S" "$R" >/dev/null || { echo "bench: namespace setup failed" >&2; exit 1; }
J=$NETNS_TMP/out.json
have() { command -v "$1" >/dev/null 2>&1; }

netns_netsweep_ready && netns_agent bx-r "$R" "$P_NS" || { echo "bench: netsweep agent did not start" >&2; exit 1; }
if have iperf3; then
	netns_exec bx-r iperf3 -s -p "$P_IPERF3" >/dev/null 2>&1 &
	netns_wait_tcp bx-r "$R" "$P_IPERF3" 5 || { echo "bench: iperf3 -s did not start" >&2; exit 1; }
fi

BUILD_DIR=${BUILD:-$NETNS_ROOT/build}
RAW_TX=$BUILD_DIR/tests/xdp_raw_tx DROP_OBJ=$BUILD_DIR/bpf/xdp_drop.o
SDEV=$(netns_dev bx-s) RDEV=$(netns_dev bx-r)
mac() { ip -n "$1" link show dev "$2" | awk '/link\/ether/ { print $2 }'; }
run_raw() { # frames/s the bare copy-mode sender got the kernel to send, the peer dropping at XDP
	[ -x "$RAW_TX" ] && [ -f "$DROP_OBJ" ] || { echo ""; return; }
	ip -n bx-r link set dev "$RDEV" xdp obj "$DROP_OBJ" sec xdp 2>/dev/null || { echo ""; return; }
	netns_exec bx-s "$RAW_TX" "$SDEV" "$(mac bx-s "$SDEV")" "$(mac bx-r "$RDEV")" "$S" "$R" 9 "$SECS" 2>/dev/null
	ip -n bx-r link set dev "$RDEV" xdp off
}
run_ns() { # run_ns ENGINE [ARGS]: received datagrams/s
	local engine=$1
	shift
	netns_probe bx-s "$J" "$R:$P_NS" -u -l 64 -b 0 -t "$SECS" -i 0 --engine "$engine" "$@" >/dev/null 2>&1 ||
		{ echo ""; return; }
	netns_json "$J" '$.sum.receiver.packets_per_second'
}
run_iperf3() { # received datagrams/s: packets minus lost over the time
	have iperf3 || { echo ""; return; }
	netns_exec bx-s iperf3 -c "$R" -p "$P_IPERF3" -u -b 0 -l 64 -t "$SECS" -J >"$J" 2>/dev/null ||
		{ echo ""; return; }
	sqlite3 :memory: "select (json_extract(j, '\$.end.sum.packets') - json_extract(j, '\$.end.sum.lost_packets'))
		/ json_extract(j, '\$.end.sum.seconds') from (select readfile('$J') as j)" 2>/dev/null
}
mean() { awk '{ s += $1; n++ } END { if (n) printf "%.0f", s / n }'; }

LOAD0=$(cut -d' ' -f1 /proc/loadavg)
: >"$NETNS_TMP/xdp" >"$NETNS_TMP/xdprx" >"$NETNS_TMP/sock" >"$NETNS_TMP/iperf3" >"$NETNS_TMP/raw"
: >"$NETNS_TMP/xdp2" >"$NETNS_TMP/sock2"
for ((r = 1; r <= ROUNDS; r++)); do
	if ((r % 2)); then order="raw xdp xdp2 xdprx socket socket2 iperf3"
	else order="iperf3 socket2 socket xdprx xdp2 xdp raw"; fi
	for t in $order; do
		case $t in
		raw) run_raw >>"$NETNS_TMP/raw" ;;
		xdp2) run_ns xdp -P 2 --threads 2 >>"$NETNS_TMP/xdp2" ;;
		socket2) run_ns socket -P 2 --threads 2 >>"$NETNS_TMP/sock2" ;;
		xdp) run_ns xdp >>"$NETNS_TMP/xdp" ;;
		xdprx) run_ns xdp-rx >>"$NETNS_TMP/xdprx" ;;
		socket) run_ns socket >>"$NETNS_TMP/sock" ;;
		iperf3) run_iperf3 >>"$NETNS_TMP/iperf3" ;;
		esac
	done
done
W=$(grep . "$NETNS_TMP/raw" | mean) X=$(grep . "$NETNS_TMP/xdp" | mean)
X2=$(grep . "$NETNS_TMP/xdp2" | mean) K2=$(grep . "$NETNS_TMP/sock2" | mean) C=$(grep . "$NETNS_TMP/xdprx" | mean) K=$(grep . "$NETNS_TMP/sock" | mean) I=$(grep . "$NETNS_TMP/iperf3" | mean)
kpps() { awk -v p="$1" 'BEGIN { if (p == "") print "n/a"; else printf "%.0f k/s", p / 1e3 }'; }
ratio() { # ratio NAME A_FILE B_FILE TARGET: of the means, and round by round (same round's pair)
	paste "$2" "$3" | awk -v n="$1" -v t="$4" -F'\t' '
		$1 != "" && $2 + 0 > 0 { r = $1 / $2; rs = rs sprintf("%s%.2f", k ? " " : "", r); k++
			if (!k0++ || r < lo) lo = r; if (r > hi) hi = r; if (r < t) miss++; sa += $1; sb += $2 }
		END { if (!k) { printf "  %-40s n/a\n", n; exit }
			printf "  %-40s %.2fx (rounds %s; min %.2fx): target >= %.1fx %s\n", n, sa / sb, rs,
				lo, t, miss ? sprintf("NOT met in %d of %d rounds", miss, k) : "met in every round" }'
}
echo "64-byte UDP over a veth pair, received datagrams/s, $SECS s x $ROUNDS rounds (load $LOAD0 before, $(cut -d' ' -f1 /proc/loadavg) after):"
printf "  %-40s %s\n" "netsweep --engine xdp" "$(kpps "$X")" \
	"netsweep --engine xdp, 2 threads/queues" "$(kpps "$X2")" \
	"netsweep socket engine, 2 threads" "$(kpps "$K2")" \
	"netsweep --engine xdp-rx" "$(kpps "$C")" "netsweep socket engine" "$(kpps "$K")" \
	"iperf3 -u -b 0 -l 64" "$(kpps "$I")" "bare AF_XDP copy-mode sender" "$(kpps "$W")" \
	"10GbE wire rate, 64-byte frames" "14881 k/s"
ratio "xdp / iperf3" "$NETNS_TMP/xdp" "$NETNS_TMP/iperf3" 3
ratio "xdp / socket engine" "$NETNS_TMP/xdp" "$NETNS_TMP/sock" 3
ratio "xdp-rx / iperf3" "$NETNS_TMP/xdprx" "$NETNS_TMP/iperf3" 3
ratio "xdp-rx / socket engine" "$NETNS_TMP/xdprx" "$NETNS_TMP/sock" 3
ratio "xdp, 2 threads / iperf3" "$NETNS_TMP/xdp2" "$NETNS_TMP/iperf3" 3
ratio "xdp, 2 threads / socket, 2 threads" "$NETNS_TMP/xdp2" "$NETNS_TMP/sock2" 3
# how close each comes to the bare sender on the same veth (its drop program does no
# accounting; one thread, queue 0): the means, and the spread over the rounds
echo "  share of the bare AF_XDP copy-mode sender's rate (mean; rounds):"
for e in "xdp:netsweep --engine xdp" "xdp2:netsweep --engine xdp, 2 threads" "xdprx:netsweep --engine xdp-rx" \
	"sock:netsweep socket engine" "sock2:netsweep socket engine, 2 threads" "iperf3:iperf3 -u -b 0 -l 64"; do
	paste "$NETNS_TMP/${e%%:*}" "$NETNS_TMP/raw" | awk -v n="${e#*:}" -F'\t' '
		$1 != "" && $2 + 0 > 0 { rs = rs sprintf("%s%.0f", k++ ? " " : "", 100 * $1 / $2); sa += $1; sb += $2 }
		END { if (!k) printf "    %-38s n/a\n", n; else printf "    %-38s %.0f %% (%s)\n", n, 100 * sa / sb, rs }'
done
