#!/bin/bash
# A matrix pair whose client is another host's agent: the runner drives, the traffic goes from
# the client agent to the pair's agent. Three namespaces (prefix c7): the runner in c7-r, agents
# in c7-c (the client) and c7-s (the server), the c-s link shaped with tbf to 300 mbit while r-c
# and r-s are not. A case's goodput then matches 300 mbit only if the data really went c -> s,
# and c's tbf counted it (or the result says the tool's CPU set the figure:
# netns_rate_or_flag). Also: client_info is c's interface towards s; c without --delegate
# fails the cases with a clear error and the run goes on; a target that is not an agent (a port
# with nothing, a plain TCP listener) fails with one and the same message, and c sends it
# nothing beyond the connect attempt and the 16-byte HELLO.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("remote client: the traffic goes client agent -> agent"
	"remote client: client_info is the client's interface towards the agent"
	"remote client: without --delegate the cases fail clearly"
	"remote client: a non-agent target fails cleanly, nothing sent"
	"probe --from: one test by hand through the client agent"
	"remote client: a malformed client address is a matrix error")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0

# c-s first: the harness shapes a namespace's first veth, here c's towards s.
CS_C=10.77.3.1 CS_S=10.77.3.2 RC_R=10.77.1.1 RC_C=10.77.1.2 RS_R=10.77.2.1 RS_S=10.77.2.2
PORT=5301
setup() {
	netns_pair c7 c s "$CS_C" "$CS_S" >/dev/null &&
		netns_pair c7 r c "$RC_R" "$RC_C" >/dev/null &&
		netns_pair c7 r s "$RS_R" "$RS_S" >/dev/null &&
		netns_shape c 300mbit &&
		# the runner reaches s's c-side address through s itself (for s's host information)
		ip -n c7-r route add "$CS_S/32" via "$RS_S"
}
setup || { fail "namespace setup" "netns_pair / tbf / route failed"; exit 1; }
DEV_CS=$(netns_dev c s)
netns_agent s 0.0.0.0 "$PORT" || { fail "agent s" "did not start"; exit 1; }
netns_agent c 0.0.0.0 "$PORT" --delegate || { fail "agent c" "did not start"; exit 1; }
C_PID=$NETNS_AGENT_PID

q() { sqlite3 "$1" "$2" 2>&1; }
run_matrix() {
	timeout -k 5 120 ip netns exec c7-r $NETNS_NICE_CMD "$NETNS_NETSWEEP" run "$@"
}
# Bytes c's tbf (towards s) has sent so far.
tbf_sent() {
	ip netns exec c7-c tc -s qdisc show dev "$DEV_CS" |
		awk '/^qdisc tbf/ { t = 1; next } /^qdisc/ { t = 0 } t && /Sent/ { print $2; exit }'
}

# 1. TCP forward, one stream: the client agent sends through the 300 mbit tbf.
M=$NETNS_TMP/remote.xml DB=$NETNS_TMP/remote.db
cat >"$M" <<X
<matrix name="remote-client" case-timeout="20s">
  <pairs>
    <pair name="c-to-s" client="$RC_C:$PORT" agent="$CS_S:$PORT" expected-driver="veth"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value></axis>
    <axis name="duration"><value>2</value></axis>
    <axis name="omit"><value>0.5</value></axis>
  </axes>
