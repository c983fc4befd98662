#!/bin/bash
# Hostile stored text (issue 43): a run's label, its matrix name, its pair names, a failed
# result's error and warnings and a hook's output, each with every control character, DEL, C1
# controls, U+FFFE, bytes that are not UTF-8 and 10 kB of text, written into the store as an
# older version or a peer could have. The site, the report (HTML, Markdown, CSV, JSON, SVG),
# the exports (OpenMetrics, Prometheus, NDJSON) and `runs` all build, and every file they write
# is UTF-8 without a forbidden character and parses in its format (tests/fixtures/valid_text.py;
# promtool when installed); a second night built after it renders; a night.xml an older build
# left unparseable is rendered again instead of stopping the build; `run --label` refuses such
# a label where it enters.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
valid() { python3 "$here/../fixtures/valid_text.py" "$@"; }
db=$tmp/n.db site=$tmp/site
bash "$here/../fixtures/report_fixture.sh" nights "$db" 3 9 ||
	{ fail "fixture" "report_fixture.sh nights"; finish; exit; }
# night 3 is still running at the first build: the second build adds it
sqlite3 "$db" "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = 3"
python3 - "$db" <<'PY' || { fail "hostile rows" "python3 sqlite3"; finish; exit; }
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
h = (bytes(range(1, 32)) + b'\x7f \xff\xfe \xc3( \xed\xa0\x80 \xc0\xaf \xc2\x85\xc2\x9b \xef\xbf\xbe '
     + b'x' * 10000 + ' é東京 <&>"\''.encode())
db.execute("UPDATE runs SET label = CAST(? AS TEXT), matrix_name = CAST(? AS TEXT) WHERE id = 1", (h, h))
db.execute("UPDATE endpoints SET name = CAST(? AS TEXT) || id WHERE run_id = 1", (h,))
r = db.execute("SELECT r.id FROM results r JOIN cases c ON c.id = r.case_id WHERE c.run_id = 1 LIMIT 1").fetchone()[0]
db.execute("UPDATE results SET status = 'failed', error = CAST(? AS TEXT), warnings = CAST(? AS TEXT) WHERE id = ?", (h, h, r))
db.execute("INSERT INTO hooks(run_id, pair, kind, attempt, command, started_at, finished_at, status, exit_code, error, stdout, stderr) "
           "VALUES (1, '', 'setup', 1, CAST(? AS TEXT), '2026-11-01T00:59:00Z', '2026-11-01T00:59:30Z', 'failed', 3, CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT))", (h, h, h, h))
db.commit()
PY

out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q '2 nights (2 rendered' <<<"$out" && pass "site builds over hostile labels and names" ||
	fail "site builds over hostile labels and names" "exit $rc: ${out:0:300}"
v=$(valid "$site" 2>&1) && pass "every file of the site is valid UTF-8 / XML 1.0 / JSON (${v##*$'\n'})" ||
	fail "every file of the site is valid" "$(head -5 <<<"$v")"
night1=$(ls -d "$site"/nights/*-run1 2>/dev/null | head -1)
grep -qF '\x1b' "$night1/night.xml" 2>/dev/null && grep -qF '\xff' "$night1/night.xml" &&
	pass "night.xml shows the label's ESC and bad byte as escapes" ||
	fail "night.xml shows the label's ESC and bad byte as escapes"

# the second night, after it
sqlite3 "$db" "UPDATE runs SET status = 'done', finished_at = '2026-11-03T01:30:00Z' WHERE id = 3"
out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q '3 nights (1 rendered' <<<"$out" && pass "a later night builds after it" ||
	fail "a later night builds after it" "exit $rc: ${out:0:300}"
v=$(valid "$site" 2>&1) && pass "the rebuilt site is valid" || fail "the rebuilt site is valid" "$(head -5 <<<"$v")"

# a night.xml an older build wrote with the raw label: rendered again, the build goes on
printf '<?xml version="1.0"?>\n<night run="1" label="ctl\001\033"/>\n' >"$night1/night.xml"
out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
rc=$?
[ $rc = 0 ] && grep -q 'rendered again' <<<"$out" && valid "$night1/night.xml" >/dev/null &&
	pass "an unparseable night.xml is rendered again, not a stop" ||
	fail "an unparseable night.xml is rendered again, not a stop" "exit $rc: ${out:0:300}"

# the report of the hostile night, alone and as a baseline
"$NETSWEEP" report --db "$db" --run 1 -o "$tmp/r1" >"$tmp/r1.out" 2>&1 &&
	"$NETSWEEP" report --db "$db" --run 2 --baseline 1 --trend 3 -o "$tmp/r2" >"$tmp/r2.out" 2>&1 &&
	pass "report builds (HTML, Markdown, CSV, JSON, charts)" ||
	fail "report builds" "$(head -3 "$tmp/r1.out" "$tmp/r2.out")"
v=$(valid "$tmp/r1" "$tmp/r2" "$tmp/r1.out" "$tmp/r2.out" 2>&1) && pass "every report file and its terminal output are valid (${v##*$'\n'})" ||
	fail "every report file and its terminal output are valid" "$(head -5 <<<"$v")"
grep -qF '\x1b' "$tmp/r1/results.csv" &&
	pass "results.csv shows ESC as an escape" || fail "results.csv shows ESC as an escape"

mkdir -p "$tmp/x"
for f in openmetrics prometheus ndjson; do
	"$NETSWEEP" export --db "$db" --last 3 --format $f -o "$tmp/x/all.$f" 2>"$tmp/x/$f.err" ||
		fail "export --format $f" "$(head -3 "$tmp/x/$f.err")"
done
"$NETSWEEP" runs --db "$db" >"$tmp/x/runs.txt" 2>&1 || fail "runs" "$(head -3 "$tmp/x/runs.txt")"
v=$(valid "$tmp/x" 2>&1) && pass "exports and runs' table are valid (${v##*$'\n'})" ||
	fail "exports and runs' table are valid" "$(head -5 <<<"$v")"
if command -v promtool >/dev/null; then
	"$NETSWEEP" export --db "$db" --last 3 --format prometheus --no-timestamps |
		promtool check metrics >"$tmp/prom.out" 2>&1 &&
		pass "promtool check metrics accepts the export" ||
		fail "promtool check metrics accepts the export" "$(head -3 "$tmp/prom.out")"
else
	skip "promtool check metrics" "promtool not installed"
fi

# where a label enters: refused with its reason
m=$here/../../data/matrices/quick.xml
for l in $'ctl\x01\x1b' $'bad\xff' "$(head -c 300 /dev/zero | tr '\0' x)"; do
	out=$("$NETSWEEP" run "$m" --dry-run --db "$tmp/l.db" --label "$l" 2>&1)
	rc=$?
	if [ $rc = 2 ] && grep -q -- '--label' <<<"$out" && valid <(printf '%s' "$out") >/dev/null 2>&1; then
		pass "run --label refuses $(printf '%q' "${l:0:8}") ($(head -1 <<<"$out" | cut -c1-60)...)"
	else
		fail "run --label refuses $(printf '%q' "${l:0:8}")" "exit $rc: ${out:0:200}"
	fi
done
finish
