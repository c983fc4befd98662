#!/bin/bash
# An agent's --max-rate holds from the first byte, counted on the wire (issue 23): whatever a
# key holder asks — 1024 streams, big writes, UDP, tests back to back or at once — the bytes the agent's
# veth sends stay within the cap times the elapsed time, plus one small write per stream and
# the control messages. Before, each stream sent one whole write at start: 1024 streams of
# 128 KiB moved 128 MiB in 0.5 s of a test paced at 10 Mbit/s. The forward direction (the
# client sends, paced by the same engine) is counted on the client's veth.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
netns_need_netsweep "agent --max-rate: bytes on the wire"

C=10.66.123.1 A=10.66.123.2 PORT=7123
CAP=10000000
netns_pair i23r c a "$C" "$A" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
NS_C=$(_netns_resolve c) NS_A=$(_netns_resolve a)
DEV_C=$(netns_dev c) DEV_A=$(netns_dev a)
netns_agent a "$A" "$PORT" --max-rate 10M || { fail "agent --max-rate 10M" "did not start"; exit 1; }

tx() { ip netns exec "$1" cat "/sys/class/net/$2/statistics/tx_bytes"; }
now() { date +%s.%N; }

# capped NAME NS DEV STREAMS TESTS PROBE-ARGS...: runs the probe TESTS times back to back and
# checks the bytes DEV sent: at most the cap x the elapsed time (+10 % for headers and ACKs),
# one 1448-byte write per stream and test, and 512 bytes of control per stream and test (the
# per-stream results); and at least half the cap over the time the tests measured, so that a
# test moving nothing cannot pass.
capped() {
	local name=$1 ns=$2 dev=$3 streams=$4 tests=$5 i b0 b1 t0 t1 out=$NETNS_TMP/cap.json
	shift 5
	b0=$(tx "$ns" "$dev") t0=$(now)
	for i in $(seq "$tests"); do
		if ! netns_probe c "$out" "$A:$PORT" "$@"; then
			fail "$name" "probe $i failed: $(netns_probe_why "$out")"
			return
		fi
	done
	b1=$(tx "$ns" "$dev") t1=$(now)
	local moved=$((b1 - b0)) verdict
	verdict=$(awk -v m="$moved" -v t0="$t0" -v t1="$t1" -v cap="$CAP" -v s="$streams" \
		-v n="$tests" -v d="$(netns_json "$out" '$.duration_s')" 'BEGIN {
		el = t1 - t0; most = cap / 8 * el * 1.1 + n * s * (1448 + 512) + n * 65536
		least = cap / 8 * d * n * 0.5
		printf "%s %d bytes in %.2f s (at most %d, at least %d)", \
			(m <= most && m >= least) ? "ok" : "bad", m, el, most, least }')
	if [[ $verdict == ok* ]]; then pass "$name: ${verdict#ok }"; else fail "$name" "${verdict#bad }"; fi
}

# concurrent NAME TESTS PROBE-ARGS...: TESTS reverse probes at once (issue 32: the agent runs
# them side by side), each asking for the whole cap: what the agent's veth sends is still at
# most the cap x the elapsed time (+10 %, a first write and control messages per test), at
# least half the cap over the measured time, and the tests the bucket held say so
# (sum.limit.cause agent_max_rate).
concurrent() {
	local name=$1 tests=$2 i b0 b1 t0 t1 pids=() bad="" held=0
	shift 2
	b0=$(tx "$NS_A" "$DEV_A") t0=$(now)
	for i in $(seq "$tests"); do
		netns_probe c "$NETNS_TMP/conc$i.json" "$A:$PORT" "$@" &
		pids+=("$!")
	done
	for i in $(seq "$tests"); do
		wait "${pids[$((i - 1))]}" || bad="$bad; probe $i: $(netns_probe_why "$NETNS_TMP/conc$i.json")"
		[ "$(netns_json "$NETNS_TMP/conc$i.json" '$.sum.limit.cause')" = agent_max_rate ] &&
			held=$((held + 1))
	done
	b1=$(tx "$NS_A" "$DEV_A") t1=$(now)
	[ -n "$bad" ] && { fail "$name" "${bad#; }"; return; }
	local verdict
	verdict=$(awk -v m="$((b1 - b0))" -v t0="$t0" -v t1="$t1" -v cap="$CAP" -v n="$tests" \
		-v d="$(netns_json "$NETNS_TMP/conc1.json" '$.duration_s')" 'BEGIN {
		el = t1 - t0; most = cap / 8 * el * 1.1 + n * (1448 + 512) + n * 65536
		least = cap / 8 * d * 0.5
		printf "%s %d bytes in %.2f s from %d tests at once (at most %d, at least %d)", \
			(m <= most && m >= least) ? "ok" : "bad", m, el, n, most, least }')
	if [[ $verdict == ok* ]] && [ "$held" -ge 1 ]; then
		pass "$name: ${verdict#ok }; $held of $tests say the agent's --max-rate held them"
	else
		fail "$name" "${verdict#* }; $held of $tests say the agent's --max-rate held them"
	fi
}

capped "max-rate: -R -P 1024 -t 0.5 (1024 first writes)" "$NS_A" "$DEV_A" 1024 1 \
	-R -b 10M -P 1024 -t 0.5 -i 0
capped "max-rate: -R -l 1M, three tests back to back" "$NS_A" "$DEV_A" 1 3 \
	-R -b 10M -l 1M -t 0.5 -i 0
capped "max-rate: -R UDP 64 streams of 60000-byte datagrams" "$NS_A" "$DEV_A" 64 1 \
	-R -u -b 10M -l 60000 -P 64 -t 0.5 -i 0
capped "max-rate: forward -P 1024 -t 0.5 (the client's pacing)" "$NS_C" "$DEV_C" 1024 1 \
	-b 10M -P 1024 -t 0.5 -i 0
concurrent "max-rate: four -R tests at once, each asking for the whole cap, share the one budget" 4 \
	-R -b 10M -P 4 -t 1 -i 0
finish
