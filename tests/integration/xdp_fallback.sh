#!/bin/bash
# The AF_XDP engine's honest fallbacks, over a veth pair in namespaces. An end without the
# capability is made by dropping every capability of that end's process (setpriv: root
# without CAP_NET_RAW, CAP_BPF, CAP_NET_ADMIN cannot open AF_XDP sockets nor load XDP):
#   - --engine xdp against such an agent, and from such a client, fails before the test with
#     the reason; nothing was measured;
#   - --engine xdp,socket: that end runs the socket engine, the result's engine_mode says so
#     per end ("socket (xdp unavailable)"), the client's own reason is in the warnings, and
#     every datagram is counted;
#   - a matrix with engine values xdp and xdp,socket against such an agent: the first case is
#     stored failed with the reason, the second ok with the socket engine recorded;
#   - over a VXLAN tunnel between the namespaces, and over loopback, devices AF_XDP cannot
#     use: xdp refused with the reason, xdp,socket runs the socket engine at both ends.
# (No bond: this kernel has no bonding driver; a bond is refused by the same device check.)
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECKS=("xdp fallback: refused with the reason at the agent" "xdp fallback: refused with the reason at the client"
	"xdp fallback: xdp,socket at the agent" "xdp fallback: xdp,socket at the client"
	"xdp fallback: matrix engine xdp,socket" "xdp fallback: a tunnel device"
	"xdp fallback: a device AF_XDP cannot use")
netns_need_netsweep "${CHECKS[@]}"
why=$("$NETSWEEP" probe 127.0.0.1 -u --engine xdp -t 0.1 --connect-timeout 0.1 2>&1)
case $why in *"built without the AF_XDP engine"*)
	for c in "${CHECKS[@]}"; do skip "$c" "$why"; done; exit 0;; esac
NOCAP="setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all"
if ! $NOCAP true 2>/dev/null; then
	for c in "${CHECKS[@]}"; do skip "$c" "setpriv cannot drop capabilities here"; done; exit 0
fi
export NETSWEEP_IMDS=0

S=10.66.19.1 R=10.66.19.2 PORT=5301 NOCAP_PORT=5302
netns_pair xf s r "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
netns_agent xf-r "$R" "$PORT" || { fail "namespace setup" "agent did not start"; exit 1; }
NICE=$NETNS_NICE_CMD
NETNS_NICE_CMD="$NICE $NOCAP"
netns_agent xf-r "$R" "$NOCAP_PORT" || { fail "namespace setup" "agent without capabilities did not start"; exit 1; }
NETNS_NICE_CMD=$NICE
OUT=$NETNS_TMP/out.json
j() { netns_json "$OUT" "$1"; }
# probe_as ROOT|NOCAP PORT ENGINE: 1 s of 64-byte UDP at 50 Mbit/s (a socket receiver keeps up)
probe_as() {
	local save=$NETNS_NICE_CMD rc
	[ "$1" = NOCAP ] && NETNS_NICE_CMD="$NICE $NOCAP"
	netns_probe xf-s "$OUT" "$R:$2" -u -l 64 -b 50M -t 1 -i 0 --engine "$3"
	rc=$?
	NETNS_NICE_CMD=$save
	return $rc
}

# refused_check NAME: the last probe failed, with the reason, and measured nothing
refused_check() {
	local rc=$? err
	err=$(netns_probe_why "$OUT")
	if [ "$rc" = 1 ] && [[ $err == *"xdp: "*"needs root"* ]] && [ "$(j '$.sum.receiver.packets')" = 0 ]; then
		pass "$1: $err"
	else
		fail "$1" "exit $rc, error '$err', received $(j '$.sum.receiver.packets')"
	fi
}
probe_as ROOT "$NOCAP_PORT" xdp
refused_check "xdp fallback: refused with the reason at the agent"
probe_as NOCAP "$PORT" xdp
refused_check "xdp fallback: refused with the reason at the client"

# fallback_check NAME WANT_MODE WARNINGS_GLOB: the last probe ran, every datagram counted. A
# sender a busy machine held short is flagged (sum.limit.sender_limited) and says so in a
# warning of its own: that one is left out of the glob's match, never one without the flag.
fallback_check() {
	local sent rcvd mode warn
	sent=$(j '$.sum.sender.packets') rcvd=$(j '$.sum.receiver.packets')
	mode=$(j '$.engine_mode') warn=$(j '$.warnings')
	[ "$(j '$.sum.limit.sender_limited')" = 1 ] &&
		warn=$(jq -c '[.warnings[] | select(test("the sender offered") | not)]' "$OUT" 2>/dev/null)
	if [ -n "$sent" ] && [ "$sent" -gt 10000 ] && [ "$sent" = "$rcvd" ] && [ "$mode" = "$2" ] &&
		[[ $warn == $3 ]]; then
		pass "$1: $rcvd of $sent datagrams ($mode)"
	else
		fail "$1" "sent $sent received $rcvd, mode '$mode', warnings $warn"
	fi
}
name="xdp fallback: xdp,socket at the agent"
if probe_as ROOT "$NOCAP_PORT" xdp,socket; then
	fallback_check "$name" "sender xdp tx copy, receiver socket (xdp unavailable)" '\[\]'
