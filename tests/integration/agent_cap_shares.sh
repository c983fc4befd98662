#!/bin/bash
# A cap's fair shares (issue 43), on loopback. An agent with --max-rate 10M sends two tests at
# once (-R): UDP with 65,507-byte datagrams at 5M and TCP at 5M. Each gets at least 80 % of
# its 5 Mbit/s, or the one that did not is flagged with the cap named (limit.limited_by
# "max_rate", cause "agent_max_rate"). Before, the TCP sender's small steps took every token
# of the one bucket: the UDP test moved 0 or 1 datagram and said "ok". Then three such tests
# at once (shares of 3.33 Mbit/s: none can reach 80 %) must each be flagged so — and three
# delegated tests through an agent with --max-rate 10M too (they read "its pacer woke too
# late" before). The agent's summary line gives each test's rate over its duration.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
T=$(mktemp -d) || exit 1
PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT
export NETSWEEP_IMDS=0
unset NETSWEEP_PSK_FILE
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NS=$T/netsweep

loopback_agent "$T" --max-rate 10M || { fail "agent --max-rate 10M" "did not start"; exit 1; }
PIDS+=("$AGENT_PID")
CAP_PORT=$AGENT_PORT
j() { sqlite3 :memory: "SELECT json_extract(readfile('$1'), '$2')"; }

# share_or_flag NAME OUT: at least 80 % of 5 Mbit/s received, else flagged with the cap
share_or_flag() {
	local name=$1 out=$2 st bps by cause
	st=$(j "$out" '$.status') bps=$(j "$out" '$.sum.receiver.bits_per_second')
	by=$(j "$out" '$.sum.limit.limited_by') cause=$(j "$out" '$.sum.limit.cause')
	if [ "$st" != ok ]; then
		fail "$name" "status $st: $(j "$out" '$.error') $(head -c 200 "$out.err")"
	elif awk -v b="$bps" 'BEGIN { exit !(b >= 0.8 * 5e6) }'; then
		pass "$name: $(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e6 }') Mbit/s of 5 (limited_by ${by:-none})"
	elif [ "$by" = max_rate ] && [ "$cause" = agent_max_rate ]; then
		pass "$name: $(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e6 }') Mbit/s of 5, flagged: limited_by max_rate (the agent's --max-rate)"
	else
		fail "$name" "$(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e6 }') Mbit/s of 5 and not flagged with the cap: limited_by '$by', cause '$cause'"
	fi
}
# flagged NAME OUT: below 80 % (a third of the cap) and flagged with the cap
flagged() {
	local name=$1 out=$2 bps by
	bps=$(j "$out" '$.sum.receiver.bits_per_second') by=$(j "$out" '$.sum.limit.limited_by')
	if [ "$(j "$out" '$.status')" = ok ] && [ "$by" = max_rate ] &&
		[ "$(j "$out" '$.sum.limit.cause')" = agent_max_rate ] && grep -q -- "--max-rate" "$out"; then
		pass "$name: $(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e6 }') Mbit/s of 5, flagged limited_by max_rate, the warning names --max-rate"
	else
		fail "$name" "$(awk -v b="$bps" 'BEGIN { printf "%.2f", b / 1e6 }') Mbit/s, limited_by '$by', cause '$(j "$out" '$.sum.limit.cause')': $(j "$out" '$.warnings')"
	fi
}

# 1. UDP 65,507-byte datagrams and TCP, 5M each, from the agent at once
"$NS" probe 127.0.0.1 -p "$CAP_PORT" -R -u -l 65507 -b 5M -t 4 --json >"$T/udp.json" 2>"$T/udp.json.err" &
u=$!
"$NS" probe 127.0.0.1 -p "$CAP_PORT" -R -b 5M -t 4 --json >"$T/tcp.json" 2>"$T/tcp.json.err" &
wait $! $u
share_or_flag "--max-rate 10M: UDP, 65,507-byte datagrams at 5M" "$T/udp.json"
share_or_flag "--max-rate 10M: TCP at 5M beside it" "$T/tcp.json"
sum=$(awk -v a="$(j "$T/udp.json" '$.sum.receiver.bits_per_second')" -v b="$(j "$T/tcp.json" '$.sum.receiver.bits_per_second')" 'BEGIN { printf "%.0f", a + b }')
awk -v s="$sum" 'BEGIN { exit !(s <= 10e6 * 1.05) }' && pass "together within the cap ($((sum / 1000)) kbit/s)" ||
	fail "together within the cap" "$sum bit/s"

# 2. three at once: shares of 3.33 Mbit/s, each flagged
for i in 1 2 3; do
	args=(-R -b 5M -t 4)
	[ $i = 2 ] && args=(-R -u -l 65507 -b 5M -t 4)
	"$NS" probe 127.0.0.1 -p "$CAP_PORT" "${args[@]}" --json >"$T/three$i.json" 2>"$T/three$i.json.err" &
	eval "p$i=\$!"
done
wait "$p1" "$p2" "$p3"
for i in 1 2 3; do flagged "three tests under --max-rate 10M: test $i" "$T/three$i.json"; done

# 3. delegated: three tests at once from an agent with --delegate --max-rate 10M
mkdir "$T/t" && loopback_agent "$T/t" || { fail "target agent" "did not start"; exit 1; }
PIDS+=("$AGENT_PID")
TARGET_PORT=$AGENT_PORT
mkdir "$T/d" && loopback_agent "$T/d" --delegate --max-rate 10M || { fail "agent --delegate --max-rate 10M" "did not start"; exit 1; }
PIDS+=("$AGENT_PID")
FROM_PORT=$AGENT_PORT
for i in 1 2 3; do
	"$NS" probe 127.0.0.1 -p "$TARGET_PORT" --from "127.0.0.1:$FROM_PORT" -b 5M -t 4 --json \
		>"$T/del$i.json" 2>"$T/del$i.json.err" &
	eval "p$i=\$!"
done
wait "$p1" "$p2" "$p3"
for i in 1 2 3; do flagged "three delegated tests under --max-rate 10M: test $i" "$T/del$i.json"; done

# 4. the agent's summary lines: a rate over the test's 4 s
line=$(grep -m1 'test done; reverse sent' "$T/agent.log")
secs=$(sed -n 's/.* in \([0-9.]*\) s,.*/\1/p' <<<"$line" | head -1)
[ "$secs" = 4.00 ] && pass "the agent's summary divides by the test's duration ($(cut -c1-120 <<<"${line#*: }"))" ||
	fail "the agent's summary divides by the test's duration" "$line"
finish
