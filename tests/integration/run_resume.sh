#!/bin/bash
# A runner killed with SIGKILL mid-run loses at most the case in flight: --resume continues
# the same run, runs only what is missing, and afterwards every (case, repeat) is there
# exactly once, the results from before the kill are unchanged and integrity_check is ok.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
RUNNER=
trap '[ -n "$RUNNER" ] && kill -KILL "$RUNNER" 2>/dev/null; rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
# A private copy of the binary: a colleague's rebuild must not pull it away mid-test.
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

cat >"$T/m.xml" <<'X'
<matrix name="resume" repeats="2" order="shuffled" seed="7">
  <axes>
    <axis name="streams"><value>1</value><value>2</value><value>3</value></axis>
    <axis name="rate"><value>100M</value></axis>
    <axis name="duration"><value>0.5</value></axis>
  </axes>
</matrix>
X
DB=$T/r.db
q() { sqlite3 "$DB" "$1" 2>&1; }
# results_of MATRIX: how many results the runs of that matrix have (0 before the db exists).
results_of() {
	local n
	n=$(sqlite3 "$DB" "select count(*) from results r join cases c on c.id = r.case_id join runs u on u.id = c.run_id where u.matrix_name = '$1'" 2>/dev/null)
	echo "${n:-0}"
}
# signal_after MATRIX N SIG: once MATRIX has N results (polled, at most 15 s), SIG to the runner.
signal_after() {
	for _ in $(seq 300); do
		[ "$(results_of "$1")" -ge "$2" ] && break
		sleep 0.05
	done
	kill "-$3" "$RUNNER"
}

"$NETSWEEP" run "$T/m.xml" --db "$DB" >"$T/log1" 2>&1 &
RUNNER=$!
signal_after resume 2 KILL
wait "$RUNNER" 2>/dev/null
RUNNER=
n1=$(q "select count(*) from results")
if [ "${n1:-0}" -ge 2 ] && [ "$n1" -lt 6 ]; then
	pass "killed mid-run with $n1 of 6 results in"
else
	fail "killed mid-run" "$n1 results when killed: $(tail -n 2 "$T/log1")"
fi
before=$(q "select id, case_id, repeat, status, fwd_rcv_bps, started_at from results order by id")
if [ "$(q 'select status from runs')" = running ]; then pass "the killed run stays unfinished"; else fail "the killed run stays unfinished" "$(q 'select status from runs')"; fi
# The forked agent dies with its runner.
port=$(q "select substr(agent_addr, instr(agent_addr, ':') + 1) from endpoints")
for _ in $(seq 40); do ss -Hltn "sport = :$port" | grep -q . || break; sleep 0.05; done
if ss -Hltn "sport = :$port" | grep -q .; then fail "the loopback agent died with the runner" "port $port still listens"; else pass "the loopback agent died with the runner"; fi

timeout 60 "$NETSWEEP" run "$T/m.xml" --db "$DB" --resume >"$T/log2" 2>&1
rc=$?
if [ "$rc" = 0 ]; then pass "--resume exits 0"; else fail "--resume exits 0" "exit $rc: $(tail -n 3 "$T/log2")"; fi
if grep -q "resuming run 1: $n1 of 6 already done" "$T/log2"; then pass "--resume continues run 1"; else fail "--resume continues run 1" "$(head -n 2 "$T/log2")"; fi
if [ "$(q 'select count(*) from runs')" = 1 ] && [ "$(q 'select status from runs')" = done ]; then
	pass "one run, now done"
else
	fail "one run, now done" "$(q 'select id, status from runs')"
fi
if [ "$(q 'select count(*) from results')" = 6 ] &&
	[ "$(q 'select count(*) from (select case_id, repeat from results group by 1, 2)')" = 6 ] &&
	[ "$(q 'select count(*) from cases')" = 3 ]; then
	pass "every (case, repeat) exactly once"
else
	fail "every (case, repeat) exactly once" "$(q 'select case_id, repeat, count(*) from results group by 1, 2')"
fi
after=$(q "select id, case_id, repeat, status, fwd_rcv_bps, started_at from results order by id limit $n1")
if [ "$before" = "$after" ]; then pass "the results from before the kill are unchanged"; else fail "the results from before the kill are unchanged"; fi
if [ "$(q 'pragma integrity_check')" = ok ] && [ -z "$(q 'pragma foreign_key_check')" ]; then
	pass "integrity_check and foreign_key_check ok"
else
	fail "integrity_check and foreign_key_check ok"
fi
# SIGINT: the case in flight finishes, the run is marked interrupted, exit 1; --resume ends it.
sed 's/name="resume"/name="interrupt"/' "$T/m.xml" >"$T/i.xml"
"$NETSWEEP" run "$T/i.xml" --db "$DB" >"$T/log3" 2>&1 &
RUNNER=$!
signal_after interrupt 1 INT
wait "$RUNNER"
rc=$?
RUNNER=
st=$(q "select status from runs where matrix_name = 'interrupt'")
n=$(q "select count(*) from results r join cases c on c.id = r.case_id join runs u on u.id = c.run_id where u.matrix_name = 'interrupt' and r.status = 'ok'")
if [ "$rc" = 1 ] && [ "$st" = interrupted ] && [ "$n" -ge 1 ] && [ "$n" -lt 6 ] && grep -q "continue with --resume" "$T/log3"; then
	pass "SIGINT: the case in flight finishes, the run is interrupted ($n of 6), exit 1"
else
	fail "SIGINT" "exit $rc, status $st, $n ok results: $(tail -n 2 "$T/log3")"
