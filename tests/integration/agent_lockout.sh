#!/bin/bash
# No lock-out and no growth, in two namespaces (prefix l9): an agent with a key in l9-a, hostile
# and real clients in l9-c. While 500 silent connections and a connect/close loop hit the agent,
# a real authenticated probe still gets its test; after 2,000 garbage connections (random
# bytes, huge lengths, truncated frames, bad proofs) the agent serves a normal test and its
# resident memory is within 10 % of what it was before.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("lockout: a real probe gets its test under 500 silent connections and a reconnect loop"
	"lockout: 2,000 garbage connections, then a normal test, RSS within 10 %")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0
PEER="perl $HERE/../lib/ctl_peer.pl"
A=10.99.1.1 C=10.99.1.2 PORT=5301
netns_pair l9 a c "$A" "$C" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
netns_agent a "$A" "$PORT" --quiet || { fail "agent" "did not start"; exit 1; }
A_PID=$NETNS_AGENT_PID
probe_c() {
	timeout -k 5 60 ip netns exec l9-c "$NETSWEEP" probe "$A:$PORT" -t 0.5 -i 0 --json >"$1" 2>"$1.err"
}
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$A_PID/status"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# 1. hold 500 silent connections, churn, and probe
probe_c "$NETNS_TMP/warm.json"
ip netns exec l9-c $PEER silent "$A" "$PORT" 500 4 >"$NETNS_TMP/silent.out" &
SILENT=$!
for _ in $(seq 100); do [ -s "$NETNS_TMP/silent.out" ] && break; sleep 0.05; done
ip netns exec l9-c $PEER churn "$A" "$PORT" 3 >"$NETNS_TMP/churn.out" &
CHURN=$!
sleep 0.3
t0=$(now_ms)
probe_c "$NETNS_TMP/real.json"
took=$(( $(now_ms) - t0 ))
held=$(cat "$NETNS_TMP/silent.out")
# the probe's own 0.5 s test and its results come on top of the wait for the agent: 3 s
if [ "$(netns_json "$NETNS_TMP/real.json" '$.status')" = ok ] && [ "$took" -lt 4500 ] &&
	[ "${held:-0}" -ge 450 ]; then
	pass "${CHECKS[0]}: $held silent connections held, the probe done in $took ms"
else
	fail "${CHECKS[0]}" "$held held; probe in $took ms: $(netns_probe_why "$NETNS_TMP/real.json")"
fi
wait "$SILENT" "$CHURN" # (a bare wait would wait for the agent too)

# 2. garbage, then a normal test; RSS before and after
probe_c "$NETNS_TMP/before.json"
r0=$(rss)
n=$(ip netns exec l9-c $PEER garbage "$A" "$PORT" 2000)
sleep 2.5 # every half-open handshake is dropped within 2 s
probe_c "$NETNS_TMP/after.json"
r1=$(rss)
if [ "$n" = 2000 ] && [ "$(netns_json "$NETNS_TMP/after.json" '$.status')" = ok ] &&
	[ -n "$r0" ] && [ -n "$r1" ] && [ "$r1" -le $(( r0 + r0 / 10 )) ]; then
	pass "${CHECKS[1]}: RSS $r0 kB -> $r1 kB"
else
	fail "${CHECKS[1]}" "$n connections; RSS $r0 -> $r1 kB; $(netns_probe_why "$NETNS_TMP/after.json")"
fi
finish
