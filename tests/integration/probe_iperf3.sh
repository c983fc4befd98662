#!/bin/bash
# iperf3's habits on `netsweep probe` (issue 27), over loopback, checked against iperf3 itself:
#   - --json-format iperf3: for the same test (TCP -P 2 with intervals, TCP -R, UDP), at least
#     90 % of the keys iperf3's own -J has in start.connected, intervals[].sum, end.sum_sent,
#     end.sum_received, end.cpu_utilization_percent and end.streams[] are there, with the
#     same JSON types (numbers as numbers), and the figures are netsweep's own (the extension
#     key "netsweep" holds the native result: the two agree);
#   - --json-stream: every line parses on its own; start, intervals, then end;
#   - -c HOST, -f m, --logfile, --timestamps, --forceflush, -V, per-stream lines and [SUM];
#   - iperf3's options that mean something else here are refused with a hint;
#   - the agent logs each test's summary with the time, to --logfile.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
command -v iperf3 >/dev/null || { skip "probe iperf3 JSON" "iperf3 is not installed"; exit 0; }
command -v sqlite3 >/dev/null || { skip "probe iperf3 JSON" "sqlite3 is not installed"; exit 0; }
TMP=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$TMP"' EXIT
NS=$TMP/netsweep
cp "$NETSWEEP" "$NS" || { fail "copy netsweep" "$NETSWEEP missing"; exit 1; }

listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
free_port() {
	local p
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		p=$(( 20000 + RANDOM % 40000 ))
		listening "$p" || { echo "$p"; return 0; }
	done
	return 1
}
wait_listen() {
	for _ in $(seq 100); do listening "$1" && return 0; sleep 0.05; done
	return 1
}
APORT=$(free_port)
"$NS" agent --listen "127.0.0.1:$APORT" --logfile "$TMP/agentfile.log" 2>"$TMP/agent.log" &
PIDS+=($!)
IPORT=$(free_port)
iperf3 -s -p "$IPORT" >"$TMP/iperf3-s.log" 2>&1 &
PIDS+=($!)
wait_listen "$APORT" && wait_listen "$IPORT" || { fail "servers listen" "$(cat "$TMP"/*.log)"; exit 1; }

# keys FILE: "path<TAB>type" of every value under the judged sections, array indexes folded
# to [] and integer/real to number, true/false to boolean.
keys() {
	sqlite3 -separator $'\t' :memory: "select fullkey, case type when 'integer' then 'number'
		when 'real' then 'number' when 'true' then 'boolean' when 'false' then 'boolean'
		else type end from json_tree(readfile('$1'))" 2>/dev/null |
		sed -E 's/\[[0-9]+\]/[]/g' |
		grep -E '^\$\.(start\.connected\[\]\.|intervals\[\]\.sum\.|end\.sum_sent\.|end\.sum_received\.|end\.cpu_utilization_percent\.|end\.streams\[\]\.)' |
		sort -u
}

# compare NAME ARGS: the same test by iperf3 -J and netsweep --json-format iperf3.
compare() {
	local name=$1; shift
	local a=$TMP/iperf3.json b=$TMP/netsweep.json
	timeout 30 iperf3 -c 127.0.0.1 -p "$IPORT" -J "$@" >"$a" 2>"$TMP/iperf3.err"
	timeout 30 "$NS" probe -c "127.0.0.1:$APORT" --json-format iperf3 -J "$@" >"$b" 2>"$TMP/ns.err"
	local rc=$?
	if [ "$rc" != 0 ]; then fail "$name: netsweep ran" "exit $rc: $(head -c 300 "$TMP/ns.err")"; return; fi
	keys "$a" >"$TMP/ka"
	keys "$b" >"$TMP/kb"
	local total shared mism
	total=$(cut -f1 "$TMP/ka" | sort -u | wc -l)
	shared=$(cut -f1 "$TMP/ka" | sort -u | grep -cxFf <(cut -f1 "$TMP/kb"))
	# a key both have with another type (path present on both sides, pairs differ)
	mism=$(comm -23 <(sort "$TMP/ka") <(sort "$TMP/kb") | cut -f1 | grep -xFf <(cut -f1 "$TMP/kb") | head -5)
	if [ "$total" -lt 20 ]; then
		fail "$name: iperf3's keys read" "only $total keys in iperf3's JSON"
	elif [ $((shared * 100)) -ge $((total * 90)) ] && [ -z "$mism" ]; then
		pass "$name: $shared of $total iperf3 keys, same types"
	else
		fail "$name: iperf3 keys" "$shared of $total; missing: $(comm -23 <(cut -f1 "$TMP/ka" | sort -u) <(cut -f1 "$TMP/kb" | sort -u) | head -8 | tr '\n' ' ') type differs: $mism"
	fi
	# the iperf3 layout carries netsweep's own figures, not others
	local got want
	got=$(sqlite3 :memory: "select json_extract(readfile('$b'), '\$.end.sum_received.bytes')")
	want=$(sqlite3 :memory: "select json_extract(readfile('$b'), '\$.netsweep.sum.receiver.bytes')")
	if [ -n "$got" ] && [ "$got" = "$want" ] && [ "$got" -gt 0 ]; then
		pass "$name: end.sum_received is netsweep's receiver sum"
	else
		fail "$name: end.sum_received is netsweep's receiver sum" "'$got' vs '$want'"
	fi
}

compare "TCP -P 2 -i 0.5" -t 1 -P 2 -i 0.5
compare "TCP -R" -t 1 -R -i 0.5
compare "UDP -b 10M" -t 1 -u -b 10M -i 0.5

