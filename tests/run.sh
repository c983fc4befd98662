#!/bin/sh
# Runs unit test binaries (before --) and integration scripts (after --), then prints one
# closing line "N passed, N failed". cmocka programs are counted by their own tallies;
# integration scripts print "PASS name" / "FAIL name" / "SKIP name: why" lines.
set -u
passed=0 failed=0 skipped=0
log=$(mktemp) || exit 2
trap 'rm -f "$log"' EXIT

units=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do units="$units $1"; shift; done
[ $# -gt 0 ] && shift

for t in $units; do
	echo "== $t"
	"$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
	p=${p:-0} f=${f:-0}
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "FAIL $t exited $rc"; fi
	passed=$((passed + p)) failed=$((failed + f))
done

for t in "$@"; do
	echo "== $t"
	t0=$(date +%s)
	bash "$t" >"$log" 2>&1
	rc=$?
	cat "$log"
	echo "-- $t: $(($(date +%s) - t0)) s"
	p=$(grep -c '^PASS ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	s=$(grep -c '^SKIP ' "$log")
	if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "FAIL $t exited $rc"; fi
	if [ "$rc" = 0 ] && [ "$p" = 0 ] && [ "$s" = 0 ]; then f=$((f + 1)); echo "FAIL $t ran no check"; fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
