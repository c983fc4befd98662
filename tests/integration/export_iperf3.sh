#!/bin/bash
# netsweep export --format iperf3: a fan-out group of two loopback agents (members alpha and
# beta, 2 clients x 2 streams, TCP and UDP) run as a matrix, then exported. One iperf3
# document a line per stored result; end.streams[] has one entry per client stream (4), each
# connected to its own client's agent, their bytes adding up to end.sum_received's; the
# member names ride along under netsweep.group. The keys and JSON types of end.streams[],
# end.sum_sent, end.sum_received, start.test_start and intervals[].sum are those `probe -J
# --json-format iperf3` writes for the same test (at least 90 % of them, none it lacks).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/lo_agent.sh"
lo_agent_setup export_iperf3
command -v jq >/dev/null || { skip "export --format iperf3" "jq is not installed"; exit 0; }

start_agent "$TMP/a1.log" || { fail "agent 1 listens" "$(cat "$TMP/a1.log")"; exit 1; }
P1=$PORT
start_agent "$TMP/a2.log" || { fail "agent 2 listens" "$(cat "$TMP/a2.log")"; exit 1; }
P2=$PORT
cat >"$TMP/m.xml" <<X
<matrix name="fan" repeats="1" cooldown="0s">
  <pairs>
    <group name="fan" kind="fan-out">
      <member name="alpha" agent="127.0.0.1:$P1"/>
      <member name="beta" agent="127.0.0.1:$P2"/>
    </group>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="clients"><value>2</value></axis>
    <axis name="streams"><value>2</value></axis>
    <axis name="rate"><value>20M</value></axis>
    <axis name="duration"><value>1</value></axis>
  </axes>
</matrix>
X
DB=$TMP/g.db
timeout 120 "$NS" run "$TMP/m.xml" --db "$DB" >"$TMP/run.log" 2>&1 ||
	{ fail "the group matrix runs" "$(tail -3 "$TMP/run.log")"; exit 1; }
"$NS" export --db "$DB" --format iperf3 -o "$TMP/e.ndjson" 2>"$TMP/e.err" &&
	[ "$(wc -l <"$TMP/e.ndjson")" = 2 ] && jq -e . "$TMP/e.ndjson" >/dev/null &&
	pass "export --format iperf3: one JSON document a line per stored result (2)" ||
	fail "export --format iperf3: one document per result" "$(cat "$TMP/e.err") $(wc -l <"$TMP/e.ndjson")"

# keys [FILE]: every scalar's path under the compared objects, with its JSON type
keys() {
	jq -r '["end.streams[0]", "end.sum_sent", "end.sum_received", "start.test_start", "intervals[0].sum"] as $n
		| [.end.streams[0], .end.sum_sent, .end.sum_received, .start.test_start, .intervals[0].sum] as $os
		| range(0; 5) as $i | $os[$i] | paths(scalars) as $p
		| $n[$i] + "." + ($p | map(tostring) | join(".")) + ":" + (getpath($p) | type)' "$@" | sort -u
}

for proto in TCP UDP; do
	doc=$(jq -c "select(.start.test_start.protocol == \"$proto\")" "$TMP/e.ndjson")
	[ -n "$doc" ] || { fail "$proto: a document"; continue; }
	ns=$(jq '.end.streams | length' <<<"$doc")
	ports=$(jq -r '[.start.connected[].remote_port] | map(tostring) | join(",")' <<<"$doc")
	[ "$ns" = 4 ] && [ "$ports" = "$P1,$P1,$P2,$P2" ] &&
		pass "$proto: end.streams[] has each client's streams (4), each to its client's agent" ||
		fail "$proto: end.streams[] per client stream" "$ns streams, ports $ports ($P1, $P2)"
	if [ "$proto" = TCP ]; then
		sb=$(jq '[.end.streams[].receiver.bytes] | add' <<<"$doc")
	else
		sb=$(jq '[.end.streams[].udp.bytes] | add' <<<"$doc")
	fi
	tb=$(jq '.end.sum_received.bytes' <<<"$doc")
	[ -n "$sb" ] && [ "$sb" = "$tb" ] && pass "$proto: the streams' bytes add up to sum_received ($tb)" ||
		fail "$proto: the streams' bytes add up to sum_received" "$sb vs $tb"
	names=$(jq -r '[.netsweep.group.members[].name] | join(",")' <<<"$doc")
	[ "$names" = alpha,beta ] && pass "$proto: the members' names under netsweep.group" ||
		fail "$proto: the members' names under netsweep.group" "$names"

	# the same test by probe, in iperf3's layout: the keys and types to match
	popt=(-P 2 -b 10M -t 1)
	[ "$proto" = UDP ] && popt+=(-u)
	"$NS" probe 127.0.0.1 -p "$P1" "${popt[@]}" -J --json-format iperf3 >"$TMP/p.json" 2>"$TMP/p.err" ||
		{ fail "$proto: probe -J --json-format iperf3" "$(cat "$TMP/p.err")"; continue; }
	keys "$TMP/p.json" >"$TMP/want"
	keys <<<"$doc" >"$TMP/got"
	extra=$(comm -13 "$TMP/want" "$TMP/got" | tr '\n' ' ')
	have=$(comm -12 "$TMP/want" "$TMP/got" | wc -l) want=$(wc -l <"$TMP/want")
	if [ -z "$extra" ] && [ "$want" -gt 10 ] && [ $((have * 100)) -ge $((want * 90)) ]; then
		pass "$proto: $have of probe's $want keys with their types, none it lacks"
	else
		fail "$proto: probe's keys and types" "$have of $want; extra: $extra; missing: $(comm -23 "$TMP/want" "$TMP/got" | tr '\n' ' ')"
	fi
done

n=$("$NS" export --db "$DB" --format iperf3 --type nosuch 2>/dev/null | wc -l)
[ "$n" = 0 ] && pass "--type selects the results (none of type nosuch)" || fail "--type selects the results" "$n lines"
out=$("$NS" export --db "$DB" --format iperf4 2>&1)
[ $? = 2 ] && grep -q 'ndjson or iperf3' <<<"$out" && pass "an unknown --format names iperf3 among the formats" ||
	fail "an unknown --format names iperf3 among the formats" "$out"
finish
