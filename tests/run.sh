#!/bin/bash
# Runs unit test binaries (before --) and integration scripts (after --), then prints one
# closing line "N passed, N failed". cmocka programs are counted by their own tallies;
# integration scripts print "PASS name" / "FAIL name" / "SKIP name: why" lines.
#
# NS_TEST_JOBS tests run at once (default 2; 1: one after another). Every check holds on a busy
# machine (make test-loaded runs the suite beside four CPU hogs), so two at a time on two cores
# is a lighter load than the one the checks are built for, and the suite takes half the time.
# What two tests may not share is taken care of here and in the harness: scripts that build a
# lab (its host-side addresses are per slot, the same in every lab) hold one lock, across
# concurrent suites too; two scripts naming the same namespace wait for each other in
# tests/lib/netns.sh; loopback agents listen on ports the kernel picks. The slowest scripts
# (tests/slow-first.txt) start first, so that the two lanes end together. Each test's output is
# printed whole when it ends, headed by its name, with its seconds.
set -u
jobs=${NS_TEST_JOBS:-2}
case $jobs in '' | *[!0-9]* | 0) echo "run.sh: NS_TEST_JOBS must be a whole number >= 1" >&2; exit 2 ;; esac
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d) || exit 2
trap 'rm -rf "$out"' EXIT
# what builds a lab: `lab up`, a run with --lab or --provision lab, the demo
LAB_RE='lab up|--lab\b|provision lab|make[^|]* demo|mk/demo\.sh|lab-demo\.xml'
LAB_LOCK=${TMPDIR:-/tmp}/netsweep-tests-lab.lock

units=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do units+=("$1"); shift; done
[ $# -gt 0 ] && shift
scripts=("$@")

# The order: the slow scripts named in slow-first.txt that are in this run, the other
# scripts, then the unit tests (short, they fill the lanes' ends).
order=()
if [ -f "$here/slow-first.txt" ]; then
	while read -r s; do
		for t in "${scripts[@]}"; do [ "$t" = "$s" ] && order+=("S $t"); done
	done < <(grep -v '^#' "$here/slow-first.txt")
fi
for t in "${scripts[@]}"; do
	case " ${order[*]} " in *" S $t "*) ;; *) order+=("S $t") ;; esac
done
for t in "${units[@]}"; do order+=("U $t"); done

# run_job I KIND PATH: the test's output in $out/I.log, exit code in $out/I.rc, seconds in
# $out/I.s
run_job() {
	local i=$1 kind=$2 t=$3 t0 rc
	t0=$(date +%s)
	if [ "$kind" = U ]; then
		"$t" >"$out/$i.log" 2>&1
	elif [ "${lab[i]}" = 1 ]; then
		flock "$LAB_LOCK" bash "$t" >"$out/$i.log" 2>&1
	else
		bash "$t" >"$out/$i.log" 2>&1
	fi
	rc=$?
	echo $(($(date +%s) - t0)) >"$out/$i.s"
	echo "$rc" >"$out/$i.rc"
}

passed=0 failed=0 skipped=0
# report I: prints test I's output and adds its counts
report() {
	local i=$1 kind=${order[$1]%% *} t=${order[$1]#* } rc p f s log
	log=$out/$i.log rc=$(cat "$out/$i.rc")
	echo "== $t"
	cat "$log"
	if [ "$kind" = U ]; then
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$log" | tail -n 1)
		p=${p:-0} f=${f:-0} s=0
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "FAIL $t exited $rc"; fi
	else
		echo "-- $t: $(cat "$out/$i.s") s"
		p=$(grep -c '^PASS ' "$log")
		f=$(grep -c '^FAIL ' "$log")
		s=$(grep -c '^SKIP ' "$log")
		if [ "$rc" != 0 ] && [ "$f" = 0 ]; then f=1; echo "FAIL $t exited $rc"; fi
		if [ "$rc" = 0 ] && [ "$p" = 0 ] && [ "$s" = 0 ]; then f=$((f + 1)); echo "FAIL $t ran no check"; fi
	fi
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}

# a lab script waits for no other lab script: it starts only when none runs, and the lanes
# take the next other test meanwhile
lab=() started=()
for i in "${!order[@]}"; do
	lab[i]=0 started[i]=0
	[ "${order[i]%% *}" = S ] && grep -qE "$LAB_RE" "${order[i]#* }" && lab[i]=1
done
declare -A running=()          # pid -> index
left=${#order[@]} lab_busy=0
while [ "$left" -gt 0 ]; do
	while [ "${#running[@]}" -lt "$jobs" ]; do
		pick=-1
		for i in "${!order[@]}"; do
			[ "${started[i]}" = 0 ] || continue
			[ "${lab[i]}" = 1 ] && [ "$lab_busy" = 1 ] && continue
			pick=$i
			break
		done
		[ "$pick" -ge 0 ] || break
		started[pick]=1
		[ "${lab[pick]}" = 1 ] && lab_busy=1
		run_job "$pick" "${order[pick]%% *}" "${order[pick]#* }" &
		running[$!]=$pick
	done
	wait -n
	for pid in "${!running[@]}"; do
		i=${running[$pid]}
		[ -f "$out/$i.rc" ] || continue
		wait "$pid" 2>/dev/null
		unset "running[$pid]"
		[ "${lab[i]}" = 1 ] && lab_busy=0
		report "$i"
		left=$((left - 1))
	done
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" = 0 ]
