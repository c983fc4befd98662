#!/bin/bash
# hostinfo inside a namespace pair (prefix h4): the interface routing to the peer is the veth,
# its driver family is veth, the source and gateway are right, a loopback peer gives lo, and
# a namespace without a default route says so instead of guessing. No packet is sent: the
# route lookup is rtnetlink plus a UDP connect(). The metadata service is never asked.
source "$(dirname "$0")/../lib/check.sh"
source "$(dirname "$0")/../lib/netns.sh"
netns_require
export NETSWEEP_IMDS=off

A_ADDR=10.204.1.1 B_ADDR=10.204.1.2
if ! netns_pair h4 a b "$A_ADDR" "$B_ADDR" >/dev/null; then
	fail "namespace pair" "netns_pair failed"
	finish
	exit
fi
DEV_A=$(netns_dev a)

hi() { netns_exec a "$NETSWEEP" hostinfo "$@"; }

out=$(hi --json --peer "$B_ADDR")
rc=$?
[ "$rc" = 0 ] && pass "hostinfo --json in a namespace exits 0" || fail "hostinfo --json in a namespace exits 0" "exit $rc"
case $out in
*"\"interface\":{\"name\":\"$DEV_A\",\"driver\":\"veth\",\"driver_family\":\"veth\""*)
	pass "peer $B_ADDR routes via $DEV_A, driver veth, family veth" ;;
*) fail "peer $B_ADDR routes via $DEV_A, driver veth, family veth" "got: $out" ;;
esac
case $out in
*"\"route\":{\"peer\":\"$B_ADDR\",\"source\":\"$A_ADDR\",\"gateway\":null}"*)
	pass "route: source $A_ADDR, directly connected" ;;
*) fail "route: source $A_ADDR, directly connected" "got: $out" ;;
esac
# What ethtool and sysfs say of this veth, for the fields that come from them.
if command -v ethtool >/dev/null 2>&1; then
	speed=$(netns_exec a ethtool "$DEV_A" 2>/dev/null | sed -n 's/^[[:space:]]*Speed: \([0-9]*\)Mb\/s$/\1/p')
	if [ -n "$speed" ]; then
		[[ $out == *"\"speed_mbps\":$speed,\"duplex\":\"full\""* ]] &&
			pass "speed $speed Mbit/s full duplex as ethtool says" ||
			fail "speed as ethtool says" "want $speed: $out"
	else
		skip "speed as ethtool says" "ethtool shows no speed for veth here"
	fi
	drv=$(netns_exec a ethtool -i "$DEV_A" | sed -n 's/^version: //p')
	[[ $out == *"\"driver_version\":\"$drv\""* ]] && pass "driver version $drv as ethtool -i says" ||
		fail "driver version as ethtool -i says" "want $drv: $out"
else
	skip "fields as ethtool says" "ethtool missing"
fi
mtu=$(netns_exec a cat "/sys/class/net/$DEV_A/mtu")
[[ $out == *"\"mtu\":$mtu,"* ]] && pass "mtu $mtu as sysfs says" || fail "mtu as sysfs says" "want $mtu: $out"
if [[ $out =~ \"qdisc\":\"([a-z_]+)\" ]]; then
	tcq=$(netns_exec a tc qdisc show dev "$DEV_A" | awk 'NR == 1 { print $2 }')
	[ "${BASH_REMATCH[1]}" = "$tcq" ] && pass "qdisc ${BASH_REMATCH[1]} as tc says" ||
		fail "qdisc as tc says" "hostinfo ${BASH_REMATCH[1]}, tc $tcq"
else
	fail "qdisc reported" "got: $out"
fi
# Changing the qdisc shows: the UDP --fq-rate warning depends on reading it right.
if netns_exec a tc qdisc replace dev "$DEV_A" root tbf rate 1gbit burst 64k latency 10ms 2>/dev/null; then
	out2=$(hi --json --peer "$B_ADDR")
	[[ $out2 == *'"qdisc":"tbf"'* ]] && pass "qdisc follows tc (tbf)" || fail "qdisc follows tc (tbf)" "got: $out2"
	netns_exec a tc qdisc del dev "$DEV_A" root 2>/dev/null
else
	skip "qdisc follows tc" "tbf not available"
fi
# Whether UDP --fq-rate would pace: only with fq at the root or on every leaf of mq.
out2=$(hi --peer "$B_ADDR")
grep -q "^qdisc  *noqueue (no fq: UDP --fq-rate would not pace)$" <<<"$out2" &&
	pass "noqueue: UDP --fq-rate would not pace" || fail "noqueue: UDP --fq-rate would not pace" "got: $out2"
if netns_exec a tc qdisc replace dev "$DEV_A" root fq 2>/dev/null; then
	out2=$(hi --peer "$B_ADDR")
	grep -q "^qdisc  *fq (paces UDP --fq-rate)$" <<<"$out2" && pass "fq root paces UDP" ||
		fail "fq root paces UDP" "got: $out2"
	netns_exec a tc qdisc del dev "$DEV_A" root 2>/dev/null
else
	skip "fq root paces UDP" "this kernel has no fq qdisc (sch_fq)"
fi
# A multiqueue veth under mq: the leaves decide (pfifo_fast here, so no pacing).
if netns_exec a ip link add h4-mqa numtxqueues 4 numrxqueues 4 type veth peer name h4-mqb &&
	netns_exec a ip link set h4-mqa up && netns_exec a ip addr add 10.204.2.1/24 dev h4-mqa &&
	netns_exec a tc qdisc replace dev h4-mqa root handle 1: mq 2>/dev/null; then
	out2=$(hi --peer 10.204.2.2)
	grep -q "^qdisc  *mq (no fq: UDP --fq-rate would not pace)$" <<<"$out2" &&
		pass "mq with pfifo_fast leaves does not pace UDP" ||
		fail "mq with pfifo_fast leaves does not pace UDP" "got: $out2"
	out2=$(hi --json --peer 10.204.2.2)
	[[ $out2 == *'"name":"h4-mqa"'*'"tx_queues":4'* ]] && pass "multiqueue veth: 4 TX queues" ||
		fail "multiqueue veth: 4 TX queues" "got: $out2"
else
	skip "mq leaves decide pacing" "could not build a multiqueue veth with mq"
fi
[[ $out == *'"speed_mbps":'* && $out == *'"irq_cpus":[]'* ]] && pass "veth: no IRQ CPUs" ||
	fail "veth: no IRQ CPUs" "got: $out"

# A peer behind a gateway: the next hop is reported.
netns_exec a ip route add 10.204.9.0/24 via "$B_ADDR"
out=$(hi --json --peer 10.204.9.7)
case $out in
*"\"name\":\"$DEV_A\""*"\"route\":{\"peer\":\"10.204.9.7\",\"source\":\"$A_ADDR\",\"gateway\":\"$B_ADDR\"}"*)
	pass "peer behind a gateway: via $B_ADDR on $DEV_A" ;;
*) fail "peer behind a gateway: via $B_ADDR on $DEV_A" "got: $out" ;;
esac

