#!/bin/bash
# Matrix and catalog files are refused at their first error in time linear in what was read:
# 80,000 nameless <pair>s (2.4 MB, under the 4 MiB limit) and a 30 MB catalog of 250,000 bad
# instances are each refused in under 5 s (they took 38-44 s and over 600 CPU-s before the
# check stopped at the first error), naming file, line and the field. NETSWEEP_LONG=1 adds a
# valid catalog of 26 MiB, loaded within the time limit.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep
# 5 s is the promise; CPU time is what is measured, so that a busy machine does not fail it.
BOUND_S=5

# timed NAME FILE WANT COMMAND...: exit 2 within BOUND_S CPU-seconds, stderr naming WANT.
timed() {
	local name=$1 want=$2; shift 2
	/usr/bin/time -f '%U %S %e' -o "$T/time" "$@" >/dev/null 2>"$T/err"
	local rc=$? cpu wall
	cpu=$(awk '{print $1 + $2}' "$T/time" | tail -1)
	wall=$(awk '{print $3}' "$T/time" | tail -1)
	if [ "$rc" != 2 ]; then fail "$name" "exit $rc, wanted 2: $(head -c 300 "$T/err")"
	elif ! grep -qF -- "$want" "$T/err"; then fail "$name" "wanted '$want' in: $(head -c 300 "$T/err")"
	elif ! awk -v c="$cpu" -v b="$BOUND_S" 'BEGIN { exit !(c < b) }'; then
		fail "$name" "${cpu} CPU-s (${wall} s), over ${BOUND_S} s"
	else pass "$name in ${cpu} CPU-s (${wall} s): $(head -c 160 "$T/err")"; fi
}

awk 'BEGIN { print "<?xml version=\"1.0\"?>\n<matrix name=\"x\"><pairs>"
	for (i = 0; i < 80000; i++) print "<pair agent=\"127.0.0.1:9\"/>"; print "</pairs></matrix>" }' >"$T/m.xml"
timed "80,000 nameless pairs refused at the first" \
	"$T/m.xml:3: Element 'pair': The attribute 'name' is required" \
	"$NETSWEEP" run "$T/m.xml" --dry-run --db "$T/m.db"
[ -e "$T/m.db" ] && fail "no database for a refused matrix" || pass "no database for a refused matrix"

# other kinds of error, 80,000 of each: a misspelt axis name, a duplicate attribute
awk 'BEGIN { print "<?xml version=\"1.0\"?>\n<matrix name=\"x\"><axes>"
	for (i = 0; i < 80000; i++) print "<axis name=\"strems\"><value>1</value></axis>"; print "</axes></matrix>" }' >"$T/e.xml"
timed "80,000 misspelt axis names refused at the first" "$T/e.xml:3: " \
	"$NETSWEEP" run "$T/e.xml" --dry-run --db "$T/m.db"
awk 'BEGIN { print "<?xml version=\"1.0\"?>\n<matrix name=\"x\"><pairs>"
	for (i = 0; i < 80000; i++) print "<pair name=\"a\" name=\"b\" agent=\"h:1\"/>"; print "</pairs></matrix>" }' >"$T/d.xml"
timed "80,000 duplicate attributes refused at the first" "$T/d.xml:3: not well-formed XML" \
	"$NETSWEEP" run "$T/d.xml" --dry-run --db "$T/m.db"

# the same error after 60,000 good pairs: its line, past libxml2's 16-bit line numbers
awk 'BEGIN { print "<?xml version=\"1.0\"?>\n<matrix name=\"x\"><pairs>"
	for (i = 0; i < 60000; i++) printf "<pair name=\"p%d\" agent=\"127.0.0.1:9\"/>\n", i
	print "<pair agent=\"127.0.0.1:9\"/>"; print "</pairs></matrix>" }' >"$T/late.xml"
timed "a late error names its line (60003)" "$T/late.xml:60003: Element 'pair'" \
	"$NETSWEEP" run "$T/late.xml" --dry-run --db "$T/m.db"

awk 'BEGIN { print "<?xml version=\"1.0\"?>\n<catalog name=\"bad\">"
	for (i = 0; i < 250000; i++) printf "<instance type=\"t%d.large\" vcpus=\"zero\"><price region=\"r\" usd-per-hour=\"x\" as-of=\"2020-01-01\" source=\"s\"/></instance>\n", i
	print "</catalog>" }' >"$T/c.xml"
timed "a 30 MB catalog of errors refused at the first" \
	"$T/c.xml:3: Element 'instance', attribute 'vcpus'" \
	"$NETSWEEP" cost --no-default-catalog --catalog "$T/c.xml"

# a DOCTYPE is refused before any entity is declared (XXE, billion laughs)
printf '<?xml version="1.0"?>\n<!DOCTYPE matrix [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<matrix name="&x;"/>\n' >"$T/x.xml"
timed "a DOCTYPE is refused" "$T/x.xml:2: not well-formed XML: a DOCTYPE (DTD) is not allowed" \
	"$NETSWEEP" run "$T/x.xml" --dry-run --db "$T/m.db"

# NETSWEEP_LONG=1 (make check-long): a valid catalog near the 32 MiB limit (90,000 types, under
# the catalog's entry cap) loads within the
# 10 CPU-second limit with room to spare (2.5 CPU-s on the 2-core test machine)
if [ "${NETSWEEP_LONG:-0}" = 1 ]; then
	awk 'BEGIN { print "<?xml version=\"1.0\"?>\n<catalog name=\"big\">"
		src = sprintf("%032d", 0); gsub(/0/, "quote ", src) # a long source: near the size limit
		for (i = 0; i < 90000; i++) printf "<instance type=\"t%d.large\" vcpus=\"2\"><price region=\"r\" usd-per-hour=\"0.1\" as-of=\"2020-01-01\" source=\"%s\"/></instance>\n", i, src
		print "</catalog>" }' >"$T/big.xml"
	/usr/bin/time -f '%U %S %e' -o "$T/time" "$NETSWEEP" cost --no-default-catalog --catalog "$T/big.xml" --type t7.large >"$T/out" 2>&1
	rc=$?
	cpu=$(awk '{print $1 + $2}' "$T/time" | tail -1)
	if [ "$rc" = 0 ] && grep -q t7.large "$T/out" && awk -v c="$cpu" 'BEGIN { exit !(c < 8) }'; then
		pass "a valid $(($(stat -c %s "$T/big.xml") >> 20)) MiB catalog loads in ${cpu} CPU-s"
	else fail "a valid catalog near the size limit loads within the time limit" "exit $rc, ${cpu} CPU-s: $(head -2 "$T/out")"; fi
fi

# the limits are stated where users look
if "$NETSWEEP" run --help 2>&1 | grep -q "4 MiB" && "$NETSWEEP" cost --help 2>&1 | grep -q "32 MiB"; then
	pass "run --help and cost --help state the size and time limits"
else fail "run --help and cost --help state the size and time limits"; fi
finish
