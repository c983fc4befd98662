#!/bin/sh
# netsweep-nightly.sh: the one nightly recipe — the systemd example (netsweep-nightly.service)
# and the Kubernetes CronJob (packaging/kubernetes/runner-cronjob.yaml) both run it:
#   1. run the matrix into one database (labelled with the night's UTC date and time when
#      `date` is there);
#   2. report the night against the one before with the regression gate
#      (--fail-on-regression NETSWEEP_FAIL_PCT);
#   3. build the static site of every night (`netsweep site`) beside the reports.
# Every step runs whatever the one before found, so a night with failed cases still has its
# report and its page. Exits 0 when all went well, 1 when the run had failures or the gate
# tripped (wire the unit's OnFailure= or the Job's status to your alerting), 2 when a report
# or the site could not be written. POSIX sh and netsweep only (the runner image has no other
# tools): the newest-reports link and the retention of NETSWEEP_KEEP_REPORTS reports happen
# where ln, find, sort and rm are there. A night cut short stays unfinished: `netsweep run
# MATRIX --db DB --resume` completes it and tears down what its hooks left.
#
# NETSWEEP_MATRIX       the matrix file (required)
# NETSWEEP_STATE        the folder of the database, reports and site (/var/lib/netsweep)
# NETSWEEP_FAIL_PCT     the regression gate's threshold, % (5)
# NETSWEEP_KEEP_REPORTS dated reports kept (14)
# NETSWEEP_SITE         the site's folder (NETSWEEP_STATE/site); "none" for no site
# NETSWEEP_LABEL        the night's label (default: its UTC date and time, if `date` is there)
# NETSWEEP_BIN          the netsweep binary (netsweep on PATH)
# The run itself reads NETSWEEP_PSK_FILE, NETSWEEP_CATALOG ... as `netsweep run` does.
set -u
matrix=${NETSWEEP_MATRIX:?NETSWEEP_MATRIX: the matrix file}
state=${NETSWEEP_STATE:-/var/lib/netsweep}
pct=${NETSWEEP_FAIL_PCT:-5}
keep=${NETSWEEP_KEEP_REPORTS:-14}
site=${NETSWEEP_SITE:-$state/site}
netsweep=${NETSWEEP_BIN:-netsweep}
db=$state/nightly.db
label=${NETSWEEP_LABEL:-}
have() { command -v "$1" >/dev/null 2>&1; }
[ -n "$label" ] || ! have date || label=$(date -u +%Y-%m-%dT%H%M)
[ -d "$state" ] || ! have mkdir || mkdir -p "$state" # systemd's StateDirectory, a pod's volume

rc=0
if [ -n "$label" ]; then
	"$netsweep" run "$matrix" --db "$db" --label "$label" --quiet || rc=1
	run=$label out=$state/reports/$label
else # undated: the latest run, its report in report/ (the CronJob's)
	"$netsweep" run "$matrix" --db "$db" --quiet || rc=1
	run=latest out=$state/report
fi
"$netsweep" report --db "$db" --run "$run" --baseline previous --fail-on-regression "$pct" \
	-o "$out"
case $? in
0) ;;
1) rc=1 ;; # the gate tripped: it said which cases on stderr
*) rc=2 ;;
esac
if [ "$site" != none ]; then
	"$netsweep" site --db "$db" -o "$site" || rc=2
fi
if [ -n "$label" ] && have ln; then
	ln -sfn "reports/$label" "$state/latest"
fi
# keep the newest $keep dated reports (their names sort by date)
if [ -n "$label" ] && have find && have sort && have head && have rm; then
	find "$state/reports" -mindepth 1 -maxdepth 1 -type d | sort | head -n -"$keep" |
		while read -r old; do rm -rf -- "$old"; done
fi
exit "$rc"
