#!/bin/bash
# The layout's promises, checked on the built objects and the sources: no dependency cycle
# between files or between folders (who calls whom, from the symbols each object defines and
# uses), report/ includes nothing of runner/, and no code decides on an error's text.
source "$(dirname "$0")/../lib/check.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OBJ=${BUILD:-$ROOT/build}/obj
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT

objs=$(cd "$OBJ" && ls lib/*.o lib/*/*.o runner/*/*.o report/*.o report/*/*.o 2>/dev/null)
if [ -z "$objs" ]; then fail "objects to read" "none under $OBJ: build first"; finish; exit; fi
(cd "$OBJ" && nm -A --defined-only $objs) 2>/dev/null |
	awk '$2 ~ /^[TDBR]$/ {sub(/:[^:]*$/, "", $1); print $3, $1}' | sort -u >"$T/defs"
for o in $objs; do
	(cd "$OBJ" && nm -u "$o") | awk -v o="$o" '{print $2, o}'
done | sort -u >"$T/uses"
# file edges "user definer", then folder edges
join "$T/uses" "$T/defs" | awk '$2 != $3 {print $2, $3}' | sed 's/\.o//g' | sort -u >"$T/files"
awk '{a=$1; b=$2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b); if (a != b) print a, b}' \
	"$T/files" | sort -u >"$T/dirs"

if tsort "$T/files" >/dev/null 2>"$T/err"; then pass "no dependency cycle between files"
else fail "no dependency cycle between files" "$(tr '\n' ' ' <"$T/err")"; fi
if tsort "$T/dirs" >/dev/null 2>"$T/err"; then pass "no dependency cycle between folders"
else fail "no dependency cycle between folders" "$(tr '\n' ' ' <"$T/err")"; fi
if grep -q '^report runner' "$T/dirs"; then fail "report/ calls no runner code" "$(grep '^report runner' "$T/dirs" | head -3 | tr '\n' ';')"
else pass "report/ calls no runner code"; fi
if grep -q '^lib runner\|^lib report' "$T/dirs"; then fail "lib/ calls nothing above it"
else pass "lib/ calls nothing above it"; fi
if grep -rn '#include "\(\.\./\)*runner/' "$ROOT/report" >"$T/inc"; then
	fail "report/ includes no runner/ header" "$(head -2 "$T/inc" | tr '\n' ' ')"
else pass "report/ includes no runner/ header"; fi
# an error message is for people: code branches on err.code (lib/err.h), never on its words
if grep -rnE 'str(n)?(str|cmp|casecmp)\([^;]*(err|e)(\.|->)msg' "$ROOT/lib" "$ROOT/runner" "$ROOT/report" >"$T/msg"; then
	fail "no control flow on error text" "$(head -3 "$T/msg" | tr '\n' ' ')"
else pass "no control flow on error text"; fi
finish
