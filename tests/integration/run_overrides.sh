#!/bin/bash
# A campaign bent from the command line (issue 27), on loopback with two pairs:
#   - run --only pair=X --set repeats=1 --set duration=... runs only X's cases, once each, at
#     that duration, and the run records the overrides (runs.overrides);
#   - --resume with the same overrides continues that run; other overrides are another run;
#   - --dry-run states the cost at the catalog's prices and warns of documentation addresses;
#   - misspelt --set/--only names and options say what was meant.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
TMP=$(mktemp -d)
AGENT=
trap '[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
NS=$TMP/netsweep
cp "$NETSWEEP" "$NS" || { fail "copy netsweep" "$NETSWEEP missing"; exit 1; }
export NETSWEEP_IMDS=0
loopback_agent "$TMP"
AGENT=$AGENT_PID port=$AGENT_PORT
[ -n "$port" ] || { fail "agent on loopback" "$(cat "$TMP/agent.log")"; exit 1; }
cat >"$TMP/m.xml" <<EOF2
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="overrides" repeats="3" order="as-written" cooldown="0s" case-timeout="15s">
  <pairs>
    <pair name="a" instance-type="m4.large" region="ap-northeast-1" agent="127.0.0.1:$port"/>
    <pair name="b" instance-type="m4.xlarge" region="ap-northeast-1" agent="127.0.0.1:$port"/>
  </pairs>
  <axes>
    <axis name="streams"><value>1</value><value>2</value></axis>
    <axis name="duration"><value>5s</value></axis>
  </axes>
</matrix>
EOF2
DB=$TMP/o.db
q() { sqlite3 "$DB" "$1"; }
"$NS" run "$TMP/m.xml" --db "$DB" --quiet --only pair=b --set repeats=1 --set duration=0.3s \
	>"$TMP/run.log" 2>&1
rc=$?
res=$(q "SELECT group_concat(e.name || ':' || c.streams || ':' || c.duration_s, ' ') FROM results r JOIN cases c ON c.id = r.case_id JOIN endpoints e ON e.id = c.endpoint_id WHERE r.status = 'ok' ORDER BY r.id")
ovr=$(q "SELECT overrides FROM runs")
if [ "$rc" = 0 ] && [ "$res" = "b:1:0.3 b:2:0.3" ]; then
	pass "--only pair=b --set repeats=1 --set duration=0.3s: b's 2 cases, once, 0.3 s"
else
	fail "--only/--set ran" "exit $rc: '$res' $(tail -2 "$TMP/run.log")"
fi
if [ "$ovr" = '["set repeats=1","set duration=0.3s","only pair=b"]' ]; then
	pass "the run records its overrides"
else
	fail "runs.overrides" "'$ovr'"
fi
# --resume --retry-failed with the same overrides finds that finished run (nothing to do);
# other overrides are a run of their own
"$NS" run "$TMP/m.xml" --db "$DB" --quiet --resume --retry-failed --only pair=b --set repeats=1 --set duration=0.3s >"$TMP/r2.log" 2>&1
"$NS" run "$TMP/m.xml" --db "$DB" --quiet --only pair=a --only streams=2 --set repeats=1 --set duration=0.3s >"$TMP/r3.log" 2>&1
runs=$(q "SELECT count(*) FROM runs")
a=$(q "SELECT count(*) FROM results r JOIN cases c ON c.id = r.case_id JOIN endpoints e ON e.id = c.endpoint_id WHERE e.name = 'a' AND c.streams = 2")
total=$(q "SELECT count(*) FROM results")
if [ "$runs" = 2 ] && [ "$a" = 1 ] && [ "$total" = 3 ]; then
	pass "--resume with the same overrides finds their run; others make their own"
else
	fail "--resume and overrides" "$runs runs, $total results, $a of a streams=2"
fi
# dry run: a cost per pair and in all, and the documentation-address warning
sed "s/127.0.0.1:$port/192.0.2.10:5301/" "$TMP/m.xml" >"$TMP/doc.xml"
"$NS" run "$TMP/doc.xml" --dry-run >"$TMP/dry.out" 2>"$TMP/dry.err"
rc=$?
# 2 pairs x 2 cases x 3 repeats x 5 s: a 30 s each; m4.large and m4.xlarge priced per pair (x2)
pa=$("$NS" cost --region ap-northeast-1 --type m4.large 2>/dev/null | awk '$1 == "m4.large" { print $(NF - 1) }')
if [ "$rc" = 0 ] && grep -q '^pair a: 0:30 measured at [0-9.]* USD/hour = [0-9.]* USD$' "$TMP/dry.out" &&
	grep -q '^estimated cost: [0-9.]* USD for the measured time' "$TMP/dry.out"; then
	pass "--dry-run states the cost per pair and in all"
else
	fail "--dry-run cost" "exit $rc: $(tail -4 "$TMP/dry.out")"
