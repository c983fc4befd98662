#!/bin/bash
# Refusals of delegated targets take the same time whatever the reason (issue 23): a target
# outside the client agent's --allow was refused in 0.05 s while every other failure waited
# the connect timeout, which told the allow list. On loopback: a keyless agent with --delegate
# --allow 127.0.0.1/32; a target outside it (127.0.0.2) and one inside it with nothing
# listening both answer after the connect timeout (1 s here), in one wording.
source "$(dirname "$0")/../lib/check.sh"
source "$(dirname "$0")/../lib/lo_agent.sh"
lo_agent_setup i23-deleg
start_agent "$TMP/agent.log" --delegate --allow 127.0.0.1/32 ||
	{ fail "agent --delegate --allow" "did not start"; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# a port nothing listens on: one a listener of our own had, closed again
CLOSED=$(perl -MIO::Socket::INET -e 'my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1",
	LocalPort => 0, Listen => 1) or die; print $l->sockport, "\n"')
delegated() { # OUT TARGET: MS set to how long the refusal took
	local t0
	t0=$(now_ms)
	timeout -k 5 60 "$NS" probe "$2" --from "127.0.0.1:$PORT" -t 0.5 --connect-timeout 1 \
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
finish
