#!/bin/bash
# A test's own NIC counters (runner/host/niccount.c): each end reads the interface towards
# the other before and after the test — its own statistics (rtnetlink IFLA_STATS64) for
# packets, bytes and drops, the driver's ethtool set for what only it knows — and the result's
# deltas must be what `ip -s link` (the iproute2 binary, another reader) shows moving over the
# test, within the control connection's few packets, and at least the test's datagrams. veth's
# ethtool statistics count only XDP packets: read from there alone, they said 0.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECKS=("a forward test's receiving agent: NIC rx packets as ip -s link shows them"
	"a reverse test's receiving client: NIC rx packets as ip -s link shows them"
	"a forward test's sending client: NIC tx packets and bytes cover the datagrams sent"
	"veth: no allowance counters, drops as ip -s link shows them, not shaped by the provider"
	"probe's text output names each end's interface and its counters"
	"a run stores each end's interface counters per result, and the provider's flag"
	"a run stores each end's interface bytes: at least the bytes of the datagrams sent")
netns_need_netsweep "${CHECKS[@]}"

S=10.66.14.1 R=10.66.14.2 PORT=7114
SLACK=40 # control connection, ARP and setup packets outside the ends' reading window
netns_pair i11c ns nr "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
SDEV=$(netns_dev ns) RDEV=$(netns_dev nr)
NS_S=$(_netns_resolve ns) NS_R=$(_netns_resolve nr)
if ! netns_agent nr "$R" "$PORT"; then
	fail "${CHECKS[0]}" "the agent did not start"
	exit 1
fi

# link NS DEV FIELD [TX]: from ip -s link's RX (or TX) line: 1 bytes, 2 packets, 4 dropped
link() { ip -n "$1" -s link show "$2" | awk -v c="$3" -v l="${4:-RX}:" 'f { print $c; exit } $1 == l { f = 1 }'; }

# run_case CHECK NS DEV KEY ARGS...: the JSON key's delta against ip -s link's RX packets of
# DEV in NS over the probe, and the test's datagrams (the receiver sum) below both.
run_case() {
	local check=$1 ns=$2 dev=$3 key=$4 out=$NETNS_TMP/$4.json
	shift 4
	local p0 d0 p1 d1
	p0=$(link "$ns" "$dev" 2) d0=$(link "$ns" "$dev" 4)
	if ! netns_probe ns "$out" "$R:$PORT" "$@"; then
		fail "$check" "probe failed: $(netns_probe_why "$out")"
		return
	fi
	p1=$(link "$ns" "$dev" 2) d1=$(link "$ns" "$dev" 4)
	local ip_rx=$((p1 - p0)) nic_rx rcv ifname
	nic_rx=$(netns_json "$out" "\$.${key}_nic_rx_packets")
	ifname=$(netns_json "$out" "\$.${key}_nic")
	rcv=$(netns_json "$out" '$.sum.receiver.packets')
	local msg="$key NIC $ifname rx +$nic_rx, ip -s link $dev RX +$ip_rx, the test's datagrams $rcv"
	if [ "$ifname" = "$dev" ] && [ "${rcv:-0}" -gt 1000 ] && [ "$nic_rx" -ge "$rcv" ] &&
		[ "$nic_rx" -le "$ip_rx" ] && [ $((ip_rx - nic_rx)) -le "$SLACK" ]; then
		pass "$check: $msg"
	else
		fail "$check" "$msg"
	fi
	LAST_OUT=$out LAST_DROPS=$((d1 - d0))
}

run_case "${CHECKS[0]}" "$NS_R" "$RDEV" agent --udp -b 20M -l 1000 -t 1
run_case "${CHECKS[1]}" "$NS_S" "$SDEV" client --udp -b 20M -l 1000 -t 1 -R
SAVED_OUT=$LAST_OUT SAVED_DROPS=$LAST_DROPS

# the sending end: its tx packets cover the datagrams it sent, its tx bytes their frames
# (payload + 42), and both are what ip -s link's TX line shows, within the slack
out=$NETNS_TMP/tx.json
t0=$(link "$NS_S" "$SDEV" 2 TX) b0=$(link "$NS_S" "$SDEV" 1 TX)
if netns_probe ns "$out" "$R:$PORT" --udp -b 20M -l 1000 -t 1; then
	t1=$(link "$NS_S" "$SDEV" 2 TX) b1=$(link "$NS_S" "$SDEV" 1 TX)
	sent=$(netns_json "$out" '$.sum.sender.packets')
	tx=$(netns_json "$out" '$.client_nic_tx_packets') txb=$(netns_json "$out" '$.client_nic_tx_bytes')
	ip_tx=$((t1 - t0)) ip_txb=$((b1 - b0))
	msg="client NIC tx +$tx packets +$txb bytes, ip -s link TX +$ip_tx +$ip_txb, datagrams sent $sent"
	if [ "${sent:-0}" -gt 1000 ] && [ "$tx" -ge "$sent" ] && [ "$tx" -le "$ip_tx" ] &&
		[ $((ip_tx - tx)) -le "$SLACK" ] && [ "$txb" -ge $((sent * 1042)) ] && [ "$txb" -le "$ip_txb" ]; then
		pass "${CHECKS[2]}: $msg"
	else
		fail "${CHECKS[2]}" "$msg"
	fi
else
	fail "${CHECKS[2]}" "probe failed: $(netns_probe_why "$out")"
fi
LAST_OUT=$SAVED_OUT LAST_DROPS=$SAVED_DROPS

