#!/bin/bash
# Responsiveness (issue 41, `netsweep probe --responsiveness`, schemas/responsiveness.md):
# client, router and agent namespaces; the same test on the bare path, then through a tbf on
# the router's veth towards the agent with `latency 40ms` (a queue of 40 ms at its rate, a
# hop away: on the client's own egress TCP small queues would keep it empty). As the draft
# predicts, RPM through the queue is lower than on the bare path (its round trips wait in the
# queue: tens of ms against a fraction of one), and lower than the same run's idle RPM; the
# result states its method (the search for saturation, its connections, both probe kinds).
# CUBIC for the load, as in latency_tbf.sh: it fills a buffer until it drops.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("responsiveness on the bare path: RPM and its method stated"
	"responsiveness through a 40 ms queue a hop away: lower RPM than the bare path"
	"responsiveness through the queue: lower than the same run's idle RPM"
	"responsiveness without the agent's key: refused")
netns_need_netsweep "${CHECKS[@]}"

A=10.66.41.11 R1=10.66.41.1 R2=10.66.42.1 B=10.66.42.12 P=7341 DELAY_MS=40
netns_routed r41 rc rr ra "$A" "$R1" "$R2" "$B" || { fail "namespace setup" "netns_routed failed"; exit 1; }
if ! netns_agent ra "$B" "$P"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
rpm_run() { # OUT: a responsiveness test of 2 s under load, JSON in OUT
	netns_probe rc "$1" "$B:$P" -t 2 -C cubic --responsiveness
}

bare=$NETNS_TMP/bare.json
rpm_run "$bare"
rpm_bare=$(netns_json "$bare" '$.responsiveness.rpm')
method="connections $(netns_json "$bare" '$.responsiveness.connections'), saturated $(netns_json "$bare" '$.responsiveness.saturated'), search $(netns_json "$bare" '$.responsiveness.search[0].goodput_bps') bit/s with 1 ..., foreign probes $(netns_json "$bare" '$.responsiveness.foreign_probes'), self samples $(netns_json "$bare" '$.responsiveness.self_samples'), trim $(netns_json "$bare" '$.responsiveness.method.trim_pct') %"
if [ -n "$rpm_bare" ] && awk -v r="$rpm_bare" 'BEGIN { exit !(r > 0) }' &&
	[ "$(netns_json "$bare" '$.responsiveness.foreign_probes')" -gt 0 ] 2>/dev/null &&
	[ "$(netns_json "$bare" '$.responsiveness.self_samples')" -gt 0 ] 2>/dev/null &&
	[ "$(netns_json "$bare" '$.responsiveness.method.mad')" = 4 ]; then
	pass "${CHECKS[0]}: $rpm_bare RPM ($method)"
else
	fail "${CHECKS[0]}" "rpm '$rpm_bare' ($method): $(netns_probe_why "$bare")"
fi

dev=$(netns_dev rr ra)
if ! netns_exec rr tc qdisc replace dev "$dev" root tbf rate 50mbit burst 32kb latency ${DELAY_MS}ms; then
	fail "${CHECKS[1]}" "tc tbf latency did not apply"
	fail "${CHECKS[2]}" "tc tbf latency did not apply"
	finish
fi
q=$NETNS_TMP/queue.json
rpm_run "$q"
rpm_q=$(netns_json "$q" '$.responsiveness.rpm')
rpm_qi=$(netns_json "$q" '$.responsiveness.rpm_idle')
detail="foreign $(netns_json "$q" '$.responsiveness.foreign_tm_ms') ms, self $(netns_json "$q" '$.responsiveness.self_tm_ms') ms, $(netns_json "$q" '$.responsiveness.connections') connections, goodput $(netns_json "$q" '$.responsiveness.goodput_bps') bit/s"
if [ -n "$rpm_q" ] && [ -n "$rpm_bare" ] && awk -v q="$rpm_q" -v b="$rpm_bare" 'BEGIN { exit !(q > 0 && q < b) }'; then
	pass "${CHECKS[1]}: $rpm_q RPM against $rpm_bare ($detail)"
else
	fail "${CHECKS[1]}" "queue '$rpm_q' RPM, bare '$rpm_bare' ($detail): $(netns_probe_why "$q")"
fi
if [ -n "$rpm_q" ] && [ -n "$rpm_qi" ] && awk -v q="$rpm_q" -v i="$rpm_qi" 'BEGIN { exit !(q > 0 && q < i) }'; then
	pass "${CHECKS[2]}: $rpm_q RPM loaded, $rpm_qi idle"
else
	fail "${CHECKS[2]}" "loaded '$rpm_q', idle '$rpm_qi' ($detail)"
fi
# every test of it goes through the agent's key check: without the key, none runs
k=$NETNS_TMP/keyless.json
NETSWEEP_PSK_FILE= netns_probe rc "$k" "$B:$P" -t 1 --responsiveness
rc=$?
if [ "$rc" != 0 ] && [ -z "$(netns_json "$k" '$.responsiveness.rpm')" ]; then
	pass "${CHECKS[3]}: $(netns_probe_why "$k")"
else
	fail "${CHECKS[3]}" "exit $rc: $(head -c 300 "$k")"
fi
finish
