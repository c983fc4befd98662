#!/bin/bash
# Provisioning hooks against a fake provisioner (tests/lib/fake_provision.sh: a namespace
# and an agent per pair). A run sets every pair up (in parallel), runs every case on the
# addresses the setups printed, tears everything down and stores each hook's record; a setup
# that fails half-way fails only its pair's cases and is still torn down; SIGTERM mid-run
# still tears down; a run killed with SIGKILL leaves its namespaces, and --resume removes them.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
if [ "$(id -u)" != 0 ] || ! ip netns list >/dev/null 2>&1; then
	skip "run hooks" "network namespaces need root and iproute2"
	exit 0
fi
T=$(mktemp -d) || exit 1
export FAKE_PREFIX=nsh$$ FAKE_LOG=$T/hooks.log NETSWEEP_IMDS=0
RUNNER=
cleanup() {
	[ -n "$RUNNER" ] && kill -KILL "$RUNNER" 2>/dev/null
	for ns in $(ip netns list | awk '{print $1}' | grep "^$FAKE_PREFIX-"); do
		for pid in $(ip netns pids "$ns"); do kill -KILL "$pid" 2>/dev/null; done
		ip netns del "$ns"
	done
	rm -rf "$T"
}
trap cleanup EXIT
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
export NETSWEEP=$T/netsweep
"$NETSWEEP" key "$T/psk.key" && export NETSWEEP_PSK_FILE=$T/psk.key
FP=$HERE/../lib/fake_provision.sh
left() { ip netns list 2>/dev/null | awk '{print $1}' | grep -c "^$FAKE_PREFIX-"; }

# pairs N...: a <pair> per argument ("3:fail" = a setup that fails)
matrix() {
	local name=$1 dur=$2 streams=$3; shift 3
	echo "<matrix name=\"$name\" cooldown=\"0s\" case-timeout=\"10s\"><pairs>"
	for a in "$@"; do
		local n=${a%%:*} mode=
		[ "$a" != "$n" ] && mode=" ${a#*:}"
		echo "<pair name=\"p$n\" instance-type=\"fake.$n\" region=\"lab-$n\">"
		echo "  <setup timeout=\"30s\" wait=\"10s\">bash $FP setup $n$mode</setup>"
		echo "  <teardown timeout=\"30s\">bash $FP teardown $n</teardown></pair>"
	done
	echo "</pairs><axes><axis name=\"streams\">"
	for s in $(seq "$streams"); do echo "<value>$s</value>"; done
	echo "</axis><axis name=\"rate\"><value>50M</value></axis>"
	echo "<axis name=\"duration\"><value>$dur</value></axis></axes></matrix>"
}

matrix three 0.3 2 1 2 3:fail >"$T/m.xml"
DB=$T/h.db
q() { sqlite3 "$DB" "$1" 2>&1; }
"$NETSWEEP" run "$T/m.xml" --db "$DB" --jobs 2 >"$T/log" 2>&1
rc=$?
if [ "$rc" = 1 ] && [ "$(q "select count(*) from v_results where status = 'ok' and endpoint in ('p1', 'p2')")" = 4 ]; then
	pass "every case of the provisioned pairs ran on the setups' agents"
else
	fail "every case of the provisioned pairs ran on the setups' agents" "exit $rc: $(tail -n 5 "$T/log")"
fi
if [ "$(q "select count(*) from v_results where endpoint = 'p3' and status = 'failed' and error like '%p3 setup: exit status 3: fake: no capacity%'")" = 2 ]; then
	pass "a failed setup fails its pair's cases, saying why"
else
	fail "a failed setup fails its pair's cases, saying why" "$(q "select endpoint, status, error from v_results where endpoint = 'p3'")"
fi
if [ "$(q "select agent_addr from endpoints where name = 'p2'")" = 10.212.2.2:7212 ]; then pass "the endpoint records the setup's agent address"; else fail "the endpoint records the setup's agent address" "$(q 'select name, agent_addr from endpoints')"; fi
if [ "$(left)" = 0 ] && [ -z "$(pgrep -f "$T/netsweep agent")" ]; then
	pass "teardown removed every namespace and agent, the failed pair's too"
else
	fail "teardown removed every namespace and agent, the failed pair's too" "$(ip netns list | grep "$FAKE_PREFIX")"
fi
want="p1|setup|ok|0|i-fake1
p1|teardown|ok|0|
p2|setup|ok|0|i-fake2
p2|teardown|ok|0|
p3|setup|failed|3|
p3|teardown|ok|0|"
got=$(q "select pair, kind, status, exit_code, coalesce(json_extract(output, '\$.instance_id'), '') from hooks order by pair, kind")
if [ "$got" = "$want" ] && [ "$(q "select count(*) from hooks where finished_at >= started_at and attempt = 1 and stderr like 'fake:%' and
	(stderr like '%fake: started an agent in %' or stderr like '%fake: no capacity%' or stderr like '%fake: removed %')")" = 6 ]; then
	pass "hook records: status, exit code, output, stderr, times"
