#!/bin/bash
# Benchmark (the strict half of tests/integration/agent_concurrent.sh's check): a busy agent
# never starves a new client's control connection. Beside 8 running unpaced TCP tests on one
# loopback agent, a new client's HELLO and HOSTINFO are answered, 10 times, and a short test
# completes; prints the median and worst latencies. The goal (issue 32): every handshake
# answered in under 1 s.
HERE=$(cd "$(dirname "$0")" && pwd)
NETSWEEP=${NETSWEEP:-$HERE/../../build/netsweep}
PEER="perl $HERE/../lib/ctl_peer.pl"
T=$(mktemp -d) || exit 1
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
"$NETSWEEP" agent --listen 127.0.0.1:0 2>"$T/agent.log" &
PIDS+=("$!")
for _ in $(seq 100); do
	PORT=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$T/agent.log")
	[ -n "$PORT" ] && break
	sleep 0.05
done
[ -n "$PORT" ] || { echo "FAIL the agent did not start"; exit 1; }
for i in $(seq 8); do
	"$NETSWEEP" probe "127.0.0.1:$PORT" -t 12 >/dev/null 2>&1 &
	PIDS+=("$!")
done
for _ in $(seq 200); do
	[ "$(grep -c ' test, 1 stream' "$T/agent.log")" -ge 8 ] && break
	sleep 0.05
done
[ "$(grep -c ' test, 1 stream' "$T/agent.log")" -ge 8 ] || { echo "FAIL the 8 tests did not start"; exit 1; }
sleep 0.5
for i in $(seq 10); do
	$PEER hellotime 127.0.0.1 "$PORT" >>"$T/times" 2>&1 || { echo "FAIL handshake $i: $(tail -n 1 "$T/times")"; exit 1; }
	sleep 0.1
done
t0=$(date +%s%N)
"$NETSWEEP" probe "127.0.0.1:$PORT" -t 0.5 >/dev/null 2>&1 || { echo "FAIL a short test beside the 8"; exit 1; }
short=$((($(date +%s%N) - t0) / 1000000))
# median and worst of column $1 of the times
col() { awk -v c="$1" '{ print $c }' "$T/times" | sort -n | awk '{ v[NR] = $1 } END { printf "%d %d", v[int((NR + 1) / 2)], v[NR] }'; }
read -r hmed hmax <<<"$(col 1)"
read -r imed imax <<<"$(col 2)"
echo "beside 8 running tests (load $(cut -d' ' -f1 /proc/loadavg)): HELLO answered in median ${hmed} ms, worst ${hmax} ms; HOSTINFO median ${imed} ms, worst ${imax} ms; a 0.5 s test took ${short} ms"
[ "$hmax" -lt 1000 ] && echo "PASS every handshake answered in under 1 s" ||
	{ echo "FAIL a handshake took ${hmax} ms (goal: under 1 s)"; exit 1; }
