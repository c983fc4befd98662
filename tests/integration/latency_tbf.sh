#!/bin/bash
# Latency under load through a queue of known depth (issue 24): client, router and agent
# namespaces, a tbf on the router's veth towards the agent with `latency 40ms` (its queue
# holds 40 ms at the rate, plus the bucket) and a saturating TCP load through it (two CUBIC
# flows, as RRUL loads with several: one flow's sawtooth drains the queue after each loss,
# two keep it near full). (On the
# client's own egress the kernel's TCP small queues keep a local qdisc nearly empty: the queue
# must be a hop away, as a real bottleneck is.) ONE probe of that load with --latency-probe
# (a request/response flow on a connection of its own, timed idle before the load and then
# beside it) must show the queue in its loaded figures — p50 at least half the configured
# delay — while its idle figures stay near the bare path (p50 under a tenth of it): once with
# a TCP_RR probe, once with a UDP_RR one. The bounds are wide on purpose: a busy machine adds
# microseconds to milliseconds, never tens of milliseconds to an idle veth. GSO/GRO are off
# along the path so that tbf sees MTU-sized packets and its 32 KB bucket passes them.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("latency probe tcp: idle p50 through the tbf stays near the bare path"
	"latency probe tcp: loaded p50 shows the tbf queue (>= half its 40 ms)"
	"latency probe udp: idle p50 through the tbf stays near the bare path"
	"latency probe udp: loaded p50 shows the tbf queue (>= half its 40 ms)")
netns_need_netsweep "${CHECKS[@]}"

A=10.66.24.11 R1=10.66.24.1 R2=10.66.25.1 B=10.66.25.12 P=7241 DELAY_MS=40
netns_routed l24 lc lr la "$A" "$R1" "$R2" "$B" || { fail "namespace setup" "netns_routed failed"; exit 1; }
dev=$(netns_dev lr la)
if ! netns_exec lr tc qdisc replace dev "$dev" root tbf rate 50mbit burst 32kb latency ${DELAY_MS}ms; then
	for c in "${CHECKS[@]}"; do fail "$c" "tc tbf latency did not apply"; done
	exit 1
fi
if ! netns_agent la "$B" "$P"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
# the load: two TCP flows well past the tbf's rate, with CUBIC, which fills a buffer until it
# drops (the host's default may be BBR, which keeps the queue short on purpose); the omit
# period lets the queue fill before the loaded window starts
k=0
for probe in tcp udp; do
	out=$NETNS_TMP/lul-$probe.json
	netns_probe lc "$out" "$B:$P" -P 2 -t 2.5 -O 1.5 -i 0 -C cubic --latency-probe $probe
	idle=$(netns_json "$out" '$.latency_under_load.idle.p50_us')
	loaded=$(netns_json "$out" '$.latency_under_load.loaded.p50_us')
	n=$(netns_json "$out" '$.latency_under_load.loaded.transactions')
	bps=$(netns_json "$out" '$.sum.receiver.bits_per_second')
	if [ -n "$idle" ] && awk -v v="$idle" -v d=$DELAY_MS 'BEGIN { exit !(v < d * 1000 / 10) }'; then
		pass "${CHECKS[k]}: p50 $idle us"
	else
		fail "${CHECKS[k]}" "idle p50 '${idle}' us: $(netns_probe_why "$out")"
	fi
	if [ -n "$loaded" ] && awk -v v="$loaded" -v d=$DELAY_MS 'BEGIN { exit !(v >= d * 1000 / 2) }'; then
		pass "${CHECKS[k + 1]}: p50 $loaded us ($n transactions) beside ${bps%.*} bit/s, idle $idle us"
	else
		fail "${CHECKS[k + 1]}" "loaded p50 '${loaded}' us (load ${bps} bit/s): $(netns_probe_why "$out")"
	fi
	k=$((k + 2))
done
finish
