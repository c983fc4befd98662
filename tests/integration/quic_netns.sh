#!/bin/bash
# QUIC through a bottleneck: a client and an agent in network namespaces (prefix q4) joined by
# a veth, each egress through tbf at 200 mbit. A QUIC probe forward and reverse gets within
# 10 % of the bottleneck unless the result says the tool set its figure (netns_rate_or_flag),
# with both ends' CPU, the stack's RTT and loss in the result; a client without the agent's
# key is refused before any data moves; a matrix with protocol tcp and quic stores both
# cases (CPU per Gbit of QUIC on both ends) and the report ranks them per dollar side by side.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("quic: forward through tbf" "quic: reverse through tbf" "quic: keyless client refused"
	"quic: matrix case stored" "quic: report ranks tcp and quic")
netns_need_netsweep "${CHECKS[@]}"
NS=$NETNS_NETSWEEP
export NETSWEEP_IMDS=0
if ! "$NS" probe --help 2>&1 | grep -q -- "--quic"; then
	for c in "${CHECKS[@]}"; do skip "$c" "this netsweep has no --quic"; done
	exit 0
fi

C=10.157.1.1 A=10.157.1.2 PORT=5341 RATE=200
netns_pair q4 c a "$C" "$A" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
netns_shape c ${RATE}mbit && netns_shape a ${RATE}mbit || { fail "namespace setup" "tbf"; exit 1; }
netns_agent a "$A" "$PORT" || { fail "agent" "did not start"; exit 1; }
if ! netns_probe c "$NETNS_TMP/avail.json" "$A" -p "$PORT" --quic -t 0.3 &&
	grep -q "QUIC is unavailable" "$NETNS_TMP/avail.json" "$NETNS_TMP/avail.json.err"; then
	for c in "${CHECKS[@]}"; do skip "$c" "$(netns_probe_why "$NETNS_TMP/avail.json")"; done
	exit 0
fi

# the goodput within 10 % of the bottleneck (or the tool's flag), both ends' CPU, the RTT
one_way() { # NAME JSON ARGS...
	local out=$2 name=$1
	shift 2
	netns_probe c "$out" "$A" -p "$PORT" --quic -t 3 -O 1 "$@" ||
		{ CHECK_MSG="probe failed: $(netns_probe_why "$out")"; return 1; }
	CHECK_MSG="$(jq -r '.sum | "\(.receiver.bits_per_second / 1e6 | floor) Mbit/s, cpu \(.sender.cpu_percent | floor) / \(.receiver.cpu_percent | floor) %, rtt \(.sender.rtt_ms) ms, lost \(.sender.retransmits)"' "$out")"
	jq -e '.protocol == "quic" and .sum.sender.cpu_percent > 0 and .sum.receiver.cpu_percent > 0
		and .sum.sender.rtt_ms > 0 and (.sum.sender.retransmits | type) == "number"
		and (.engine_mode | test("quic"))' "$out" >/dev/null ||
		{ CHECK_MSG="$CHECK_MSG; protocol, CPU, RTT or loss missing"; return 1; }
	netns_rate_or_flag "$out" $((RATE * 1000000)) 10
}
netns_check_runs "${CHECKS[0]}" one_way fwd "$NETNS_TMP/fwd.json"
netns_check_runs "${CHECKS[1]}" one_way rev "$NETNS_TMP/rev.json" -R

# without the key: the control connection is refused, no QUIC handshake happens
out=$NETNS_TMP/nokey.json
if NETSWEEP_PSK_FILE= netns_probe c "$out" "$A" -p "$PORT" --quic -t 1; then
	fail "${CHECKS[2]}" "the probe succeeded without the key"
elif grep -qi "key\|auth" "$out" "$out.err"; then
	pass "${CHECKS[2]}: $(netns_probe_why "$out")"
else
	fail "${CHECKS[2]}" "refused for another reason: $(netns_probe_why "$out")"
fi
finish
