#!/bin/bash
# The comparison on real runs: two endpoint pairs in network namespaces (prefix r5), each agent
# sending through tbf. Run 1: both at 300 mbit. Run 2: the "varied" pair drops to 150 mbit.
# Run 3: as run 2. The report of run 2 against run 1 flags exactly the varied pair's case and
# --fail-on-regression 20 exits 1; run 3 against run 2 flags nothing. Five repeats a case: with
# three, one repeat slowed by a busy machine (two tests run at once) left the halved case
# short of significance (p 0.21 for -51 %).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
source "$HERE/../fixtures/report_browser.sh"
netns_require
CHECKS=("report tbf: runs stored" "report tbf: slowed case flagged")
netns_need_netsweep "${CHECKS[@]}"
"$NETNS_NETSWEEP" run --help >/dev/null 2>&1 || { skip "report tbf" "netsweep run is not available"; exit 0; }
NETSWEEP=$NETNS_NETSWEEP  # the harness's private copy of the binary
export NETSWEEP_IMDS=0

C1=10.155.1.1 A1=10.155.1.2 C2=10.155.2.1 A2=10.155.2.2 PORT=5301
netns_pair r5 c a1 "$C1" "$A1" >/dev/null && netns_pair r5 c a2 "$C2" "$A2" >/dev/null ||
	{ fail "namespace setup" "netns_pair failed"; exit 1; }
netns_shape a1 300mbit && netns_shape a2 300mbit || { fail "namespace setup" "tbf"; exit 1; }
netns_agent a1 "$A1" "$PORT" && netns_agent a2 "$A2" "$PORT" || { fail "agents" "did not start"; exit 1; }

M=$NETNS_TMP/r5-tbf.xml DB=$NETNS_TMP/r5-tbf.db
cat >"$M" <<X
<matrix name="r5-tbf" repeats="5" case-timeout="20s" cooldown="0s">
  <pairs>
    <pair name="steady" agent="$A1:$PORT"/>
    <pair name="varied" agent="$A2:$PORT"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value></axis>
    <axis name="direction"><value>reverse</value></axis>
    <axis name="duration"><value>0.5s</value></axis>
    <axis name="omit"><value>0.2s</value></axis>
  </axes>
</matrix>
X
run_once() { # the runner receives (reverse): at the harness's raised priority, as netns_probe
	timeout -k 5 120 ip netns exec r5-c $NETNS_NICE_CMD "$NETSWEEP" run "$M" --db "$DB" --quiet >>"$NETNS_TMP/run.log" 2>&1
}
run_once && netns_shape a2 150mbit && run_once && run_once
ok=$(sqlite3 "$DB" "SELECT count(*) FROM results WHERE status = 'ok'" 2>&1)
if [ "$ok" = 30 ]; then pass "${CHECKS[0]}: 3 runs x 2 cases x 5 repeats"; else fail "${CHECKS[0]}" "$ok ok results; $(tail -3 "$NETNS_TMP/run.log")"; fi

flagged() { # report-dir
	xp "$1/index.html" "//table[@id='comparison-table']/tbody/tr[@class='regression']/td[2]/text()" | tr '\n' ';'
}
"$NETSWEEP" report --db "$DB" --run 2 --baseline previous -o "$NETNS_TMP/r2" >/dev/null 2>&1
got=$(flagged "$NETNS_TMP/r2")
grep -A4 '^| # | Case | Baseline' "$NETNS_TMP/r2/report.md" | sed 's/^/# /'   # the figures, for the log
if [ "$got" = "varied tcp reverse 1 stream;" ]; then pass "${CHECKS[1]}: only the varied pair"; else fail "${CHECKS[1]}" "flagged: '$got'"; fi
expect_exit "report tbf: --fail-on-regression 20 exits 1" 1 \
	"$NETSWEEP" report --db "$DB" --run 2 --baseline previous --fail-on-regression 20 -o "$NETNS_TMP/r2b"
"$NETSWEEP" report --db "$DB" --run 3 --baseline previous --fail-on-regression 5 -o "$NETNS_TMP/r3" >/dev/null 2>&1
rc=$? got=$(flagged "$NETNS_TMP/r3")
if [ "$rc" = 0 ] && [ -z "$got" ]; then pass "report tbf: alike runs flag nothing"; else fail "report tbf: alike runs flag nothing" "exit $rc, flagged '$got'"; fi
finish
