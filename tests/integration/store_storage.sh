#!/bin/bash
# Storage and limits, before any work: a database from a newer netsweep is left byte-identical
# by run and report (both exit 2); report reads a database in a read-only folder and as
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
# An older version is read as it is (report never migrates: it opens read-only).
cp "$DB" "$T/old.db"
sqlite3 "$T/old.db" "pragma user_version = 1"
h0=$(sum "$T/old.db")
out=$("$NETSWEEP" report --db "$T/old.db" -o "$T/rep-old" 2>&1); rc=$?
if [ "$rc" = 0 ] && [ -s "$T/rep-old/index.html" ] && [ "$(sum "$T/old.db")" = "$h0" ]; then
	pass "report reads a version-1 database and leaves it as it was"
else
	fail "report of an older version" "exit $rc: $out"
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
