#!/bin/bash
# Refusals of delegated targets take the same time whatever the reason (issue 23): a target
# outside the client agent's --allow was refused in 0.05 s while every other failure waited
# the connect timeout, which told the allow list. On loopback: a keyless agent with --delegate
# --allow 127.0.0.1/32 --max-rate 10M; a target outside it (127.0.0.2) and one inside it with nothing
# listening both answer after the connect timeout (1 s here), in one wording. And what a
# delegated test sends keeps to the client agent's --max-rate.
source "$(dirname "$0")/../lib/check.sh"
source "$(dirname "$0")/../lib/lo_agent.sh"
lo_agent_setup i23-deleg
start_agent "$TMP/target.log" || { fail "target agent" "did not start"; exit 1; }
TPORT=$PORT
start_agent "$TMP/agent.log" --delegate --allow 127.0.0.1/32 --max-rate 10M ||
	{ fail "agent --delegate --allow" "did not start"; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# a port nothing listens on: one a listener of our own had, closed again
CLOSED=$(perl -MIO::Socket::INET -e 'my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1",
	LocalPort => 0, Listen => 1) or die; print $l->sockport, "\n"')
delegated() { # OUT TARGET: MS set to how long the refusal took
	local t0
	t0=$(now_ms)
	timeout -k 5 60 "$NS" probe "$2" --from "127.0.0.1:$PORT" -t 0.5 -b 1M --connect-timeout 1 \
		--json >"$1" 2>"$1.err"
	MS=$(( $(now_ms) - t0 ))
}
delegated "$TMP/outside.json" "127.0.0.2:$CLOSED"
ms_out=$MS
delegated "$TMP/closed.json" "127.0.0.1:$CLOSED"
ms_closed=$MS
e_out=$(sed -n 's/.*"error": *"\([^"]*\)".*/\1/p' "$TMP/outside.json" | head -n 1)
e_closed=$(sed -n 's/.*"error": *"\([^"]*\)".*/\1/p' "$TMP/closed.json" | head -n 1)
name="delegate: a target outside --allow is refused as late as a closed one, in one wording"
if [[ "$e_out" == *"no test with the target agent"* ]] &&
	[ "${e_out/127.0.0.2/127.0.0.1}" = "$e_closed" ] && [ "$ms_out" -ge 950 ] &&
	[ "$ms_closed" -ge 950 ]; then
	pass "$name: $ms_out ms outside, $ms_closed ms closed"
else
	fail "$name" "outside: $ms_out ms '$e_out' $(head -n 1 "$TMP/outside.json.err"); closed: $ms_closed ms '$e_closed'"
fi

# what a delegated test sends draws from the client agent's --max-rate too: 256 streams for
# 0.5 s at the cap move the cap x the time, by the target's count and the sender's
name="delegate: a delegated test keeps to the client agent's --max-rate from the first byte"
timeout -k 5 60 "$NS" probe "127.0.0.1:$TPORT" --from "127.0.0.1:$PORT" -b 10M -P 256 -t 0.5 \
	-i 0 --json >"$TMP/capped.json" 2>"$TMP/capped.err"
json() { sqlite3 :memory: "select json_extract(readfile('$TMP/capped.json'), '$1')" 2>/dev/null; }
sent=$(json '$.sum.sender.bytes') got=$(json '$.sum.receiver.bytes') dur=$(json '$.duration_s')
verdict=$(awk -v s="${sent:-0}" -v r="${got:-0}" -v d="${dur:-0}" 'BEGIN {
	most = 10e6 / 8 * d * 1.05 + 12500 + 256 * 1448
	printf "%s sent %d, received %d in %.2f s (at most %d)", \
		(s > 0 && s == r && s <= most && s >= most / 3) ? "ok" : "bad", s, r, d, most }')
if [[ $verdict == ok* ]]; then pass "$name: ${verdict#ok }"; else fail "$name" "${verdict#bad } $(head -n 1 "$TMP/capped.err")"; fi
finish
