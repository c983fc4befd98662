#!/bin/bash
# netsweep export and the shipped Grafana dashboard (issue 27), on a demo database made by two
# short runs on loopback (two priced pairs, TCP and UDP, a label with quotes and a newline):
#   - --format prometheus passes `promtool check metrics` and carries the instance-type label;
#   - --format openmetrics (the default) passes it too, and `promtool tsdb create-blocks-from
#     openmetrics` reads it (seconds timestamps, # EOF);
#   - the goodput gauge is the case's median in bytes/s, as v_case_median says;
#   - --format ndjson: a line per result of the run, each parses, keys = v_results' columns;
#   - --last 2 exports both runs; -o writes atomically (a failed export leaves the old file);
#   - runs --json parses and lists both runs;
#   - every query of data/grafana/netsweep-dashboard.json runs against the demo database and
#     returns rows.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$(cd "$HERE/../.." && pwd)
for t in promtool sqlite3; do
	command -v "$t" >/dev/null || { skip "export" "$t is not installed (Debian: prometheus, sqlite3)"; exit 0; }
done
TMP=$(mktemp -d)
AGENT=
trap '[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"' EXIT
NS=$TMP/netsweep
cp "$NETSWEEP" "$NS" || { fail "copy netsweep" "$NETSWEEP missing"; exit 1; }
export NETSWEEP_IMDS=0
loopback_agent "$TMP"
AGENT=$AGENT_PID port=$AGENT_PORT
[ -n "$port" ] || { fail "agent on loopback" "$(cat "$TMP/agent.log")"; exit 1; }
cat >"$TMP/m.xml" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="export-demo" repeats="2" order="as-written" cooldown="0s" case-timeout="15s">
  <pairs>
    <pair name="small" instance-type="m4.large" region="ap-northeast-1" agent="127.0.0.1:$port"/>
    <pair name="big" instance-type="m4.xlarge" region="ap-northeast-1" agent="127.0.0.1:$port"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="rate"><value>0</value><value>20M</value></axis>
    <axis name="length"><value>0</value><value>512</value></axis>
    <axis name="duration"><value>0.4s</value></axis>
  </axes>
  <rules>
    <exclude><when axis="protocol" value="udp"/><when axis="rate" value="0"/></exclude>
    <exclude><when axis="protocol" value="udp"/><when axis="length" value="0"/></exclude>
    <exclude><when axis="protocol" value="tcp"/><when axis="rate" not="0"/></exclude>
    <exclude><when axis="protocol" value="tcp"/><when axis="length" not="0"/></exclude>
  </rules>
</matrix>
EOF
DB=$TMP/demo.db
for label in 'night-1' 'night "2"'; do
	"$NS" run "$TMP/m.xml" --db "$DB" --label "$label" --quiet >"$TMP/run.log" 2>&1 ||
		fail "run ($label)" "$(tail -3 "$TMP/run.log")"
done
# a newline in a stored label (run --label refuses it; an older version stored it)
sqlite3 "$DB" "UPDATE runs SET label = label || char(10) || 'second line' WHERE label = 'night \"2\"'"
ok=$(sqlite3 "$DB" "SELECT count(*) FROM results WHERE status = 'ok'")
[ "$ok" = 16 ] || fail "demo database" "$ok of 16 results ok: $(tail -3 "$TMP/run.log")"

# Prometheus text
if "$NS" export --db "$DB" --format prometheus >"$TMP/p.prom" 2>"$TMP/p.err" &&
	promtool check metrics <"$TMP/p.prom" >"$TMP/lint" 2>&1; then
	pass "--format prometheus passes promtool check metrics"
else
	fail "--format prometheus: promtool" "$(cat "$TMP/p.err" "$TMP/lint" | head -5)"
fi
if grep -q '^netsweep_goodput_bytes_per_second{.*instance_type="m4.large"' "$TMP/p.prom" &&
	grep -q 'label="night \\"2\\"\\nsecond line"' "$TMP/p.prom"; then
	pass "instance_type label, label value escaped"
else
	fail "instance_type label, escaped label" "$(grep -m2 goodput_bytes "$TMP/p.prom")"
fi
# the gauge is v_case_median's, in bytes/s, and the run is the latest
run=$(sqlite3 "$DB" "SELECT max(id) FROM runs")
want=$(sqlite3 "$DB" "SELECT printf('%.6e', m.median_bps / 8) FROM cases c JOIN v_case_median m ON m.case_id = c.id JOIN endpoints e ON e.id = c.endpoint_id WHERE c.run_id = $run AND e.name = 'big' AND c.protocol = 'tcp'")
got=$(sed -n 's/^netsweep_goodput_bytes_per_second{.*pair="big".*protocol="tcp".*} \([^ ]*\) [0-9]*$/\1/p' "$TMP/p.prom" | head -1)
if [ -n "$got" ] && [ "$(printf '%.6e' "$got")" = "$want" ] && grep -q "run=\"$run\"" "$TMP/p.prom" && ! grep -q "run=\"$((run - 1))\"" "$TMP/p.prom"; then
	pass "goodput gauge = the case's median / 8 ($want), latest run only"
else
	fail "goodput gauge" "got '$got' want '$want'"
