#!/bin/bash
# Data connections over a long round trip: the probe opens all its TCP data connections at once,
# so -P 16 connects within a --connect-timeout of 2 s at a round trip of 150 ms and more (one
# after another it needed 16 round trips). There is no netem here, so the delay is a queue:
# a tbf at 2 mbit on the client's side with room for seconds, fed by a UDP probe at 2.5 mbit;
# the queue (and the round trip) grows by about 250 ms a second, and nothing is dropped.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECK="tcp -P 16 connects in time over a 150+ ms round trip"
netns_need_netsweep "$CHECK"
export NETSWEEP_IMDS=0

C=10.39.1.1 A=10.39.1.2
netns_pair f9 c a "$C" "$A" >/dev/null || { fail "$CHECK" "netns_pair failed"; exit 1; }
netns_shape c 2mbit 3000 4000000 || { fail "$CHECK" "tbf on c"; exit 1; }
netns_agent a "$A" 5301 || { fail "$CHECK" "agent did not start"; exit 1; }
netns_agent a "$A" 5302 || { fail "$CHECK" "second agent did not start"; exit 1; }

netns_probe c "$NETNS_TMP/flood.json" "$A:5302" -u -b 2500k -l 1200 -t 8 -i 0 &
disown
# A connect to a closed port (no ping here): the SYN waits in the queue, the RST comes back.
rtt_ms() {
	local t0
	t0=$(date +%s%N)
	ip netns exec f9-c timeout 5 bash -c "exec 3<>/dev/tcp/$A/9" 2>/dev/null
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
rtt=0
for _ in $(seq 1 20); do
	rtt=$(rtt_ms)
	[ "${rtt:-0}" -ge 150 ] && break
	sleep 0.2
done
if [ "${rtt:-0}" -lt 150 ]; then
	fail "$CHECK" "the queue did not build a 150 ms round trip (last ${rtt:-none} ms)"
	exit 1
fi
out=$NETNS_TMP/p16.json
netns_probe c "$out" "$A:5301" -R -P 16 -t 0.5 -i 0 --connect-timeout 2
st=$(netns_json "$out" '$.status')
if [ "$st" = ok ]; then
	pass "$CHECK (round trip $rtt ms at the start)"
else
	fail "$CHECK" "round trip $rtt ms: $(netns_json "$out" '$.error')$(head -c 200 "$out.err")"
fi
finish
