#!/bin/bash
# `netsweep run` refuses malformed matrices before touching the database: each case exits 2
# with one line on stderr naming the file, the line and what is wrong, and the database file
# (created beforehand by a good run) is byte for byte what it was.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
# A private copy of the binary: a colleague's rebuild must not pull it away mid-test.
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

# A database with one run in it, made by a dry-run-free good matrix that fails fast (no agent
# on the port, and agent-wait="0s": no 30 s of waiting for it): only the run's existence matters here.
DB=$T/s3.db
cat >"$T/good.xml" <<'X'
<matrix name="good" agent-wait="0s"><pairs><pair name="none" agent="127.0.0.1:9"/></pairs>
<axes><axis name="duration"><value>1</value></axis></axes></matrix>
X
"$NETSWEEP" run "$T/good.xml" --db "$DB" --quiet >/dev/null 2>&1
if [ -s "$DB" ]; then pass "a good matrix writes the database"; else fail "a good matrix writes the database"; fi
before=$(sqlite3 "$DB" .dump | md5sum)

# bad NAME LINE WHAT FILE-CONTENT: exit 2, one stderr line "FILE:LINE: ...WHAT...".
bad() {
	local name=$1 line=$2 what=$3 f=$T/$1.xml out rc
	printf '%s' "$4" >"$f"
	out=$("$NETSWEEP" run "$f" --db "$DB" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" != 2 ]; then fail "$name" "exit $rc, wanted 2: $out"; return; fi
	if [ "$(printf '%s\n' "$out" | wc -l)" != 1 ]; then fail "$name" "more than one line: $out"; return; fi
	case $out in
	*"$f:$line: "*"$what"*) pass "$name: $out" ;;
	*) fail "$name" "wanted '$f:$line: ...$what...', got: $out" ;;
	esac
}

bad "not XML" 3 "not well-formed" $'<matrix name="x">\n<axes>\n</matrix>\n'
bad "schema violation" 2 "repeats" $'<?xml version="1.0"?>\n<matrix name="x" repeats="-1"/>\n'
bad "unknown axis" 3 "speed" $'<matrix name="x">\n<axes>\n<axis name="speed"><value>1</value></axis>\n</axes>\n</matrix>\n'
bad "empty axis" 4 "no values" $'<matrix name="x">\n<axes>\n<axis name="protocol"><value>tcp</value></axis>\n<axis name="streams">\n</axis>\n</axes>\n</matrix>\n'
bad "negative duration" 5 "negative" $'<matrix name="x">\n<axes>\n<axis name="duration">\n<value>10</value>\n<value>-5s</value>\n</axis>\n</axes>\n</matrix>\n'
bad "unknown endpoint in a rule" 6 "'c' is not a pair" $'<matrix name="x">\n<pairs><pair name="a" agent="192.0.2.1"/>\n<pair name="b" agent="192.0.2.2"/></pairs>\n<rules>\n<exclude>\n<when axis="pair" value="c"/>\n</exclude>\n</rules>\n</matrix>\n'
bad "conflicting values" 3 "UDP length" $'<matrix name="x">\n<axes>\n<axis name="protocol"><value>udp</value></axis>\n<axis name="length"><value>70000</value></axis>\n</axes>\n</matrix>\n'

out=$("$NETSWEEP" run "$T/missing.xml" --db "$DB" 2>&1 >/dev/null)
rc=$?
if [ "$rc" = 2 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] && [[ $out == *"$T/missing.xml"*"No such file"* ]]; then
	pass "missing file: $out"
else
	fail "missing file" "exit $rc: $out"
fi

if [ "$(sqlite3 "$DB" .dump | md5sum)" = "$before" ]; then
	pass "the database is untouched by malformed matrices"
else
	fail "the database is untouched by malformed matrices"
fi
rm -f "$T/fresh.db"
"$NETSWEEP" run "$T/not XML.xml" --db "$T/fresh.db" >/dev/null 2>&1
if [ ! -e "$T/fresh.db" ]; then pass "no database file is created for a malformed matrix"; else fail "no database file is created for a malformed matrix"; fi

expect_exit "usage: no matrix exits 2" 2 "$NETSWEEP" run
expect_exit "usage: bad --jobs exits 2" 2 "$NETSWEEP" run "$T/good.xml" --jobs 0
expect_exit "usage: unknown option exits 2" 2 "$NETSWEEP" run "$T/good.xml" --frob
finish
