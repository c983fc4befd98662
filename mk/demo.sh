#!/bin/sh
# make demo: the main job. As root (with ip and tc): data/matrices/lab-demo.xml — three priced
# instance types emulated in network namespaces by `netsweep lab` at 1/100 scale — ranked per
# dollar. Otherwise data/matrices/quick.xml on the loopback default, against an agent the
# runner forks on 127.0.0.1, and how to get the full demo. Results go to ./netsweep.db (or
# $NETSWEEP_DB), the report to netsweep-report/. No key is needed: the lab makes its own for
# its agents and the runner reads it from the lab (lab.sh's setup prints its psk_file).
# NETSWEEP_LAB_PREFIX / NETSWEEP_LAB_DIR move the lab (default nsdemo, /run/netsweep-lab);
# NETSWEEP_DEMO_DURATION (tests) runs the same matrix with shorter cases.
set -eu
B=build/netsweep
DB=${NETSWEEP_DB:-netsweep.db}
# The demo runs on this host only: keep away from any cloud metadata service.
export NETSWEEP_IMDS="${NETSWEEP_IMDS:-0}"
# make demo-placement (mk/demo.sh placement): data/matrices/lab-placement.xml — the faster type
# per dollar across two zones against a slower one inside one, with AWS's transfer rules
# (lab-placement-transfer.xml) — in the lab; its report ranks on instances and with transfer.
if [ "${1:-}" = placement ]; then
	if ! { [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1; }; then
		echo "demo-placement: needs root and iproute2 (the lab's namespaces): sudo make demo-placement" >&2
		exit 2
	fi
	export NETSWEEP_LAB_PREFIX="${NETSWEEP_LAB_PREFIX:-nsplace}" NETSWEEP_LAB_SCALE="${NETSWEEP_LAB_SCALE:-1/100}"
	"$B" lab down --prefix "$NETSWEEP_LAB_PREFIX" 2>/dev/null || true
	echo "demo: same zone against cross zone, with transfer (netsweep lab, scale $NETSWEEP_LAB_SCALE)"
	"$B" run data/matrices/lab-placement.xml --provision lab \
		--catalog data/matrices/lab-placement-transfer.xml --db "$DB" --label demo-placement
	"$B" report --db "$DB" -o netsweep-report-placement
	echo "report: netsweep-report-placement/index.html (Best per dollar: on instances, then with transfer)"
	echo "per result: sqlite3 $DB 'select pair, relation, round(transfer_per_hour, 2), round(total_per_hour, 2), round(mbps_per_total_hour, 1) from v_cost_total'"
	exit 0
fi
if [ "$(id -u)" = 0 ] && command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 &&
	ip netns list >/dev/null 2>&1; then
	matrix=data/matrices/lab-demo.xml
	export NETSWEEP_LAB_PREFIX="${NETSWEEP_LAB_PREFIX:-nsdemo}" NETSWEEP_LAB_SCALE="${NETSWEEP_LAB_SCALE:-1/100}"
	"$B" lab down --prefix "$NETSWEEP_LAB_PREFIX" 2>/dev/null || true # what a killed demo left
	echo "demo: three instance types emulated on this host (netsweep lab, scale $NETSWEEP_LAB_SCALE)"
	label=demo-lab
else
	matrix=data/matrices/quick.xml
	label=demo
fi
if [ -n "${NETSWEEP_DEMO_DURATION:-}" ]; then
	short=$(mktemp "${TMPDIR:-/tmp}/netsweep-demo.XXXXXX")
	trap 'rm -f "$short"' EXIT
	sed "s|<axis name=\"duration\">.*</axis>|<axis name=\"duration\"><value>$NETSWEEP_DEMO_DURATION</value></axis>|" \
		"$matrix" >"$short"
	matrix=$short
fi
if [ "$label" = demo-lab ]; then
	"$B" run "$matrix" --provision lab --db "$DB" --label "$label"
else
	"$B" run "$matrix" --db "$DB" --label "$label"
	echo
	echo "This was the loopback demo. The full one — three priced instance types emulated in"
	echo "network namespaces and ranked per dollar — needs root and iproute2: sudo make demo"
fi
echo
echo "results: $DB (run: sqlite3 $DB 'select endpoint, protocol, streams, direction, round(goodput_mbps) from v_results')"
# The report of that run against the previous run of the same matrix (if any).
"$B" report --db "$DB" --baseline previous -o netsweep-report
echo "report: netsweep-report/index.html (also report.md, results.csv and the charts' .gp/.dat)"
