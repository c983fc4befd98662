#!/bin/bash
# Without gnuplot the report is still written — tables, findings, every chart's .gp and .dat —
# and says that charts were skipped and how to install gnuplot. A gnuplot that hangs is cut
# off by the time limit; one that fails is reported per chart.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
db=$tmp/basic.db
bash "$here/../fixtures/report_fixture.sh" basic "$db" || { fail "fixture" "report_fixture.sh basic"; finish; exit; }
charts="streams pps_size gbps_size per_dollar series cpu"

no_gnuplot_checks() { # label out-dir stdout-file
	local label=$1 out=$2 log=$3 missing=""
	for c in $charts; do
		[ -s "$out/$c.gp" ] && [ -s "$out/$c.dat" ] || missing="$missing $c"
		[ -e "$out/$c.svg" ] && missing="$missing $c.svg(unexpected)"
	done
	if [ -z "$missing" ]; then pass "$label: .gp and .dat written, no .svg"; else fail "$label: .gp/.dat" "$missing"; fi
	local note
	note=$(xp "$out/index.html" "string(//p[@id='charts-skipped'])")
	if echo "$note" | grep -q 'Charts were skipped' && echo "$note" | grep -q 'apt-get install gnuplot-nox'; then
		pass "$label: page says charts were skipped and how to install gnuplot"
	else
		fail "$label: page says charts were skipped" "$note"
	fi
	if grep -q 'Install gnuplot: apt-get install gnuplot-nox' "$log" &&
	   grep -q 'apt-get install gnuplot-nox' "$out/report.md"; then
		pass "$label: stdout and report.md say so too"
	else
		fail "$label: stdout and report.md say so too"
	fi
	if [ "$(xp "$out/index.html" "count(//table[@id='results-table']/tbody/tr)")" = 17 ] &&
	   xp "$out/index.html" "string(//section[@id='findings'])" | grep -q 'most throughput per dollar'; then
		pass "$label: tables and findings present"
	else
		fail "$label: tables and findings present"
	fi
}

NETSWEEP_GNUPLOT=/nonexistent "$NETSWEEP" report --db "$db" -o "$tmp/a" >"$tmp/a.log" 2>&1
if [ $? = 0 ]; then pass "NETSWEEP_GNUPLOT=/nonexistent: exit 0"; else fail "NETSWEEP_GNUPLOT=/nonexistent: exit 0" "$(cat "$tmp/a.log")"; fi
no_gnuplot_checks "NETSWEEP_GNUPLOT=/nonexistent" "$tmp/a" "$tmp/a.log"

mkdir -p "$tmp/emptybin"
env -u NETSWEEP_GNUPLOT PATH="$tmp/emptybin" "$NETSWEEP" report --db "$db" -o "$tmp/b" >"$tmp/b.log" 2>&1
if [ $? = 0 ] && grep -q 'not found on PATH' "$tmp/b.log"; then pass "gnuplot not on PATH: exit 0"; else fail "gnuplot not on PATH: exit 0" "$(cat "$tmp/b.log")"; fi
no_gnuplot_checks "gnuplot not on PATH" "$tmp/b" "$tmp/b.log"

# A hanging gnuplot: cut off at the time limit, the report still written.
printf '#!/bin/sh\nexec sleep 30\n' > "$tmp/emptybin/hang"
chmod +x "$tmp/emptybin/hang"
start=$(date +%s)
NETSWEEP_GNUPLOT=$tmp/emptybin/hang "$NETSWEEP" report --db "$db" -o "$tmp/c" --gnuplot-timeout 0.3 >"$tmp/c.log" 2>&1
rc=$? took=$(($(date +%s) - start))
if [ $rc = 0 ] && [ "$took" -lt 10 ] && grep -q 'did not finish within 0.3 s' "$tmp/c.log" &&
   [ "$(xp "$tmp/c/index.html" "count(//figure[@data-status='failed'])")" = 6 ]; then
	pass "hanging gnuplot is killed at the time limit (${took}s)"
else
	fail "hanging gnuplot is killed at the time limit" "rc $rc, ${took}s: $(head -3 "$tmp/c.log")"
fi
printf '#!/bin/sh\necho "line 3: undefined variable: oops" >&2\nexit 1\n' > "$tmp/emptybin/bad"
chmod +x "$tmp/emptybin/bad"
NETSWEEP_GNUPLOT=$tmp/emptybin/bad "$NETSWEEP" report --db "$db" -o "$tmp/d" >"$tmp/d.log" 2>&1
if [ $? = 0 ] && xp "$tmp/d/index.html" "string(//figure[@id='chart-streams'])" | grep -q 'gnuplot failed (exit 1): line 3: undefined variable: oops'; then
	pass "failing gnuplot is reported per chart"
else
	fail "failing gnuplot is reported per chart" "$(head -3 "$tmp/d.log")"
fi
# The written scripts render as they are when gnuplot is there (what a user would do).
if command -v gnuplot >/dev/null; then
	if (cd "$tmp/a" && gnuplot streams.gp 2>/dev/null) && [ -s "$tmp/a/streams.svg" ]; then
		pass "written .gp renders by hand"
	else
		fail "written .gp renders by hand"
	fi
else
	skip "written .gp renders by hand" "gnuplot not installed"
fi
finish
