#!/bin/bash
# Storage and limits, before any work: a database from a newer netsweep is left byte-identical
# by run and report (both exit 2); report reads an older one (a frozen version-1 database)
# through the migration ladder on a copy in memory, with the figures `run` would give it,
# leaving the file byte-identical; report reads a database in a read-only folder and as
# another user; on a full disk the ok lines equal the stored results and the failed commit
# names its case; a schedule over the limit and a FIFO catalog are refused at once, before a
# row is written; a missing price is a warning naming the pair and the nearest type, and an
# error with strict="true"; a rate written 500m is an error with a hint.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
export NETSWEEP_IMDS=0
chmod 755 "$T"
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep
sum() { sha256sum "$1" | cut -d' ' -f1; }

cat >"$T/lo.xml" <<'X'
<matrix name="lo"><axes><axis name="rate"><value>10M</value></axis>
  <axis name="duration"><value>0.1</value></axis></axes></matrix>
X

# A newer database: refused untouched by run and report.
NEW=$T/new.db
sqlite3 "$NEW" "create table future (x); insert into future values (1); pragma user_version = 99"
h0=$(sum "$NEW")
out_run=$("$NETSWEEP" run "$T/lo.xml" --db "$NEW" --quiet 2>&1); rc_run=$?
out_rep=$("$NETSWEEP" report --db "$NEW" -o "$T/rep-new" 2>&1); rc_rep=$?
if [ "$rc_run" = 2 ] && [ "$rc_rep" = 2 ] && [ "$(sum "$NEW")" = "$h0" ] && [ ! -e "$NEW-wal" ] &&
	[[ $out_run == *"schema version 99 is newer"* ]] && [[ $out_rep == *"schema version 99 is newer"* ]]; then
	pass "user_version 99: run and report exit 2, the file byte-identical"
else
	fail "user_version 99" "run $rc_run: $out_run; report $rc_rep: $out_rep"
fi

# A real database to report on, then read-only and another user's.
DB=$T/ro/n.db
mkdir -p "$T/ro"
"$NETSWEEP" run "$T/lo.xml" --db "$DB" --quiet >/dev/null 2>&1
chmod 755 "$T/ro"
chmod 644 "$DB"
if [ "$(id -u)" = 0 ] && mount --bind "$T/ro" "$T/ro" 2>/dev/null; then
	MNT=$T/ro
	if mount -o remount,bind,ro "$T/ro" 2>/dev/null; then
		out=$("$NETSWEEP" report --db "$DB" -o "$T/rep-ro" 2>&1); rc=$?
		if [ "$rc" = 0 ] && [ -s "$T/rep-ro/index.html" ]; then
			pass "report reads a database on a read-only mount"
		else
			fail "report on a read-only mount" "exit $rc: $out"
		fi
	else
		skip "report on a read-only mount" "cannot remount read-only here"
	fi
	umount "$T/ro"; MNT=
else
	skip "report on a read-only mount" "needs root and bind mounts"
fi
# An older version, made with the version-1 schema as it shipped (tests/fixtures/store_v1.sql):
# one priced pair ($0.1/h per instance, so $0.2/h the pair), one 3600 s case, two ok repeats
# and a failed one. Version 1's v_run_cost also charged the failed hour ($0.6); the ladder's
# view charges the two ok hours, $0.4. report reads it through the ladder on a copy in
# memory: the cost is $0.4, every figure is the one it shows after `run` migrated the same
# file in place, and the file is byte-identical afterwards.
V1=$T/v1.db
sqlite3 "$V1" <"$HERE/../fixtures/store_v1.sql"
sqlite3 "$V1" "insert into runs (id, matrix_name, matrix_text, matrix_hash, started_at, finished_at,
	netsweep_version, status) values (1, 'old', '<matrix name=\"old\"/>', 'h1',
	'2026-01-01T00:00:00.000Z', '2026-01-01T03:00:00.000Z', '0.1.0', 'done');
insert into endpoints (id, run_id, name, instance_type, region, agent_addr)
	values (1, 1, 'p', 'm4.large', 'us-east-1', '192.0.2.1:5201');
insert into run_prices (run_id, instance_type, region, usd_per_hour, as_of, source)
	values (1, 'm4.large', 'us-east-1', 0.1, '2026-01-01', 'test');
insert into cases (id, run_id, endpoint_id, case_key, ordinal, protocol, streams, direction,
	duration_s, params) values (1, 1, 1, 'k1', 0, 'tcp', 1, 'forward', 3600, '{}');
