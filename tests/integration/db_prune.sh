#!/bin/bash
# Retention, and the year of nights in short: tests/bench/year_store writes 6 nights (the
# last still running) of the benchmark's store, small; the site is built over the 5 finished
# ones (addresses DATE-UUID8). `db prune --keep-nights 2` drops the interval series of the 3
# oldest nights and nothing else: samples gone there and whole in the newest 2, results,
# medians, `runs --json` and a pruned night's export as they were, its report still made.
# A failure half way (a trigger refuses the probe JSON's update, after the samples were
# deleted) changes nothing; --dry-run changes nothing. Then the sixth night finishes and the
# site is rebuilt: one night rendered, every file of the first build still there, every
# night linked.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
gen=${YEAR_STORE:-$(dirname "$NETSWEEP")/tests/year_store}
[ -x "$gen" ] || gen=$here/../../build/tests/year_store
db=$tmp/y.db site=$tmp/site
NS_YEAR_LAST_RUNNING=1 "$gen" "$db" 6 30 5 || { fail "year_store" "$gen did not write $db"; finish; exit; }
q() { sqlite3 "$db" "$1"; }
samples_of() { q "SELECT count(*) FROM samples s JOIN results r ON r.id = s.result_id JOIN cases c ON c.id = r.case_id WHERE c.run_id = $1"; }
[ "$(q 'SELECT count(*) FROM runs')" = 6 ] && [ "$(samples_of 1)" -gt 0 ] &&
	pass "year_store: 6 nights, intervals stored" || fail "year_store: 6 nights, intervals stored"

export NETSWEEP_GNUPLOT=none # the charts are site.sh's; this is about the rows
out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
[ $? = 0 ] && grep -q '5 nights (5 rendered' <<<"$out" && pass "site over the 5 finished nights" ||
	fail "site over the 5 finished nights" "$out"
n8=$(find "$site/nights" -mindepth 1 -maxdepth 1 -type d | grep -cE '/20[0-9]{2}-[0-9]{2}-[0-9]{2}-[0-9a-f]{8}$')
[ "$n8" = 5 ] && pass "night addresses are DATE-UUID8" || fail "night addresses are DATE-UUID8" "$(ls "$site/nights")"
(cd "$site" && find . -type f | sort) >"$tmp/first.lst"

medians() { q "SELECT case_id, median_bps, repeats_ok FROM v_case_median ORDER BY case_id" | md5sum; }
m0=$(medians) r0=$(q 'SELECT count(*) FROM results') runs0=$("$NETSWEEP" runs --db "$db" --json | md5sum)
"$NETSWEEP" export --db "$db" --run 1 --format ndjson >"$tmp/x0" 2>&1
q "UPDATE results SET probe_json = '{\"intervals\":[{\"start_s\":0}],\"sum\":{\"bits_per_second\":1}}' WHERE id = 1"
s1=$(samples_of 1) s4=$(samples_of 4) s5=$(samples_of 5)

out=$("$NETSWEEP" db prune --db "$db" --keep-nights 2 --dry-run 2>&1)
[ $? = 0 ] && grep -q '3 finished runs would be pruned' <<<"$out" && [ "$(samples_of 1)" = "$s1" ] &&
	pass "--dry-run: counts 3 runs, changes nothing" || fail "--dry-run: counts 3 runs, changes nothing" "$out"

q "CREATE TRIGGER refuse BEFORE UPDATE OF probe_json ON results BEGIN SELECT RAISE(ABORT, 'refused by the test'); END"
"$NETSWEEP" db prune --db "$db" --keep-nights 2 >"$tmp/p.out" 2>&1
rc=$?
[ "$rc" = 1 ] && [ "$(samples_of 1)" = "$s1" ] && [ "$(q 'SELECT json_type(probe_json, "$.intervals") FROM results WHERE id = 1')" = array ] &&
	pass "a prune that fails half way changes nothing (exit 1, samples back)" ||
	fail "a prune that fails half way changes nothing" "exit $rc, $(samples_of 1) of $s1 samples; $(cat "$tmp/p.out")"
q "DROP TRIGGER refuse"

out=$("$NETSWEEP" db prune --db "$db" --keep-nights 2 --vacuum 2>&1)
if [ $? = 0 ] && [ "$(samples_of 1)" = 0 ] && [ "$(samples_of 3)" = 0 ] &&
   [ "$(samples_of 4)" = "$s4" ] && [ "$(samples_of 5)" = "$s5" ]; then
	pass "prune --keep-nights 2: the 3 oldest nights' samples gone, the newest 2 whole"
else
	fail "prune --keep-nights 2" "$out; samples now $(samples_of 1) $(samples_of 3) $(samples_of 4)/$s4 $(samples_of 5)/$s5"
fi
[ "$(q 'SELECT json_type(probe_json, "$.intervals") IS NULL AND json_extract(probe_json, "$.sum.bits_per_second") = 1 FROM results WHERE id = 1')" = 1 ] &&
	pass "the probe JSON loses its interval series and keeps its sums" || fail "the probe JSON loses its interval series and keeps its sums"
[ "$(q 'SELECT count(*) FROM results')" = "$r0" ] && [ "$(medians)" = "$m0" ] &&
	[ "$("$NETSWEEP" runs --db "$db" --json | md5sum)" = "$runs0" ] &&
	pass "results, medians and runs --json as they were" || fail "results, medians and runs --json as they were"
"$NETSWEEP" export --db "$db" --run 1 --format ndjson >"$tmp/x1" 2>&1
cmp -s "$tmp/x0" "$tmp/x1" && pass "a pruned night's export is unchanged" ||
	fail "a pruned night's export is unchanged" "$(diff "$tmp/x0" "$tmp/x1" | head -3)"
"$NETSWEEP" report --db "$db" --run 1 -o "$tmp/r1" >/dev/null 2>&1 && [ -s "$tmp/r1/index.html" ] &&
	pass "a pruned night's report is still made" || fail "a pruned night's report is still made"
expect_exit "prune without --keep-nights is a usage error" 2 "$NETSWEEP" db prune --db "$db"
expect_exit "prune --keep-nights 0 is a usage error" 2 "$NETSWEEP" db prune --db "$db" --keep-nights 0
expect_exit "prune of a missing database is a usage error" 2 "$NETSWEEP" db prune --db "$tmp/none.db" --keep-nights 1
[ ! -e "$tmp/none.db" ] && pass "prune creates no database" || fail "prune creates no database"

q "UPDATE runs SET status = 'done', finished_at = started_at WHERE id = 6"
out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
[ $? = 0 ] && grep -q '6 nights (1 rendered' <<<"$out" && pass "site after the prune and a new night: 1 rendered" ||
	fail "site after the prune and a new night: 1 rendered" "$out"
(cd "$site" && find . -type f | sort) >"$tmp/second.lst"
gone=$(comm -23 "$tmp/first.lst" "$tmp/second.lst")
[ -z "$gone" ] && pass "every file of the first build is still there" || fail "every file of the first build is still there" "$gone"
nl=$(xp "$site/index.html" 'count(//table[@id="nights-table"]//a[starts-with(@href, "nights/")])')
[ "$nl" = 6 ] && pass "the index links all 6 nights" || fail "the index links all 6 nights" "$nl"
out=$("$NETSWEEP" db prune --help)
[ "$(head -1 <<<"$out")" = "usage: netsweep db prune --keep-nights N [--db FILE] [--matrix NAME] [--dry-run]" ] &&
	! grep -q merge <<<"$out" && pass "db prune --help prints prune's usage only" ||
	fail "db prune --help prints prune's usage only" "$(head -2 <<<"$out")"
finish
