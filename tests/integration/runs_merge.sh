#!/bin/bash
# Runs by name and merged databases: `netsweep runs` lists labels, report --run/--baseline take
# a label, `db merge` of A and B gives both runs, merging B again changes nothing, an input
# from an older schema is migrated on a copy (the file is left alone), a newer one refused.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0 NETSWEEP_GNUPLOT=none
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

cat >"$T/m.xml" <<'X'
<matrix name="byname" repeats="1" cooldown="0s">
  <axes>
    <axis name="streams"><value>1</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="duration"><value>0.3</value></axis>
  </axes>
</matrix>
X
"$NETSWEEP" run "$T/m.xml" --db "$T/a.db" --label night-1 --quiet >"$T/log" 2>&1 &&
	"$NETSWEEP" run "$T/m.xml" --db "$T/a.db" --label night-2 --quiet >>"$T/log" 2>&1 &&
	"$NETSWEEP" run "$T/m.xml" --db "$T/b.db" --label tokyo-1 --quiet >>"$T/log" 2>&1 ||
	{ fail "three loopback runs" "$(tail -n 3 "$T/log")"; finish; exit; }

"$NETSWEEP" runs --db "$T/a.db" >"$T/runs" 2>&1
if grep -Eq '^1 +byname +night-1 .* done +1 +0 ' "$T/runs" && grep -Eq '^2 +byname +night-2 ' "$T/runs"; then
	pass "runs lists id, matrix, label, status, ok/failed"
else
	fail "runs lists id, matrix, label, status, ok/failed" "$(cat "$T/runs")"
fi
"$NETSWEEP" report --db "$T/a.db" --baseline night-1 -o "$T/r1" >"$T/rep" 2>&1
if grep -q "against run 1:" "$T/rep"; then pass "report --baseline night-1"; else fail "report --baseline night-1" "$(cat "$T/rep")"; fi
"$NETSWEEP" report --db "$T/a.db" --run night-1 -o "$T/r2" >"$T/rep" 2>&1
if grep -q "run 1 (1 case)" "$T/rep"; then pass "report --run night-1"; else fail "report --run night-1" "$(cat "$T/rep")"; fi
expect_exit "report --baseline of an unknown label exits 2" 2 "$NETSWEEP" report --db "$T/a.db" --baseline nope -o "$T/r3"

dump() { sqlite3 "$1" ".dump" | grep -v '^INSERT INTO sqlite_stat'; }
expect_exit "db merge OUT A B" 0 "$NETSWEEP" db merge "$T/m.db" "$T/a.db" "$T/b.db"
once=$(dump "$T/m.db")
"$NETSWEEP" db merge "$T/m.db" "$T/b.db" >"$T/again" 2>&1
if [ "$(dump "$T/m.db")" = "$once" ] && grep -q "0 runs added" "$T/again"; then
	pass "merging B again adds nothing"
else
	fail "merging B again adds nothing" "$(cat "$T/again")"
fi
q() { sqlite3 "$T/m.db" "$1"; }
if [ "$(q 'select group_concat(label) from (select label from runs order by id)')" = night-1,night-2,tokyo-1 ] &&
	[ "$(q 'select count(*) from results')" = 3 ] && [ "$(q 'select count(*) from samples')" -gt 0 ] &&
	[ "$(q 'select count(distinct uuid) from runs')" = 3 ] &&
	[ "$(q "select uuid from runs where label = 'tokyo-1'")" = "$(sqlite3 "$T/b.db" 'select uuid from runs')" ] &&
	[ "$(q 'pragma foreign_key_check')" = "" ] && [ "$(q 'pragma integrity_check')" = ok ]; then
	pass "merged: three runs with their results, samples and uuids"
else
	fail "merged: three runs with their results, samples and uuids" "$(q 'select id, label, uuid from runs')"
fi
"$NETSWEEP" report --db "$T/m.db" --run tokyo-1 --baseline night-2 -o "$T/r4" >"$T/rep" 2>&1
if grep -q "run 3 (1 case)" "$T/rep" && grep -q "against run 2:" "$T/rep"; then
	pass "a report over the merged database covers both runners' runs"
