#!/bin/bash
# Fair slots before and after the key (issue 23), on loopback with three source addresses:
# 1. three clients whose every message reaches the agent 0.2 to 0.5 s late (delaying proxies,
#    as across a WAN) each complete a test, side by side (issue 32), while 3,000 silent
#    connections arrive from 127.0.0.2 during their handshakes: the flood churns only its own
#    address's slots. Before, each newcomer pushed
#    out the oldest handshake anywhere, the distant client's first.
# 2. a probe is served while one key holder on 127.0.0.2 keeps 1,024 authenticated sessions
#    open without a request: before, they took every slot and the probe was closed.
# NETSWEEP_LONG=1 (make check-long): ten delayed clients, 0.1 to 0.7 s, under the flood.
source "$(dirname "$0")/../lib/check.sh"
HERE=$(cd "$(dirname "$0")" && pwd)
PEER="perl $HERE/../lib/ctl_peer.pl"
source "$HERE/../lib/lo_agent.sh"
lo_agent_setup i23-fair
FLOOD=3000 DELAYS="0.5 0.2 0.3"
if [ "${NETSWEEP_LONG:-0}" = 1 ]; then
	DELAYS="0.1 0.15 0.2 0.3 0.4 0.5 0.5 0.6 0.7 0.7"
fi
ulimit -n 8192 2>/dev/null # the flood's sockets, held at once

"$NS" key "$TMP/psk" || { fail "netsweep key" "failed"; exit 1; }
start_agent "$TMP/agent.log" --psk-file "$TMP/psk"
[ -n "$PORT" ] || { fail "agent" "did not start: $(head -c 300 "$TMP/agent.log")"; exit 1; }

# 1. delayed clients from 127.0.0.3, each through its own proxy, then the flood at once. With
#    several, each runs its own test (issue 32), all of them well within --max-tests.
name="fair slots: $(echo $DELAYS | wc -w) client(s) with ${DELAYS// /, } s handshake delays complete under $FLOOD connections from another address"
i=0
for d in $DELAYS; do
	lport=$((20000 + RANDOM % 20000 + i))
	$PEER delay "$lport" 127.0.0.1 "$PORT" 127.0.0.3 "$d" >"$TMP/proxy$i.out" 2>&1 &
	PIDS+=("$!")
	for _ in $(seq 100); do [ -s "$TMP/proxy$i.out" ] && break; sleep 0.02; done
	timeout -k 5 60 "$NS" probe "127.0.0.1:$lport" -B 127.0.0.3 --psk-file "$TMP/psk" \
		-t 0.5 -b 10M -i 0 --json >"$TMP/slow$i.json" 2>"$TMP/slow$i.err" &
	PIDS+=("$!")
	eval "SLOW$i=\$!"
	i=$((i + 1))
done
sleep 0.1 # the handshakes have begun; the flood comes during them
$PEER silent 127.0.0.1 "$PORT" "$FLOOD" 3 127.0.0.2 >"$TMP/flood.out" &
FLOODER=$!
ok=0 tests=0 why=""
for k in $(seq 0 $((i - 1))); do
	eval "pid=\$SLOW$k"
	wait "$pid"
	# a --max-tests refusal comes only after the key and the request: the handshake was through
	if grep -q '"status": *"ok"' "$TMP/slow$k.json"; then
		ok=$((ok + 1)) tests=$((tests + 1))
	elif grep -q "agent refused: busy: this agent runs at most" "$TMP/slow$k.err"; then
		ok=$((ok + 1))
	else
		why="client $k: $(head -n 1 "$TMP/slow$k.err")"
	fi
done
wait "$FLOODER"
held=$(cat "$TMP/flood.out")
if [ "$ok" = "$i" ] && [ "$tests" = "$i" ] && [ "${held:-0}" -ge "$FLOOD" ]; then
	pass "$name ($held connected; $tests of $i ran a test)"
else
	fail "$name" "$ok of $i done, $held flood connections; $why"
fi

# 2. 1,024 idle authenticated sessions from one key holder, and a probe from elsewhere
name="fair slots: a probe is served while one key holder keeps 1,024 idle authenticated sessions"
$PEER idle 127.0.0.1 "$PORT" "$TMP/psk" 1024 2 127.0.0.2 >"$TMP/idle.out" &
IDLER=$!
for _ in $(seq 300); do [ -s "$TMP/idle.out" ] && break; sleep 0.05; done
proved=$(cat "$TMP/idle.out")
timeout -k 5 60 "$NS" probe 127.0.0.1:"$PORT" --psk-file "$TMP/psk" -t 0.5 -b 10M -i 0 --json \
	>"$TMP/real.json" 2>"$TMP/real.err"
rc=$?
if [ "$rc" = 0 ] && [ "${proved:-0}" = 1024 ]; then
	pass "$name ($proved proven)"
else
	fail "$name" "probe exit $rc: $(head -n 1 "$TMP/real.err"); $proved sessions proven"
fi
wait "$IDLER"
finish
