#!/bin/bash
# What the runner checks and records at run start, over loopback with agents it does not own:
# an agent whose (fake) instance metadata says another instance type than the pair declares is
# a warning stored with the run and its results, or a failure of the pair's cases with
# strict="true"; the catalog snapshot holds the run's instance types and prices (the default
# catalog plus --catalog files); a bad --catalog file is refused before the database is touched.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
PIDS=""
cleanup() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export NETSWEEP_IMDS=0 # the runner's own host: never a metadata service
FAKE=$(dirname "$NETSWEEP")/tests/fake_imds
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep
if [ ! -x "$FAKE" ]; then
	fail "fake imds built" "$FAKE is missing: make all builds it"
	finish
	exit
fi

# A fake metadata service saying m4.xlarge, and an agent that asks it (and only it).
"$FAKE" --port-file "$T/imds.port" --lifetime 60 --instance-type m4.xlarge --region ap-northeast-1 &
PIDS="$PIDS $!"
for _ in $(seq 50); do [ -s "$T/imds.port" ] && break; sleep 0.05; done
NETSWEEP_IMDS=1 NETSWEEP_IMDS_ADDR=127.0.0.1:$(cat "$T/imds.port") \
	"$NETSWEEP" agent --listen 127.0.0.1:0 >"$T/agent.log" 2>&1 &
PIDS="$PIDS $!"
for _ in $(seq 100); do grep -q 'port [0-9]' "$T/agent.log" && break; sleep 0.05; done
APORT=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$T/agent.log")
if [ -z "$APORT" ]; then fail "agent starts" "$(head -c 300 "$T/agent.log")"; finish; exit; fi

# matrix FILE STRICT: three pairs on the same agent, one declaring the type the agent has
# (the other two mismatch; c2s is there for its price in the --catalog file).
matrix() {
	cat >"$1" <<X
<matrix name="checks" strict="$2">
  <pairs>
    <pair name="declared-large" instance-type="m4.large" region="ap-northeast-1"
          agent="127.0.0.1:$APORT" price-basis="sender"/>
    <pair name="declared-xlarge" instance-type="m4.xlarge" region="ap-northeast-1"
          agent="127.0.0.1:$APORT"/>
    <pair name="c2s" instance-type="scaleway.c2s" region="fr-par-1" agent="127.0.0.1:$APORT"/>
  </pairs>
  <axes>
    <axis name="rate"><value>50M</value></axis>
    <axis name="duration"><value>0.5</value></axis>
  </axes>
</matrix>
X
}
DB=$T/c.db
q() { sqlite3 "$DB" "$1" 2>&1; }
matrix "$T/loose.xml" false
"$NETSWEEP" run "$T/loose.xml" --db "$DB" --catalog "$HERE/../../data/catalog/scaleway-example.xml" >"$T/log1" 2>&1
rc=$?
w=$(q "select count(*) from results r join cases c on c.id = r.case_id join endpoints e on e.id = c.endpoint_id where e.name = 'declared-large' and r.status = 'ok' and r.warnings like '%instance type mismatch%m4.large%m4.xlarge%'")
if [ "$rc" = 0 ] && [ "$w" = 1 ] &&
	[ "$(q "select count(*) from runs where warnings like '%instance type mismatch%'")" = 1 ] &&
	[ "$(q "select count(*) from results where warnings like '%mismatch%'")" = 2 ]; then
	pass "instance type mismatch is a warning on the run and its results"
else
	fail "instance type mismatch is a warning" "exit $rc, $w; $(tail -n 3 "$T/log1")"
fi
if grep -q "warning: instance type mismatch" "$T/log1"; then pass "the warning is shown"; else fail "the warning is shown" "$(head -n 3 "$T/log1")"; fi
if [ "$(q "select json_extract(agent_info, '\$.cloud.instance_type') from endpoints where name = 'declared-xlarge'")" = m4.xlarge ]; then
	pass "the agent's instance metadata is stored"
else
	fail "the agent's instance metadata is stored"
fi
# placement: the agent's zone from its instance metadata, the runner's unknown (no metadata
# here), so the relation stays unknown and its transfer unpriced rather than guessed
place=$(q "select agent_zone || '/' || agent_region || '/' || coalesce(client_zone, '-') || '/' || relation from endpoints where name = 'declared-xlarge'")
if [ "$place" = "ap-northeast-1a/ap-northeast-1/-/unknown" ] &&
	[ "$(q "select count(*) from v_cost_total where pair = 'declared-xlarge' and transfer_per_hour is null and total_per_hour is null")" = 1 ]; then
	pass "the agent's zone from its instance metadata; one end unknown: relation unknown, transfer not guessed"
