#!/bin/bash
# What a night brings, over loopback: an agent killed mid-run and back 2 s later (every later
# case succeeds in the same run); an agent stopped for good (its remaining cases fail within a
# bounded time, exit 1 naming the pair, and --resume --retry-failed completes the same run);
# pairs of runners started at once on a fresh database (both succeed, integrity_check ok;
# NETSWEEP_LONG=1, as make check-long sets it, runs 50 pairs instead of 3); two --resumes of
# one run at once (each case measured once: the leases keep them apart).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
AGENT=
cleanup() {
	[ -n "$AGENT" ] && kill -KILL "$AGENT" 2>/dev/null
	jobs -p | xargs -r kill -KILL 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export NETSWEEP_IMDS=0
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep
PORT=7010 # issue 10's range: the agent comes back on the same port

# agent_up: starts the agent on $PORT and waits until it listens.
agent_up() {
	"$NETSWEEP" agent --listen 127.0.0.1:$PORT >"$T/agent.log" 2>&1 &
	AGENT=$!
	for _ in $(seq 100); do grep -q 'port [0-9]' "$T/agent.log" && return 0; sleep 0.05; done
	return 1
}
agent_kill() { kill -KILL "$AGENT" 2>/dev/null; wait "$AGENT" 2>/dev/null; AGENT=; }
# wait_ok LOG N: until the runner's log shows N ok cases (at most 20 s).
wait_ok() {
	for _ in $(seq 400); do [ "$(grep -c '] ok ' "$1" 2>/dev/null)" -ge "$2" ] && return 0; sleep 0.05; done
	return 1
}

cat >"$T/m.xml" <<X
<matrix name="survive" agent-wait="10s">
  <pairs><pair name="night" agent="127.0.0.1:$PORT"/></pairs>
  <axes>
    <axis name="streams"><value>1</value><value>2</value><value>3</value><value>4</value>
      <value>5</value><value>6</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="duration"><value>0.4</value></axis>
  </axes>
</matrix>
X
DB=$T/s.db
q() { sqlite3 "$DB" "$1" 2>&1; }

# 1. Killed after the second case, back 2 s later.
if ! agent_up; then fail "agent starts" "$(head -c 300 "$T/agent.log")"; finish; exit; fi
"$NETSWEEP" run "$T/m.xml" --db "$DB" >"$T/run1.log" 2>&1 &
RUN=$!
wait_ok "$T/run1.log" 2
agent_kill
sleep 2
agent_up
wait "$RUN"
rc=$?
run=$(q "select max(id) from runs")
runs=$(q "select count(*) from runs")
ok=$(q "select count(*) from results where status = 'ok'")
failed=$(q "select count(*) from results where status = 'failed'")
# after the last failure (the case in flight at the kill, if any) every case is ok
late_bad=$(q "select count(*) from results where status = 'failed' and started_at > (select min(started_at) from results where status = 'failed')")
if [ "$runs" = 1 ] && [ "$ok" -ge 5 ] && [ "$failed" -le 1 ] && [ "$late_bad" = 0 ] &&
	[ $((ok + failed)) = 6 ] && grep -q "agent 127.0.0.1:$PORT is back" "$T/run1.log" &&
	{ [ "$rc" = 0 ] || [ "$failed" = 1 ]; }; then
	pass "agent killed and back after 2 s: every later case ok in the same run ($ok ok, $failed in flight)"
else
	fail "agent killed and back after 2 s" "exit $rc, runs $runs, $ok ok, $failed failed: $(tail -n 5 "$T/run1.log")"
fi

# 2. Stopped for good after the second case: agent-wait 2 s, then the pair is down.
sed 's/agent-wait="10s"/agent-wait="2s"/; s/name="survive"/name="survive-down"/' "$T/m.xml" >"$T/down.xml"
"$NETSWEEP" run "$T/down.xml" --db "$DB" >"$T/run2.log" 2>&1 &
RUN=$!
wait_ok "$T/run2.log" 2
agent_kill
t0=$(date +%s)
wait "$RUN"
rc=$?
took=$(( $(date +%s) - t0 ))
run=$(q "select max(id) from runs")
notrun=$(q "select count(*) from results r join cases c on c.id = r.case_id where c.run_id = $run and r.error like 'not run: pair night is down%'")
status=$(q "select status from runs where id = $run")
if [ "$rc" = 1 ] && [ "$took" -le 15 ] && [ "$notrun" -ge 2 ] && [ "$status" = failed ] &&
	grep -q "down: night (127.0.0.1:$PORT); $notrun cases failed without being run" "$T/run2.log"; then
	pass "agent gone for good: the rest fails in ${took} s, exit 1, names the pair ($notrun not run)"
else
	fail "agent gone for good" "exit $rc after ${took} s, $notrun not run, status $status: $(tail -n 3 "$T/run2.log")"
fi
agent_up
"$NETSWEEP" run "$T/down.xml" --db "$DB" --resume --retry-failed >"$T/run3.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ "$(q "select count(*) from runs where matrix_name = 'survive-down'")" = 1 ] &&
	[ "$(q "select count(*) from results r join cases c on c.id = r.case_id where c.run_id = $run and r.status = 'ok'")" = 6 ] &&
	[ "$(q "select status from runs where id = $run")" = done ]; then
	pass "--resume --retry-failed completes the same run: 6 ok"
else
	fail "--resume --retry-failed" "exit $rc: $(tail -n 3 "$T/run3.log")"
fi
agent_kill

# 3. Pairs of runners started together on a fresh database.
cat >"$T/lo.xml" <<'X'
<matrix name="lo"><axes><axis name="rate"><value>10M</value></axis>
  <axis name="duration"><value>0.1</value></axis></axes></matrix>
X
pairs=3
[ "${NETSWEEP_LONG:-0}" = 1 ] && pairs=50
bad=0 why=
for i in $(seq "$pairs"); do
	F=$T/fresh$i.db
	"$NETSWEEP" run "$T/lo.xml" --db "$F" --quiet >"$T/a.log" 2>&1 &
	A=$!
	"$NETSWEEP" run "$T/lo.xml" --db "$F" --quiet >"$T/b.log" 2>&1 &
	B=$!
	wait "$A"; ra=$?
	wait "$B"; rb=$?
	ic=$(sqlite3 "$F" "pragma integrity_check" 2>&1)
	n=$(sqlite3 "$F" "select count(distinct r.id) || '/' || count(x.id) from runs r left join cases c on c.run_id = r.id left join results x on x.case_id = c.id where x.status = 'ok'" 2>&1)
	if [ "$ra$rb" != 00 ] || [ "$ic" != ok ] || [ "$n" != 2/2 ]; then
		bad=$((bad + 1)); why="pair $i: exits $ra $rb, integrity $ic, runs/results $n: $(cat "$T/a.log" "$T/b.log" | head -c 300)"
	fi
	rm -f "$F" "$F-wal" "$F-shm"
done
if [ "$bad" = 0 ]; then
	pass "$pairs pairs of simultaneous runs on fresh databases: all succeed, 2 runs each, integrity ok"
else
	fail "simultaneous runs" "$bad of $pairs pairs failed; $why"
fi

# 4. Two --resumes of one interrupted run at once: each missing case measured exactly once.
cat >"$T/r.xml" <<'X'
<matrix name="two-resumes">
  <axes>
    <axis name="streams"><value>1</value><value>2</value><value>3</value><value>4</value>
      <value>5</value><value>6</value><value>7</value><value>8</value></axis>
    <axis name="rate"><value>10M</value></axis>
    <axis name="duration"><value>0.3</value></axis>
  </axes>
</matrix>
X
R=$T/r.db
"$NETSWEEP" run "$T/r.xml" --db "$R" >"$T/r0.log" 2>&1 &
RUN=$!
wait_ok "$T/r0.log" 1
kill -INT "$RUN"
wait "$RUN"
before=$(sqlite3 "$R" "select count(*) from results")
"$NETSWEEP" run "$T/r.xml" --db "$R" --resume >"$T/r1.log" 2>&1 &
A=$!
"$NETSWEEP" run "$T/r.xml" --db "$R" --resume >"$T/r2.log" 2>&1 &
B=$!
wait "$A"; ra=$?
wait "$B"; rb=$?
measured=$(cat "$T/r1.log" "$T/r2.log" | grep -c '\] ok ')
dup=$(cat "$T/r1.log" "$T/r2.log" | grep -c 'already stored by another runner')
total=$(sqlite3 "$R" "select count(*) || '/' || count(distinct case_id) from results where status = 'ok'")
runs=$(sqlite3 "$R" "select count(*) from runs")
leases=$(sqlite3 "$R" "select count(*) from case_leases")
if [ "$ra$rb" = 00 ] && [ "$runs" = 1 ] && [ "$total" = 8/8 ] && [ "$dup" = 0 ] &&
	[ "$measured" = $((8 - before)) ] && [ "$leases" = 0 ] &&
	[ "$(sqlite3 "$R" "select status from runs")" = done ]; then
	pass "two --resumes of one run: $measured missing cases measured once each, none twice"
else
	fail "two --resumes of one run" "exits $ra $rb, runs $runs, results $total, measured $measured of $((8 - before)), $dup twice, $leases leases left: $(tail -n 2 "$T/r1.log" "$T/r2.log")"
fi
finish