fi
want=$(awk -v p="$pa" 'BEGIN { printf "%.4f", p * 2 * 30 / 3600 }')
got=$(sed -n 's/^pair a: .* = \([0-9.]*\) USD$/\1/p' "$TMP/dry.out")
if [ -n "$pa" ] && [ "$got" = "$want" ]; then
	pass "--dry-run: pair a costs 2 x its hourly price x 30 s ($got USD)"
else
	fail "--dry-run cost of pair a" "got '$got', want '$want' (price '$pa')"
fi
if [ "$(grep -c 'agent 192.0.2.10 is a documentation address (RFC 5737)' "$TMP/dry.err")" = 2 ]; then
	pass "--dry-run warns of documentation addresses, per pair"
else
	fail "documentation-address warning" "$(cat "$TMP/dry.err")"
fi
# the names a user misspells
"$NS" run "$TMP/m.xml" --dry-run --set strems=1 >/dev/null 2>"$TMP/e1"
r1=$?
"$NS" run "$TMP/m.xml" --dry-run --only pair=c >/dev/null 2>"$TMP/e2"
r2=$?
"$NS" run "$TMP/m.xml" --dryrun >/dev/null 2>"$TMP/e3"
r3=$?
"$NS" run "$TMP/m.xml" --dry-run --only streams=3 >/dev/null 2>"$TMP/e4"
r4=$?
if [ "$r1$r2$r3$r4" = 2222 ] && grep -q "did you mean 'streams'" "$TMP/e1" &&
	grep -q "'c' is not a pair" "$TMP/e2" && grep -q "did you mean '--dry-run'" "$TMP/e3" &&
	grep -q "no case left (the cases' streams: 1, 2)" "$TMP/e4"; then
	pass "misspelt --set name, pair, option and an absent value: exit 2 with what was meant"
else
	fail "misspellings" "exits $r1$r2$r3$r4: $(cat "$TMP"/e[1-4])"
fi
# a misspelt axis or attribute in the matrix: its file, line and the name meant
sed 's/name="streams"/name="strems"/; s/repeats="3"/repeat="3"/' "$TMP/m.xml" >"$TMP/typo.xml"
"$NS" run "$TMP/typo.xml" --dry-run >/dev/null 2>"$TMP/t1"
r1=$?
sed -i 's/repeat="3"/repeats="3"/' "$TMP/typo.xml"
"$NS" run "$TMP/typo.xml" --dry-run >/dev/null 2>"$TMP/t2"
r2=$?
line=$(grep -n 'name="strems"' "$TMP/typo.xml" | cut -d: -f1)
if [ "$r1$r2" = 22 ] && grep -q "typo.xml:2: <matrix> has no attribute 'repeat' (did you mean 'repeats'?)" "$TMP/t1" &&
	grep -q "typo.xml:$line: <axis name=\"strems\">: 'strems' is not a valid axis-name (did you mean 'streams'?)" "$TMP/t2"; then
	pass "matrix: a misspelt attribute and axis name, with file, line and the name meant"
else
	fail "matrix typos" "exits $r1$r2: $(cat "$TMP/t1" "$TMP/t2")"
fi
# a misspelt enumerated value — an attribute's own (<matrix order>, <group kind>) or a
# protocol or direction on an axis — is named with the value meant, not libxml2's facet text
cat >"$TMP/enum.xml" <<'X'
<matrix name="e" order="shufled">
  <pairs>
    <group name="g" kind="incst" agent="127.0.0.1:5301"><member name="a"/></group>
  </pairs>
  <axes><axis name="protocol"><value>tpc</value></axis></axes>
</matrix>
X
e1=$("$NS" run "$TMP/enum.xml" --dry-run 2>&1)
sed -i 's/shufled/shuffled/' "$TMP/enum.xml"
e2=$("$NS" run "$TMP/enum.xml" --dry-run 2>&1)
sed -i 's/incst/incast/' "$TMP/enum.xml"
e3=$("$NS" run "$TMP/enum.xml" --dry-run 2>&1)
if [[ $e1 == *"enum.xml:1: <matrix order=\"shufled\">: 'shufled' is not a valid order (did you mean 'shuffled'?)"* ]] &&
	[[ $e2 == *"enum.xml:3: <group kind=\"incst\">: 'incst' is not a valid kind (did you mean 'incast'?)"* ]] &&
	[[ $e3 == *"'tpc': no such protocol (did you mean 'tcp'?)"* ]] && [[ $e1$e2 != *facet* ]]; then
	pass "matrix: a misspelt order, group kind and protocol, each with the value meant"
else
	fail "matrix: misspelt enumerated values" "$e1 / $e2 / $e3"
fi
out=$("$NS" rnu 2>&1)
[ $? = 2 ] && [ "$out" = "netsweep: 'rnu' is not a command (did you mean 'run'?)" ] &&
	pass "a misspelt command: did you mean (rnu: run)" || fail "a misspelt command: did you mean" "$out"
finish
