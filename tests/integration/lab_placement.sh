#!/bin/bash
# Placement with transfer in the lab (issue 39): data/matrices/lab-placement.xml — c5n.9xlarge
# across two zones of us-east-1, m5.8xlarge inside one — run with the lab as provisioning and
# its transfer rules (AWS: $0.01 per GB in each direction across zones, free inside one).
# Each pair's relation is stored; v_cost_total bills the cross-zone traffic on both sides at the
# rate of the instances the lab stands for (bps / 0.01), to the cent of a hand formula, and the
# same-zone traffic not at all; the report ranks on instances and with transfer, says in one
# sentence when their first differ, and report.json, ranking.csv, OpenMetrics and NDJSON carry
# v_cost_total's numbers; `netsweep cost --relation` prices the hand-checked pair; `netsweep plan`
# answers a need from the run (same zone on the smaller type beats cross zone on the bigger),
# as the report does for the matrix's monthly-transfer.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("lab placement: relations" "lab placement: transfer by hand" "lab placement: report"
	"lab placement: exports" "lab placement: export --monthly-transfer" "lab placement: site" "lab placement: db merge" "lab placement: cost" "lab placement: plan")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0 NETSWEEP_LAB_DIR=$NETNS_TMP/lab NETSWEEP_LAB_PREFIX=nstplc
export NETSWEEP_LAB_SCALE=1/100
NS=$NETNS_NETSWEEP
trap '"$NS" lab down --prefix nstplc >/dev/null 2>&1; netns_cleanup' EXIT
M=$NETNS_TMP/placement.xml DB=$NETNS_TMP/placement.db R=$NETNS_TMP/rep
X=$NETNS_ROOT/data/matrices/lab-placement-transfer.xml
sed -e 's|<value>3s</value>|<value>2s</value>|' "$NETNS_ROOT/data/matrices/lab-placement.xml" >"$M"
q() { sqlite3 "$DB" "$1" 2>&1; }

$NETNS_NICE_CMD "$NS" run "$M" --provision lab --catalog "$X" --db "$DB" >"$NETNS_TMP/run.log" 2>&1
rc=$?
rel=$(q "select group_concat(endpoint || '=' || relation || '/' || zone, ' ') from (select distinct endpoint, relation, zone from v_results order by endpoint)")
if [ "$rc" = 0 ] && [ "$rel" = "c5n.9xlarge-cross-zone=cross-zone/cross m5.8xlarge-same-zone=same-zone/same" ] &&
	[ "$(q "select count(*) from v_results where status = 'ok' and lab_scale = 0.01")" = 4 ]; then
	pass "lab placement: relations stored ($rel), zone kept as its alias"
else
	fail "lab placement: relations" "exit $rc, $rel: $(tail -n 5 "$NETNS_TMP/run.log")"
fi

# by hand: GB an hour = bps / 0.01 * 3600 / 8e9; cross-zone billed to both at 0.01 = 0.02 a GB
# moved; the pair of c5n.9xlarge 2 x 1.944 an hour, of m5.8xlarge 2 x 1.536
bad=$(q "select count(*) from v_cost_total where not (
	(relation = 'cross-zone' and abs(transfer_per_hour - bps / 0.01 * 3600 / 8e9 * 0.02) < 0.005
	 and abs(total_per_hour - (3.888 + bps / 0.01 * 3600 / 8e9 * 0.02)) < 0.005
	 and abs(transfer_per_tb - 20.00) < 0.005 and billed = 'both')
	or (relation = 'same-zone' and transfer_per_hour = 0 and abs(total_per_hour - 3.072) < 1e-9
	    and abs(total_per_tb - 3.072 / (bps / 0.01 * 3600 / 8e12)) < 0.005))")
n=$(q "select count(*) from v_cost_total")
if [ "$n" = 4 ] && [ "$bad" = 0 ]; then
	pass "lab placement: transfer by hand — cross-zone billed to both at 0.01 (20.00 a TB), same-zone free, $(q "select group_concat(pair || ' ' || round(total_per_hour, 2) || '/h', ', ') from v_cost_total")"