fi
"$NETSWEEP" run "$T/i.xml" --db "$DB" --resume --quiet
if [ $? = 0 ] && [ "$(q "select status from runs where matrix_name = 'interrupt'")" = done ]; then
	pass "--resume finishes the interrupted run"
else
	fail "--resume finishes the interrupted run"
fi

# SIGTERM to the runner's whole process group mid-case (timeout, a service manager): the forked
# loopback agent has a group of its own, so nothing in flight is stored as failed, the run is
# interrupted, and --resume runs what is left: every (case, repeat) exactly once, all ok.
sed 's/name="resume"/name="term"/; s|<value>0.5</value>|<value>1</value>|' "$T/m.xml" >"$T/t.xml"
setsid "$NETSWEEP" run "$T/t.xml" --db "$DB" >"$T/log4" 2>&1 &
RUNNER=$!
for _ in $(seq 300); do
	[ "$(results_of term)" -ge 1 ] && break
	sleep 0.05
done
sleep 0.4 # into the next 1 s case
pgid=$(ps -o pgid= -p "$RUNNER" | tr -d ' ')
if [ "$pgid" = "$RUNNER" ]; then
	kill -TERM -- "-$pgid"
else
	fail "SIGTERM to the process group" "the runner $RUNNER is not its group's leader ($pgid)"
	kill -TERM "$RUNNER"
fi
wait "$RUNNER"
rc=$?
RUNNER=
st=$(q "select status from runs where matrix_name = 'term'")
term_results() { q "select count(*) from results r join cases c on c.id = r.case_id join runs u on u.id = c.run_id where u.matrix_name = 'term' $1"; }
nok=$(term_results "and r.status = 'ok'")
nbad=$(term_results "and r.status <> 'ok'")
if [ "$rc" = 1 ] && [ "$st" = interrupted ] && [ "$nbad" = 0 ] && [ "$nok" -ge 1 ] && [ "$nok" -lt 6 ]; then
	pass "SIGTERM to the process group: nothing stored as failed, the run is interrupted ($nok of 6), exit 1"
else
	fail "SIGTERM to the process group" "exit $rc, status $st, $nok ok, $nbad not ok: $(q "select error from results where status <> 'ok'") $(tail -n 2 "$T/log4")"
fi
timeout 60 "$NETSWEEP" run "$T/t.xml" --db "$DB" --resume --quiet
rc=$?
if [ "$rc" = 0 ] && [ "$(q "select count(*) from runs where matrix_name = 'term'")" = 1 ] &&
	[ "$(q "select status from runs where matrix_name = 'term'")" = done ] &&
	[ "$(term_results "and r.status = 'ok'")" = 6 ] && [ "$(term_results "")" = 6 ] &&
	[ "$(q "select count(distinct r.case_id || ':' || r.repeat) from results r join cases c on c.id = r.case_id join runs u on u.id = c.run_id where u.matrix_name = 'term'")" = 6 ]; then
	pass "--resume after SIGTERM to the group reruns the interrupted case: every (case, repeat) exactly once, all ok"
else
	fail "--resume after SIGTERM to the group" "exit $rc: $(q "select c.case_key, r.repeat, r.status, r.error from results r join cases c on c.id = r.case_id join runs u on u.id = c.run_id where u.matrix_name = 'term'")"
fi

# SIGKILL at arbitrary moments (startup, case insertion, mid-case, mid-commit), resuming each
# time: in the end still every (case, repeat) exactly once and a sound database.
cat >"$T/k.xml" <<'X'
<matrix name="kills" repeats="3">
  <axes>
    <axis name="streams"><value>1</value><value>2</value><value>3</value><value>4</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="duration"><value>0.2</value></axis>
  </axes>
</matrix>
X
for delay in 0.05 0.2 0.35 0.5 0.65 0.8; do
	"$NETSWEEP" run "$T/k.xml" --db "$DB" --resume --quiet >/dev/null 2>&1 &
	RUNNER=$!
	sleep "$delay"
	kill -KILL "$RUNNER" 2>/dev/null
	wait "$RUNNER" 2>/dev/null
done
RUNNER=
"$NETSWEEP" run "$T/k.xml" --db "$DB" --resume --quiet
rc=$?
# (Should the run have finished between two kills, the next --resume starts a second run:
# each run is checked on its own.)
runs=$(q "select count(*) from runs where matrix_name = 'kills'")
done_runs=$(q "select count(*) from runs u where matrix_name = 'kills' and status = 'done' and (select count(distinct c.id || ':' || r.repeat) from results r join cases c on c.id = r.case_id where c.run_id = u.id) = 12")
if [ "$rc" = 0 ] && [ "$runs" -ge 1 ] && [ "$done_runs" = "$runs" ] &&
	[ "$(results_of kills)" = $((12 * runs)) ] && [ "$(q 'pragma integrity_check')" = ok ]; then
	pass "six kills at arbitrary moments, then --resume: every (case, repeat) exactly once ($runs run(s)), integrity ok"
else
	fail "kills at arbitrary moments" "exit $rc, $runs runs, $done_runs complete, $(results_of kills) results"
fi

dump=$(sqlite3 "$DB" .dump | md5sum)
"$NETSWEEP" run "$T/m.xml" --db "$DB" --resume --dry-run >/dev/null 2>&1
if [ "$(sqlite3 "$DB" .dump | md5sum)" = "$dump" ]; then pass "--dry-run with --resume writes nothing"; else fail "--dry-run with --resume writes nothing"; fi
finish