else
	fail "$name" "probe failed: $(netns_probe_why "$OUT")"
fi
name="xdp fallback: xdp,socket at the client"
if probe_as NOCAP "$PORT" xdp,socket; then
	fallback_check "$name" "sender socket (xdp unavailable), receiver xdp rx count-only native" \
		'*this end runs the socket engine: xdp: *needs root*'
else
	fail "$name" "probe failed: $(netns_probe_why "$OUT")"
fi

name="xdp fallback: matrix engine xdp,socket"
M=$NETNS_TMP/m.xml DB=$NETNS_TMP/m.db
cat >"$M" <<X
<matrix name="xdp-fallback" case-timeout="20s">
  <pairs><pair name="nocap" agent="$R:$NOCAP_PORT"/></pairs>
  <axes>
    <axis name="protocol"><value>udp</value></axis>
    <axis name="length"><value>64</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="duration"><value>1</value></axis>
    <axis name="engine"><value>xdp</value><value>xdp,socket</value></axis>
  </axes>
</matrix>
X
timeout -k 5 120 ip netns exec xf-s $NETNS_NICE_CMD "$NETNS_NETSWEEP" run "$M" --db "$DB" \
	>"$NETNS_TMP/run.log" 2>&1
rc=$?
q() { sqlite3 "$DB" "select $1 from results r join cases c on c.id = r.case_id
	where json_extract(c.params, '\$.engine') = '$2'" 2>&1; }
refused=$(q "r.status || ': ' || r.error" xdp)
fellback=$(q "r.status || ': ' || json_extract(r.probe_json, '\$.engine_mode')" xdp,socket)
if [ "$rc" = 1 ] && [[ $refused == "failed: "*"xdp: "*"needs root"* ]] &&
	[ "$fellback" = "ok: sender xdp tx copy, receiver socket (xdp unavailable)" ]; then
	pass "$name: xdp '$refused'; xdp,socket '$fellback'"
else
	fail "$name" "exit $rc; xdp '$refused'; xdp,socket '$fellback'; $(tail -n 2 "$NETNS_TMP/run.log" | tr '\n' ' ')"
fi
# device_check NAME NS ADDR PORT WANT_ERR: xdp refused with WANT_ERR in the reason, xdp,socket
# with the socket engine at both ends
device_check() {
	local rc rc2 err mode lost
	netns_probe "$2" "$OUT" "$3:$4" -u -l 64 -b 20M -t 0.5 -i 0 --engine xdp
	rc=$? err=$(netns_probe_why "$OUT")
	netns_probe "$2" "$OUT" "$3:$4" -u -l 64 -b 20M -t 0.5 -i 0 --engine xdp,socket
	rc2=$? mode=$(j '$.engine_mode') lost=$(j '$.sum.receiver.lost')
	if [ "$rc" = 1 ] && [[ $err == *"$5"* ]] && [ "$rc2" = 0 ] &&
		[ "$mode" = "sender socket (xdp unavailable), receiver socket (xdp unavailable)" ]; then
		pass "$1: xdp '$err'; xdp,socket '$mode', $lost lost"
	else
		fail "$1" "xdp: exit $rc '$err'; xdp,socket: exit $rc2 '$mode' $(netns_probe_why "$OUT")"
	fi
}

name="xdp fallback: a tunnel device"
VS=10.66.20.1 VR=10.66.20.2
if ! netns_exec xf-s ip link add vx15 type vxlan id 15 remote "$R" dstport 4789 dev "$(netns_dev xf-s)" 2>/dev/null; then
	skip "$name" "no VXLAN in this kernel"
elif ! netns_exec xf-r ip link add vx15 type vxlan id 15 remote "$S" dstport 4789 dev "$(netns_dev xf-r)" ||
	! netns_exec xf-s ip addr add "$VS/24" dev vx15 || ! netns_exec xf-r ip addr add "$VR/24" dev vx15 ||
	! netns_exec xf-s ip link set vx15 up || ! netns_exec xf-r ip link set vx15 up; then
	fail "$name" "VXLAN setup failed"
elif ! netns_agent xf-r "$VR" "$PORT"; then
	fail "$name" "agent on the tunnel's address did not start"
else
	device_check "$name" xf-s "$VR" "$PORT" "xdp: vx15 is a vxlan device"
fi

name="xdp fallback: a device AF_XDP cannot use"
if ! netns_agent xf-r 127.0.0.1 "$PORT"; then
	fail "$name" "agent on the namespace's loopback did not start"
else
	device_check "$name" xf-r 127.0.0.1 "$PORT" \
		"xdp: 127.0.0.1 is not reached through the main routing table"
fi
finish