else
	fail "lab placement: transfer by hand" "$n rows, $bad off: $(q 'select pair, bps, transfer_per_hour, total_per_hour, transfer_per_tb from v_cost_total')"
fi

"$NS" report --db "$DB" -o "$R" >"$NETNS_TMP/rep.log" 2>&1
J=$R/report.json
ranks=$(sqlite3 :memory: "select group_concat(json_extract(value, '\$.pair') || ':' || json_extract(value, '\$.rank') || ':' || json_extract(value, '\$.total_rank'), ' ') from json_each(json_extract(readfile('$J'), '\$.ranking.rows'))")
note=$(sqlite3 :memory: "select json_extract(readfile('$J'), '\$.ranking.transfer_note')")
# c5n.9xlarge's 500 Mbit/s (at 1/100) are 4 times m5.8xlarge's 100 for 1.27 times the price: it
# ranks first on instances unless this machine held its sender back, which the result flags
lim=$(q "select count(*) from v_results where endpoint like 'c5n%' and (sender_limited = 1 or limited_by in ('sender_cpu', 'receiver_cpu', 'steal'))")
case "$ranks" in
*"c5n.9xlarge-cross-zone:1:2"*"m5.8xlarge-same-zone:2:1"*)
	if [[ $note == "cross-zone c5n.9xlarge ranks first on instances but second with transfer at 0.02 \$/GB; same-zone m5.8xlarge (m5.8xlarge-same-zone) ranks first with it." ]] &&
		grep -q 'id="cost-total-table"' "$R/index.html" && grep -q 'transfer-disagree' "$R/index.html" &&
		grep -q '^### With transfer' "$R/report.md"; then
		pass "lab placement: report — first on instances c5n.9xlarge cross-zone, with transfer m5.8xlarge same-zone, said in one sentence"
	else
		fail "lab placement: report" "ranks $ranks; note '$note'"
	fi ;;
*)
	if [ "$lim" -gt 0 ]; then pass "lab placement: report — c5n.9xlarge held back on this machine (flagged): $ranks"
	else fail "lab placement: report" "ranks $ranks, note '$note' ($(tail -n 3 "$NETNS_TMP/rep.log"))"; fi ;;
esac

# the same numbers everywhere: report.json and ranking.csv (the ranked case's median), the
# metrics (the mean of the case's results: two repeats, their median) and v_cost_total
want=$(q "select group_concat(pair || '=' || printf('%.6f', t), ' ') from (select pair, avg(total_per_hour) t from v_cost_total group by pair order by pair)")
json=$(sqlite3 :memory: "select group_concat(p || '=' || printf('%.6f', t), ' ') from (select json_extract(value, '\$.pair') p, json_extract(value, '\$.total_per_hour') t from json_each(json_extract(readfile('$J'), '\$.ranking.rows')) order by p)")
csv=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "total_per_hour") c = i; next } { printf "%s=%.6f\n", $3, $c }' "$R/ranking.csv" | sort | paste -sd' ')
om=$("$NS" export --db "$DB" | awk '/^netsweep_total_usd_per_hour\{/ { match($0, /pair="[^"]*"/); p = substr($0, RSTART + 6, RLENGTH - 7); printf "%s=%.6f\n", p, $2 }' | sort | paste -sd' ')
nd=$("$NS" export --db "$DB" --format ndjson | grep -c '"transfer":{"relation"')
if [ -n "$want" ] && [ "$json" = "$want" ] && [ "$csv" = "$want" ] && [ "$om" = "$want" ] && [ "$nd" = 4 ]; then
	pass "lab placement: exports — report.json, ranking.csv, OpenMetrics and the view agree ($want), NDJSON has 4 results' transfer"
else
	fail "lab placement: exports" "view $want; json $json; csv $csv; openmetrics $om; ndjson $nd"
