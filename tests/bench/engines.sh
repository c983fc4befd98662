#!/bin/bash
# Engine benchmark (make bench; not a test): netsweep against iperf (2) and iperf3 on loopback,
# side by side in one invocation so that all figures share the machine's state, and the ratios
# issue 2 sets as targets:
#   TCP, 2 streams, 10 s:       netsweep >= 1.0 x iperf -P 2 and >= 1.6 x iperf3 -P 2
#   and, issue 41, with the receive copy skipped (--skip-rx-copy, MSG_TRUNC): >= 2 x iperf -P 2;
#   netsweep's lines say where its engine threads ran (cpu_placement) and the CPU per GB
#   UDP, 64-byte, unlimited:    netsweep received datagrams/s >= 2 x iperf3 -u -b 0 -l 64
#   agent idle RSS < 32 MiB;    probe peak RSS (VmHWM) with 128 streams < 64 MiB
# Everything runs on the loopback of a namespace of our own, so ports never collide with other
# tests on the machine and nothing is left behind (servers end with the namespace).
# Each tool runs BENCH_ROUNDS times (default 2), in alternating order; ratios use the means.
# BENCH_TCP_SECS / BENCH_UDP_SECS / BENCH_ROUNDS=1 shorten it for a quick look.
HERE=$(cd "$(dirname "$0")" && pwd)
# Every tool at the same priority: the harness otherwise raises netsweep's (see netns.sh).
NETNS_NICE=
source "$HERE/../lib/netns.sh"
netns_require

TCP_SECS=${BENCH_TCP_SECS:-10}
UDP_SECS=${BENCH_UDP_SECS:-5}
LO=127.0.0.1
P_NS=5301 P_IPERF=5311 P_IPERF3=5321
netns_pair h6 bench bpeer 10.66.7.1 10.66.7.2 >/dev/null || { echo "bench: namespace setup failed" >&2; exit 1; }
B=h6-bench
J=$NETNS_TMP/out.json
STATUS=0

have() { command -v "$1" >/dev/null 2>&1; }
mbps() { awk -v b="$1" 'BEGIN { if (b == "") print "n/a"; else printf "%.0f Mbit/s", b / 1e6 }'; }
kpps() { awk -v p="$1" 'BEGIN { if (p == "") print "n/a"; else printf "%.0f k/s", p / 1e3 }'; }
# ratio NAME A B TARGET: prints A/B and whether it meets TARGET.
ratio() {
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$4" 'BEGIN {
		if (a == "" || b == "" || b + 0 == 0) { printf "  %-44s n/a\n", n; exit }
		r = a / b; printf "  %-44s %.2fx (target >= %.1fx: %s)\n", n, r, t, (r >= t) ? "met" : "NOT met" }'
}
# VmHWM (peak RSS) or VmRSS of PID in KiB.
vm_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }

# Servers: netsweep's agent, iperf and iperf3, all on the namespace's loopback.
NS_OK=0
if netns_netsweep_ready && netns_agent "$B" "$LO" "$P_NS"; then
	NS_OK=1
	AGENT_PID=$NETNS_AGENT_PID
	sleep 1 # let the agent settle so "idle" means idle, not start-up
	AGENT_IDLE_KIB=$(vm_kib "$AGENT_PID" VmRSS)
else
	echo "SKIP netsweep figures: netsweep agent/probe not available yet"
fi
if have iperf; then
	netns_exec "$B" iperf -s -p "$P_IPERF" >/dev/null 2>&1 &
	netns_wait_tcp "$B" "$LO" "$P_IPERF" 5 || { echo "bench: iperf -s did not start" >&2; STATUS=1; }
else
	echo "SKIP iperf figures: iperf (2) is not installed"
fi
if have iperf3; then
	netns_exec "$B" iperf3 -s -p "$P_IPERF3" >/dev/null 2>&1 &
	netns_wait_tcp "$B" "$LO" "$P_IPERF3" 5 || { echo "bench: iperf3 -s did not start" >&2; STATUS=1; }
else
	echo "SKIP iperf3 figures: iperf3 is not installed"
fi

# netsweep_run ARGS...: a probe against the agent, JSON in $J; prints nothing, fails loudly.
netsweep_run() {
	[ "$NS_OK" = 1 ] || return 1
	if ! netns_probe "$B" "$J" "$LO:$P_NS" "$@"; then
		echo "bench: netsweep probe $* failed: $(netns_probe_why "$J")" >&2
		STATUS=1
		return 1
	fi
}