else
	# which row broke the second half: the stderr kept must be all the hook's own, first
	# line to last (a teardown once began with ip's words on another test's namespace)
	fail "hook records: status, exit code, output, stderr, times" "$got; rows with times, attempt and stderr: $(q "select pair || ' ' || kind || ' attempt ' || attempt || ' ' || started_at || ' .. ' || coalesce(finished_at, 'NULL') || ' stderr ' || quote(substr(stderr, 1, 60)) from hooks order by pair, kind" | tr '\n' ';')"
fi
if grep -q "^setup p2 fake.2 lab-2 1 1$" "$FAKE_LOG" && grep -q "^teardown p3 fake.3 lab-3 1 1$" "$FAKE_LOG"; then
	pass "hooks get the pair's name, instance type, region, attempt and run id"
else
	fail "hooks get the pair's name, instance type, region, attempt and run id" "$(cat "$FAKE_LOG")"
fi
billed=$(q "select round(billed_s, 1) from v_endpoint_billed where endpoint = 'p1'")
span=$(q "select round((julianday(max(finished_at)) - julianday(min(started_at))) * 86400, 1) from hooks where pair = 'p1'")
if [ -n "$billed" ] && [ "$billed" = "$span" ]; then pass "billed time: setup start to teardown end ($billed s)"; else fail "billed time: setup start to teardown end" "$billed vs $span"; fi

# SIGTERM mid-run: the runner stops, and still tears down.
matrix term 1 6 1 >"$T/t.xml"
: >"$FAKE_LOG"
"$NETSWEEP" run "$T/t.xml" --db "$T/t.db" >"$T/log" 2>&1 &
RUNNER=$!
for _ in $(seq 200); do [ "$(sqlite3 "$T/t.db" 'select count(*) from results' 2>/dev/null)" -ge 1 ] 2>/dev/null && break; sleep 0.1; done
kill -TERM "$RUNNER"
wait "$RUNNER"
RUNNER=
if [ "$(left)" = 0 ] && grep -q "^teardown p1" "$FAKE_LOG" && [ "$(sqlite3 "$T/t.db" 'select status from runs')" = interrupted ]; then
	pass "SIGTERM: interrupted, torn down"
else
	fail "SIGTERM: interrupted, torn down" "$(left) left; $(tail -n 3 "$T/log")"
fi

# SIGKILL mid-run: the namespaces stay; --resume tears attempt 1 down, then sets up anew.
: >"$FAKE_LOG"
matrix killed 0.5 6 1 2 >"$T/k.xml"
"$NETSWEEP" run "$T/k.xml" --db "$T/k.db" --jobs 2 >"$T/log" 2>&1 &
RUNNER=$!
for _ in $(seq 200); do [ "$(sqlite3 "$T/k.db" 'select count(*) from results' 2>/dev/null)" -ge 2 ] 2>/dev/null && break; sleep 0.1; done
kill -KILL "$RUNNER"
wait "$RUNNER" 2>/dev/null
RUNNER=
if [ "$(left)" = 2 ]; then pass "a killed run leaves its pairs provisioned"; else fail "a killed run leaves its pairs provisioned" "$(left) namespaces"; fi
timeout 120 "$NETSWEEP" run "$T/k.xml" --db "$T/k.db" --jobs 2 --resume >"$T/log2" 2>&1
rc=$?
k() { sqlite3 "$T/k.db" "$1" 2>&1; }
if [ "$rc" = 0 ] && [ "$(left)" = 0 ] && [ "$(k "select count(*) from results where status = 'ok'")" = 12 ]; then
	pass "--resume finishes the run and leaves nothing"
else
	fail "--resume finishes the run and leaves nothing" "exit $rc, $(left) left: $(tail -n 3 "$T/log2")"
fi
if [ "$(k "select group_concat(pair || ':' || kind || ':' || attempt || ':' || status, ' ') from (select * from hooks order by attempt, pair, kind)")" = \
	"p1:setup:1:ok p1:teardown:1:ok p2:setup:1:ok p2:teardown:1:ok p1:setup:2:ok p1:teardown:2:ok p2:setup:2:ok p2:teardown:2:ok" ] &&
	[ "$(grep -c '^teardown p[12] fake.[12] lab-[12] 1 ' "$FAKE_LOG")" = 2 ] &&
	grep -q "tearing down what attempt 1 left" "$T/log2"; then
	pass "--resume ran the teardowns attempt 1 missed, before its own setups"
else
	fail "--resume ran the teardowns attempt 1 missed, before its own setups" "$(k 'select pair, kind, attempt, status from hooks')"
fi
finish