fi

# export --monthly-transfer prices as report --monthly-transfer does, on a tiered rule (a copy
# whose cross-zone rule has its first 1000 GB at 0.01, the rest free: at 50 TB a month that is
# 10 / 5,000 a GB per side at 5 TB; the run states 50 TB), and leaves the database as it was
T=$NETNS_TMP/tiered.db
cp "$DB" "$T"
sqlite3 "$T" "update run_transfer_prices set tiers = '[{\"up_to_gb\":1000,\"per_gb\":0.01},{\"per_gb\":0}]' where relation = 'cross-zone'"
"$NS" report --db "$T" --monthly-transfer 5TB -o "$NETNS_TMP/tiered" >"$NETNS_TMP/tiered.log" 2>&1
tj=$(sqlite3 :memory: "select group_concat(p || '=' || printf('%.6f', t), ' ') from (select json_extract(value, '\$.pair') p, json_extract(value, '\$.total_per_hour') t from json_each(json_extract(readfile('$NETNS_TMP/tiered/report.json'), '\$.ranking.rows')) order by p)")
omt() { "$NS" export --db "$T" "$@" | awk '/^netsweep_total_usd_per_hour\{/ { match($0, /pair="[^"]*"/); p = substr($0, RSTART + 6, RLENGTH - 7); printf "%s=%.6f\n", p, $2 }' | sort | paste -sd' '; }
vol=$(sqlite3 "$T" 'select monthly_gb from run_transfer_volume')
tm=$(omt --monthly-transfer 5TB) t0=$(omt)
# by hand: the cross-zone pair's transfer is 2 x 10 / 5,000 a GB at its GB an hour
hand=$(sqlite3 "$T" "select printf('%.6f', avg(instance_per_hour + 2 * 10.0 / 5000 * gb_per_hour)) from v_cost_total where relation = 'cross-zone'")
ndt=$("$NS" export --db "$T" --format ndjson --monthly-transfer 5TB | grep -Ec '"monthly_gb":5000(\.0+)?[,}]')
if [ -n "$tj" ] && [ "$tm" = "$tj" ] && [ "$tm" != "$t0" ] && grep -q "cross-zone=$hand" <<<"${tm//c5n.9xlarge-/}" &&
	[ "$ndt" -ge 2 ] && [ "$(sqlite3 "$T" 'select monthly_gb from run_transfer_volume')" = "$vol" ] &&
	"$NS" export --db "$T" --monthly-transfer 5XB 2>&1 >/dev/null | grep -q -- '--monthly-transfer'; then
	pass "lab placement: export --monthly-transfer 5TB — OpenMetrics as the report ($tm; by hand cross-zone $hand; without it $t0)"
else
	fail "lab placement: export --monthly-transfer" "report $tj; export $tm; without $t0; hand $hand; ndjson $ndt; $(tail -n 2 "$NETNS_TMP/tiered.log")"
fi

# the site carries the transfer: night.xml's totals are the view's, the index and the pair page
# show relation, transfer, total and Mbit/s per total beside the instance-only figure
S=$NETNS_TMP/site
"$NS" site --db "$DB" -o "$S" >"$NETNS_TMP/site.log" 2>&1
NX=$(ls "$S"/nights/*/night.xml 2>/dev/null | head -n 1)
st=$(grep -o '<pair [^>]*>' "$NX" 2>/dev/null | sed -n 's/.* name="\([^"]*\)".* total_per_hour="\([^"]*\)".*/\1 \2/p' |
	awk '{ printf "%s=%.6f\n", $1, $2 }' | sort | paste -sd' ')
xz=$(ls "$S"/pairs/ | grep cross-zone | head -n 1)
if [ -n "$want" ] && [ "$st" = "$want" ] && grep -q 'Total \$/hour' "$S/index.html" &&
	grep -q '>cross-zone</td>' "$S/index.html" && grep -q '>same-zone</td>' "$S/index.html" &&
	grep -q 'With transfer (cross-zone): \$[0-9.]*/hour of traffic' "$S/pairs/$xz/index.html"; then
	pass "lab placement: site — night.xml's totals are v_cost_total's ($st), index and pair page show them"
