#!/bin/bash
# Group cases (matrix <group>, clients axis): a fan-out group of two loopback agents runs as
# one case — its tests start together (the spread is stored), the result is their total,
# each test is a group_clients row and the fairness is in v_group_fairness — and a runner
# killed with SIGKILL mid-run resumes: every (case, repeat) once, each group whole. One
# client's agent killed mid-case fails that client and the case, the other keeps its figures.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/lo_agent.sh"
lo_agent_setup run_group
RUNNER=
trap '[ -n "$RUNNER" ] && kill -KILL "$RUNNER" 2>/dev/null; lo_agent_cleanup' EXIT

start_agent "$TMP/a1.log" || { fail "agent 1 listens" "$(cat "$TMP/a1.log")"; exit 1; }
P1=$PORT
start_agent "$TMP/a2.log" || { fail "agent 2 listens" "$(cat "$TMP/a2.log")"; exit 1; }
P2=$PORT
cat >"$TMP/m.xml" <<X
<matrix name="group" repeats="3">
  <pairs>
    <group name="fan" kind="fan-out">
      <member name="a1" agent="127.0.0.1:$P1"/>
      <member name="a2" agent="127.0.0.1:$P2"/>
    </group>
  </pairs>
  <axes>
    <axis name="clients"><value>2</value><value>1</value></axis>
    <axis name="rate"><value>100M</value></axis>
    <axis name="duration"><value>1</value></axis>
  </axes>
</matrix>
X
DB=$TMP/g.db
q() { sqlite3 "$DB" "$1" 2>&1; }

if "$NS" run "$TMP/m.xml" --dry-run >"$TMP/dry" 2>&1 && grep -q "clients=2" "$TMP/dry"; then
	pass "the group matrix loads (run --dry-run) with its clients axis"
else
	fail "the group matrix loads" "$(cat "$TMP/dry")"
fi

"$NS" run "$TMP/m.xml" --db "$DB" >"$TMP/log1" 2>&1 &
RUNNER=$!
for _ in $(seq 400); do
	[ "$(sqlite3 "$DB" 'select count(*) from results' 2>/dev/null || echo 0)" -ge 2 ] && break
	sleep 0.05
done
kill -KILL "$RUNNER"
wait "$RUNNER" 2>/dev/null
RUNNER=
n1=$(q "select count(*) from results")
if [ "${n1:-0}" -ge 2 ] && [ "$n1" -lt 6 ]; then pass "killed mid-run with $n1 of 6 results in"
else fail "killed mid-run" "$n1 results: $(tail -n 2 "$TMP/log1")"; fi
timeout 120 "$NS" run "$TMP/m.xml" --db "$DB" --resume >"$TMP/log2" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q "resuming run 1: $n1 of 6 already done" "$TMP/log2"; then
	pass "--resume continues the run and exits 0"
else
	fail "--resume continues the run" "exit $rc: $(cat "$TMP/log2")"
fi
if [ "$(q 'select count(*) from (select case_id, repeat from results group by 1, 2)')" = 6 ] &&
	[ "$(q 'select count(*) from results')" = 6 ]; then
	pass "every (case, repeat) exactly once"
else
	fail "every (case, repeat) exactly once" "$(q 'select case_id, repeat, count(*) from results group by 1, 2')"
