#!/bin/bash
# The agent's caps over loopback: a request above --max-streams, --max-duration or --max-rate is
# refused with the cap it exceeds, one within them runs; a stream count that needs more open
# files than the agent may have is refused saying so, before any connection is made, and one
# that would fit alone but not beside the tests running is told the agent is busy.
source "$(dirname "$0")/../lib/check.sh"
source "$(dirname "$0")/../lib/lo_agent.sh"
lo_agent_setup i9-caps

start_agent "$TMP/caps.log" --max-streams 4 --max-duration 5s --max-rate 100M ||
	{ fail "agent with caps" "did not start"; exit 1; }
refused() { # NAME WANT ARGS...
	local name=$1 want=$2 out
	shift 2
	out=$("$NS" probe "127.0.0.1:$PORT" "$@" 2>&1 >/dev/null)
	if [ $? = 1 ] && [[ "$out" == *"$want"* ]]; then pass "$name: $out"; else fail "$name" "$out"; fi
}
refused "caps: streams over --max-streams" "exceed this agent's --max-streams of 4" -P 8 -t 0.5 -b 10M
refused "caps: omit + duration over --max-duration" "exceeds this agent's --max-duration of 5 s" -t 4 -O 2 -b 10M
refused "caps: an unpaced test over --max-rate" "an unpaced test exceeds this agent's --max-rate" -t 0.5
refused "caps: a rate over --max-rate" "a rate of 200000000 bit/s exceeds this agent's --max-rate of 100000000 bit/s" -t 0.5 -b 200M
refused "caps: --bidir over half of --max-rate each way" "a --bidir test at 60000000 bit/s each way exceeds" -t 0.5 -b 60M --bidir
if "$NS" probe "127.0.0.1:$PORT" -P 4 -t 0.5 -b 50M >/dev/null 2>&1; then
	pass "caps: a test within every cap runs"
else
	fail "caps: a test within every cap runs" "exit $?"
fi

# open files (soft and hard limit 256): 200 streams both ways do not fit in the agent, 300 not in the probe
(ulimit -n 256 && exec "$NS" agent --listen 127.0.0.1:0 2>"$TMP/fd.log") &
PIDS+=("$!")
for i in $(seq 100); do
	PORT=$(sed -n "s/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p" "$TMP/fd.log" 2>/dev/null)
	[ -n "$PORT" ] && break
	sleep 0.05
done
refused "caps: streams that need more open files than the agent may have" \
	"400 data streams need 464 open files; this process may open 256" -P 200 --bidir -t 0.5
out=$(ulimit -n 256 && "$NS" probe "127.0.0.1:$PORT" -P 300 -t 0.5 2>&1 >/dev/null)
if [[ "$out" == *"300 data streams need 364 open files"* ]]; then
	pass "caps: the probe refuses what its own open files cannot hold: $out"
else
	fail "caps: the probe refuses what its own open files cannot hold" "$out"
fi

# several tests at once share the open files (issue 32): 150 streams fit, 100 more beside them
# do not (150 + 100 + 64 > 256) and are told so as busy; alone, after, they run
"$NS" probe "127.0.0.1:$PORT" -P 150 -t 3 >"$TMP/fd150.out" 2>&1 &
BIG=$!
PIDS+=("$BIG")
for i in $(seq 100); do grep -q "150 stream" "$TMP/fd.log" && break; sleep 0.05; done
refused "caps: a test whose streams fit alone but not beside a running one is told busy" \
	"busy: the tests running hold 150 data streams; with this test's 100 this agent would need 314 open files and may open 256" -P 100 -t 0.5
wait "$BIG"
check "caps: the first test ran on" [ $? = 0 ]
check "caps: the second runs once the first ended" "$NS" probe "127.0.0.1:$PORT" -P 100 -t 0.5 -i 0
finish