else
	fail "lab placement: site" "view $want; night.xml $st; $(tail -n 3 "$NETNS_TMP/site.log")"
fi

# db merge carries the run's transfer rules and volume: the merged copy prices alike
"$NS" db merge "$NETNS_TMP/merged.db" "$DB" >/dev/null 2>&1
mv=$(sqlite3 "$NETNS_TMP/merged.db" "select group_concat(printf('%.6f', total_per_hour), ' ') from (select total_per_hour from v_cost_total order by pair, bps)" 2>&1)
ov=$(q "select group_concat(printf('%.6f', total_per_hour), ' ') from (select total_per_hour from v_cost_total order by pair, bps)")
if [ -n "$ov" ] && [ "$mv" = "$ov" ] &&
	[ "$(sqlite3 "$NETNS_TMP/merged.db" "select count(*) || '/' || sum(length(tiers)) from run_transfer_prices; select monthly_gb from run_transfer_volume")" = "$(q "select count(*) || '/' || sum(length(tiers)) from run_transfer_prices; select monthly_gb from run_transfer_volume")" ]; then
	pass "lab placement: db merge keeps the transfer rules and the monthly volume ($mv)"
else
	fail "lab placement: db merge" "merged '$mv', original '$ov'"
fi

# netsweep cost prices the hand-checked pair the same way: m5.large at 4.2 Gbit/s across zones
out=$("$NS" cost --catalog "$X" --type m5.large --region us-east-1 --throughput 4.2G --relation cross-zone 2>&1)
if grep -Eq '^m5\.large +us-east-1 +USD +0\.1920 +37\.8000 +37\.9920 +110\.5 +20\.10 billed to both' <<<"$out"; then
	pass "lab placement: cost --relation cross-zone — m5.large at 4.2G: 37.80 transfer, 37.992 an hour, 20.10 a TB"
else
	fail "lab placement: cost" "$out"
fi

# plan: 50 TB a month (152 Mbit/s) is one pair of either (each moves some Gbit/s at the instances'
# rate); m5.8xlarge same-zone costs 2 x 1.536 x 730 = 2242.56 a month, c5n.9xlarge cross-zone
# 2 x 1.944 x 730 = 2838.24 and 50,000 GB x 0.02 = 1000.00 of transfer
P=$NETNS_TMP/plan.json
"$NS" plan --db "$DB" --move 50TB/month --json >"$P" 2>"$NETNS_TMP/plan.err"
pj() { sqlite3 :memory: "select $1 from json_each(json_extract(readfile('$P'), '\$.options'))"; }
got=$(pj "group_concat(json_extract(value, '\$.rank') || ':' || json_extract(value, '\$.pair') || ':' || json_extract(value, '\$.pairs') || ':' || printf('%.2f', json_extract(value, '\$.instances_month')) || ':' || printf('%.2f', json_extract(value, '\$.transfer_month')), ' ')")
if [ "$got" = "1:m5.8xlarge-same-zone:1:2242.56:0.00 2:c5n.9xlarge-cross-zone:1:2838.24:1000.00" ] &&
	grep -q 'To move 50 TB a month: 1 pair of m5.8xlarge same-zone' "$R/index.html" &&
	"$NS" plan --db "$DB" --hold 100G --relation cross-zone | grep -Eq '^1 +c5n\.9xlarge-cross-zone +cross-zone +[0-9]+ '; then
	pass "lab placement: plan — 50 TB a month: m5.8xlarge same-zone 2242.56, c5n.9xlarge cross-zone 2838.24 + 1000.00 transfer; the report says it too"
else
	fail "lab placement: plan" "$got; $(cat "$NETNS_TMP/plan.err") $(grep -o 'To move[^<]*' "$R/index.html")"
fi
