#!/bin/bash
# Baseline comparison: two runs of one matrix where case k3 became 40 % slower flag exactly
# that case (and --fail-on-regression exits 1); two alike runs flag none. Also the CLI's
# usage and database errors (exit 2 with a one-line reason).
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
fx=$here/../fixtures/report_fixture.sh
bash "$fx" compare "$tmp/slow.db" slow && bash "$fx" compare "$tmp/same.db" same ||
	{ fail "fixtures" "report_fixture.sh compare"; finish; exit; }

expect_exit "slow: report exits 0 without --fail-on-regression" 0 \
	"$NETSWEEP" report --db "$tmp/slow.db" --baseline previous -o "$tmp/slow"
html=$tmp/slow/index.html
flagged=$(xp "$html" "//table[@id='comparison-table']/tbody/tr[@class='regression']/@data-case-key" |
	sed 's/.*="\(.*\)"/\1/' | tr -d ' \n')
if [ "$flagged" = k3 ]; then pass "slow: exactly k3 flagged"; else fail "slow: exactly k3 flagged" "flagged: '$flagged'"; fi
change=$(xp "$html" "string(//table[@id='comparison-table']/tbody/tr[@data-case-key='k3']/td[5])")
# Medians: 478e6 x 1.000 (run 1) and 478e6 x 0.6 x 1.001 (run 2): -39.94 %.
if [ "$change" = "-39.9 %" ]; then pass "slow: change -39.9 %"; else fail "slow: change -39.9 %" "$change"; fi
if xp "$html" "string(//section[@id='comparison'])" | grep -q "Welch's two-sided t-test.*p < 0.05"; then
	pass "slow: test and threshold stated"
else
	fail "slow: test and threshold stated"
fi
expect_exit "slow: --fail-on-regression 20 exits 1" 1 \
	"$NETSWEEP" report --db "$tmp/slow.db" --baseline previous --fail-on-regression 20 -o "$tmp/s2"
expect_exit "slow: --fail-on-regression 50 exits 0 (drop is 40 %)" 0 \
	"$NETSWEEP" report --db "$tmp/slow.db" --baseline 1 --run 2 --fail-on-regression 50 -o "$tmp/s3"
