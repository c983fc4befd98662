#!/bin/bash
# QUIC through a bottleneck: a client and an agent in network namespaces (prefix q4) joined by
# a veth, each egress through tbf at 200 mbit. A QUIC probe forward and reverse gets within
# 10 % of the bottleneck unless the result says the tool set its figure (netns_rate_or_flag),
# with both ends' CPU, the stack's RTT (smoothed and least) and loss in the result; a client without the agent's
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
	CHECK_MSG="$(jq -r '.sum | "\(.receiver.bits_per_second / 1e6 | floor) Mbit/s, cpu \(.sender.cpu_percent | floor) / \(.receiver.cpu_percent | floor) %, rtt \(.sender.rtt_ms) ms (min \(.sender.rtt_min_ms)), lost \(.sender.retransmits)"' "$out")"
	jq -e '.protocol == "quic" and .sum.sender.cpu_percent > 0 and .sum.receiver.cpu_percent > 0
		and .sum.sender.rtt_ms > 0 and .sum.sender.rtt_min_ms > 0
		and .sum.sender.rtt_min_ms <= .sum.sender.rtt_ms and (.sum.sender.retransmits | type) == "number"
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

# a matrix: the same pair with protocol tcp and quic, reverse (the agent sends through its tbf)
M=$NETNS_TMP/q4.xml DB=$NETNS_TMP/q4.db
cat >"$M" <<X
<matrix name="q4-quic" repeats="1" case-timeout="30s" cooldown="0s">
  <pairs>
    <pair name="lab" instance-type="m5.large" region="us-east-1" agent="$A:$PORT"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>quic</value></axis>
    <axis name="direction"><value>reverse</value></axis>
    <axis name="duration"><value>2s</value></axis>
    <axis name="omit"><value>0.5s</value></axis>
  </axes>
</matrix>
X
timeout -k 5 180 ip netns exec q4-c $NETNS_NICE_CMD "$NS" run "$M" --db "$DB" --quiet >"$NETNS_TMP/run.log" 2>&1
row=$(sqlite3 -separator ' ' "$DB" "SELECT r.status, CAST(r.fwd_rcv_bps / 1e6 AS INTEGER), r.fwd_snd_cpu > 0 AND r.fwd_rcv_cpu > 0,
	round(r.fwd_snd_cpu / (r.fwd_rcv_bps / 1e9), 1), round(r.fwd_rcv_cpu / (r.fwd_rcv_bps / 1e9), 1), r.fwd_rtt_ms > 0 AND r.fwd_rtt_min_ms > 0
	FROM results r JOIN cases c ON c.id = r.case_id WHERE c.protocol = 'quic'" 2>&1)
read -r st mbps cpu_ok snd_pg rcv_pg rtt_ok <<<"$row"
if [ "$st" = ok ] && [ "$cpu_ok" = 1 ] && [ "$rtt_ok" = 1 ] && [ "${mbps:-0}" -gt 0 ]; then
	pass "${CHECKS[3]}: $mbps Mbit/s, CPU per Gbit/s: sender $snd_pg %, receiver $rcv_pg % of a core, RTT stored"
else
	fail "${CHECKS[3]}" "row '$row'; $(tail -3 "$NETNS_TMP/run.log")"
fi
"$NS" report --db "$DB" -o "$NETNS_TMP/rep" >"$NETNS_TMP/rep.log" 2>&1
protos=$(jq -r '[.ranking.rows[] | select(.rank != null) | .case | split(" ")[1]] | sort | join(",")' "$NETNS_TMP/rep/report.json" 2>/dev/null)
view=$(sqlite3 "$DB" "SELECT group_concat(p, ',') FROM (SELECT c.protocol AS p FROM v_cost_ranking v
	JOIN cases c ON c.id = v.case_id ORDER BY p)" 2>&1)
if [ "$protos" = quic,tcp ] && [ "$view" = quic,tcp ] &&
	grep -q -- "--quic" "$NETNS_TMP/rep/report.md"; then
	pass "${CHECKS[4]}: the pair ranked once per protocol per dollar, report and v_cost_ranking alike"
else
	fail "${CHECKS[4]}" "report ranks '$protos', the view '$view'; $(head -3 "$NETNS_TMP/rep.log")"
fi
finish
