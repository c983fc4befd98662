#!/bin/bash
# Where the engine threads ran (issue 41): probe -A 0 --agent-affinity LAST on loopback; while
# the test runs, the agent's own threads pinned to one CPU are read from the kernel
# (/proc/PID/task/*/status Cpus_allowed_list), and the result must record exactly those
# (agent_cpus, one per thread) and the client's (client_cpus), with cpu_placement "given";
# -A none records "none" and no CPUs; the text output says the placement; --skip-rx-copy
# labels the receiver's path and every result carries both ends' CPU seconds per GB.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/lo_agent.sh"
command -v sqlite3 >/dev/null || { skip "probe placement" "sqlite3 is not installed"; exit 0; }
n=$(nproc)
[ "$n" -ge 2 ] || { skip "probe placement" "one CPU: nothing to place"; exit 0; }
lo_agent_setup probe_placement
start_agent "$TMP/agent.log" || { fail "agent on loopback" "$(cat "$TMP/agent.log")"; exit 1; }
AGENT=${PIDS[-1]}
LAST=$((n - 1))
js() { sqlite3 :memory: "select json_extract(readfile('$1'), '$2')"; }

"$NS" probe 127.0.0.1 -p "$PORT" -P 2 -t 3 -i 0 -A 0 --agent-affinity "$LAST" --skip-rx-copy \
	--json >"$TMP/p.json" 2>"$TMP/p.err" &
probe=$!
seen=
for _ in $(seq 40); do # the agent's threads pinned to one CPU while the test runs
	sleep 0.1
	seen=$(for s in /proc/"$AGENT"/task/*/status; do
		awk '$1 == "Cpus_allowed_list:" && $2 ~ /^[0-9]+$/ { print $2 }' "$s" 2>/dev/null
	done | sort | tr '\n' ' ')
	[ -n "$seen" ] && break
done
wait "$probe"
rc=$?
want="$LAST,$LAST"
if [ "$rc" = 0 ] && [ "$(js "$TMP/p.json" '$.agent_cpus')" = "$want" ] &&
	[ "$seen" = "$LAST $LAST " ] && [ "$(js "$TMP/p.json" '$.client_cpus')" = "0,0" ] &&
	[ "$(js "$TMP/p.json" '$.cpu_placement')" = given ]; then
	pass "the placement recorded is the one the kernel applied: agent threads on $seen, client 0,0"
else
	fail "the placement recorded is the one applied" "exit $rc, agent_cpus '$(js "$TMP/p.json" '$.agent_cpus')', the agent's pinned threads '$seen', client '$(js "$TMP/p.json" '$.client_cpus')': $(head -c 300 "$TMP/p.err")"
fi
got=$(sqlite3 :memory: "select json_extract(j, '\$.rx_path') || '|' ||
	(json_extract(j, '\$.sum.sender.cpu_s_per_gb') > 0) || '|' ||
	(json_extract(j, '\$.sum.receiver.cpu_s_per_gb') > 0) from (select readfile('$TMP/p.json') as j)")
if [ "$got" = "skip|1|1" ]; then
	pass "--skip-rx-copy is labelled (rx_path skip); both ends' CPU seconds per GB are there"
else
	fail "--skip-rx-copy labelled, CPU per GB on both ends" "'$got' (want skip|1|1)"
fi
"$NS" probe 127.0.0.1 -p "$PORT" -t 0.5 -i 0 -A none >"$TMP/t.txt" 2>&1
"$NS" probe 127.0.0.1 -p "$PORT" -t 0.5 -i 0 -A none --json >"$TMP/n.json" 2>&1
if grep -q '^CPU placement: none' "$TMP/t.txt" && grep -q '^CPU per GB: sender' "$TMP/t.txt" &&
	[ "$(js "$TMP/n.json" '$.cpu_placement')|$(js "$TMP/n.json" '$.agent_cpus')" = "none|" ]; then
	pass "-A none: recorded unpinned, said in the text output"
else
	fail "-A none recorded unpinned" "$(grep CPU "$TMP/t.txt"; js "$TMP/n.json" '$.cpu_placement')"
fi
finish