# the last result: veth has no allowance counter, nothing shaped it, and its drop counters
# moved as ip -s link's RX dropped did
if [ -n "${LAST_OUT:-}" ]; then
	ac=$(netns_json "$LAST_OUT" '$.client_allowance_counters')
	shaped=$(netns_json "$LAST_OUT" '$.shaped_by_provider')
	drops=$(netns_json "$LAST_OUT" '$.client_nic_drops')
	msg="allowance counters $ac, shaped_by_provider $shaped, NIC drops $drops, ip -s link RX dropped +$LAST_DROPS"
	if [ "$ac" = 0 ] && [ "$shaped" = 0 ] && [ "$drops" = "$LAST_DROPS" ]; then
		pass "${CHECKS[3]}: $msg"
	else
		fail "${CHECKS[3]}" "$msg"
	fi
else
	fail "${CHECKS[3]}" "no result to read"
fi

# the text output: a NIC line per end, and no provider line
txt=$(timeout -k 5 60 ip netns exec "$NS_S" "$NETNS_NETSWEEP" probe "$R:$PORT" --udp -b 5M -l 1000 -t 1 2>&1)
if grep -Eq "^NIC client $SDEV: rx [0-9]+ tx [0-9]{3,} packets, rx [0-9]+ tx [0-9]{6,} bytes, drops 0\$" <<<"$txt" &&
	grep -Eq "^NIC agent $RDEV: rx [0-9]{3,} tx [0-9]+ packets, rx [0-9]{6,} tx [0-9]+ bytes, drops 0\$" <<<"$txt" &&
	! grep -q "shaped by the provider" <<<"$txt"; then
	pass "${CHECKS[4]}: $(grep '^NIC agent' <<<"$txt")"
else
	fail "${CHECKS[4]}" "$(grep -E '^NIC|shaped|netsweep' <<<"$txt" | head -4)"
fi

# netsweep run: both ends' counters land in result_nics per result; the agent's rx packets
# cover the datagrams it received (1), the client's, which only received acknowledgements and
# control, do not (0)
cat >"$NETNS_TMP/m.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="nic" repeats="2" order="as-written" cooldown="0s" case-timeout="30s">
  <pairs><pair name="veth" instance-type="test.veth" agent="$R:$PORT"/></pairs>
  <axes>
    <axis name="protocol"><value>udp</value></axis>
    <axis name="rate"><value>5M</value></axis>
    <axis name="length"><value>1000</value></axis>
    <axis name="duration"><value>1s</value></axis>
  </axes>
</matrix>
XML
DB=$NETNS_TMP/nic.db
if timeout -k 5 120 ip netns exec "$NS_S" "$NETNS_NETSWEEP" run "$NETNS_TMP/m.xml" --db "$DB" \
	>"$NETNS_TMP/run.log" 2>&1; then
	rows=$(sqlite3 "$DB" "select group_concat(n.side || ':' || n.ifname || ':' ||
		(n.rx_packets >= r.fwd_rcv_packets), ' ') from result_nics n join results r
		on r.id = n.result_id")
	flags=$(sqlite3 "$DB" "select group_concat(shaped_by_provider) from results")
	want="agent:$RDEV:1 client:$SDEV:0 agent:$RDEV:1 client:$SDEV:0"
	got=$(tr ' ' '\n' <<<"$rows" | sort | tr '\n' ' ')
	exp=$(tr ' ' '\n' <<<"$want" | sort | tr '\n' ' ')
	if [ "$got" = "$exp" ] && [ "$flags" = "0,0" ]; then
		pass "${CHECKS[5]}: $rows; shaped_by_provider $flags"
	else
		fail "${CHECKS[5]}" "rows '$rows' (want $want), shaped_by_provider '$flags'"
	fi
	# bytes (v_result_nics, store 18): each datagram is a 1042-byte frame on the veth (1000 of
	# payload, 8 UDP, 20 IP, 14 Ethernet), so the client sent at least 1042 x the datagrams it
	# sent and the agent received at least 1042 x those it received
	nic_bytes="SELECT n.side, n.rx_bytes, n.tx_bytes, r.fwd_snd_packets, r.fwd_rcv_packets,
		coalesce(CASE n.side WHEN 'client' THEN n.tx_bytes >= 1042 * r.fwd_snd_packets
		ELSE n.rx_bytes >= 1042 * r.fwd_rcv_packets END AND r.fwd_rcv_packets > 100, 0) AS ok
		FROM v_result_nics n JOIN results r ON r.id = n.result_id"
	bytes=$(sqlite3 "$DB" "SELECT group_concat(side || ' rx ' || coalesce(rx_bytes, 'NULL') ||
		' tx ' || coalesce(tx_bytes, 'NULL') || ' bytes, datagrams ' || fwd_snd_packets ||
		' sent ' || fwd_rcv_packets || ' received', '; ') FROM ($nic_bytes)")
	if [ "$(sqlite3 "$DB" "SELECT count(*) || ' ' || sum(ok) FROM ($nic_bytes)")" = "4 4" ]; then
		pass "${CHECKS[6]}: $bytes"
	else
		fail "${CHECKS[6]}" "want 4 rows, each side's bytes >= 1042 x its datagrams: $bytes"
	fi
else
	fail "${CHECKS[5]}" "netsweep run: $(tail -2 "$NETNS_TMP/run.log")"
	fail "${CHECKS[6]}" "netsweep run failed"
fi

finish
