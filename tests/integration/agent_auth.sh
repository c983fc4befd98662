#!/bin/bash
# The agent's pre-shared key, in two namespaces (prefix k9): an agent in k9-a with a key, probes
# from k9-c. Without the key or with a wrong one a probe gets "authentication failed" and the
# agent runs no test and sends no host information; with it the probe works; a handshake
# recorded from a real probe and replayed is refused; an old protocol version gets a clear
# error; a keyless agent serves loopback clients only; refused connections are logged a few
# lines a second at most; `netsweep key` writes a private key and key files others can read,
# or that another user owns, are refused.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("key: netsweep key writes mode 0600 and never replaces a file"
	"key: a key file others can read is refused with the fix"
	"auth: no key: authentication failed, no test"
	"auth: wrong key: authentication failed, address logged"
	"auth: skipping the handshake gets no host information"
	"auth: the right key: the probe works"
	"auth: a recorded handshake replayed is refused"
	"auth: an old protocol version gets a clear error"
	"auth: a keyless agent serves loopback clients only"
	"auth: refused connections are logged a few lines a second"
	"key: a 0600 key file another user owns is refused, by a root agent too")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0
PEER="perl $HERE/../lib/ctl_peer.pl"
A=10.79.1.1 C=10.79.1.2 PORT=5301
netns_pair k9 a c "$A" "$C" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
netns_agent a "$A" "$PORT" || { fail "agent" "did not start"; exit 1; }
LOG=$NETNS_TMP/agent-k9-a-$PORT.log
N=$NETNS_NETSWEEP

# 1. netsweep key
K=$NETNS_TMP/new.key
"$N" key "$K"
rc1=$?
mode=$(stat -c %a "$K" 2>/dev/null)
sum=$(md5sum <"$K")
"$N" key "$K" 2>"$NETNS_TMP/key2.err"
rc2=$?
if [ "$rc1" = 0 ] && [ "$mode" = 600 ] && [ "$rc2" != 0 ] && [ "$(md5sum <"$K")" = "$sum" ] &&
	[ "$(wc -c <"$K")" = 65 ]; then
	pass "${CHECKS[0]}: $(head -c 80 "$NETNS_TMP/key2.err")"
else
	fail "${CHECKS[0]}" "exit $rc1, mode $mode, second exit $rc2"
fi

# 2. a key others may read: agent and probe refuse it, saying how to fix it
cp "$K" "$NETNS_TMP/open.key" && chmod 644 "$NETNS_TMP/open.key"
out_a=$(timeout 5 "$N" agent --listen 127.0.0.1:0 --psk-file "$NETNS_TMP/open.key" 2>&1)
rc_a=$?
out_p=$(timeout 5 "$N" probe 127.0.0.1 --psk-file "$NETNS_TMP/open.key" 2>&1)
rc_p=$?
if [ "$rc_a" = 2 ] && [ "$rc_p" = 2 ] && [[ "$out_a" == *"chmod 600"* ]] && [[ "$out_p" == *"chmod 600"* ]]; then
	pass "${CHECKS[1]}: $out_a"
else
	fail "${CHECKS[1]}" "agent exit $rc_a '$out_a'; probe exit $rc_p '$out_p'"
fi

# 2b. a private key that nobody (uid 65534) owns: the root agent refuses it, as sshd would
cp "$K" "$NETNS_TMP/nobody.key" && chmod 600 "$NETNS_TMP/nobody.key" &&
	chown 65534 "$NETNS_TMP/nobody.key"
out_a=$(timeout 5 "$N" agent --listen 127.0.0.1:0 --psk-file "$NETNS_TMP/nobody.key" 2>&1)
rc_a=$?
if [ "$rc_a" = 2 ] && [[ "$out_a" == *"owned by uid 65534, not by this user (uid 0) or root"* ]]; then
	pass "${CHECKS[10]}: $out_a"
else
	fail "${CHECKS[10]}" "agent exit $rc_a '$out_a'"
fi

probe_c() { # OUT ARGS...: a probe from c
	local out=$1
	shift
	timeout -k 5 60 ip netns exec k9-c "$N" probe "$A:$PORT" -t 0.5 --connect-timeout 3 "$@" --json \
		>"$out" 2>"$out.err"
}
tests_run() { grep -c "test, .* stream" "$LOG"; }

# 3. no key
before=$(tests_run)
NETSWEEP_PSK_FILE= probe_c "$NETNS_TMP/nokey.json"
rc=$?
why=$(netns_probe_why "$NETNS_TMP/nokey.json")
if [ "$rc" = 1 ] && [[ "$why" == "authentication failed"* ]] && [ "$(tests_run)" = "$before" ]; then
	pass "${CHECKS[2]}: $why"
else
	fail "${CHECKS[2]}" "exit $rc: $why; tests run $before -> $(tests_run)"
fi

