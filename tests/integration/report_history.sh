#!/bin/bash
# Many nights: ten runs of one matrix where the m4.xlarge link carries 60 % from run 6 on.
# The History table marks run 6 for that pair's cases and nothing else, a finding says so,
# the page states the method, and the trend chart marks the step. Ten runs without a drop
# mark nothing.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
fx=$here/../fixtures/report_fixture.sh
bash "$fx" nights "$tmp/d.db" 10 6 && bash "$fx" nights "$tmp/f.db" 10 11 ||
	{ fail "fixtures" "report_fixture.sh nights"; finish; exit; }
"$NETSWEEP" report --db "$tmp/d.db" -o "$tmp/d" >/dev/null 2>&1 &&
"$NETSWEEP" report --db "$tmp/f.db" -o "$tmp/f" >/dev/null 2>&1 || { fail "reports"; finish; exit; }
html=$tmp/d/index.html
# Every marked cell as case-key@column; column 1 is the case, column k+1 is run k.
marks=$(for key in $(xp "$html" "//table[@id='history-table']/tbody/tr/@data-case-key" | sed 's/.*="\(.*\)"/\1/'); do
	n=$(xp "$html" "count(//table[@id='history-table']/tbody/tr[@data-case-key='$key']/td)")
	for ((c = 2; c <= n; c++)); do
		[ -n "$(xp "$html" "string(//table[@id='history-table']/tbody/tr[@data-case-key='$key']/td[$c]/@data-step)")" ] &&
			echo "$key@$(xp "$html" "string(//table[@id='history-table']/thead/tr/th[$c])")"
	done
done | sort | tr '\n' ' ')
if [ "$marks" = "m4.xlarge-s1@night-6 (2026-11-06) m4.xlarge-s8@night-6 (2026-11-06) " ]; then
	pass "history: run 6 marked for m4.xlarge's cases and nothing else"
else
	fail "history: run 6 marked for m4.xlarge's cases and nothing else" "marks: $marks"
fi
steps=$(xp "$html" "//section[@id='findings']//li[@data-kind='step']" | sed 's/<[^>]*>//g')
if [ "$(grep -c . <<<"$steps")" = 2 ] && [ "$(grep -c 'm4.xlarge.*-40.0 % from night-6' <<<"$steps")" = 2 ] &&
   [ "$(xp "$html" "string(//section[@id='findings']//li[1]/@data-kind)")" = step ]; then
	pass "findings: the two steps, first"
else
	fail "findings: the two steps, first" "$steps"
fi
if xp "$html" "string(//section[@id='history'])" | grep -q "binary segmentation.*Welch's t.*p < 0.05.*more than 5 %"; then
	pass "history: the method is stated"
else
	fail "history: the method is stated"
fi
nf=$(xp "$tmp/f/index.html" "count(//table[@id='history-table']//td[@data-step])")
ns=$(xp "$tmp/f/index.html" "count(//section[@id='findings']//li[@data-kind='step'])")
nr=$(xp "$tmp/f/index.html" "count(//table[@id='history-table']/thead/tr/th)")
if [ "$nf" = 0 ] && [ "$ns" = 0 ] && [ "$nr" = 11 ]; then pass "ten flat nights: 10 runs shown, no step"
else fail "ten flat nights: 10 runs shown, no step" "$nf marks, $ns findings, $nr columns"; fi
if command -v gnuplot >/dev/null; then
	if [ "$(awk '!/^#/ && NF >= 5 && $NF != "NaN"' "$tmp/d/trend.dat" | wc -l)" = 2 ] &&
	   grep -q "step change starts" "$tmp/d/trend.gp"; then
		pass "trend chart marks the two steps"
	else
		fail "trend chart marks the two steps" "$(grep -v '^#' "$tmp/d/trend.dat" | head -3)"
	fi
else
	skip "trend chart marks" "gnuplot is not installed"
fi
finish