# --json-stream: one object a line, start first, end last, intervals between, each with
# its streams
timeout 30 "$NS" probe -c "127.0.0.1:$APORT" -t 1 -i 0.25 -P 2 --json-stream >"$TMP/stream" 2>"$TMP/stream.err"
lines=$(wc -l <"$TMP/stream")
bad=0 events=""
while IFS= read -r line; do
	printf '%s' "$line" >"$TMP/line"
	[ "$(sqlite3 :memory: "select json_valid(readfile('$TMP/line'))")" = 1 ] || bad=$((bad + 1))
	events="$events $(sqlite3 :memory: "select json_extract(readfile('$TMP/line'), '\$.event') ||
		coalesce(json_array_length(readfile('$TMP/line'), '\$.data.streams'), '')")"
done <"$TMP/stream"
if [ "$bad" = 0 ] && [ "$lines" -ge 4 ] && [[ "$events" =~ ^\ start(\ interval2)+\ end2$ ]]; then
	pass "--json-stream: $lines lines parse one by one:$events"
else
	fail "--json-stream" "$bad of $lines lines invalid; events:$events"
fi

# text habits
out=$TMP/text.log
timeout 30 "$NS" probe -c "127.0.0.1:$APORT" -t 1 -P 2 -f m --logfile "$out" --timestamps='[%Y] ' \
	--forceflush -V >"$TMP/stdout" 2>"$TMP/text.err"
rc=$?
year=$(date +%Y)
if [ "$rc" = 0 ] && [ ! -s "$TMP/stdout" ] && [ -s "$out" ] &&
	! grep -qv "^\[$year\] " "$out"; then
	pass "--logfile with --timestamps: every line in the file, stamped"
else
	fail "--logfile with --timestamps" "exit $rc, stdout $(wc -c <"$TMP/stdout") bytes: $(head -3 "$out")"
fi
if grep -qE '^\[[0-9]+\] \[  5\] .*Mbits/sec.* sender$' "$out" && grep -qE '^\[[0-9]+\] \[  6\] ' "$out" &&
	grep -qE '^\[[0-9]+\] \[SUM\] .*Mbits/sec.* receiver$' "$out" &&
	grep -qE '^\[[0-9]+\] \[  6\]  forward    0\.00-1\.00 .*Mbits/sec' "$out" &&
	grep -qE '^\[[0-9]+\] \[SUM\]  forward    0\.00-1\.00 .*Mbits/sec' "$out"; then
	pass "-P 2 -f m: a line per stream and [SUM], each interval and at the end, in Mbits/sec"
else
	fail "-P 2 -f m: per-stream lines and [SUM]" "$(cat "$out")"
fi
# one summary in the units asked: the stream table's [SUM] has the totals, the summary lines
# only what it has no column for; no MiB beside MBytes; "2 streams" (TCP and UDP alike)
one_summary() { # LOG: exactly one total per end, all in -f m's units
	[ "$(grep -cE '\[SUM\] +0\.00-.* (sender|receiver)$' "$1")" = 2 ] && ! grep -q 'MiB' "$1" &&
		grep -qE '^(\[[0-9]+\] )?netsweep probe: (tcp|udp) forward, .* 2 streams, ' "$1" &&
		grep -qE '^(\[[0-9]+\] )?  sender +[0-9]+ pkt/s' "$1"
}
timeout 30 "$NS" probe -c "127.0.0.1:$APORT" -t 1 -P 2 -u -b 20M -f m >"$TMP/udp2.log" 2>&1
timeout 30 "$NS" probe -c "127.0.0.1:$APORT" -t 1 -b 20M >"$TMP/one.log" 2>&1
if one_summary "$out" && one_summary "$TMP/udp2.log" &&
	grep -q '^netsweep probe: tcp forward, .* 1 stream, ' "$TMP/one.log"; then
	pass "-P 2 -f m: one summary in Mbits/sec and MBytes, TCP and UDP alike; '1 stream', '2 streams'"
else
	fail "-P 2 -f m: one summary in the units asked" "$(cat "$out" "$TMP/udp2.log" "$TMP/one.log")"
fi
if grep -q "CPU Utilization: local" "$out" && grep -q "^\[$year\] netsweep [0-9]" "$out"; then
	pass "-V: version and CPU utilization"
else
	fail "-V: version and CPU utilization" "$(head -5 "$out")"
fi
timeout 30 "$NS" probe 127.0.0.1 -s >/dev/null 2>"$TMP/hint.err"
rc=$?
if [ "$rc" = 2 ] && grep -q "netsweep agent" "$TMP/hint.err"; then
	pass "iperf3's -s is refused with a hint"
else
	fail "iperf3's -s hint" "exit $rc: $(cat "$TMP/hint.err")"
fi
timeout 30 "$NS" probe 127.0.0.1 -k my.key >/dev/null 2>"$TMP/hint.err"
rc=$?
if [ "$rc" = 2 ] && grep -q -- "--psk-file my.key" "$TMP/hint.err"; then
	pass "-k FILE: says -k is --blockcount and names --psk-file"
else
	fail "-k FILE hint" "exit $rc: $(cat "$TMP/hint.err")"
fi
# the agent's log: one summary a test, each line stamped, in the --logfile
n=$(grep -cE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z netsweep agent: 127\.0\.0\.1: test done; (forward|reverse) (sent|received) .* in [0-9.]+ s, .*bit/s, cpu' "$TMP/agentfile.log")
if [ "$n" -ge 5 ] && grep -q 'lost [0-9]*/[0-9]*' "$TMP/agentfile.log" && [ ! -s "$TMP/agent.log" ]; then
	pass "agent --logfile: $n test summaries, each stamped"
else
	fail "agent --logfile: test summaries" "$n summaries: $(tail -3 "$TMP/agentfile.log"; cat "$TMP/agent.log")"
fi
finish