# Each measurement prints one line and sets FIG (bits/s or received datagrams/s; empty when
# it could not run).
tcp_netsweep() {
	FIG=""
	netsweep_run -P 2 -t "$TCP_SECS" "$@" || return
	FIG=$(netns_json "$J" '$.sum.receiver.bits_per_second')
	printf '  %-15s %s  (cpu %% of one core: sender %.0f, receiver %.0f; CPU s/GB %.3f / %.3f; placement %s, client CPUs %s, agent CPUs %s; receive %s)\n' \
		"netsweep -P 2${1:+ $1}" "$(mbps "$FIG")" "$(netns_json "$J" '$.sum.sender.cpu_percent')" \
		"$(netns_json "$J" '$.sum.receiver.cpu_percent')" "$(netns_json "$J" '$.sum.sender.cpu_s_per_gb')" \
		"$(netns_json "$J" '$.sum.receiver.cpu_s_per_gb')" "$(netns_json "$J" '$.cpu_placement')" \
		"$(netns_json "$J" '$.client_cpus')" "$(netns_json "$J" '$.agent_cpus')" "$(netns_json "$J" '$.rx_path')"
}
tcp_netsweep_skip() { tcp_netsweep --skip-rx-copy; }
tcp_iperf() {
	FIG=""
	have iperf || return
	# CSV: one line per stream ending in bits/s (2.1.8 prints no sum line with -y C).
	FIG=$(netns_exec "$B" iperf -c "$LO" -p "$P_IPERF" -P 2 -t "$TCP_SECS" -y C 2>/dev/null |
		awk -F, '$6 > 0 { s += $9; n++ } END { if (n) printf "%.0f", s }')
	echo "  iperf -P 2      $(mbps "$FIG")"
}
tcp_iperf3() {
	FIG=""
	have iperf3 || return
	netns_exec "$B" iperf3 -c "$LO" -p "$P_IPERF3" -P 2 -t "$TCP_SECS" -J >"$J" 2>&1
	FIG=$(netns_json "$J" '$.end.sum_received.bits_per_second')
	echo "  iperf3 -P 2     $(mbps "$FIG")"
}
# udp_netsweep [--gso]: received datagrams/s as the sender built them (GRO super-datagrams are
# split back into their segments by the receiver), with what was sent and lost.
udp_netsweep() {
	FIG=""
	netsweep_run --udp -l 64 -b 0 "$@" -t "$UDP_SECS" || return
	FIG=$(netns_json "$J" '$.sum.receiver.packets_per_second')
	printf '  %-16s received %s (sent %s, %s datagrams, lost %.1f %%, kernel drops %s)%s\n' \
		"netsweep $*" "$(kpps "$FIG")" "$(kpps "$(netns_json "$J" '$.sum.sender.packets_per_second')")" \
		"$(netns_json "$J" '$.sum.receiver.packets')" "$(netns_json "$J" '$.sum.receiver.lost_percent')" \
		"$(netns_json "$J" '$.sum.receiver.kernel_drops')" \
		"$([ "$*" = --gso ] && [ "$(netns_json "$J" '$.gso_active')" != 1 ] && echo ' GSO NOT ACTIVE')"
}
udp_netsweep_gso() { udp_netsweep --gso; }
udp_iperf3() {
	FIG=""
	have iperf3 || return
	local sent lost secs lp
	netns_exec "$B" iperf3 -c "$LO" -p "$P_IPERF3" -u -b 0 -l 64 -t "$UDP_SECS" -J >"$J" 2>&1
	# end.sum: packets = datagrams sent, lost_packets = never received, seconds = test length.
	read -r sent lost secs lp <<<"$(sqlite3 -separator ' ' :memory: "select
		json_extract(j, '\$.end.sum.packets'), json_extract(j, '\$.end.sum.lost_packets'),
		json_extract(j, '\$.end.sum.seconds'), json_extract(j, '\$.end.sum.lost_percent')
		from (select readfile('$J') as j)" 2>/dev/null)"
	FIG=$(awk -v s="$sent" -v l="$lost" -v t="$secs" 'BEGIN { if (t > 0) printf "%.0f", (s - l) / t }')
	echo "  iperf3 -u -b 0   received $(kpps "$FIG") (sent $(kpps "$(awk -v s="$sent" -v t="$secs" 'BEGIN { if (t > 0) printf "%.0f", s / t }')"), lost $(printf %.1f "$lp") %)"
}

