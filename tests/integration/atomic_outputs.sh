#!/bin/bash
# Every file netsweep writes is replaced whole or not at all: a failed `catalog import` leaves
# the old catalog byte for byte (and `netsweep cost` still reads it); a report on a full disk
# or a read-only directory leaves the previous report's files as they were, with no temporary
# file left; `netsweep key` on a full disk leaves no key file; `db merge` that fails on its
# second input leaves an existing OUT as it was and creates no new one. Full-disk checks use a
# 64 KiB tmpfs of their own (root; SKIP otherwise).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
T=$(mktemp -d) || exit 1
MNT=$T/small
cleanup() { mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"; rm -rf "$T"; }
trap cleanup EXIT
pin_netsweep "$T" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
export NETSWEEP_IMDS=0
FIX=$here/../fixtures/aws
# no temporary files (.NAME.XXXXXX) left in a directory
no_temps() { [ -z "$(find "$1" -maxdepth 1 -name '.*.*' ! -name '.*gnuplot-err' -newer "$T/stamp" 2>/dev/null)" ]; }
: >"$T/stamp"

# 1. catalog import: a failed import leaves the old catalog byte for byte
"$NETSWEEP" catalog import -o "$T/good.xml" "$FIX/offer-ec2-us-east-1.json" "$FIX/describe-instance-types.json" >/dev/null 2>&1
cp "$T/good.xml" "$T/good.orig"
printf '{"InstanceTypes":[{"InstanceType":"x y","VCpuInfo":{"DefaultVCpus":2},"MemoryInfo":{"SizeInMiB":1024},"NetworkInfo":{"NetworkPerformance":"Up to 5 Gigabit"}}]}' >"$T/bad.json"
"$NETSWEEP" catalog import -o "$T/good.xml" "$T/bad.json" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" != 0 ] && cmp -s "$T/good.xml" "$T/good.orig" && no_temps "$T" &&
	"$NETSWEEP" cost --no-default-catalog --catalog "$T/good.xml" >/dev/null 2>&1; then
	pass "a failed catalog import leaves the old catalog byte for byte (exit $rc)"
else
	fail "a failed catalog import leaves the old catalog byte for byte" "exit $rc: $(cat "$T/err")"
fi

# 2. db merge: a failing second input changes nothing, into an existing or a new OUT
db=$T/basic.db
bash "$here/../fixtures/report_fixture.sh" basic "$db" || { fail "fixture" "report_fixture.sh basic"; finish; exit; }
cat >"$T/m.xml" <<'X'
<matrix name="atomic" repeats="1" cooldown="0s"><axes><axis name="rate"><value>50M</value></axis>
<axis name="duration"><value>0.3</value></axis></axes></matrix>
X
NETSWEEP_GNUPLOT=none "$NETSWEEP" run "$T/m.xml" --db "$T/a.db" --quiet >"$T/log" 2>&1 ||
	{ fail "a loopback run" "$(tail -n 3 "$T/log")"; finish; exit; }
"$NETSWEEP" db merge "$T/m.db" "$T/a.db" >/dev/null 2>&1
sqlite3 "$T/a.db" ".backup '$T/other.db'"
sqlite3 "$T/other.db" "UPDATE runs SET uuid = 'another-run-uuid'"
sqlite3 "$T/a.db" ".backup '$T/newer.db'"
sqlite3 "$T/newer.db" "PRAGMA user_version = 99"
before=$(sqlite3 "$T/m.db" .dump | md5sum)
"$NETSWEEP" db merge "$T/m.db" "$T/other.db" "$T/newer.db" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" != 0 ] && [ "$(sqlite3 "$T/m.db" 'select count(*) from runs')" = 1 ] &&
	[ "$(sqlite3 "$T/m.db" .dump | md5sum)" = "$before" ] && no_temps "$T"; then
	pass "db merge failing on its second input leaves OUT as it was"
else
	fail "db merge failing on its second input leaves OUT as it was" "exit $rc: $(cat "$T/err")"
fi
"$NETSWEEP" db merge "$T/fresh.db" "$T/other.db" "$T/newer.db" >/dev/null 2>"$T/err"
rc=$?
if [ "$rc" != 0 ] && [ ! -e "$T/fresh.db" ] && no_temps "$T"; then
	pass "db merge failing into a new OUT creates none"
else
	fail "db merge failing into a new OUT creates none" "exit $rc, $(ls "$T" | tr '\n' ' ')"
fi
"$NETSWEEP" db merge "$T/fresh.db" "$T/other.db" >/dev/null 2>&1
if [ "$(sqlite3 "$T/fresh.db" 'select uuid from runs')" = another-run-uuid ] && no_temps "$T"; then
	pass "db merge into a new OUT: the staged database renamed in"
else fail "db merge into a new OUT: the staged database renamed in"; fi

# 3. full disk and read-only directory (root: a tmpfs of our own)
if [ "$(id -u)" != 0 ] || ! mkdir -p "$MNT" || ! mount -t tmpfs -o size=1m tmpfs "$MNT" 2>/dev/null; then
	skip "report, import and key on a full disk" "needs root to mount a small tmpfs"
	finish; exit
fi
"$NETSWEEP" report --db "$db" -o "$MNT/r" >/dev/null 2>&1
"$NETSWEEP" catalog import -o "$MNT/cat.xml" "$FIX/offer-ec2-us-east-1.json" "$FIX/describe-instance-types.json" >/dev/null 2>&1
if [ ! -s "$MNT/r/index.html" ] || [ ! -s "$MNT/cat.xml" ]; then
	fail "a report and a catalog on the small tmpfs" "$(ls "$MNT" "$MNT/r" 2>&1 | tr '\n' ' ')"
	finish; exit
fi
(cd "$MNT" && find . -type f -exec md5sum {} + | sort) >"$T/sums"
# fill the disk to the last block
dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null
dd if=/dev/zero of="$MNT/filler2" bs=1 count=4096 2>/dev/null
"$NETSWEEP" report --db "$db" -o "$MNT/r" >"$T/out" 2>&1
rep_rc=$?
"$NETSWEEP" catalog import -o "$MNT/cat.xml" "$FIX/offer-ec2-us-east-1.json" "$FIX/describe-instance-types.json" >"$T/iout" 2>&1
imp_rc=$?
"$NETSWEEP" key "$MNT/new.psk" >"$T/kout" 2>&1
key_rc=$?
rm -f "$MNT/filler" "$MNT/filler2"
(cd "$MNT" && find . -type f -exec md5sum {} + | sort) >"$T/sums2"
if [ "$rep_rc" != 0 ] && grep -qi "space" "$T/out" && cmp -s "$T/sums" "$T/sums2"; then
	pass "a report on a full disk fails (exit $rep_rc) and leaves the previous report byte for byte"
else
	fail "a report on a full disk leaves the previous report" "exit $rep_rc: $(head -3 "$T/out"); $(diff "$T/sums" "$T/sums2" | head -5)"
fi
if [ "$imp_rc" != 0 ] && grep -qi "space" "$T/iout" && cmp -s "$T/sums" "$T/sums2"; then
	pass "catalog import on a full disk fails (exit $imp_rc) and leaves the old catalog"
else
	fail "catalog import on a full disk leaves the old catalog" "exit $imp_rc: $(head -3 "$T/iout")"
fi
if [ "$key_rc" != 0 ] && [ ! -e "$MNT/new.psk" ]; then
	pass "netsweep key on a full disk fails and leaves no key file"
else
	fail "netsweep key on a full disk leaves no key file" "exit $key_rc: $(cat "$T/kout")"
fi
if [ -z "$(find "$MNT" -name '.*.*' ! -name '.*gnuplot-err')" ]; then
	pass "no temporary file left on the full disk"
else fail "no temporary file left on the full disk" "$(find "$MNT" -name '.*')"; fi

# read-only: the report cannot even create its temporary files
mount -o remount,ro "$MNT"
"$NETSWEEP" report --db "$db" -o "$MNT/r" >"$T/out" 2>&1
rc=$?
mount -o remount,rw "$MNT"
(cd "$MNT" && find . -type f -exec md5sum {} + | sort) >"$T/sums3"
if [ "$rc" != 0 ] && cmp -s "$T/sums" "$T/sums3"; then
	pass "a report into a read-only directory fails (exit $rc), the previous one intact"
else
	fail "a report into a read-only directory leaves the previous one" "exit $rc: $(head -3 "$T/out")"
fi
finish
