#!/bin/bash
# Delegation by consent, in three namespaces (prefix d9): the runner in d9-r, a client agent in
# d9-c started with --delegate, a target in d9-s. Byte counters of c's veth towards s say what c
# sent there. A target with no agent, or one that never answers, gets nothing beyond the
# connect and the 16-byte HELLO, and both fail with one and the same message; a delegated
# result (binary messages) carries every key a direct probe's does; a delegated test stops
# within a second of its requester being killed, or of SIGTERM to the client agent.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("delegate: a target with no agent gets no data, one message for closed and silent"
	"delegate: killing the requester stops the traffic within 1 s"
	"delegate: SIGTERM to the client agent stops the traffic within 1 s"
	"delegate: probe --from --json has every key of a direct probe --json")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0
CS_C=10.89.1.1 CS_S=10.89.1.2 RC_R=10.89.2.1 RC_C=10.89.2.2 PORT=5301
netns_pair d9 c s "$CS_C" "$CS_S" >/dev/null && netns_pair d9 r c "$RC_R" "$RC_C" >/dev/null ||
	{ fail "namespace setup" "netns_pair failed"; exit 1; }
DEV=$(netns_dev c s)
tx() { ip netns exec d9-c cat "/sys/class/net/$DEV/statistics/tx_bytes"; }
netns_agent s "$CS_S" "$PORT" || { fail "agent s" "did not start"; exit 1; }
start_c() {
	netns_agent c 0.0.0.0 "$PORT" --delegate || { fail "agent c" "did not start"; exit 1; }
	C_PID=$NETNS_AGENT_PID
}
start_c
from() { # OUT TARGET ARGS...: a delegated probe from r through c
	local out=$1 target=$2
	shift 2
	timeout -k 5 60 ip netns exec d9-r "$NETSWEEP" probe "$target" --from "$RC_C:$PORT" --json "$@" \
		>"$out" 2>"$out.err"
}

# 1. nothing on 5399; on 5398 a listener that accepts and never answers
ip netns exec d9-s perl -MIO::Socket::INET -e '
	my $l = IO::Socket::INET->new(LocalPort => 5398, Listen => 8, ReuseAddr => 1) or die;
	my @keep; while (my $c = $l->accept) { push @keep, $c; }' &
netns_wait_tcp s 0.0.0.0 5398 5
before=$(tx)
from "$NETNS_TMP/closed.json" "$CS_S:5399" -t 2 --connect-timeout 1
from "$NETNS_TMP/silent.json" "$CS_S:5398" -t 2 --connect-timeout 1
sent=$(( $(tx) - before ))
e1=$(netns_json "$NETNS_TMP/closed.json" '$.error')
e2=$(netns_json "$NETNS_TMP/silent.json" '$.error')
# SYNs, ACKs, a HELLO and FINs fit in 2 KiB; a test would send megabytes
if [[ "$e1" == *"no test with the target agent"* ]] && [ "${e1/5399/5398}" = "$e2" ] &&
	[ "$sent" -lt 2048 ]; then
	pass "${CHECKS[0]}: $sent bytes towards s; '$e1'"
else
	fail "${CHECKS[0]}" "$sent bytes; closed: '$e1'; silent: '$e2'"
fi

# 4. the same test direct from c and delegated through c: the same keys (array places, the
# run-dependent warnings and shaping figures left out), per-stream intervals and figures too
keys() {
	sqlite3 :memory: "select fullkey from json_tree(readfile('$1'))" |
		perl -ne 's/\[\d+\]/[]/g; s/"//g; print unless /^\$\.warnings\[\]|\.shaping\./' | sort -u
}
args=(-u -b 20M --bidir -P 2 -t 1 -i 0.25)
timeout -k 5 60 ip netns exec d9-c "$NETSWEEP" probe "$CS_S:$PORT" --json "${args[@]}" \
	>"$NETNS_TMP/direct.json" 2>"$NETNS_TMP/direct.err"
from "$NETNS_TMP/deleg.json" "$CS_S:$PORT" "${args[@]}"
kd=$(keys "$NETNS_TMP/direct.json")
kg=$(keys "$NETNS_TMP/deleg.json")
n_ps=$(sqlite3 :memory: "select count(*) from json_each(readfile('$NETNS_TMP/deleg.json'), '\$.intervals')
	where json_extract(value, '\$.stream') >= 0")
n_sd=$(sqlite3 :memory: "select json_array_length(readfile('$NETNS_TMP/deleg.json'), '\$.streams_detail')")
st=$(netns_json "$NETNS_TMP/deleg.json" '$.status')
if [ "$st" = ok ] && [ -n "$kd" ] && [ "$kd" = "$kg" ] && [ "${n_ps:-0}" -ge 8 ] && [ "$n_sd" = 4 ]; then
	pass "${CHECKS[3]}: $(echo "$kg" | wc -l) key paths, $n_ps per-stream intervals, $n_sd streams"
else
	fail "${CHECKS[3]}" "status '$st' ($(cat "$NETNS_TMP/deleg.json.err")), $n_ps per-stream intervals, $n_sd streams; keys: $(diff <(echo "$kd") <(echo "$kg") | head -n 6 | tr '\n' ' ')"
fi

# Waits until c sends test traffic; then the bytes c sends between 1 and 2 s after $1 happened.
flowing() {
	local a b i
	for i in $(seq 50); do
		a=$(tx); sleep 0.1; b=$(tx)
		[ $((b - a)) -gt 100000 ] && return 0
	done
	return 1
}
after_stop() { # prints bytes sent in [1 s, 2 s] after now
	local a b
	sleep 1
	a=$(tx)
	sleep 1
	b=$(tx)
	echo $((b - a))
}

# 2. the requester killed mid-test
from "$NETNS_TMP/long.json" "$CS_S:$PORT" -t 30 -b 200M &
REQ=$!
if flowing; then
	pkill -KILL -P "$REQ" 2>/dev/null; kill -KILL "$REQ" 2>/dev/null
	ip netns exec d9-r pkill -KILL -f "probe $CS_S:$PORT --from" 2>/dev/null
	late=$(after_stop)
	if [ "$late" -lt 65536 ]; then
		pass "${CHECKS[1]}: $late bytes from 1 to 2 s after the kill"
	else
		fail "${CHECKS[1]}" "$late bytes from 1 to 2 s after the kill"
	fi
else
	fail "${CHECKS[1]}" "the delegated test never sent: $(cat "$NETNS_TMP/long.json.err")"
fi
wait "$REQ" 2>/dev/null

# 3. SIGTERM to the client agent mid-test
sleep 0.5
from "$NETNS_TMP/term.json" "$CS_S:$PORT" -t 30 -b 200M &
REQ=$!
if flowing; then
	kill -TERM "$C_PID"
	late=$(after_stop)
	if [ "$late" -lt 65536 ] && ! kill -0 "$C_PID" 2>/dev/null; then
		pass "${CHECKS[2]}: $late bytes from 1 to 2 s after SIGTERM, agent gone"
	else
		fail "${CHECKS[2]}" "$late bytes from 1 to 2 s after SIGTERM; agent alive: $(kill -0 "$C_PID" 2>/dev/null && echo yes || echo no)"
	fi
else
	fail "${CHECKS[2]}" "the delegated test never sent: $(cat "$NETNS_TMP/term.json.err")"
fi
wait "$REQ" 2>/dev/null
finish
