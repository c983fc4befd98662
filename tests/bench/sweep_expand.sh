#!/bin/bash
# Benchmark (not a timed test): a matrix of 100,000 cases (1000 stream counts x 100 lengths)
# is loaded, validated, expanded, checked and listed by `netsweep run --dry-run`; the whole
# command must take under 1 s, so the expansion inside it does too. Prints the figures.
HERE=$(cd "$(dirname "$0")" && pwd)
NETSWEEP=${NETSWEEP:-$HERE/../../build/netsweep}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
{
	echo '<matrix name="big"><axes><axis name="streams">'
	for i in $(seq 1000); do printf '<value>%d</value>' "$i"; done
	echo '</axis><axis name="length">'
	for i in $(seq 100); do printf '<value>%dK</value>' "$i"; done
	echo '</axis><axis name="duration"><value>1</value></axis></axes></matrix>'
} >"$T/big.xml"
start=$(date +%s%N)
"$NETSWEEP" run --dry-run "$T/big.xml" >"$T/out" || { echo "FAIL dry-run exited $?"; exit 1; }
end=$(date +%s%N)
ms=$(( (end - start) / 1000000 ))
summary=$(grep -m1 -E "^[0-9]+ cases \\(" "$T/out")
echo "expansion of 100,000 cases (load + validate + expand + check + list): $ms ms"
echo "  $summary"
case $summary in "100000 cases"*) ;; *) echo "FAIL expected 100000 cases"; exit 1 ;; esac
if [ "$ms" -lt 1000 ]; then echo "PASS under 1 s"; else echo "FAIL $ms ms is over 1 s"; exit 1; fi