else
	fail "placement from instance metadata" "$place"
fi
types=$(q "select group_concat(instance_type, ' ') from (select instance_type from run_instance_types order by 1)")
prices=$(q "select group_concat(instance_type || '@' || region || '=' || usd_per_hour, ' ') from (select * from run_prices order by 1)")
if [ "$types" = "m4.large m4.xlarge scaleway.c2s" ] && [[ $prices == "m4.large@ap-northeast-1="*" m4.xlarge@ap-northeast-1="*" scaleway.c2s@fr-par-1="* ]]; then
	pass "catalog snapshot: $prices"
else
	fail "catalog snapshot" "types '$types', prices '$prices'"
fi
# price-basis: sender = one instance, pair = two
if [ "$(q "select count(*) from v_endpoint_prices where (endpoint = 'declared-large' and usd_per_hour = unit_usd_per_hour) or (endpoint = 'declared-xlarge' and usd_per_hour = 2 * unit_usd_per_hour)")" = 2 ]; then
	pass "v_endpoint_prices follows each pair's price basis"
else
	fail "v_endpoint_prices follows each pair's price basis"
fi

matrix "$T/strict.xml" true
"$NETSWEEP" run "$T/strict.xml" --db "$DB" --quiet \
	--catalog "$HERE/../../data/catalog/scaleway-example.xml" >/dev/null 2>&1
rc=$?
run=$(q "select max(id) from runs")
got=$(q "select endpoint || ':' || status from v_results where run_id = $run order by endpoint" | tr '\n' ' ')
if [ "$rc" = 1 ] && [ "$got" = "c2s:failed declared-large:failed declared-xlarge:ok " ] &&
	[ "$(q "select error from v_results where run_id = $run and endpoint = 'declared-large'")" = "instance type mismatch: pair 'declared-large' declares m4.large, the agent runs on m4.xlarge" ]; then
	pass "strict: the mismatching pairs' cases fail, the other runs, exit 1"
else
	fail "strict" "exit $rc: $got"
fi

# Agents that cannot serve: one refuses the connection, one never answers (a listener that
# never accepts). Their cases fail with the reason, within the case timeout and the 1 s
# agent-wait; the run goes on.
"$FAKE" --port-file "$T/silent.port" --lifetime 60 --silent &
PIDS="$PIDS $!"
for _ in $(seq 50); do [ -s "$T/silent.port" ] && break; sleep 0.05; done
cat >"$T/down.xml" <<X
<matrix name="down" case-timeout="1s" agent-wait="1s">
  <pairs>
    <pair name="refused" agent="127.0.0.1:9"/>
    <pair name="silent" agent="127.0.0.1:$(cat "$T/silent.port")"/>
    <pair name="fine" agent="127.0.0.1:$APORT"/>
  </pairs>
  <axes><axis name="rate"><value>50M</value></axis><axis name="duration"><value>0.3</value></axis></axes>
</matrix>
X
start=$(date +%s%N)
"$NETSWEEP" run "$T/down.xml" --db "$DB" --quiet >/dev/null 2>&1
rc=$?
secs=$(( ($(date +%s%N) - start) / 1000000000 ))
run=$(q "select max(id) from runs")
got=$(q "select endpoint || ':' || status || ':' || coalesce(error, '') from v_results where run_id = $run order by endpoint" | tr '\n' '|')
if [ "$rc" = 1 ] && [[ $got == fine:ok:\|refused:failed:*refused\ is\ down*\|silent:failed:*time*\| ]] && [ "$secs" -le 8 ]; then
	pass "unreachable and silent agents: failed with the reason in ${secs}s, the run goes on, exit 1"
else
	fail "unreachable and silent agents" "exit $rc after ${secs}s: $got"
fi

before=$(sqlite3 "$DB" .dump | md5sum)
echo '<catalog name="broken">' >"$T/bad-catalog.xml"
out=$("$NETSWEEP" run "$T/loose.xml" --db "$DB" --catalog "$T/bad-catalog.xml" 2>&1)
rc=$?
if [ "$rc" = 2 ] && [[ $out == *bad-catalog.xml* ]] && [ "$(sqlite3 "$DB" .dump | md5sum)" = "$before" ]; then
	pass "a bad --catalog exits 2 before touching the database"
else
	fail "a bad --catalog exits 2 before touching the database" "exit $rc: $out"
fi
finish
