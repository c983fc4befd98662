#!/bin/bash
# Latency under load through a queue of known depth (issue 24): client, router and agent
# namespaces, a tbf on the router's veth towards the agent with `latency 40ms` (its queue
# holds 40 ms at the rate, plus the bucket) and a saturating TCP flow through it. (On the
# client's own egress the kernel's TCP small queues keep a local qdisc nearly empty: the queue
# must be a hop away, as a real bottleneck is.) A 1-byte TCP_RR beside the flow (its own connection, to a
# second agent on the same host) must show the queue — loaded p50 at least half the
# configured delay — while the same RR before the load, idle, stays near the bare path (p50
# under a tenth of it). The bounds are wide on purpose: a busy machine adds microseconds to
# milliseconds, never tens of milliseconds to an idle veth. GSO/GRO are off along the path so
# that tbf sees MTU-sized packets and its 32 KB bucket passes them.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("idle TCP_RR through the tbf stays near the bare path"
	"loaded TCP_RR shows the tbf queue (p50 >= half its 40 ms)")
netns_need_netsweep "${CHECKS[@]}"

A=10.66.24.11 R1=10.66.24.1 R2=10.66.25.1 B=10.66.25.12 P=7241 Q=7242 DELAY_MS=40
{ netns_pair l24 lc lr "$A" "$R1" && netns_pair l24 lr la "$R2" "$B"; } >/dev/null ||
	{ fail "namespace setup" "netns_pair failed"; exit 1; }
netns_exec lr sysctl -qw net.ipv4.ip_forward=1
netns_exec lc ip route add 10.66.25.0/24 via "$R1"
netns_exec la ip route add 10.66.24.0/24 via "$R2"
for ns in lc lr la; do
	for d in $(netns_exec "$ns" ls /sys/class/net); do
		[ "$d" = lo ] || netns_exec "$ns" ethtool -K "$d" gso off tso off gro off >/dev/null 2>&1
	done
done
dev=$(netns_dev lr la)
if ! netns_exec lr tc qdisc replace dev "$dev" root tbf rate 50mbit burst 32kb latency ${DELAY_MS}ms; then
	for c in "${CHECKS[@]}"; do fail "$c" "tc tbf latency did not apply"; done
	exit 1
fi
if ! netns_agent la "$B" "$P" || ! netns_agent la "$B" "$Q"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agents did not start"; done
	exit 1
fi
RR=$NETNS_TMP/rr
netns_probe lc "$RR-idle.json" "$B:$Q" --rr tcp -t 1 -i 0
idle=$(netns_json "$RR-idle.json" '$.latency.p50_us')
if [ -n "$idle" ] && awk -v v="$idle" -v d=$DELAY_MS 'BEGIN { exit !(v < d * 1000 / 10) }'; then
	pass "${CHECKS[0]}: p50 $idle us"
else
	fail "${CHECKS[0]}" "p50 '${idle}' us: $(netns_probe_why "$RR-idle.json")"
fi
# the load: one TCP flow well past the tbf's rate for 4 s, with CUBIC, which fills a buffer
# until it drops (the host's default may be BBR, which keeps the queue short on purpose); the
# RR starts once the queue filled
netns_probe lc "$NETNS_TMP/load.json" "$B:$P" -t 4 -i 0 -C cubic &
load=$!
sleep 1.5
netns_probe lc "$RR-loaded.json" "$B:$Q" --rr tcp -t 1.5 -i 0
wait "$load"
loaded=$(netns_json "$RR-loaded.json" '$.latency.p50_us')
gbps=$(netns_json "$NETNS_TMP/load.json" '$.sum.receiver.bits_per_second')
if [ -n "$loaded" ] && awk -v v="$loaded" -v d=$DELAY_MS 'BEGIN { exit !(v >= d * 1000 / 2) }'; then
	pass "${CHECKS[1]}: p50 $loaded us beside a flow of ${gbps%.*} bit/s, idle $idle us"
else
	fail "${CHECKS[1]}" "p50 '${loaded}' us (load ${gbps} bit/s): $(netns_probe_why "$RR-loaded.json")"
fi
finish
