#!/bin/bash
# Benchmark: a year of nights. tests/bench/year_store writes a store of N nightly runs of one
# matrix (300 cases on 10 priced pairs, 3 repeats, 10 interval samples per result, latency
# histograms and rate searches), for N = 30 and 365 (YEAR_NIGHTS="30 365"). On each: the
# wall time and peak memory (/usr/bin/time: elapsed, max RSS) of `runs`, `export` (the latest
# night), `report` (the latest night against the one before, gnuplot on), `db merge` (the
# store into a new one) and `site`: first built with the last night still running (charts
# off, to keep the benchmark short), then rebuilt once that night has finished — what a
# nightly job pays. Prints a table; fails when a new night's site rebuild takes 10 s or more
# or a night's report 3 s or more at any size (SITE_LIMIT, REPORT_LIMIT).
here=$(cd "$(dirname "$0")" && pwd)
NETSWEEP=${NETSWEEP:-$here/../../build/netsweep}
GEN=${YEAR_STORE:-$here/../../build/tests/year_store}
SITE_LIMIT=${SITE_LIMIT:-10} REPORT_LIMIT=${REPORT_LIMIT:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -x "$GEN" ] || { echo "year.sh: $GEN is not built (make all)"; exit 1; }
cp "$NETSWEEP" "$tmp/netsweep" && NETSWEEP=$tmp/netsweep
ok=1
timed() { # NAME COMMAND...: runs it, prints "NAME wall_s max_rss_kb"
	local name=$1; shift
	/usr/bin/time -f '%e %M' -o "$tmp/time" "$@" >"$tmp/out" 2>&1 ||
		{ echo "year.sh: $name failed:"; cat "$tmp/out"; return 1; }
	read -r wall rss <"$tmp/time"
	printf '%s %s %s\n' "$name" "$wall" "$rss" >>"$tmp/figures"
}
echo "machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"
for n in ${YEAR_NIGHTS:-30 365}; do
	db=$tmp/y$n.db
	t0=$(date +%s.%N)
	"$GEN" "$db" "$n" || { echo "year.sh: year_store failed"; exit 1; }
	t1=$(date +%s.%N)
	read -r runs cases results samples < <(sqlite3 -separator ' ' "$db" "SELECT (SELECT count(*) FROM runs),
		(SELECT count(*) FROM cases), (SELECT count(*) FROM results), (SELECT count(*) FROM samples)")
	echo "$n nights: $runs runs, $cases cases, $results results, $samples samples," \
		"$(($(stat -c %s "$db") / 1048576)) MiB, written in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	: >"$tmp/figures"
	timed runs "$NETSWEEP" runs --db "$db" || exit 1
	timed export "$NETSWEEP" export --db "$db" -o "$tmp/x.om" || exit 1
	timed report "$NETSWEEP" report --db "$db" --baseline previous -o "$tmp/r$n" || exit 1
	rm -f "$tmp/m.db"
	timed "db merge" "$NETSWEEP" db merge "$tmp/m.db" "$db" || exit 1
	rm -f "$tmp/m.db"
	sqlite3 "$db" "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = $n"
	timed "site, first build (all nights but the last, charts off)" env NETSWEEP_GNUPLOT=none \
		"$NETSWEEP" site --db "$db" -o "$tmp/s$n" || exit 1
	sqlite3 "$db" "UPDATE runs SET status = 'done', finished_at = started_at WHERE id = $n"
	timed "site, a new night" "$NETSWEEP" site --db "$db" -o "$tmp/s$n" || exit 1
	grep -q '(1 rendered' "$tmp/out" || { echo "year.sh: the rebuild rendered more than the new night:"; cat "$tmp/out"; ok=0; }
	while read -r line; do
		name=${line% * *} fig=${line##"$name "}
		printf '%-56s %4d nights  %7.2f s  %7d KB\n' "$name" "$n" ${fig% *} ${fig#* }
		echo "$name|$n|$fig" >>"$tmp/all"
	done <"$tmp/figures"
	rm -rf "$tmp/s$n" "$tmp/r$n" "$db"
done
echo
echo "| command | $(awk -F'|' '{print $2}' "$tmp/all" | sort -nu | sed 's/$/ nights/' | paste -sd'|' | sed 's/|/ | /g') | growth |"
echo "|---|$(awk -F'|' '{print $2}' "$tmp/all" | sort -nu | sed 's/.*/---/' | paste -sd'|')|---|"
awk -F'|' '{ split($3, f, " "); k = $1; if (!(k in first)) { order[++n] = k; first[k] = f[1] }
	last[k] = f[1]; cell[k] = cell[k] " | " sprintf("%.2f s, %.0f MB", f[1], f[2] / 1024) }
	END { for (i = 1; i <= n; i++) { k = order[i]
		printf "| %s%s | %.1fx |\n", k, cell[k], (first[k] > 0 ? last[k] / first[k] : 0) } }' "$tmp/all"
while IFS='|' read -r name n fig; do
	wall=${fig% *}
	case $name in
	"site, a new night") lim=$SITE_LIMIT ;;
	report) lim=$REPORT_LIMIT ;;
	*) continue ;;
	esac
	awk -v a="$wall" -v b="$lim" 'BEGIN { exit !(a < b) }' ||
		{ echo "year.sh: $name at $n nights took $wall s (limit $lim s)"; ok=0; }
done <"$tmp/all"
[ "$ok" = 1 ]
