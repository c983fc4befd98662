#!/bin/bash
# The layout's promises, checked on the built objects and the sources: no dependency cycle
# between files or between folders (who calls whom, from the symbols each object defines and
# uses), none between modules through their #include lines either (a static inline in a
# header is a call the objects do not show), report/ includes nothing of runner/, no code
# decides on an error's text, no folder holds more than 14 C files and no file more than 800
# lines, only entry points (cmd_*.c, main.c) install signal handlers, JSON is read through
# lib/sql/jsonr only and XML schemas are used through lib/xml/xsdcheck only.
source "$(dirname "$0")/../lib/check.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OBJ=${BUILD:-$ROOT/build}/obj
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
# tsort's loop report as "a b c; d e", one loop each
loops() { awk '/input contains a loop/ {if (l != "") printf "%s; ", l; l = ""; next}
	{sub(/^tsort: /, ""); l = l (l == "" ? "" : " ") $0} END {printf "%s", l}' "$1"; }

# every object of a source that still exists (a moved file leaves its old object behind)
objs=$(cd "$OBJ" 2>/dev/null && find lib runner report -name '*.o' 2>/dev/null | sort |
	while read -r o; do [ -f "$ROOT/${o%.o}.c" ] && echo "$o"; done)
if [ -z "$objs" ]; then fail "objects to read" "none under $OBJ: build first"; finish; exit; fi
(cd "$OBJ" && nm -A --defined-only $objs) 2>/dev/null |
	awk '$2 ~ /^[TDBR]$/ {sub(/:[^:]*$/, "", $1); print $3, $1}' | sort -u >"$T/defs"
# one nm for all objects (one per object took 20 s on a busy machine): "obj: U sym"
(cd "$OBJ" && nm -A -u $objs) 2>/dev/null | awk '{n = $1; sub(/:.*$/, "", n); print $NF, n}' |
	sort -u >"$T/uses"
# file edges "user definer", then folder edges
join "$T/uses" "$T/defs" | awk '$2 != $3 {print $2, $3}' | sed 's/\.o//g' | sort -u >"$T/files"
awk '{a=$1; b=$2; sub(/\/[^\/]*$/, "", a); sub(/\/[^\/]*$/, "", b); if (a != b) print a, b}' \
	"$T/files" | sort -u >"$T/dirs"

if tsort "$T/files" >/dev/null 2>"$T/err"; then pass "no dependency cycle between files"
else fail "no dependency cycle between files" "$(loops "$T/err")"; fi
if tsort "$T/dirs" >/dev/null 2>"$T/err"; then pass "no dependency cycle between folders"
else fail "no dependency cycle between folders" "$(loops "$T/err")"; fi
if grep -E '^report(/[^ ]*)? runner' "$T/dirs" >"$T/up"; then fail "report/ calls no runner code" "$(head -3 "$T/up" | tr '\n' ';')"
else pass "report/ calls no runner code"; fi
if grep -E '^lib(/[^ ]*)? (runner|report)' "$T/dirs" >"$T/up"; then fail "lib/ calls nothing above it" "$(head -3 "$T/up" | tr '\n' ';')"
else pass "lib/ calls nothing above it"; fi
if grep -rn '#include "\(\.\./\)*runner/' "$ROOT/report" >"$T/inc"; then
	fail "report/ includes no runner/ header" "$(head -2 "$T/inc" | tr '\n' ' ')"
else pass "report/ includes no runner/ header"; fi
# the report's model is its ground floor: report/model/ includes nothing of load/ (load fills
# the model's types; the model knows no database)
if grep -rn '#include "report/load/' "$ROOT/report/model" >"$T/minc"; then
	fail "report/model/ includes nothing of report/load/" "$(head -2 "$T/minc" | tr '\n' ' ')"
else pass "report/model/ includes nothing of report/load/"; fi
# an error message is for people: code branches on err.code (lib/err.h), never on its words
if grep -rnE 'str(n)?(str|cmp|casecmp)\([^;]*(err|e)(\.|->)msg' "$ROOT/lib" "$ROOT/runner" "$ROOT/report" >"$T/msg"; then
	fail "no control flow on error text" "$(head -3 "$T/msg" | tr '\n' ' ')"
else pass "no control flow on error text"; fi

cd "$ROOT" || exit 1
src=$(find lib runner report -name '*.[ch]' | sort)
# A static inline in a header is a call the objects do not show: each file that includes a
# header holding one (directly: "beside the includer" first, then from the top as -I. finds
# it) gets an edge to that header's module, and the calls of the objects plus those edges must
# still sort (expand.c calling matrix_longrun.c while matrix_longrun.c calls expand.h's inline
# helper is a circle).
# every #include "..." of a project file, as "includer included" (paths from the top; beside
# the includer first, then from the top as -I. finds it)
printf '%s\n' $src | sort >"$T/srcs"
grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' $src |
	sed 's/^\([^:]*\):.*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1 \2/' |
	awk 'NR == FNR {have[$1] = 1; next}
	     {d = $1; sub(/\/[^\/]*$/, "", d); p = d "/" $2
	      while (sub(/[^\/]*\/\.\.\//, "", p)) ;
	      if (p in have) print $1, p; else if ($2 in have) print $1, $2}' "$T/srcs" - |
	sort -u >"$T/incl"
awk '$1 ~ /\.h$/ && $1 != $2' "$T/incl" >"$T/hh"
if tsort "$T/hh" >/dev/null 2>"$T/err"; then pass "no #include cycle between headers ($(wc -l <"$T/hh") edges)"
else fail "no #include cycle between headers" "$(loops "$T/err")"; fi
grep -l 'static[[:space:]]\+inline' $src | sort >"$T/inl"
sort -k2 "$T/incl" | join -1 2 -2 1 -o 1.1,1.2 - "$T/inl" |
	awk '{a = $1; b = $2; sub(/\.[ch]$/, "", a); sub(/\.[ch]$/, "", b); if (a != b) print a, b}' |
	sort -u >"$T/inline"
cat "$T/files" "$T/inline" | sort -u >"$T/calls"
if tsort "$T/calls" >/dev/null 2>"$T/err"; then pass "no cycle between files through static inline helpers ($(wc -l <"$T/inline") include edges to them)"
else fail "no cycle between files through static inline helpers" "$(loops "$T/err")"; fi

# one job per folder, files one can read in a sitting (STYLE.md 13)
for d in $(find lib runner report -type d | sort); do
	n=$(find "$d" -maxdepth 1 -name '*.c' | wc -l)
	[ "$n" -gt 14 ] && echo "$d ($n)"
done >"$T/big"
if [ -s "$T/big" ]; then fail "no folder holds more than 14 C files" "$(tr '\n' ' ' <"$T/big")"
else pass "no folder holds more than 14 C files"; fi
wc -l $src | awk '$2 != "total" && $1 > 800 {print $2 " (" $1 ")"}' >"$T/long"
if [ -s "$T/long" ]; then fail "no source file is over 800 lines" "$(tr '\n' ' ' <"$T/long")"
else pass "no source file is over 800 lines"; fi

# the process belongs to its entry points: library code installs no signal handler
grep -nE '(^|[^_[:alnum:]])(sigaction|signal)[[:space:]]*\(' $(find lib runner report -name '*.c' \
	! -name 'cmd_*.c' ! -name main.c | sort) | grep -vE ':[[:space:]]*(/?\*|//)' >"$T/sig"
if [ -s "$T/sig" ]; then fail "only cmd_*.c and main.c install signal handlers" "$(cut -d: -f1,2 "$T/sig" | tr '\n' ' ')"
else pass "only cmd_*.c and main.c install signal handlers"; fi

# the environment is read by the command layer: entry points (cmd_*.c, main.c) and the one
# settings reader they call (lib/settings.c); the library is handed what it says
grep -nE '(^|[^_[:alnum:]])(secure_)?getenv[[:space:]]*\(' $(find lib runner report -name '*.c' \
	! -name 'cmd_*.c' ! -name main.c | sort) | grep -v '^lib/settings.c:' |
	grep -vE ':[[:space:]]*(/?\*|//)' >"$T/env"
if [ -s "$T/env" ]; then fail "only the command layer reads the environment" "$(cut -d: -f1,2 "$T/env" | tr '\n' ' ')"
else pass "only the command layer reads the environment"; fi

# one JSON reader (lib/sql/jsonr: SQLite's JSON functions on a connection of its own); the
# one way a private in-memory database is opened is lib/sql/sqlrow's sqlrow_open_memory (the
# reader's connection, the report's migrated copy of an older store)
grep -rln ':memory:' lib runner report | grep -vx 'lib/sql/sqlrow.c' >"$T/mem"
if [ -s "$T/mem" ]; then fail "JSON is read through lib/sql/jsonr only (no private :memory: database)" "$(tr '\n' ' ' <"$T/mem")"
else pass "JSON is read through lib/sql/jsonr only (no private :memory: database)"; fi
# one XML validator: libxml2's schema API is used by lib/xml/xsdcheck alone
grep -rln 'xmlSchema' lib runner report | grep -vx 'lib/xml/xsdcheck.c\|lib/xml/xsdcheck.h' >"$T/xsd"
if [ -s "$T/xsd" ]; then fail "XSD validation only in lib/xml/xsdcheck" "$(tr '\n' ' ' <"$T/xsd")"
else pass "XSD validation only in lib/xml/xsdcheck"; fi
finish