# The default route decides when no peer is given.
out=$(hi --json)
[[ $out == *'"interface":null'* && $out == *'"warnings":["route: no default route"]'* ]] &&
	pass "no default route: interface null, said in warnings" ||
	fail "no default route: interface null, said in warnings" "got: $out"
# The default metadata address is asked only when the firmware says EC2. Faked here with a
# tmpfs over /sys/devices/virtual in a private mount namespace; this namespace has no route to
# 169.254.169.254, so the attempt fails locally and nothing leaves.
if grep -qs '^Amazon EC2' /sys/devices/virtual/dmi/id/*_vendor ||
	grep -qsi '^ec2' /sys/devices/virtual/dmi/id/product_uuid /sys/hypervisor/uuid; then
	skip "not EC2: the default metadata address is not asked" "this host is EC2"
else
	out=$(NETSWEEP_IMDS=on netns_exec a "$NETSWEEP" hostinfo --json)
	[[ $out != *'imds'* ]] && pass "not EC2: the default metadata address is not asked" ||
		fail "not EC2: the default metadata address is not asked" "got: $out"
fi
if command -v unshare >/dev/null 2>&1; then
	out=$(NETSWEEP_IMDS=on netns_exec a unshare -m sh -c \
		'mount -t tmpfs h4-dmi /sys/devices/virtual && mkdir -p /sys/devices/virtual/dmi/id &&
		 echo "Amazon EC2" >/sys/devices/virtual/dmi/id/sys_vendor && exec "$0" hostinfo --json' \
		"$NETSWEEP" 2>&1)
	[[ $out == *'"imds (169.254.169.254:80): metadata token: connect: Network is unreachable"'* ]] &&
		pass "EC2 firmware: the default metadata address is asked" ||
		fail "EC2 firmware: the default metadata address is asked" "got: $out"
else
	skip "EC2 firmware: the default metadata address is asked" "no unshare (util-linux)"
fi

netns_exec a ip route add default via "$B_ADDR"
out=$(hi --json)
[[ $out == *"\"name\":\"$DEV_A\""* && $out == *"\"gateway\":\"$B_ADDR\""* ]] &&
	pass "default route: $DEV_A via $B_ADDR" || fail "default route: $DEV_A via $B_ADDR" "got: $out"

# A loopback peer, and this namespace's own address, route through lo.
out=$(hi --json --peer 127.0.0.1)
[[ $out == *'"interface":{"name":"lo","driver":"loopback","driver_family":"loopback"'* ]] &&
	pass "loopback peer: lo, family loopback" || fail "loopback peer: lo, family loopback" "got: $out"
out=$(hi --json --peer "$A_ADDR")
[[ $out == *'"name":"lo"'* ]] && pass "own address routes via lo" || fail "own address routes via lo" "got: $out"

# The readable table.
out=$(hi --peer "$B_ADDR")
grep -q "^driver  *veth (family veth)$" <<<"$out" && grep -q "^interface  *$DEV_A$" <<<"$out" &&
	pass "table: interface and driver family" || fail "table: interface and driver family" "got: $out"

# The default route covers every address; without it a far peer has no route at all.
netns_exec a ip route del default
out=$(hi --json --peer 10.255.255.1)
rc=$?
[ "$rc" = 0 ] && [[ $out == *'"interface":null'* && $out == *'no route to peer 10.255.255.1'* ]] &&
	pass "unroutable peer: interface null with a warning" ||
	fail "unroutable peer: interface null with a warning" "exit $rc: $out"
finish
