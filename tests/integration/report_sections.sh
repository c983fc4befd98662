#!/bin/bash
# One content model, two writers: a real report over a store with several kinds of data — two
# loopback runs of one matrix (TCP and UDP throughput, TCP request/response cases, two pairs
# differing in instance type for the A/B), the second against the first (news, comparison,
# history) — has the same section titles in the same order in report.md and index.html, and
# both open with what changed, then the best per dollar. Consistency only: no speed bound.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/lo_agent.sh"
lo_agent_setup report_sections
start_agent "$TMP/agent.log" || { fail "loopback agent" "$(tail -n 2 "$TMP/agent.log")"; finish; exit; }

cat >"$TMP/m.xml" <<X
<matrix name="sections" repeats="2" order="as-written" cooldown="0s">
  <pairs>
    <pair name="small" instance-type="m4.large" region="ap-northeast-1" agent="127.0.0.1:$PORT"/>
    <pair name="big" instance-type="m4.xlarge" region="ap-northeast-1" agent="127.0.0.1:$PORT"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="rr"><value>none</value><value>tcp</value></axis>
    <axis name="duration"><value>0.3</value></axis>
  </axes>
  <rules><include><set axis="rr" value="none"/><set axis="rate" value="50M"/></include></rules>
</matrix>
X
DB=$TMP/s.db
for i in 1 2; do
	if ! timeout 120 "$NS" run "$TMP/m.xml" --db "$DB" --quiet >"$TMP/run$i.log" 2>&1; then
		fail "two runs of the matrix" "run $i: $(tail -n 3 "$TMP/run$i.log")"; finish; exit
	fi
done
kinds=$(sqlite3 "$DB" "select (select count(distinct protocol) from cases),
	(select count(*) > 0 from v_latency)" 2>&1 | tr '|' ' ')
if [ "$kinds" = "2 1" ]; then pass "the store holds TCP, UDP and request/response cases"
else fail "the store holds TCP, UDP and request/response cases" "$kinds"; fi

NETSWEEP_GNUPLOT=none "$NS" report --db "$DB" --baseline previous -o "$TMP/rep" >"$TMP/rep.log" 2>&1
rc=$?
if [ "$rc" != 0 ]; then fail "report" "exit $rc: $(tail -n 3 "$TMP/rep.log")"; finish; exit; fi
sed -n 's/^## //p' "$TMP/rep/report.md" >"$TMP/md"
# the page's sections: each <section id=...> opens with its <h2>
tr -d '\n' <"$TMP/rep/index.html" | grep -o '<section id="[a-z-]*"> *<h2>[^<]*</h2>' |
	sed 's/.*<h2>\(.*\)<\/h2>/\1/; s/&amp;/\&/g' >"$TMP/html"
if [ -s "$TMP/md" ] && cmp -s "$TMP/md" "$TMP/html"; then
	pass "report.md and index.html: the same $(wc -l <"$TMP/md") sections in the same order"
else
	fail "report.md and index.html: the same sections in the same order" \
		"$(diff "$TMP/md" "$TMP/html" | tr '\n' ' ')"
fi
first=$(head -n 2 "$TMP/md" | tr '\n' ';')
if [ "$first" = "What changed;Best per dollar;" ]; then
	pass "both open with what changed, then the best per dollar"
else
	fail "both open with what changed, then the best per dollar" "$first"
fi
missing=
for t in "Latency (request/response)" "A/B between pairs" "History" \
	"Comparison with the baseline" "Results" "Environment" "Method" "Run"; do
	grep -qxF "$t" "$TMP/md" || missing="$missing '$t'"
done
if [ -z "$missing" ]; then pass "report.md has the latency, A/B, history and comparison sections"
else fail "report.md has the latency, A/B, history and comparison sections" "missing:$missing"; fi
# the method is said once, in the same words, by both writers
m=$(grep -m1 '^Matrix sections from ' "$TMP/rep/report.md" | sed 's/\\\(.\)/\1/g' | cut -c1-120)
if [ -n "$m" ] && tr -d '\n' <"$TMP/rep/index.html" | grep -qF "<p>$m"; then
	pass "the method's sentences are the same in both"
else
	fail "the method's sentences are the same in both" "md: '$m'"
fi
finish