# 4. a wrong key
"$N" key "$NETNS_TMP/wrong.key"
probe_c "$NETNS_TMP/wrong.json" --psk-file "$NETNS_TMP/wrong.key"
rc=$?
why=$(netns_probe_why "$NETNS_TMP/wrong.json")
sleep 0.2
if [ "$rc" = 1 ] && [[ "$why" == "authentication failed"* ]] && [ "$(tests_run)" = "$before" ] &&
	grep -q "$C: refused: authentication failed" "$LOG"; then
	pass "${CHECKS[3]}: $why"
else
	fail "${CHECKS[3]}" "exit $rc: $why; log: $(tail -n 2 "$LOG")"
fi

# 5. HELLO, then straight to a HOSTINFO_REQUEST
got=$(ip netns exec k9-c $PEER skipauth "$A" "$PORT" 2>&1)
if [ "$got" = "HELLO AUTH_CHALLENGE ERROR:6 EOF" ]; then
	pass "${CHECKS[4]}: $got"
else
	fail "${CHECKS[4]}" "answers: $got"
fi

# 6. the right key
probe_c "$NETNS_TMP/ok.json"
rc=$?
if [ "$rc" = 0 ] && [ "$(netns_json "$NETNS_TMP/ok.json" '$.status')" = ok ]; then
	pass "${CHECKS[5]}: $(netns_json "$NETNS_TMP/ok.json" '$.sum.receiver.bits_per_second') bit/s"
else
	fail "${CHECKS[5]}" "exit $rc: $(netns_probe_why "$NETNS_TMP/ok.json")"
fi

# 7. a real probe's handshake, recorded through a relay in c, replayed
REC=$NETNS_TMP/handshake.bin
ip netns exec k9-c $PEER relay 7951 "$A" "$PORT" "$REC" &
RELAY=$!
netns_wait_tcp c 0.0.0.0 7951 5
timeout 20 ip netns exec k9-c "$N" probe 127.0.0.1:7951 -t 0.5 --connect-timeout 1 >/dev/null 2>&1
wait "$RELAY" 2>/dev/null
got=$(ip netns exec k9-c $PEER replay "$A" "$PORT" "$REC" 2>&1)
if [ -s "$REC" ] && [ "$got" = "HELLO AUTH_CHALLENGE ERROR:6 EOF" ]; then
	pass "${CHECKS[6]}: $(wc -c <"$REC") bytes replayed: $got"
else
	fail "${CHECKS[6]}" "$(wc -c <"$REC" 2>/dev/null) bytes recorded; answers: $got"
fi

# 8. protocol version 5, the one before the key
got=$(ip netns exec k9-c $PEER hello "$A" "$PORT" 5 2>&1)
if [ "$got" = "ERROR:1 EOF" ] && grep -q "client speaks control protocol version 5, this agent [0-9]" "$LOG"; then
	pass "${CHECKS[7]}: $(grep -o 'client speaks control protocol version 5[^:]*' "$LOG" | head -n 1)"
else
	fail "${CHECKS[7]}" "answers: $got"
fi

# 9. no key: loopback only
ip netns exec k9-a "$N" agent --listen "0.0.0.0:5302" >"$NETNS_TMP/keyless.log" 2>&1 &
netns_wait_tcp a 0.0.0.0 5302 5
NETSWEEP_PSK_FILE= timeout 20 ip netns exec k9-c "$N" probe "$A:5302" -t 0.3 --connect-timeout 2 >/dev/null 2>&1
rc_remote=$?
NETSWEEP_PSK_FILE= timeout 20 ip netns exec k9-a "$N" probe "127.0.0.1:5302" -t 0.3 >/dev/null 2>&1
rc_local=$?
if [ "$rc_remote" = 1 ] && [ "$rc_local" = 0 ] &&
	grep -q "serving loopback clients only" "$NETNS_TMP/keyless.log" &&
	grep -q "$C: refused: without --psk-file only loopback" "$NETNS_TMP/keyless.log"; then
	pass "${CHECKS[8]}: $(grep -m1 loopback "$NETNS_TMP/keyless.log")"
else
	fail "${CHECKS[8]}" "remote exit $rc_remote, loopback exit $rc_local: $(tr '\n' '|' <"$NETNS_TMP/keyless.log")"
fi

# 10. a flood of bad connections: the log grows by a few lines a second
lines0=$(wc -l <"$LOG")
t0=$(date +%s%N)
n=$(ip netns exec k9-c $PEER garbage "$A" "$PORT" 400 2>&1)
sleep 1.2 # the summary line of the last second comes with the next refusal, or not at all
secs=$(( ($(date +%s%N) - t0) / 1000000000 + 1 ))
grown=$(( $(wc -l <"$LOG") - lines0 ))
limit=$(( 6 * secs + 2 ))
if [ "$n" = 400 ] && [ "$grown" -le "$limit" ] && kill -0 "$NETNS_AGENT_PID" 2>/dev/null; then
	pass "${CHECKS[9]}: 400 bad connections in ~$secs s, $grown log lines (at most $limit)"
else
	fail "${CHECKS[9]}" "$n connections, $grown lines in ~$secs s (limit $limit)"
fi
finish
