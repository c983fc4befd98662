#!/bin/bash
# Incast through one bottleneck (issue 32, "Must show"): four clients in four namespaces probe
# one agent at the same moment, all four through one router whose link to the agent is shaped
# by tbf. All four complete (none is refused), and together they get at least 0.8 x what one
# client alone gets through the same tbf — asserted only where no result says the tool, not
# the path, set its figure (netns_tool_bound: a thread of either end at a whole core, or
# waiting for one a fifth of its time, on a busy machine); where one does, that flag is what
# is checked. Jain's fairness index over the four, (sum x)^2 / (n sum x^2), and the slowest
# client's share are printed (the >= 0.95 goal is make bench's, not a test's). Then one
# client is killed mid-test while the three others run: they complete, and the agent's
# descriptors and threads return to what they were.
#
#   c1..c4 --- r (forwards) --tbf 100 mbit--> s (agent)
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
NAME="incast: four clients in four namespaces through one tbf all complete, together >= 0.8 x one alone"
netns_need_netsweep "$NAME" "incast: a client killed mid-test, the three others complete and the agent leaks nothing"
export NETSWEEP_IMDS=0

RATE=100mbit PORT=7132 S=10.132.0.2
netns_pair i32 r s 10.132.0.1 "$S" >/dev/null || { fail "namespace setup" "netns_pair r s failed"; exit 1; }
for i in 1 2 3 4; do
	netns_pair i32 r "c$i" "10.132.$i.1" "10.132.$i.2" >/dev/null ||
		{ fail "namespace setup" "netns_pair r c$i failed"; exit 1; }
	netns_exec "c$i" ip route add 10.132.0.0/16 via "10.132.$i.1" ||
		{ fail "namespace setup" "route in c$i"; exit 1; }
done
netns_exec s ip route add 10.132.0.0/16 via 10.132.0.1 || { fail "namespace setup" "route in s"; exit 1; }
netns_exec r sysctl -qw net.ipv4.ip_forward=1 || { fail "namespace setup" "forwarding in r"; exit 1; }
# the bottleneck: r's first veth, the one towards the agent
netns_shape r "$RATE" || { fail "namespace setup" "tbf on r"; exit 1; }
netns_agent s "$S" "$PORT" || { fail "$NAME" "the agent did not start"; exit 1; }

