#!/bin/bash
# The ethtool ioctl path (runner/host/ethstats.c, issue 11): `netsweep nicstats` on a veth
# reads the same counters `ip -s link` shows moving by a test's packets. veth counts packets
# in its own statistics only in its NAPI mode, which GRO on the receiving end turns on for
# packets not already segmented by the sender (TSO off); the ethtool binary sets that up here,
# netsweep itself never runs it.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECK="ETHTOOL_GSTATS on a veth moves as ip -s link does"
netns_need_netsweep "$CHECK"
if ! command -v ethtool >/dev/null 2>&1; then
	skip "$CHECK" "the ethtool binary is needed to put the veth in its NAPI mode"
	exit 0
fi

S=10.66.13.1 R=10.66.13.2 PORT=7113
netns_pair i11n ns nr "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
SDEV=$(netns_dev ns) RDEV=$(netns_dev nr)
NS_S=$(_netns_resolve ns) NS_R=$(_netns_resolve nr)
if ! ip netns exec "$NS_S" ethtool -K "$SDEV" tso off >/dev/null 2>&1 ||
	! ip netns exec "$NS_R" ethtool -K "$RDEV" gro on >/dev/null 2>&1; then
	skip "$CHECK" "ethtool -K could not switch GRO/TSO on this veth"
	exit 0
fi
if ! netns_agent nr "$R" "$PORT"; then
	fail "$CHECK" "the agent did not start"
	exit 1
fi

# stat NAME: a counter from netsweep nicstats; link COLUMN: RX packets/bytes from ip -s link.
stat() { ip netns exec "$NS_R" "$NETNS_NETSWEEP" nicstats "$RDEV" | awk -v n="$1" '$1 == n { print $2 }'; }
link() { ip -n "$NS_R" -s link show "$RDEV" | awk -v c="$1" 'f { print $c; exit } /RX:/ { f = 1 }'; }

p0=$(stat rx_queue_0_xdp_packets) b0=$(stat rx_queue_0_xdp_bytes) lp0=$(link 2) lb0=$(link 1)
OUT=$NETNS_TMP/probe.json
if ! netns_probe ns "$OUT" "$R:$PORT" --udp -b 10M -l 1000 -t 1; then
	fail "$CHECK" "probe failed: $(netns_probe_why "$OUT")"
	exit 1
fi
p1=$(stat rx_queue_0_xdp_packets) b1=$(stat rx_queue_0_xdp_bytes) lp1=$(link 2) lb1=$(link 1)
dp=$((p1 - p0)) db=$((b1 - b0)) dlp=$((lp1 - lp0)) dlb=$((lb1 - lb0))
rcv=$(netns_json "$OUT" '$.sum.receiver.packets')
msg="GSTATS +$dp packets +$db bytes, ip -s link +$dlp packets +$dlb bytes, the test's datagrams $rcv"
# the test's datagrams plus its control connection's few packets
if [ "$dp" = "$dlp" ] && [ "$db" = "$dlb" ] && [ "$dp" -ge "${rcv:-0}" ] && [ "${rcv:-0}" -gt 100 ]; then
	pass "$CHECK: $msg"
else
	fail "$CHECK" "$msg"
fi

finish