fi
# each group result whole: its group row, one client row per test, the total their sum
bad=$(q "select g.result_id, g.clients, (select count(*) from group_clients c where c.result_id = g.result_id)
	from group_results g where g.clients != (select count(*) from group_clients c where c.result_id = g.result_id)
	or g.clients != (select count(distinct client) from group_samples s where s.result_id = g.result_id)")
if [ "$(q 'select count(*) from group_results')" = 6 ] && [ -z "$bad" ]; then
	pass "every group result has its group row, a row and samples per test"
else
	fail "every group result whole" "$(q 'select count(*) from group_results') groups; $bad"
fi
sums=$(q "select count(*) from v_group_fairness f join v_results r on r.result_id = f.result_id
	where f.status = 'ok' and abs(f.total_bps - r.goodput_bps) <= 1e-6 * r.goodput_bps
	and abs(f.total_bps - (select sum(rcv_bps) from group_clients c where c.result_id = f.result_id)) <= 1e-6 * f.total_bps")
if [ "$sums" = 6 ]; then pass "each total is its tests' sum, and the result's goodput"
else fail "totals are sums" "$sums of 6: $(q 'select result_id, status, total_bps from v_group_fairness')"; fi
if [ "$(q "select count(*) from v_group_fairness where kind = 'fan-out' and clients = 2 and start_spread_ms >= 0 and start_spread_ms < 5000 and start_dispatched = 0")" = 3 ]; then
	pass "the two-client cases say how far apart their tests began ($(q 'select group_concat(round(start_spread_ms, 2), " ") from v_group_fairness where clients = 2') ms)"
else
	fail "start spread stored" "$(q 'select result_id, clients, start_spread_ms from v_group_fairness')"
fi
# equal paced flows share fairly, unless a sender was the limit (then the flag says so)
while IFS='|' read -r id jain lim; do
	if [ "$lim" = 1 ]; then
		pass "result $id: a sender was the limit (jain $jain not judged)"
	elif awk -v j="$jain" 'BEGIN { exit !(j >= 0.95) }'; then
		pass "result $id: equal paced flows, Jain's index $jain >= 0.95"
	else
		fail "result $id: fairness" "jain $jain: $(q "select name, rcv_mbps, limited_by from v_group_clients where result_id = $id")"
	fi
done < <(q "select f.result_id, f.jain, max(c.sender_limited) from v_group_fairness f join group_clients c on c.result_id = f.result_id where f.clients = 2 group by 1")
if [ "$(q "select count(*) from v_group_clients where share is not null and fair_ratio is not null")" = 9 ]; then
	pass "v_group_clients: each test's share and fair ratio"
else
	fail "v_group_clients shares" "$(q 'select result_id, client, share, fair_ratio from v_group_clients')"
fi
if [ "$(q 'pragma integrity_check')" = ok ] && [ -z "$(q 'pragma foreign_key_check')" ]; then
	pass "integrity_check and foreign_key_check ok"
else
	fail "integrity_check and foreign_key_check ok"
fi

# The report: fairness in the results and ranking tables (index.html and report.md alike),
# a chart of each client's rate, and a finding only where a client got under half its fair
# share — none here (equal paced flows), one after a copy's slowest share is set to 0.3.
if "$NS" report --db "$DB" -o "$TMP/rep" >"$TMP/replog" 2>&1 &&
	grep -q "Jain's index (clients)" "$TMP/rep/index.html" &&
	grep -q "Fairness (Jain's index)" "$TMP/rep/index.html" &&
	grep -q "^| Rank .*| Fairness (Jain's index) |" "$TMP/rep/report.md" &&
	grep -q "Clients over time" "$TMP/rep/index.html" && ! grep -q "fair share in" "$TMP/rep/report.md"; then
	pass "report: Jain's index in the results and ranking tables, the clients' chart, no sharing finding"
else
	fail "report of group cases" "$(cat "$TMP/replog"; ls "$TMP/rep" 2>&1 | tr '\n' ' ')"
fi
cp "$DB" "$TMP/starved.db"
sqlite3 "$TMP/starved.db" "update group_results set min_of_fair = 0.3 where clients = 2 and result_id = (select min(result_id) from group_results where clients = 2)"
"$NS" report --db "$TMP/starved.db" -o "$TMP/rep2" >"$TMP/replog2" 2>&1
if grep -q "A client got less than half its fair share in .*: the slowest of its 2 clients moved 30 %" "$TMP/rep2/report.md" &&
	grep -q "A client got less than half its fair share" "$TMP/rep2/index.html"; then
	pass "report: a client under half its fair share is a finding, in both files"
else
	fail "report: sharing finding" "$(grep -i "fair" "$TMP/rep2/report.md" | head -n 5; cat "$TMP/replog2")"
fi

# One test of a group dies mid-case (its agent killed): the other finishes with its own
# figures, the case is stored failed naming that client, and nothing else is disturbed.
start_agent "$TMP/a3.log" || { fail "agent 3 listens" "$(cat "$TMP/a3.log")"; finish; exit; }
P3=$PORT A3=${PIDS[-1]}
sed -e "s/127.0.0.1:$P2/127.0.0.1:$P3/" -e 's/repeats="3"/repeats="1"/' \
	-e 's|<value>2</value><value>1</value>|<value>2</value>|' "$TMP/m.xml" |
	sed 's|<axis name="duration"><value>1</value></axis>|<axis name="duration"><value>4</value></axis>|' >"$TMP/k.xml"
DB=$TMP/k.db
"$NS" run "$TMP/k.xml" --db "$DB" >"$TMP/logk" 2>&1 &
RUNNER=$!
sleep 2 # mid-case: its 4 s have begun (setup takes well under a second)
kill -KILL "$A3"
wait "$RUNNER"
RUNNER=
row=$(q "select status, error like '%client a2:%' from results")
ok1=$(q "select status || ' ' || (rcv_bps > 0.8 * 100e6 or sender_limited = 1) from group_clients where name = 'a1'")
bad=$(q "select status from group_clients where name = 'a2'")
if [ "$row" = "failed|1" ] && [ "$ok1" = "ok 1" ] && [ "$bad" = failed ]; then
	pass "a client killed mid-case: the case failed naming it, the other client ok with its rate ($(q "select round(rcv_mbps) from v_group_clients where name = 'a1'") Mbit/s of 100)"
else
	fail "a client killed mid-case" "result '$row', a1 '$ok1', a2 '$bad': $(tail -n 3 "$TMP/logk")"
fi
finish
