#!/bin/bash
# `netsweep runs` reads a database as `report` does, never writing it: a chmod 0444 file, a
# folder the reader cannot write (another user's: run as nobody) and a read-only mount list
# their runs and are left byte for byte. Stored strings are shown with their control
# characters escaped: a label holding ESC[31m, a newline, a CR and a tab prints as
# \x1b[31m, \n, \r and \t in `runs` and in results.csv, never as raw bytes; so does a hook's
# output in the run's own lines.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
T=$(mktemp -d) || exit 1
MNT=$T/ro
cleanup() { mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"; rm -rf "$T"; }
trap cleanup EXIT
export NETSWEEP_IMDS=0 NETSWEEP_GNUPLOT=none
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

cat >"$T/m.xml" <<'X'
<matrix name="esc" repeats="1" cooldown="0s"><axes><axis name="rate"><value>50M</value></axis>
<axis name="duration"><value>0.3</value></axis></axes></matrix>
X
# run --label refuses control characters where they enter (hostile_text.sh); an older version
# or a merged database may hold them, so they are stored here by SQL
"$NETSWEEP" run "$T/m.xml" --db "$T/r.db" --label esc --quiet >"$T/log" 2>&1 ||
	{ fail "a loopback run" "$(tail -n 3 "$T/log")"; finish; exit; }
sqlite3 "$T/r.db" "UPDATE runs SET label = 'a' || char(27) || '[31mred' || char(10) || 'line' ||
	char(13) || 'cr' || char(9) || 'tab'"
label=$(printf 'a\033[31mred\nline\rcr\ttab')
sum() { md5sum <"$1"; }

# escaping: the runs table and results.csv carry no raw control bytes
"$NETSWEEP" runs --db "$T/r.db" >"$T/runs" 2>&1
want='a\x1b[31mred\nline\rcr\ttab'
if grep -qF -- "$want" "$T/runs" && ! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/runs" &&
	[ "$(wc -l <"$T/runs")" = 2 ]; then
	pass "runs shows the label's ESC, newline, CR and tab as escapes, one line per run"
else
	fail "runs shows the label's control characters as escapes" "$(od -c "$T/runs" | head -8)"
fi
"$NETSWEEP" report --db "$T/r.db" -o "$T/rep" >/dev/null 2>&1
if [ -s "$T/rep/results.csv" ] && ! LC_ALL=C grep -q $'[\x01-\x08\x0b\x0c\x0e-\x1f\x7f]' "$T/rep/results.csv" &&
	[ "$(tr -cd '\r' <"$T/rep/results.csv" | wc -c)" = "$(wc -l <"$T/rep/results.csv")" ] &&
	[ "$(sqlite3 "$T/r.db" 'select count(*) from results')" = $(( $(wc -l <"$T/rep/results.csv") - 1 )) ]; then
	pass "results.csv: no raw control bytes, one line per result"
else
	fail "results.csv: no raw control bytes" "$(od -c "$T/rep/results.csv" | grep -m3 '033\|\\r')"
fi

# a chmod 0444 file in a folder that can be written: listed, left byte for byte
cp "$T/r.db" "$T/ro.db"
chmod 0444 "$T/ro.db"
before=$(sum "$T/ro.db")
if "$NETSWEEP" runs --db "$T/ro.db" >"$T/out" 2>&1 && grep -qF -- "$want" "$T/out" &&
	[ "$(sum "$T/ro.db")" = "$before" ]; then
	pass "runs on a chmod 0444 database"
else fail "runs on a chmod 0444 database" "$(cat "$T/out")"; fi

# a folder the reader cannot write: another user (nobody) reading root's database
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null && id nobody >/dev/null 2>&1; then
	mkdir "$T/theirs"
	cp "$T/r.db" "$T/theirs/r.db"
	chmod 0755 "$T" "$T/theirs"
	chmod 0644 "$T/theirs/r.db"
	before=$(sum "$T/theirs/r.db")
	if runuser -u nobody -- "$NETSWEEP" runs --db "$T/theirs/r.db" >"$T/out" 2>&1 &&
		grep -qF -- "$want" "$T/out" && [ "$(sum "$T/theirs/r.db")" = "$before" ] &&
		[ -z "$(ls "$T/theirs" | grep -v '^r.db$')" ]; then
		pass "runs as another user, in a folder it cannot write"
	else fail "runs as another user, in a folder it cannot write" "$(cat "$T/out")"; fi
	chmod 0700 "$T"
else
	skip "runs as another user" "needs root, runuser and the user nobody"
fi

# a read-only mount
if [ "$(id -u)" = 0 ] && mkdir -p "$MNT" && mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null; then
	cp "$T/r.db" "$MNT/r.db"
	before=$(sum "$MNT/r.db")
	mount -o remount,ro "$MNT"
	if "$NETSWEEP" runs --db "$MNT/r.db" >"$T/out" 2>&1 && grep -qF -- "$want" "$T/out" &&
		"$NETSWEEP" runs --db "$MNT/r.db" --json >"$T/json" 2>&1 &&
		[ "$(jq -r '.[0].label' "$T/json" 2>/dev/null)" = "$label" ] &&
		[ "$(sum "$MNT/r.db")" = "$before" ]; then
		pass "runs on a read-only mount (text and --json)"
	else fail "runs on a read-only mount" "$(cat "$T/out" "$T/json" 2>/dev/null | head -5)"; fi
else
	skip "runs on a read-only mount" "needs root to mount a tmpfs"
fi
# a writable database is not written by runs either
before=$(sum "$T/r.db")
"$NETSWEEP" runs --db "$T/r.db" >/dev/null 2>&1
if [ "$(sum "$T/r.db")" = "$before" ]; then pass "runs leaves a writable database byte for byte"
else fail "runs leaves a writable database byte for byte"; fi
expect_exit "runs on a missing database exits 2" 2 "$NETSWEEP" runs --db "$T/none.db"

# the run's own lines: a failing setup hook's output (ESC[2J would clear the screen) escaped
cat >"$T/hook.xml" <<'X'
<matrix name="hook" repeats="1" cooldown="0s">
<setup timeout="5s">printf 'out\033[31m\r'; echo 'err\033[2J' 1>&amp;2; exit 3</setup>
<axes><axis name="duration"><value>0.3</value></axis></axes></matrix>
X
"$NETSWEEP" run "$T/hook.xml" --db "$T/hook.db" >"$T/hook.out" 2>&1
if grep -qF 'err\x1b[2J' "$T/hook.out" && ! LC_ALL=C grep -q $'\033' "$T/hook.out"; then
	pass "run's warnings and case lines show a hook's ESC bytes escaped"
else fail "run's warnings and case lines show a hook's ESC bytes escaped" "$(cat -v "$T/hook.out" | head -5)"; fi
finish
