#!/bin/bash
# The product stands on its own: no product file points outside the repository, the example
# commands written in data/ comments run, and counts of one read in the singular.
source "$(dirname "$0")/../lib/check.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
T=$(mktemp -d) && trap 'rm -rf "$T"' EXIT

hits=$(grep -rn 'shared/' data/ schemas/ README.md DEVELOPERS.md report/ runner/ lib/ 2>/dev/null)
if [ -z "$hits" ]; then pass "no product file refers to shared/"; else fail "no product file refers to shared/" "$hits"; fi

# Every line of a data/ comment that starts with "NETSWEEP_CATALOG=... netsweep" is a command
# a user would paste: it must run (dry runs only, nothing is sent).
n=0
while read -r line; do
	cmd=${line#*NETSWEEP_CATALOG=}
	cat_file=${cmd%% *} rest=${cmd#* netsweep }
	# shellcheck disable=SC2086
	[[ $rest == run* ]] && rest="$rest --dry-run"
	# shellcheck disable=SC2086
	if NETSWEEP_CATALOG=$cat_file "$NETSWEEP" $rest >"$T/out" 2>&1; then
		n=$((n + 1))
	else
		fail "data/ comment command runs: $line" "$(head -3 "$T/out")"
	fi
done < <(grep -rhoE 'NETSWEEP_CATALOG=[^ ]+ netsweep [^>]*$' data/)
if [ "$n" -ge 2 ]; then pass "the $n commands in data/ comments run"; else fail "commands in data/ comments" "found $n, wanted >= 2"; fi
if NETSWEEP_CATALOG=data/catalog/scaleway-example.xml "$NETSWEEP" cost | grep -q '^scaleway.c2s'; then
	pass "the scaleway example catalog prices scaleway.c2s"
else
	fail "the scaleway example catalog prices scaleway.c2s"
fi

out=$("$NETSWEEP" run data/matrices/m4-family.xml --dry-run | grep -m1 ' cases (')
if [[ $out == "5 cases (0 excluded) x 1 repeat = 5 runs on 5 pairs"* ]]; then
	pass "dry run: 1 repeat in the singular"
else
	fail "dry run: 1 repeat in the singular" "$out"
fi
finish