insert into results (case_id, repeat, started_at, finished_at, status, duration_s, fwd_snd_bps,
	fwd_rcv_bps) values (1, 0, 'a', 'b', 'ok', 3600, 1.0e9, 0.9e9),
	(1, 1, 'a', 'b', 'ok', 3600, 1.2e9, 1.1e9);
insert into results (case_id, repeat, started_at, finished_at, status, error)
	values (1, 2, 'a', 'b', 'failed', 'agent gone');
pragma user_version = 1;"
cp "$V1" "$T/v1-frozen.db"
v1_cost=$(sqlite3 "$V1" "select usd from v_run_cost where run_id = 1")
out=$(NETSWEEP_GNUPLOT=none "$NETSWEEP" report --db "$V1" --run 1 -o "$T/rep-v1" 2>&1); rc=$?
cp "$T/v1-frozen.db" "$T/v1-run.db"
"$NETSWEEP" run "$T/lo.xml" --db "$T/v1-run.db" --quiet >"$T/v1-run.log" 2>&1; rc_run=$?
NETSWEEP_GNUPLOT=none "$NETSWEEP" report --db "$T/v1-run.db" --run 1 -o "$T/rep-v1-run" >/dev/null 2>&1
same=yes
for f in results.csv ranking.csv report.json report.md; do
	cmp -s <(grep -v generated_at "$T/rep-v1/$f") <(grep -v generated_at "$T/rep-v1-run/$f" 2>/dev/null) || same="no ($f differs)"
done
cost=$(grep -o '"cost_usd": *[0-9.e+-]*' "$T/rep-v1/report.json" | head -n 1 | sed 's/.*: *//')
if [ "$rc" = 0 ] && cmp -s "$V1" "$T/v1-frozen.db" && [ ! -e "$V1-wal" ] &&
	[ "$v1_cost" = 0.6 ] && awk -v c="$cost" 'BEGIN { exit !(c > 0.3999 && c < 0.4001) }'; then
	pass "report reads a version-1 database through the ladder (cost \$$(printf %.2f "$cost"), not v1's \$$v1_cost), file byte-identical"
else
	fail "report of a version-1 database" "exit $rc, cost '$cost' (v1 view: $v1_cost), cmp $(cmp "$V1" "$T/v1-frozen.db" 2>&1): $out"
fi
if [ "$rc_run" = 0 ] && [ "$(sqlite3 "$T/v1-run.db" 'pragma user_version')" -gt 1 ] && [ "$same" = yes ]; then
	pass "report of the version-1 file: the same figures as after run migrated it"
else
	fail "report of version 1 vs run-migrated" "run exit $rc_run ($(tail -n 2 "$T/v1-run.log")), same: $same"
fi
WHO=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && getent passwd nobody >/dev/null; then
	WHO="setpriv --reuid=nobody --regid=$(id -g nobody) --clear-groups"
fi
if [ -n "$WHO" ]; then
	mkdir -p "$T/rep-nobody" && chmod 777 "$T/rep-nobody"
	out=$($WHO "$NETSWEEP" report --db "$DB" -o "$T/rep-nobody" 2>&1); rc=$?
	if [ "$rc" = 0 ] && [ -s "$T/rep-nobody/index.html" ] && [ ! -e "$DB-shm" ]; then
		pass "report as another user (nobody) on root's database in root's folder"
	else
		fail "report as another user" "exit $rc: $out"
	fi
else
	skip "report as another user" "needs root and setpriv to switch to nobody"
fi

# Full disk: a small tmpfs the database fills.
if [ "$(id -u)" = 0 ] && mkdir -p "$T/full" && mount -t tmpfs -o size=640k tmpfs "$T/full" 2>/dev/null; then
	MNT=$T/full
	cat >"$T/many.xml" <<'X'
<matrix name="many"><axes>
  <axis name="streams"><value>1</value><value>2</value><value>3</value><value>4</value><value>5</value>
    <value>6</value><value>7</value><value>8</value><value>9</value><value>10</value><value>11</value>
    <value>12</value><value>13</value><value>14</value><value>15</value><value>16</value></axis>
  <axis name="rate"><value>10M</value></axis><axis name="duration"><value>0.2</value></axis>
  <axis name="omit"><value>0</value></axis></axes></matrix>
