#!/bin/bash
# The nightly run (netsweep-nightly.service runs it): run the matrix into one database with
# today's date as label, report it against the previous run with the regression gate, and
# keep the last NETSWEEP_KEEP_REPORTS reports. Exits 1 when the run had failures or the gate
# tripped (the unit then shows failed: wire OnFailure= to your alerting). The run proves
# NETSWEEP_PSK_FILE (the service sets /etc/netsweep/agent.psk) to the pairs' agents.
set -u
matrix=${NETSWEEP_MATRIX:?NETSWEEP_MATRIX: the matrix file}
state=${NETSWEEP_STATE:-/var/lib/netsweep}
keep=${NETSWEEP_KEEP_REPORTS:-14}
pct=${NETSWEEP_FAIL_PCT:-5}
netsweep=${NETSWEEP_BIN:-netsweep}
db=$state/nightly.db
label=$(date -u +%Y-%m-%dT%H%M)
mkdir -p "$state/reports"

rc=0
# (a night cut short stays unfinished: `netsweep run MATRIX --db DB --resume` completes it and
# tears down what its hooks left)
"$netsweep" run "$matrix" --db "$db" --label "$label" --quiet || rc=1
"$netsweep" report --db "$db" --run "$label" --baseline previous --fail-on-regression "$pct" \
	-o "$state/reports/$label" || rc=1
ln -sfn "reports/$label" "$state/latest"
# keep the newest $keep reports (names sort by date)
find "$state/reports" -mindepth 1 -maxdepth 1 -type d | sort | head -n -"$keep" |
	while read -r old; do rm -rf -- "$old"; done
exit "$rc"
