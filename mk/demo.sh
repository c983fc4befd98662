#!/bin/sh
# make demo: the main job on the loopback default — data/matrices/quick.xml against an agent
# the runner forks on 127.0.0.1 — into ./netsweep.db (or $NETSWEEP_DB), then says where the
# results went and how to look at them.
set -eu
B=build/netsweep
DB=${NETSWEEP_DB:-netsweep.db}
# The demo runs on this host only: keep away from any cloud metadata service.
NETSWEEP_IMDS=${NETSWEEP_IMDS:-0} "$B" run data/matrices/quick.xml --db "$DB" --label demo
echo
echo "results: $DB (run: sqlite3 $DB 'select endpoint, protocol, streams, direction, round(goodput_mbps) from v_results')"
# The report of that run against the previous demo run (if any), in netsweep-report/.
"$B" report --db "$DB" --baseline previous -o netsweep-report
echo "report: netsweep-report/index.html (also report.md, results.csv and the charts' .gp/.dat)"
