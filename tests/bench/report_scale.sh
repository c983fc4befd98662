#!/bin/bash
# Benchmark: a database of 10,000 cases (2 repeats each) with 1,000,000 interval samples renders
# its tables (index.html, report.md, results.csv) and chart data (.gp/.dat) in under 3 s,
# gnuplot excluded (NETSWEEP_GNUPLOT=none). Best wall time of 3 runs, as the machine is shared.
here=$(cd "$(dirname "$0")" && pwd)
NETSWEEP=${NETSWEEP:-$here/../../build/netsweep}
LIMIT=${LIMIT:-3.0}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t0=$(date +%s.%N)
bash "$here/../fixtures/report_fixture.sh" scale "$tmp/scale.db" 10000 50 || exit 1
t1=$(date +%s.%N)
read -r cases samples < <(sqlite3 -separator ' ' "$tmp/scale.db" "SELECT (SELECT count(*) FROM cases), (SELECT count(*) FROM samples)")
echo "fixture: $cases cases, $samples samples, built in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
best=
for i in 1 2 3; do
	/usr/bin/time -f '%e %U %S %M' -o "$tmp/time" env NETSWEEP_GNUPLOT=none \
		"$NETSWEEP" report --db "$tmp/scale.db" -o "$tmp/out" >/dev/null || { echo "report failed"; exit 1; }
	read -r wall user sys rss < "$tmp/time"
	echo "run $i: ${wall} s wall, ${user} s user, ${sys} s sys, ${rss} KB max RSS"
	if [ -z "$best" ] || awk -v a="$wall" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$wall; fi
done
for f in index.html report.md results.csv streams.dat cpu.dat series.dat; do
	[ -s "$tmp/out/$f" ] || { echo "missing $f"; exit 1; }
done
echo "report_scale: best ${best} s for $cases cases / $samples samples (limit ${LIMIT} s)"
awk -v a="$best" -v b="$LIMIT" 'BEGIN { exit !(a < b) }'