</matrix>
X
remote_rate() {
	local before after rc bps bytes want=286.9 # 300 mbit x 1448 / 1514
	rm -f "$DB"
	before=$(tbf_sent)
	run_matrix "$M" --db "$DB" >"$NETNS_TMP/log" 2>&1
	rc=$?
	after=$(tbf_sent)
	bps=$(q "$DB" "select goodput_bps from v_results where status = 'ok'")
	bytes=$(q "$DB" "select fwd_rcv_bytes from v_results where status = 'ok'")
	CHECK_MSG="exit $rc, goodput ${bps:-none} bit/s, tbf sent $((after - before)) bytes for ${bytes:-?}"
	[ "$rc" = 0 ] && [ -n "$bps" ] || { CHECK_MSG="$CHECK_MSG; $(q "$DB" 'select error from results') $(tail -n 2 "$NETNS_TMP/log")"; return 1; }
	# the rate, unless the stored result says the tool's CPU set it (and the store keeps the flag)
	q "$DB" "select probe_json from results where status = 'ok'" >"$NETNS_TMP/remote.json"
	[ "$(q "$DB" "select coalesce(limited_by, '') from v_results where status = 'ok'")" = \
		"$(jq -r '.sum.limit.limited_by' "$NETNS_TMP/remote.json")" ] ||
		{ CHECK_MSG="$CHECK_MSG; v_results.limited_by is not the result's"; return 1; }
	netns_rate_or_flag "$NETNS_TMP/remote.json" "$(awk -v w="$want" 'BEGIN { printf "%.0f", w * 1e6 }')" 4 ||
		return 1
	# every byte the agent received went through c's shaped veth
	[ $((after - before)) -ge "${bytes%.*}" ]
}
netns_check_runs "${CHECKS[0]}" remote_rate

ci_name=$(q "$DB" "select json_extract(client_info, '\$.interface.name') from endpoints")
ci_peer=$(q "$DB" "select json_extract(client_info, '\$.route.peer') from endpoints")
ci_src=$(q "$DB" "select json_extract(client_info, '\$.route.source') from endpoints")
client=$(q "$DB" "select client_host from endpoints")
if [ "$ci_name" = "$DEV_CS" ] && [ "$ci_peer" = "$CS_S" ] && [ "$ci_src" = "$CS_C" ] &&
	[ "$client" = "$RC_C:$PORT" ]; then
	pass "${CHECKS[1]}: $ci_name, source $ci_src, towards $ci_peer"
else
	fail "${CHECKS[1]}" "interface '$ci_name' (want $DEV_CS), peer '$ci_peer', source '$ci_src', client '$client'"
fi

# netsweep probe --from: the same path by hand, from the runner's namespace.
P=$NETNS_TMP/from.json
netns_probe r "$P" "$CS_S:$PORT" --from "$RC_C:$PORT" -t 1 -O 0.3
rc=$?
bps=$(netns_json "$P" '$.sum.receiver.bits_per_second')
CHECK_MSG=""
if [ "$rc" = 0 ] && [ "$(netns_json "$P" '$.status')" = ok ] &&
	netns_rate_or_flag "$P" 286900000 6; then
	pass "${CHECKS[4]}: $bps bit/s$CHECK_MSG"
else
	fail "${CHECKS[4]}" "exit $rc, ${bps:-no} bit/s$CHECK_MSG: $(netns_probe_why "$P")"
fi
BAD=$NETNS_TMP/bad-client.xml
sed 's|client="[^"]*"|client="10.0.0.1:99999"|' "$M" >"$BAD"
out=$("$NETNS_NETSWEEP" run "$BAD" --dry-run 2>&1)
rc=$?
if [ "$rc" = 2 ] && [[ "$out" == *"bad-client.xml:"*"pair client port"* ]]; then
	pass "${CHECKS[5]}: $out"
else
	fail "${CHECKS[5]}" "exit $rc: $out"
fi

# 2. c without --delegate: every case fails, saying why; the run goes on to the end.
kill "$C_PID" 2>/dev/null
wait "$C_PID" 2>/dev/null
for i in $(seq 50); do
	ip netns exec c7-c ss -Hltn "sport = :$PORT" | grep -q . || break
	sleep 0.05