X
	# the schema and the run first, then most of what is left taken by a filler
	"$NETSWEEP" run "$T/lo.xml" --db "$T/full/f.db" --quiet >/dev/null 2>&1
	free=$(df -k --output=avail "$T/full" | tail -n 1)
	dd if=/dev/zero of="$T/full/filler" bs=1k count=$((free - 180)) 2>/dev/null
	"$NETSWEEP" run "$T/many.xml" --db "$T/full/f.db" >"$T/full.log" 2>&1
	rc=$?
	rm -f "$T/full/filler"
	oks=$(grep -c '\] ok ' "$T/full.log")
	stored=$(sqlite3 "$T/full/f.db" "select count(*) from results r join cases c on c.id = r.case_id join runs u on u.id = c.run_id where u.matrix_name = 'many' and r.status = 'ok'" 2>&1)
	if [ "$rc" = 1 ] && [ "$oks" = "$stored" ] && [ "$oks" -lt 16 ] &&
		tail -n 1 "$T/full.log" | grep -q 'case pair=loopback streams=[0-9]* .* not [a-z]*: database'; then
		pass "full disk: $oks ok lines, $stored results stored; the failed commit names its case"
	else
		fail "full disk" "exit $rc, $oks ok lines, $stored stored: $(tail -n 3 "$T/full.log")"
	fi
	umount "$T/full"; MNT=
else
	skip "full disk" "needs root to mount a small tmpfs"
fi

# Limits before work: over a million runs, refused by --dry-run and run, no database made.
{
	echo '<matrix name="huge" repeats="10000"><axes><axis name="streams">'
	for i in $(seq 101); do printf '<value>%d</value>' "$i"; done
	echo '</axis></axes></matrix>'
} >"$T/huge.xml"
out_d=$("$NETSWEEP" run "$T/huge.xml" --dry-run 2>&1); rc_d=$?
out_r=$("$NETSWEEP" run "$T/huge.xml" --db "$T/huge.db" 2>&1); rc_r=$?
if [ "$rc_d" = 2 ] && [ "$rc_r" = 2 ] && [ ! -e "$T/huge.db" ] &&
	[[ $out_r == *"101 cases x 10000 repeats = 1010000 runs, over the limit of 1000000"* ]]; then
	pass "1,010,000 runs: refused by --dry-run and run, no database written"
else
	fail "schedule limit" "dry-run $rc_d: $out_d; run $rc_r: $out_r"
fi

mkfifo "$T/fifo.xml"
t0=$(date +%s)
out=$(timeout 10 "$NETSWEEP" run "$T/lo.xml" --dry-run --catalog "$T/fifo.xml" 2>&1); rc=$?
if [ "$rc" = 2 ] && [ $(( $(date +%s) - t0 )) -le 2 ] && [[ $out == *"fifo.xml: not a regular file"* ]]; then
	pass "a FIFO catalog is refused at once"
else
	fail "FIFO catalog" "exit $rc: $out"
fi

# Missing prices: a warning per pair with the nearest type; strict makes it an error.
cat >"$T/typo.xml" <<'X'
<matrix name="typo">
  <pairs>
    <pair name="tokyo" instance-type="m4.xlarg" region="ap-northeast-1" agent="127.0.0.1:9"/>
    <pair name="fine" instance-type="m4.xlarge" region="ap-northeast-1" agent="127.0.0.1:9"/>
  </pairs>
  <axes><axis name="duration"><value>1</value></axis></axes>
</matrix>
X
out=$("$NETSWEEP" run "$T/typo.xml" --dry-run 2>&1 >/dev/null); rc=$?
sed 's/name="typo"/name="typo" strict="true"/' "$T/typo.xml" >"$T/strict.xml"
out_s=$("$NETSWEEP" run "$T/strict.xml" --db "$T/strict.db" 2>&1); rc_s=$?
if [ "$rc" = 0 ] && [ "$(grep -c 'no price' <<<"$out")" = 1 ] &&
	[[ $out == *"typo.xml:3: pair tokyo: the catalog has no price for m4.xlarg in ap-northeast-1 (did you mean m4.xlarge?)"* ]] &&
	[ "$rc_s" = 2 ] && [ ! -e "$T/strict.db" ] && [[ $out_s == *"pair tokyo"*"strict"* ]]; then
	pass "a missing price warns per pair with the nearest type; strict=\"true\" refuses the run"
else
	fail "missing prices" "dry-run $rc: $out; strict $rc_s: $out_s"
fi

sed 's/<value>10M<\/value>/<value>500m<\/value>/' "$T/lo.xml" >"$T/milli.xml"
out=$("$NETSWEEP" run "$T/milli.xml" --dry-run 2>&1); rc=$?
if [ "$rc" = 2 ] && [[ $out == *"milli.xml:1:"*"m is milli"*"write 500M"*"1.5G"* ]]; then
	pass "rate 500m in a matrix: an error naming file and line, with the hint"
else
	fail "rate 500m" "exit $rc: $out"
fi
finish