# How four TCP flows share a drop-tail tbf varies from run to run: Jain's index here was
# 0.46-0.98 (one flow at 1-6 Mbit/s in the worst, with the others' retransmits; a 100 ms queue
# gave 0.35-0.95), every flow limited_by "window", the agent's threads at a few % of a core:
# TCP's, not the agent's. So the index is printed, and the total is what is asserted.
ARGS=("$S:$PORT" -t 5 -O 2 -i 0)
# incast_run: one client alone, then four at once; sets CHECK_MSG, returns 0 when it holds
incast_run() {
	local one=$NETNS_TMP/one.json i bps flagged="" total jain share
	if ! netns_probe c1 "$one" "${ARGS[@]}"; then
		CHECK_MSG="one client alone failed: $(netns_probe_why "$one")"
		return 1
	fi
	for i in 1 2 3 4; do
		netns_probe "c$i" "$NETNS_TMP/c$i.json" "${ARGS[@]}" &
		eval "P$i=\$!"
	done
	local bad=""
	for i in 1 2 3 4; do
		eval "wait \$P$i" || bad="$bad; client $i: $(netns_probe_why "$NETNS_TMP/c$i.json")"
	done
	if [ -n "$bad" ]; then
		CHECK_MSG="not all four completed${bad}"
		return 1
	fi
	local rates=()
	for i in 1 2 3 4; do rates+=("$(jq -r .sum.receiver.bits_per_second "$NETNS_TMP/c$i.json")"); done
	read -r total jain share < <(printf '%s\n' "${rates[@]}" | awk '
		{ x[NR] = $1; s += $1; q += $1 * $1; if (NR == 1 || $1 < m) m = $1 }
		END { printf "%.0f %.4f %.3f\n", s, s * s / (NR * q), m / (s / NR) }')
	bps=$(jq -r .sum.receiver.bits_per_second "$one")
	CHECK_MSG="one alone $(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }') Mbit/s; four at once $(printf '%s\n' "${rates[@]}" | awk '{ printf "%s%.1f", (NR > 1 ? " + " : ""), $1 / 1e6 }') = $(awk -v t="$total" 'BEGIN { printf "%.1f", t / 1e6 }') Mbit/s ($(awk -v t="$total" -v b="$bps" 'BEGIN { printf "%.2f", t / b }') x); Jain's fairness index $jain, slowest client $share of a fair share"
	echo "# incast: Jain's fairness index over 4 clients: $jain (slowest client: $share of its fair share)"
	awk -v t="$total" -v b="$bps" 'BEGIN { exit !(t >= 0.8 * b) }' && return 0
	# short of 0.8 x: only a result that says the tool's CPU set its figure may explain it
	for f in "$one" "$NETNS_TMP"/c[1-4].json; do
		local m=$CHECK_MSG
		CHECK_MSG=""
		netns_tool_bound "$f" && flagged="$flagged $(basename "$f" .json)"
		CHECK_MSG=$m
	done
	if [ -n "$flagged" ]; then
		CHECK_MSG="$CHECK_MSG; below 0.8 x, and the results of$flagged say the tool's CPU set them"
		return 0
	fi
	CHECK_MSG="$CHECK_MSG; below 0.8 x and no result says why"
	return 1
}
netns_check_runs "$NAME" incast_run

# A client killed (kill -9) mid-test while the three others run through the same tbf: they
# complete with their figures, and the agent's descriptors and threads come back to what they
# were before (the namespaces go with the trap).
NAME2="incast: a client killed mid-test, the three others complete and the agent leaks nothing"
APID=$NETNS_AGENT_PID
fds() { ls "/proc/$APID/fd" 2>/dev/null | wc -l; }
threads() { ls "/proc/$APID/task" 2>/dev/null | wc -l; }
FD0=$(fds) TH0=$(threads)
for i in 2 3 4; do
	netns_probe "c$i" "$NETNS_TMP/k$i.json" "$S:$PORT" -t 3 -i 0 &
	eval "K$i=\$!"
done
# ip netns exec execs the probe: $! is the probe itself (netns_exec, a function, would fork)
ip netns exec "$(_netns_resolve c1)" "$NETNS_NETSWEEP" probe "$S:$PORT" -t 20 >/dev/null 2>&1 &
VICTIM=$!
for _ in $(seq 100); do [ "$(threads)" -ge $((TH0 + 8)) ] && break; sleep 0.05; done
sleep 1
FD1=$(fds) TH1=$(threads)
{ kill -9 "$VICTIM" && wait "$VICTIM"; } 2>/dev/null
bad=""
for i in 2 3 4; do
	eval "wait \$K$i" || bad="$bad; client $i: $(netns_probe_why "$NETNS_TMP/k$i.json")"
	# its own test's figures: some bytes, never more than the bottleneck carries
	jq -e '.status == "ok" and .sum.receiver.bytes > 0 and .streams == 1 and
		.sum.receiver.bits_per_second <= 105e6' \
		"$NETNS_TMP/k$i.json" >/dev/null || bad="$bad; client $i: figures $(jq -c .sum.receiver "$NETNS_TMP/k$i.json" 2>/dev/null | head -c 200)"
done
for _ in $(seq 100); do [ "$(fds)" -le "$FD0" ] && [ "$(threads)" -le "$TH0" ] && break; sleep 0.1; done
FD2=$(fds) TH2=$(threads)
figures="fds $FD0 -> $FD1 -> $FD2, threads $TH0 -> $TH1 -> $TH2"
if [ -z "$bad" ] && [ "$FD2" -le "$FD0" ] && [ "$TH2" -le "$TH0" ] && [ "$TH1" -gt "$TH0" ]; then
	pass "$NAME2 ($figures)"
else
	fail "$NAME2" "${bad#; }; $figures"
fi
finish