done
netns_agent c 0.0.0.0 "$PORT" || { fail "agent c without --delegate" "did not start"; exit 1; }
C_PID=$NETNS_AGENT_PID
sed -i 's|<value>tcp</value>|<value>tcp</value><value>udp</value>|; s|<axis name="duration"><value>2</value>|<axis name="rate"><value>100M</value></axis><axis name="duration"><value>1</value>|' "$M"
DB2=$NETNS_TMP/nodelegate.db
run_matrix "$M" --db "$DB2" >"$NETNS_TMP/log2" 2>&1
rc=$?
n=$(q "$DB2" "select count(*) from results where status <> 'ok' and error like '%client agent%not started with --delegate%'")
status=$(q "$DB2" "select status from runs")
if [ "$rc" = 1 ] && [ "$n" = 2 ] && [ "$status" = done ]; then
	pass "${CHECKS[2]}: $(q "$DB2" 'select error from results limit 1')"
else
	fail "${CHECKS[2]}" "exit $rc, $n of 2 failed as expected, run $status: $(q "$DB2" 'select error from results' | tr '\n' ' ')"
fi

# 3. Targets that are not agents, from a client agent that delegates again: a port with
# nothing, and a plain TCP listener in s that records what it got from c's address.
kill "$C_PID" 2>/dev/null
wait "$C_PID" 2>/dev/null
for i in $(seq 50); do
	ip netns exec c7-c ss -Hltn "sport = :$PORT" | grep -q . || break
	sleep 0.05
done
netns_agent c 0.0.0.0 "$PORT" --delegate || { fail "agent c" "did not restart"; exit 1; }
SINK_LOG=$NETNS_TMP/sink.log
ip netns exec c7-s timeout 60 perl -MIO::Socket::INET -e '
	my ($port, $log) = @ARGV;
	my $l = IO::Socket::INET->new(LocalAddr => "0.0.0.0", LocalPort => $port, Listen => 8,
				      ReuseAddr => 1) or die "listen: $!";
	$| = 1;
	while (my $c = $l->accept) {
		my ($n, $buf) = (0, "");
		while (my $r = sysread($c, $buf, 65536)) { $n += $r; }
		open(my $f, ">>", $log); print $f $c->peerhost . " $n\n"; close $f;
	}' 5398 "$SINK_LOG" &
netns_wait_tcp s 0.0.0.0 5398 5 || { fail "plain listener" "did not start"; exit 1; }
M3=$NETNS_TMP/nonagent.xml DB3=$NETNS_TMP/nonagent.db
cat >"$M3" <<X
<matrix name="non-agent" case-timeout="2s">
  <pairs>
    <pair name="nothing" client="$RC_C:$PORT" agent="$CS_S:5399"/>
    <pair name="plain" client="$RC_C:$PORT" agent="$CS_S:5398"/>
  </pairs>
  <axes>
    <axis name="duration"><value>1</value></axis>
  </axes>
</matrix>
X
before=$(tbf_sent)
t0=$(date +%s)
run_matrix "$M3" --db "$DB3" >"$NETNS_TMP/log3" 2>&1
rc=$?
took=$(( $(date +%s) - t0 ))
after=$(tbf_sent)
e_nothing=$(q "$DB3" "select error from v_results where endpoint = 'nothing'")
e_plain=$(q "$DB3" "select error from v_results where endpoint = 'plain'")
from_c=$(awk -v c="$CS_C" '$1 == c { s += $2 } END { print s + 0 }' "$SINK_LOG" 2>/dev/null)
sent=$((after - before))
# 1 KiB on c's veth covers SYNs, ACKs, the HELLO and FINs; a test would send megabytes.
# one message for both: nothing tells a closed port from a talking one
if [ "$rc" = 1 ] && [[ "$e_nothing" == *"client agent"*"no test with the target"* ]] &&
	[ "$e_plain" = "${e_nothing/5399/5398}" ] && [ "${from_c:-99}" -le 16 ] && [ "$sent" -lt 2048 ] &&
	[ "$took" -lt 40 ]; then
	pass "${CHECKS[3]}: $from_c bytes to the listener, $sent bytes on the c-s link, ${took} s"
else
	fail "${CHECKS[3]}" "exit $rc in ${took} s; nothing: '$e_nothing'; plain: '$e_plain'; listener got ${from_c:-?} bytes from c; $sent bytes on the link"
fi
finish