# rounds NAME...: runs the measurements BENCH_ROUNDS times, in reverse order every other round
# (a slow drift in the machine's load then favours no tool), and sets MEAN_<name> to the mean
# of the rounds that produced a figure.
rounds() {
	local r name order sum n
	declare -gA FIGS=()
	for ((r = 1; r <= ROUNDS; r++)); do
		[ "$ROUNDS" -gt 1 ] && echo "  -- round $r (load average $(cut -d' ' -f1 /proc/loadavg))"
		if ((r % 2)); then order=("$@"); else order=(); for name in "$@"; do order=("$name" "${order[@]}"); done; fi
		for name in "${order[@]}"; do
			"$name"
			[ -n "$FIG" ] && FIGS[$name]="${FIGS[$name]:-} $FIG"
		done
	done
	for name in "$@"; do
		printf -v "MEAN_$name" '%s' "$(awk -v l="${FIGS[$name]:-}" 'BEGIN { n = split(l, v, " ");
			for (i = 1; i <= n; i++) s += v[i]; if (n) printf "%.0f", s / n }')"
	done
}

ROUNDS=${BENCH_ROUNDS:-2}
# Figures are only comparable within one run; the load says how busy the machine was.
echo "== load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs), $ROUNDS rounds"
echo "== TCP, 2 streams, ${TCP_SECS} s, loopback (receiver goodput)"
rounds tcp_netsweep tcp_netsweep_skip tcp_iperf tcp_iperf3
echo "  mean: netsweep $(mbps "$MEAN_tcp_netsweep"), netsweep --skip-rx-copy $(mbps "$MEAN_tcp_netsweep_skip"), iperf $(mbps "$MEAN_tcp_iperf"), iperf3 $(mbps "$MEAN_tcp_iperf3")"
ratio "TCP netsweep / iperf -P 2" "$MEAN_tcp_netsweep" "$MEAN_tcp_iperf" 1.0
ratio "TCP netsweep / iperf3 -P 2" "$MEAN_tcp_netsweep" "$MEAN_tcp_iperf3" 1.6
ratio "TCP netsweep --skip-rx-copy / iperf -P 2" "$MEAN_tcp_netsweep_skip" "$MEAN_tcp_iperf" 2.0

echo "== UDP, 64-byte payload, unlimited rate, ${UDP_SECS} s, loopback (received datagrams/s)"
rounds udp_netsweep udp_netsweep_gso udp_iperf3
echo "  mean: netsweep $(kpps "$MEAN_udp_netsweep"), netsweep --gso $(kpps "$MEAN_udp_netsweep_gso"), iperf3 $(kpps "$MEAN_udp_iperf3")"
ratio "UDP received/s netsweep / iperf3" "$MEAN_udp_netsweep" "$MEAN_udp_iperf3" 2.0
ratio "UDP received/s netsweep --gso / iperf3" "$MEAN_udp_netsweep_gso" "$MEAN_udp_iperf3" 2.0

echo "== Memory (from /proc/PID/status)"
if [ "$NS_OK" = 1 ]; then
	echo "  agent idle VmRSS at start      $((AGENT_IDLE_KIB / 1024)) MiB (target < 32 MiB: $([ "$AGENT_IDLE_KIB" -lt 32768 ] && echo met || echo NOT met))"
	echo "  agent VmRSS idle after tests   $(( $(vm_kib "$AGENT_PID" VmRSS) / 1024 )) MiB (VmHWM $(( $(vm_kib "$AGENT_PID" VmHWM) / 1024 )) MiB)"
	# The probe's peak: VmHWM only grows, so the last reading before it exits is its peak.
	ip netns exec "$B" "$NETNS_NETSWEEP" probe "$LO:$P_NS" -P 128 -t 3 --json >"$J" 2>"$J.err" &
	pid=$! hwm=0
	# ip netns exec execs the command in place: the pid is the probe's own.
	sleep 0.1
	comm=$(cat "/proc/$pid/comm" 2>/dev/null)
	[ "$comm" = netsweep ] || echo "bench: pid $pid is '$comm', not netsweep: VmHWM may be wrong" >&2
	while kill -0 "$pid" 2>/dev/null; do
		k=$(vm_kib "$pid" VmHWM)
		[ -n "$k" ] && hwm=$k
		sleep 0.05
	done
	if wait "$pid"; then
		echo "  probe -P 128 peak VmHWM        $((hwm / 1024)) MiB (target < 64 MiB: $([ "$hwm" -lt 65536 ] && echo met || echo NOT met)); $(mbps "$(netns_json "$J" '$.sum.receiver.bits_per_second')")"
	else
		echo "bench: netsweep probe -P 128 failed: $(netns_probe_why "$J")" >&2
		STATUS=1
	fi
fi
echo "== load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $STATUS