else
	fail "a report over the merged database covers both runners' runs" "$(cat "$T/rep")"
fi

# An input from schema version 2 (no uuid, no hooks): migrated on a copy, twice adds it once.
cp "$T/b.db" "$T/old.db"
# Views first, all of them (the ladder recreates each from the schema file): a view that reads a
# column or table dropped below would stop the ALTER TABLE, and every step adds such views.
sqlite3 "$T/old.db" "select 'DROP VIEW ' || name || ';' from sqlite_master where type = 'view'" | sqlite3 "$T/old.db"
sqlite3 "$T/old.db" "DROP TRIGGER runs_uuid; DROP INDEX runs_by_uuid; ALTER TABLE runs DROP COLUMN uuid;
	DROP TABLE hooks;
	ALTER TABLE results DROP COLUMN fwd_socket_drops; DROP TABLE result_phases;
	ALTER TABLE results DROP COLUMN shaped_by_provider; DROP TABLE result_nics;
	DROP TABLE run_price_quotes; DROP TABLE run_pricing; DROP TABLE run_fx;
	ALTER TABLE run_instance_types DROP COLUMN provider; ALTER TABLE run_instance_types DROP COLUMN network_up_to;
	ALTER TABLE runs DROP COLUMN overrides;
	DROP TABLE result_latency;
	DROP TABLE result_latency_load;
	DROP TABLE group_samples; DROP TABLE group_clients; DROP TABLE group_results;
	ALTER TABLE run_instance_types DROP COLUMN family; ALTER TABLE endpoints DROP COLUMN zone;
	ALTER TABLE endpoints DROP COLUMN client_zone; ALTER TABLE endpoints DROP COLUMN client_region;
	ALTER TABLE endpoints DROP COLUMN agent_zone; ALTER TABLE endpoints DROP COLUMN agent_region;
	ALTER TABLE endpoints DROP COLUMN relation;
	DROP TABLE run_transfer_prices; DROP TABLE run_transfer_volume; DROP TABLE run_included_transfer;
	ALTER TABLE results DROP COLUMN fwd_rtt_min_ms;
	ALTER TABLE results DROP COLUMN fwd_snd_cpu_s_per_gb; ALTER TABLE results DROP COLUMN fwd_rcv_cpu_s_per_gb;
	ALTER TABLE results DROP COLUMN ret_snd_cpu_s_per_gb; ALTER TABLE results DROP COLUMN ret_rcv_cpu_s_per_gb;
	ALTER TABLE results DROP COLUMN cpu_placement; ALTER TABLE results DROP COLUMN client_cpus;
	ALTER TABLE results DROP COLUMN agent_cpus; ALTER TABLE results DROP COLUMN rx_path;
	PRAGMA user_version = 2;"
sum_old=$(md5sum <"$T/old.db")
"$NETSWEEP" db merge "$T/o.db" "$T/old.db" "$T/old.db" >"$T/log" 2>&1
if [ "$(sqlite3 "$T/o.db" 'select count(*) from runs')" = 1 ] && grep -q "1 run added" "$T/log" &&
	grep -q "0 runs added" "$T/log" && [ "$(md5sum <"$T/old.db")" = "$sum_old" ]; then
	pass "a version-2 input is migrated on a copy and added once"
else
	fail "a version-2 input is migrated on a copy and added once" "$(cat "$T/log")"
fi
cp "$T/b.db" "$T/new.db"
sqlite3 "$T/new.db" "PRAGMA user_version = 99"
"$NETSWEEP" db merge "$T/m.db" "$T/new.db" >"$T/log" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "schema version 99" "$T/log" && [ "$(dump "$T/m.db")" = "$once" ]; then
	pass "a newer schema is refused, OUT untouched"
else
	fail "a newer schema is refused, OUT untouched" "exit $rc: $(cat "$T/log")"
fi
expect_exit "db merge OUT OUT is refused" 2 "$NETSWEEP" db merge "$T/m.db" "$T/m.db"
finish