fi
# OpenMetrics: promtool lints it and backfills from it
"$NS" export --db "$DB" --last 2 >"$TMP/o.om" 2>"$TMP/o.err"
rc=$?
if [ "$rc" = 0 ] && tail -1 "$TMP/o.om" | grep -qx '# EOF' && promtool check metrics <"$TMP/o.om" >"$TMP/lint" 2>&1 &&
	promtool tsdb create-blocks-from openmetrics "$TMP/o.om" "$TMP/tsdb" >"$TMP/tsdb.log" 2>&1; then
	pass "--format openmetrics --last 2: promtool check and tsdb create-blocks-from openmetrics"
else
	fail "--format openmetrics" "exit $rc: $(cat "$TMP/o.err" "$TMP/lint" "$TMP/tsdb.log" 2>/dev/null | head -5)"
fi
if grep -q "run=\"$run\"" "$TMP/o.om" && grep -q "run=\"$((run - 1))\"" "$TMP/o.om" &&
	grep -q '^netsweep_run_billed_usd{' "$TMP/o.om" && grep -q '^netsweep_cost_rank{' "$TMP/o.om"; then
	pass "--last 2: both runs, run cost and rank"
else
	fail "--last 2: both runs" "$(grep -c . "$TMP/o.om") lines"
fi
# NDJSON: a line per result, each an object with v_results' columns
"$NS" export --db "$DB" --run night-1 --format ndjson >"$TMP/r.ndjson" 2>"$TMP/n.err"
n=$(wc -l <"$TMP/r.ndjson")
want_n=$(sqlite3 "$DB" "SELECT count(*) FROM v_results WHERE run_id = $((run - 1))")
cols=$(sqlite3 "$DB" "SELECT group_concat(name, ',') FROM (SELECT name FROM pragma_table_info('v_results') ORDER BY name)")
bad=0 xfer=0
while IFS= read -r line; do
	printf '%s' "$line" >"$TMP/line"
	# a successful result's v_cost_total figures are one key more, "transfer"
	k=$(sqlite3 :memory: "SELECT group_concat(key, ',') FROM (SELECT key FROM json_each(readfile('$TMP/line')) WHERE key <> 'transfer' ORDER BY key)" 2>/dev/null)
	t=$(sqlite3 :memory: "SELECT json_extract(readfile('$TMP/line'), '\$.status') = 'ok' AND json_type(readfile('$TMP/line'), '\$.transfer.total_per_hour') IS NOT NULL" 2>/dev/null)
	[ "$k" = "$cols" ] || bad=$((bad + 1))
	[ "$t" = 1 ] && xfer=$((xfer + 1))
done <"$TMP/r.ndjson"
want_x=$(sqlite3 "$DB" "SELECT count(*) FROM v_results WHERE run_id = $((run - 1)) AND status = 'ok'")
if [ "$n" = "$want_n" ] && [ "$n" -gt 0 ] && [ "$bad" = 0 ] && [ "$xfer" = "$want_x" ]; then
	pass "--format ndjson: $n lines, each with v_results' columns, $xfer with their transfer figures"
else
	fail "--format ndjson" "$n lines of $want_n, $bad with other keys, $xfer of $want_x ok with transfer"
fi
# -o is atomic: a failing export (a run that does not exist) leaves the old file
"$NS" export --db "$DB" -o "$TMP/keep.om" 2>/dev/null
cp "$TMP/keep.om" "$TMP/keep.before"
"$NS" export --db "$DB" --run no-such-run -o "$TMP/keep.om" 2>/dev/null
rc=$?
if [ "$rc" != 0 ] && cmp -s "$TMP/keep.om" "$TMP/keep.before" && [ -z "$(ls "$TMP" | grep 'keep.om.')" ]; then
	pass "-o: a failed export leaves the old file and no temporary"
else
	fail "-o atomic" "exit $rc"
fi
# runs --json
if "$NS" runs --db "$DB" --json >"$TMP/runs.json" 2>"$TMP/runs.err" &&
	[ "$(sqlite3 :memory: "SELECT json_array_length(readfile('$TMP/runs.json'))")" = 2 ] &&
	[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$TMP/runs.json'), '\$[1].label')")" = 'night "2"
second line' ] &&
	[ "$(sqlite3 :memory: "SELECT json_extract(readfile('$TMP/runs.json'), '\$[0].results_ok')")" = 8 ]; then
	pass "runs --json: both runs, labels exact, results counted"
else
	fail "runs --json" "$(head -c 300 "$TMP/runs.json") $(cat "$TMP/runs.err")"
fi
# every dashboard query runs on the demo database and returns rows
DASH=$ROOT/data/grafana/netsweep-dashboard.json
sqlite3 :memory: "SELECT json_extract(value, '\$.rawQueryText') FROM json_tree(readfile('$DASH')) WHERE type = 'object' AND json_extract(value, '\$.rawQueryText') IS NOT NULL" >"$TMP/queries" 2>/dev/null
nq=0 qbad=""
while IFS= read -r q; do
	[ -n "$q" ] || continue
	nq=$((nq + 1))
	q=${q//\$__unixEpochFrom()/0}
	q=${q//\$__unixEpochTo()/4102444800}
	rows=$(sqlite3 -readonly "$DB" "SELECT count(*) FROM ($q)" 2>&1)
	case $rows in ''|*[!0-9]*|0) qbad="$qbad [$nq: $rows]";; esac
done <"$TMP/queries"
if [ "$nq" -ge 5 ] && [ -z "$qbad" ]; then
	pass "Grafana dashboard: all $nq queries return rows on the demo database"
else
	fail "Grafana dashboard queries" "$nq queries;$qbad"
fi
finish
