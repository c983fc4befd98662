#!/bin/bash
# -4 / -6 on `netsweep probe` (issue 17) across a dual-stack veth pair: the agent's name
# resolves to an IPv4 and an IPv6 address (the client namespace's own /etc/hosts, which
# `ip netns exec` mounts from /etc/netns/NS/hosts), and the family each test used is read from
# outside netsweep, in the receiving namespace's own IP counters (/proc/net/snmp InReceives,
# /proc/net/snmp6 Ip6InReceives):
#   - -6 to the dual-stack name: the data (and control) come over IPv6, also UDP with -R;
#   - -4 to it: over IPv4;
#   - a family the target does not have is a clear error naming both.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECKS=("-6 to a dual-stack name: IPv6 only" "-4 to a dual-stack name: IPv4 only"
	"-6 -u -R to a dual-stack name: IPv6 only" "family mismatch: a clear error")
netns_need_netsweep "${CHECKS[@]}"

C4=10.66.17.129 A4=10.66.17.130 C6=fd17::1 A6=fd17::2 PORT=7118
netns_pair i17f c a "$C4" "$A4" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
CDEV=$(netns_dev c) ADEV=$(netns_dev a)
HOSTS_DIR=/etc/netns/i17f-c
trap 'rm -rf "$HOSTS_DIR"; rmdir /etc/netns 2>/dev/null; netns_cleanup' EXIT
# netns_pair leaves the veth IPv4-only; IPv6 back on, addresses without duplicate address
# detection (usable at once) and permanent neighbours (no solicitations in the counts).
for side in "i17f-c $CDEV $C6 $A6 i17f-a $ADEV" "i17f-a $ADEV $A6 $C6 i17f-c $CDEV"; do
	set -- $side
	ip netns exec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=0" "net.ipv6.conf.$2.accept_dad=0" &&
		ip -n "$1" addr add "$3/64" dev "$2" nodad || { fail "namespace setup" "IPv6 on $2"; exit 1; }
	mac=$(ip -n "$5" -o link show "$6" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	ip -n "$1" neigh replace "$4" lladdr "$mac" dev "$2" nud permanent
done
mkdir -p "$HOSTS_DIR" &&
	printf '%s agent17\n%s agent17\n%s agent17v4\n' "$A4" "$A6" "$A4" >"$HOSTS_DIR/hosts" ||
	{ fail "namespace setup" "could not write $HOSTS_DIR/hosts"; exit 1; }
if ! netns_agent a "[::]" "$PORT"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
OUT=$NETNS_TMP/probe.json

# ip_in NS: "IPv4 IPv6" packets the namespace's IP layers received so far.
ip_in() {
	echo "$(ip netns exec "$1" awk '/^Ip: [0-9]/ { print $4 }' /proc/net/snmp)" \
		"$(ip netns exec "$1" awk '$1 == "Ip6InReceives" { print $2 }' /proc/net/snmp6)"
}
# family_check NAME RECEIVER_NS WANT(4|6) PROBE_ARGS...: the probe succeeds, the receiver got
# over 1000 packets of family WANT and fewer than 20 of the other (stray neighbour traffic).
family_check() {
	local name=$1 ns=$2 want=$3 before after v4 v6 mine other
	shift 3
	before=$(ip_in "$ns")
	if ! netns_probe c "$OUT" agent17 -p "$PORT" -t 1 -i 0 "$@"; then
		fail "$name" "probe failed: $(netns_probe_why "$OUT")"
		return
	fi
	after=$(ip_in "$ns")
	v4=$(( ${after% *} - ${before% *} )) v6=$(( ${after#* } - ${before#* } ))
	if [ "$want" = 6 ]; then mine=$v6 other=$v4; else mine=$v4 other=$v6; fi
	if [ "$mine" -gt 1000 ] && [ "$other" -lt 20 ]; then
		pass "$name: $v6 IPv6 and $v4 IPv4 packets received"
	else
		fail "$name" "$v6 IPv6 and $v4 IPv4 packets received, wanted IPv$want"
	fi
}
family_check "${CHECKS[0]}" i17f-a 6 -6
family_check "${CHECKS[1]}" i17f-a 4 -4
family_check "${CHECKS[2]}" i17f-c 6 -6 -u -b 200M -R

# Mismatches: an address of the other family, and a name that has only the other family.
msgs=""
ok=1
for args in "-4 $A6" "-6 $A4" "-6 agent17v4"; do
	if netns_probe c "$OUT" ${args#* } -p "$PORT" "${args%% *}" -t 1 -i 0; then
		ok=0 msgs+="'$args' succeeded; "
		continue
	fi
	why=$(head -n 1 "$OUT.err")
	msgs+="$args: $why; "
	case $args in
	"-4 $A6") [[ $why == *"'$A6' is an IPv6 address, but -4 asks for IPv4"* ]] || ok=0 ;;
	"-6 $A4") [[ $why == *"'$A4' is an IPv4 address, but -6 asks for IPv6"* ]] || ok=0 ;;
	*) [[ $why == *"'agent17v4' has no IPv6 address (only IPv4)"* ]] || ok=0 ;;
	esac
done
if [ "$ok" = 1 ]; then pass "${CHECKS[3]}: $msgs"; else fail "${CHECKS[3]}" "$msgs"; fi

finish
