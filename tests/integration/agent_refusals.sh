#!/bin/bash
# Refusals with a reason (issue 43): a client the agent turns away is told why in an ERROR
# frame, not left with "peer closed" or "Broken pipe" — where that is safe: an address, a
# share, a wait; never anything of the key. In two namespaces (prefix i43r):
#  - a keyless agent reached from outside loopback (code 10: no key, loopback only);
#  - an address outside --allow (code 10: not in --allow);
#  - a client silent past the handshake's deadline (code 4: what the agent waited for);
#  - the 65th connection in its handshake from one address takes the oldest's slot, and that
#    one is told (code 9: too many from your address, --trust named); with --trust C/32:200 the
#    same 65 keep their slots (each is told the deadline instead);
#  - `netsweep probe` and `netsweep health` show the agent's words.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
netns_need_netsweep "agent refusals with a reason"

C=10.66.144.1 A=10.66.144.2
netns_pair i43r c a "$C" "$A" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
NS_A=$(_netns_resolve a) NS_C=$(_netns_resolve c)

# conns PORT N WAIT: opens N connections from c to A:PORT that send nothing, then after WAIT
# seconds prints what the first one received: "ERROR CODE TEXT", "closed" or "nothing"
conns() {
	ip netns exec "$NS_C" python3 - "$A" "$1" "$2" "$3" <<'PY'
import socket, struct, sys, time
host, port, n, wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
socks = []
for i in range(n):
    s = socket.create_connection((host, port), timeout=5)
    socks.append(s)
    time.sleep(0.002)
time.sleep(wait)
s = socks[0]
s.settimeout(0.5)
try:
    hdr = s.recv(8, socket.MSG_WAITALL)
except socket.timeout:
    print("nothing"); sys.exit(0)
if len(hdr) < 8:
    print("closed"); sys.exit(0)
ln, typ, _ = struct.unpack(">IHH", hdr)
body = s.recv(ln, socket.MSG_WAITALL)
if typ != 15:
    print("type %d" % typ); sys.exit(0)
code, tl = struct.unpack(">HH", body[:4])
print("ERROR %d %s" % (code, body[4:4 + tl].decode("utf-8", "replace")))
PY
}

# 1. keyless, reached from outside loopback
ip netns exec "$NS_A" "$NETNS_NETSWEEP" agent --listen "$A:7144" >"$NETNS_TMP/keyless.log" 2>&1 &
netns_wait_tcp a "$A" 7144 5 || { fail "keyless agent" "did not start"; exit 1; }
out=$(ip netns exec "$NS_C" env -u NETSWEEP_PSK_FILE "$NETNS_NETSWEEP" probe "$A" -p 7144 -t 0.2 2>&1)
if grep -q 'no key (--psk-file) and serves loopback clients only' <<<"$out" &&
	! grep -qi -e 'peer closed' -e 'broken pipe' <<<"$out"; then
	pass "a keyless agent tells an outside client why ($(grep -o 'refused.*' <<<"$out" | head -1 | cut -c1-90))"
else
	fail "a keyless agent tells an outside client why" "$out"
fi

# 2. not in --allow
netns_agent a "$A" 7145 --allow 10.99.0.0/16,127.0.0.0/8 || { fail "agent --allow" "did not start"; exit 1; }
out=$(ip netns exec "$NS_C" "$NETNS_NETSWEEP" health "$A:7145" 2>&1)
[ $? = 1 ] && grep -q "only the address blocks of its --allow, and $C is not in them" <<<"$out" &&
	pass "an address outside --allow is told so (netsweep health: exit 1)" ||
	fail "an address outside --allow is told so" "$out"

# 3. and 4. handshakes, on an agent with a key
netns_agent a "$A" 7146 || { fail "agent" "did not start"; exit 1; }
got=$(conns 7146 1 2.6)
[[ "$got" == "ERROR 4 the agent waited 2 s for HELLO from you" ]] &&
	pass "a silent client is told what the agent waited for ($got)" ||
	fail "a silent client is told what the agent waited for" "$got"
got=$(conns 7146 65 0.3)
[[ "$got" == "ERROR 9 too many connections in their handshake from your address (at most 64 at once"*"--trust"* ]] &&
	pass "the 65th handshake from one address: the oldest is told its share is used up" ||
	fail "the oldest handshake is told its share is used up" "$got"
if grep -q 'dropped: too many connections in their handshake from it' "$NETNS_TMP/agent-$NS_A-7146.log"; then
	pass "the agent's log says the same"
else
	fail "the agent's log says the same" "$(tail -n 3 "$NETNS_TMP/agent-$NS_A-7146.log")"
fi
netns_agent a "$A" 7147 --trust "$C/32:200" || { fail "agent --trust" "did not start"; exit 1; }
got=$(conns 7147 65 2.6)
[[ "$got" == "ERROR 4 "* ]] && pass "with --trust $C/32:200 the 65 keep their slots (the first ran to its deadline: $got)" ||
	fail "with --trust the 65 keep their slots" "$got"
out=$("$NETNS_NETSWEEP" agent --trust 10.0.0.0/8:0 2>&1)
[ $? = 2 ] && grep -q -- '--trust' <<<"$out" && pass "--trust with a share of 0 is refused ($(head -1 <<<"$out" | cut -c1-80))" ||
	fail "--trust with a share of 0 is refused" "$out"

# a wrong key: "authentication failed", nothing more
rm -f "$NETNS_TMP/wrong.key"
"$NETNS_NETSWEEP" key "$NETNS_TMP/wrong.key" >/dev/null
out=$(ip netns exec "$NS_C" "$NETNS_NETSWEEP" health "$A:7146" --psk-file "$NETNS_TMP/wrong.key" 2>&1)
grep -q 'authentication failed: the agent refused our key$' <<<"$out" &&
	pass "a wrong key is told 'authentication failed' and nothing about the key" ||
	fail "a wrong key's refusal" "$out"
finish