if [ "$(xp "$html" "string(//figure[@id='chart-trend']/@data-status)")" = ok ] || ! command -v gnuplot >/dev/null; then
	pass "slow: trend chart with a baseline"
else
	fail "slow: trend chart with a baseline" "$(xp "$html" "string(//figure[@id='chart-trend'])")"
fi
if grep -q '\*\*regression\*\*' "$tmp/slow/report.md"; then pass "slow: report.md marks the regression"; else fail "slow: report.md marks the regression"; fi

expect_exit "same: --fail-on-regression 1 exits 0" 0 \
	"$NETSWEEP" report --db "$tmp/same.db" --baseline previous --fail-on-regression 1 -o "$tmp/same"
n=$(xp "$tmp/same/index.html" "count(//table[@id='comparison-table']/tbody/tr[@class])")
rows=$(xp "$tmp/same/index.html" "count(//table[@id='comparison-table']/tbody/tr)")
if [ "$n" = 0 ] && [ "$rows" = 4 ]; then pass "same: none of 4 cases flagged"; else fail "same: none flagged" "$n flagged of $rows"; fi

# The gate also covers what the t-test cannot: every case of run 2 failed; one repeat per
# case (k3 40 % slower in the slow runs); a baseline case missing from run 2.
gate_trips() { # name db out expected-stderr-text: --fail-on-regression 20 exits 1 saying why
	local err rc
	err=$("$NETSWEEP" report --db "$2" --baseline previous --fail-on-regression 20 -o "$3" \
		2>&1 >/dev/null); rc=$?
	if [ "$rc" = 1 ] && echo "$err" | grep -q "$4"; then pass "$1"; else fail "$1" "exit $rc: $err"; fi
}
cp "$tmp/same.db" "$tmp/allfail.db"
sqlite3 "$tmp/allfail.db" "UPDATE results SET status = 'failed', error = 'agent went away',
	fwd_snd_bps = NULL, fwd_rcv_bps = NULL WHERE case_id IN (SELECT id FROM cases WHERE run_id = 2)"
expect_exit "all cases of run 2 failed: report exits 0 without --fail-on-regression" 0 \
	"$NETSWEEP" report --db "$tmp/allfail.db" --baseline previous -o "$tmp/af0"
gate_trips "all cases of run 2 failed: --fail-on-regression 20 exits 1" "$tmp/allfail.db" \
	"$tmp/af1" '4 cases had successful repeats in run 1 and none now'
for m in slow same; do
	cp "$tmp/$m.db" "$tmp/one-$m.db"
	sqlite3 "$tmp/one-$m.db" "DELETE FROM results WHERE repeat > 0; UPDATE runs SET repeats = 1"
done
gate_trips "repeats 1, k3 40 % slower: --fail-on-regression 20 exits 1 (median alone)" \
	"$tmp/one-slow.db" "$tmp/o1" '1 case with fewer than 2 successful repeats fell by more than 20 %'
expect_exit "repeats 1, k3 40 % slower: --fail-on-regression 50 exits 0" 0 \
	"$NETSWEEP" report --db "$tmp/one-slow.db" --baseline previous --fail-on-regression 50 -o "$tmp/o2"
expect_exit "repeats 1, alike: --fail-on-regression 1 exits 0" 0 \
	"$NETSWEEP" report --db "$tmp/one-same.db" --baseline previous --fail-on-regression 1 -o "$tmp/o3"
cp "$tmp/same.db" "$tmp/gone.db"
sqlite3 "$tmp/gone.db" "PRAGMA foreign_keys = ON; DELETE FROM results WHERE case_id =
	(SELECT id FROM cases WHERE run_id = 2 AND case_key = 'k4');
	DELETE FROM cases WHERE run_id = 2 AND case_key = 'k4'"
gate_trips "a baseline case missing from run 2: --fail-on-regression 20 exits 1" \
	"$tmp/gone.db" "$tmp/g1" '1 case of run 1 is missing from this run'
if xp "$tmp/o1/index.html" "string(//section[@id='comparison'])" | grep -q 'gated on its median change alone' &&
   grep -q 'gated on its median change alone' "$tmp/o1/report.md"; then
	pass "the report states how the gate treats untestable and missing cases"
else
	fail "the report states how the gate treats untestable and missing cases"
fi

"$NETSWEEP" report --db "$tmp/same.db" --title 'Night <b>&</b> day' -o "$tmp/titled" >/dev/null 2>&1
if [ "$(xp "$tmp/titled/index.html" 'string(//h1)')" = 'Night <b>&</b> day' ] &&
   [ "$(xp "$tmp/titled/index.html" 'count(//h1/b)')" = 0 ]; then
	pass "--title is used, as text"
else
	fail "--title is used, as text" "$(xp "$tmp/titled/index.html" 'string(//h1)')"
fi
# The first run has no previous one: a note, not an error.
out=$("$NETSWEEP" report --db "$tmp/same.db" --run 1 --baseline previous -o "$tmp/first" 2>&1)
if [ $? = 0 ] && echo "$out" | grep -q 'no earlier run'; then pass "no previous run: noted"; else fail "no previous run: noted" "$out"; fi

# Errors: exit 2 and one line saying why.
one_line_2() { # name expected-text command...
	local name=$1 want=$2; shift 2
	local err rc
	err=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" = 1 ] && echo "$err" | grep -q "$want"; then
		pass "$name"
	else
		fail "$name" "exit $rc: $err"
	fi
}
one_line_2 "missing database exits 2" "no such database" "$NETSWEEP" report --db "$tmp/nope.db" -o "$tmp/x"
one_line_2 "unknown run exits 2" "run 42: no run with that id or label" "$NETSWEEP" report --db "$tmp/same.db" --run 42 -o "$tmp/x"
one_line_2 "unknown baseline exits 2" "baseline 9: no run with that id or label" "$NETSWEEP" report --db "$tmp/same.db" --baseline 9 -o "$tmp/x"
one_line_2 "bad option exits 2" "unknown option" "$NETSWEEP" report --frobnicate
one_line_2 "bad percentage exits 2" "fail-on-regression" "$NETSWEEP" report --db "$tmp/same.db" --baseline previous --fail-on-regression x
echo "not a database" > "$tmp/junk.db"
one_line_2 "non-netsweep file exits 2" "not a netsweep database" "$NETSWEEP" report --db "$tmp/junk.db" -o "$tmp/x"
sqlite3 "$tmp/empty.db" < "$here/../../schemas/store.sql"
one_line_2 "database without runs exits 2" "holds no runs" "$NETSWEEP" report --db "$tmp/empty.db" -o "$tmp/x"
sqlite3 "$tmp/empty.db" "INSERT INTO runs(matrix_name, matrix_text, matrix_hash, started_at,
	netsweep_version) VALUES ('empty', '<m/>', 'h', '2026-01-01T00:00:00Z', '0.1.0')"
# the charts with nothing to draw: one line naming each (6), not an empty panel each
if "$NETSWEEP" report --db "$tmp/empty.db" -o "$tmp/empty" >/dev/null 2>&1 &&
   [ "$(xp "$tmp/empty/index.html" "count(//figure[@data-status='nodata'])")" = 0 ] &&
   [ "$(xp "$tmp/empty/index.html" "string(//p[@id='charts-nodata'])" | grep -o '; ' | wc -l)" = 5 ]; then
	pass "a run without cases renders, one line naming the 6 charts with no data"
else
	fail "a run without cases renders"
fi
# A newline in a label (here the pair's name) cannot start a data line in a chart's .dat file:
# lib/textesc shows it as \n in the comment line.
cp "$tmp/same.db" "$tmp/nl.db"
sqlite3 "$tmp/nl.db" "UPDATE endpoints SET name = 'lo' || char(10) || '9 9 9 9' || char(13, 10) || '8 8'"
"$NETSWEEP" report --db "$tmp/nl.db" --baseline previous -o "$tmp/nl" >/dev/null 2>&1
bad=$(grep -lE '^(9 9 9 9|8 8)' "$tmp/nl"/*.dat 2>/dev/null)
if [ -s "$tmp/nl/streams.dat" ] && [ -s "$tmp/nl/trend.dat" ] && [ -z "$bad" ] &&
   grep -qF '# lo\n9 9 9 9\r\n8 8 tcp forward' "$tmp/nl/streams.dat" &&
   grep -qF '# lo\n9 9 9 9\r\n8 8 tcp forward' "$tmp/nl/trend.dat"; then
	pass "a newline in a label stays inside the .dat comment line"
else
	fail "a newline in a label stays inside the .dat comment line" "label lines in: ${bad:-none}"
fi
if (cd "$tmp" && NETSWEEP_DB="$tmp/same.db" "$NETSWEEP" report -o envout >/dev/null) && [ -s "$tmp/envout/index.html" ]; then
	pass "NETSWEEP_DB picks the database"
else
	fail "NETSWEEP_DB picks the database"
fi
finish
