#!/bin/bash
# A <mesh> of four lab hosts in two zones (namespaces m4-a .. m4-d, each with an agent that
# delegates, joined through a hub m4-x where the runner runs): 12 ordered pairs, all
# completed, in at most 4 rounds (from the stored start and end times: a host pair's two
# directions as one interval, rounds as the groups of overlapping intervals), never a host in
# two tests at once; a's sending shaped to 40 mbit, the others' to 150: the report's heatmap
# has its figures in the cells and its finding names a's asymmetry; the dry run says the
# rounds; a shuffled run's recorded seed replays its order (run --seed).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("mesh: dry run says 3 rounds"
	"mesh: 12 ordered pairs, all completed"
	"mesh: never a host in two tests at once"
	"mesh: at most 4 rounds"
	"mesh: each pair's hosts and zones stored"
	"mesh: the shaped direction is the slower one"
	"mesh: heatmap with figures in its cells"
	"mesh: the asymmetry finding"
	"shuffled: the recorded seed replays the order"
	"lab: lab up --matrix emulates a mesh's links; the run fills the heatmap"
	"mesh: each heatmap row headed by its host or zone (th scope=row)")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0 NETSWEEP_LAB_DIR=$NETNS_TMP/lab
PORT=5301
lab() { $NETNS_NICE_CMD "$NETNS_NETSWEEP" lab "$1" --prefix m4lab "${@:2}"; }
trap 'lab down >/dev/null 2>&1; netns_cleanup' EXIT
H=(a b c d)
setup() {
	local i=1 h
	for h in "${H[@]}"; do
		netns_pair m4 "$h" x "10.94.$i.2" "10.94.$i.1" >/dev/null || return 1
		ip -n "m4-$h" route add 10.94.0.0/16 via "10.94.$i.1" || return 1
		i=$((i + 1))
	done
	ip netns exec m4-x sysctl -qw net.ipv4.ip_forward=1 &&
		netns_shape a 40mbit && netns_shape b 150mbit && netns_shape c 150mbit &&
		netns_shape d 150mbit
}
setup || { fail "namespace setup" "netns_pair / route / tbf failed"; exit 1; }
for i in 1 2 3 4; do
	netns_agent "${H[$((i - 1))]}" "10.94.$i.2" "$PORT" --delegate ||
		{ fail "agent ${H[$((i - 1))]}" "did not start"; exit 1; }
done

M=$NETNS_TMP/mesh.xml DB=$NETNS_TMP/mesh.db
cat >"$M" <<X
<matrix name="mesh4" case-timeout="20s">
  <pairs>
    <mesh name="lab" expected-driver="veth">
      <host name="a" agent="10.94.1.2:$PORT" zone="z1"/>
      <host name="b" agent="10.94.2.2:$PORT" zone="z1"/>
      <host name="c" agent="10.94.3.2:$PORT" zone="z2"/>
      <host name="d" agent="10.94.4.2:$PORT" zone="z2"/>
    </mesh>
  </pairs>
  <axes>
    <axis name="duration"><value>1</value></axis>
    <axis name="omit"><value>0.2</value></axis>
    <axis name="latency-probe"><value>tcp</value></axis>
  </axes>
</matrix>
X
q() { sqlite3 "$DB" "$1" 2>&1; }
run_in_hub() { timeout -k 5 120 ip netns exec m4-x $NETNS_NICE_CMD "$NETNS_NETSWEEP" "$@"; }

rounds=$("$NETNS_NETSWEEP" run "$M" --dry-run --jobs 4 | grep -c '^mesh round [0-9] of 3:')
check "${CHECKS[0]}" [ "$rounds" = 3 ]

run_in_hub run "$M" --db "$DB" --jobs 4 --quiet >"$NETNS_TMP/log" 2>&1
rc=$?
ok=$(q "select count(distinct endpoint) from v_results where status = 'ok'")
CHECK_MSG="exit $rc, $ok pairs ok"
[ "$rc" = 0 ] && [ "$ok" = 12 ] && pass "${CHECKS[1]}: $CHECK_MSG" ||
	fail "${CHECKS[1]}" "$CHECK_MSG; $(q "select endpoint, error from v_results where status != 'ok' limit 3") $(tail -n 3 "$NETNS_TMP/log")"

# Two results whose pairs share a host, overlapping in time.
clash=$(q "with t as (select v.result_id, n.client_name, n.agent_name,
		julianday(v.started_at) s, julianday(v.finished_at) f
		from v_results v join endpoint_ends n on n.endpoint_id = v.endpoint_id)
	select count(*) from t x join t y on x.result_id < y.result_id
	where (x.client_name in (y.client_name, y.agent_name) or x.agent_name in (y.client_name, y.agent_name))
	and x.s < y.f and y.s < x.f")
check "${CHECKS[2]} ($clash clashes)" [ "$clash" = 0 ]

# A host pair's interval (both directions); rounds = groups of overlapping intervals.
n_rounds=$(q "select min(n.client_name, n.agent_name) || '-' || max(n.client_name, n.agent_name),
		min(julianday(v.started_at)), max(julianday(v.finished_at))
		from v_results v join endpoint_ends n on n.endpoint_id = v.endpoint_id
		group by 1 order by 2" |
	awk -F'|' 'NR == 1 || $2 >= end { r++; end = $3 } $3 > end { end = $3 } END { print r + 0 }')
check "${CHECKS[3]} ($n_rounds)" [ "$n_rounds" -ge 1 ] && [ "$n_rounds" -le 4 ]

ends=$(q "select group_concat(e.name || ':' || n.client_zone || '>' || n.agent_zone, ' ')
	from endpoints e join endpoint_ends n on n.endpoint_id = e.id where e.name in ('a--c', 'b--a')
	order by e.name")
# db merge carries the ends with their pairs
"$NETNS_NETSWEEP" db merge "$NETNS_TMP/merged.db" "$DB" >/dev/null 2>&1
merged=$(sqlite3 "$NETNS_TMP/merged.db" "select count(*) from v_mesh_cells where client_zone is not null" 2>&1)
check "${CHECKS[4]} ($ends; $merged cells after db merge)" [ "$ends" = "a--c:z1>z2 b--a:z1>z1" ] && [ "$merged" = 12 ]

# a sends through 40 mbit, receives through 150: a--b below b--a, unless the result says
# the tool set its figures.
slow=$(q "select x.goodput_bps < y.goodput_bps from v_results x, v_results y
	where x.endpoint = 'a--b' and y.endpoint = 'b--a'")
flag=$(q "select count(*) from v_results where endpoint in ('a--b', 'b--a')
	and (sender_limited or limited_by in ('sender_cpu', 'receiver_cpu', 'steal'))")
if [ "$slow" = 1 ]; then pass "${CHECKS[5]}"
elif [ "$flag" -gt 0 ]; then pass "${CHECKS[5]}: the tool set a figure, and the result says so"
else fail "${CHECKS[5]}" "$(q "select endpoint, goodput_bps from v_results where endpoint in ('a--b', 'b--a')")"; fi

# The report: the goodput heatmap has a figure in each of its 12 off-diagonal cells (a class
# of the colour scale and the exact value beside), the asymmetry finding names a as the slow
# sender, unless a's results say the tool set them.
"$NETNS_NETSWEEP" report --db "$DB" --out "$NETNS_TMP/rep" >/dev/null 2>&1
HTML=$NETNS_TMP/rep/index.html
cells=$(sed -n '/<table id="heatmap-goodput">/,/<\/table>/p' "$HTML" 2>/dev/null |
	grep -cE '<td class="num heat[0-4]" data-value="[0-9.e+]+">[0-9.]+ [kMG]?bit/s</td>')
links=$(sed -n '/<table id="mesh-links">/,/<\/table>/p' "$HTML" 2>/dev/null | grep -c '^<tr>')
CHECK_MSG="$cells cells with figures, $links rows in the links table"
[ "$cells" = 12 ] && [ "$links" = 12 ] && grep -q 'id="slowest-link">The slowest link is a → ' "$HTML" &&
	grep -q '^| a | – | [0-9.]* [kMG]*bit/s |' "$NETNS_TMP/rep/report.md" &&
	jq -e '(.placement.links | length) == 12 and (.placement.slowest | type) == "string"' \
		"$NETNS_TMP/rep/report.json" >/dev/null &&
	pass "${CHECKS[6]}: $CHECK_MSG" || fail "${CHECKS[6]}" "$CHECK_MSG; $(grep -o 'id="slowest-link">[^<]*' "$HTML")"
asym=$(grep -o '<p class="warn" id="asymmetry">[^<]*' "$HTML" | sed 's/.*">//')
if echo "$asym" | grep -qE '^Asymmetric: a → [bcd] carries [0-9.]+ Mbit/s, [bcd] → a [0-9.]+ Mbit/s \([0-9.]+ times as much\)\.$'; then
	pass "${CHECKS[7]}: $asym"
elif [ "$flag" -gt 0 ]; then pass "${CHECKS[7]}: the tool set a figure of a's, and the result says so"
else fail "${CHECKS[7]}" "'$asym'"; fi
# Screen readers say a heatmap cell with its row's host: the first cell of each row is a header
# cell (th scope="row"), in the host maps (4 rows) and the zone map (2 rows).
hx() { xmllint --html --xpath "$1" "$HTML" 2>/dev/null; }
rh=$(hx "count(//table[@id='heatmap-goodput']/tbody/tr/th[@scope='row'][1][not(preceding-sibling::td)])")
rhz=$(hx "count(//table[@id='heatmap-zones']/tbody/tr/th[@scope='row'])")
first=$(hx "string(//table[@id='heatmap-goodput']/tbody/tr[1]/th[@scope='row'])")
[ "$rh" = 4 ] && [ "$rhz" = 2 ] && [ "$first" = a ] &&
	pass "${CHECKS[10]}: 4 host rows, 2 zone rows" ||
	fail "${CHECKS[10]}" "host rows headed $rh, zone rows $rhz, first '$first'"

# The lab: lab up --matrix gives each of a three-host mesh's six links its own emulated pair
# (shaped by the sender's instance type at 1/100), run --lab runs them in their rounds and
# the heatmap has them by host and zone.
L=$NETNS_TMP/labmesh.xml
cat >"$L" <<X
<matrix name="labmesh" case-timeout="20s">
  <pairs>
    <mesh name="lab">
      <host name="a" agent="192.0.2.1" zone="z1" instance-type="c5n.large" region="us-east-1"/>
      <host name="b" agent="192.0.2.2" zone="z1" instance-type="c5n.large" region="us-east-1"/>
      <host name="c" agent="192.0.2.3" zone="z2" instance-type="m5.large" region="us-east-1"/>
    </mesh>
  </pairs>
  <axes><axis name="duration"><value>0.5</value></axis><axis name="omit"><value>0</value></axis></axes>
</matrix>
X
if lab up --matrix "$L" --scale 1/100 >"$NETNS_TMP/lab.json" 2>"$NETNS_TMP/lab.err"; then
	timeout -k 5 120 $NETNS_NICE_CMD "$NETNS_NETSWEEP" run "$L" --lab "$NETNS_TMP/lab.json" \
		--db "$NETNS_TMP/lab.db" --jobs 2 --quiet >"$NETNS_TMP/labrun.log" 2>&1
	lab_cells=$(sqlite3 "$NETNS_TMP/lab.db" "select count(*) from v_mesh_cells c join v_results v
		on v.endpoint_id = c.endpoint_id where v.status = 'ok' and v.emulated = 1
		and c.client_zone is not null" 2>&1)
	check "${CHECKS[9]} ($lab_cells of 6 links)" [ "$lab_cells" = 6 ]
	lab down >/dev/null 2>&1
else
	fail "${CHECKS[9]}" "lab up: $(tail -n 2 "$NETNS_TMP/lab.err")"
fi

# Shuffled: the seed a run recorded, given back with --seed, gives the same order (a
# loopback agent in the hub's own namespace).
S=$NETNS_TMP/shuffle.xml
cat >"$S" <<X
<matrix name="shuffle" order="shuffled">
  <axes>
    <axis name="streams"><value>1</value><value>2</value><value>3</value><value>4</value><value>5</value></axis>
    <axis name="rate"><value>20M</value></axis>
    <axis name="duration"><value>0.2</value></axis>
  </axes>
</matrix>
X
order_of() { sqlite3 "$1" "select group_concat(streams, ' ') from (select streams from v_results order by started_at, result_id)"; }
run_in_hub run "$S" --db "$NETNS_TMP/s1.db" --quiet >/dev/null 2>&1
seed=$(sqlite3 "$NETNS_TMP/s1.db" "select seed from runs")
run_in_hub run "$S" --db "$NETNS_TMP/s2.db" --quiet --seed "$seed" >/dev/null 2>&1
o1=$(order_of "$NETNS_TMP/s1.db") o2=$(order_of "$NETNS_TMP/s2.db")
seed2=$(sqlite3 "$NETNS_TMP/s2.db" "select order_mode || ' ' || seed from runs")
CHECK_MSG="seed $seed: '$o1', replayed: '$o2' ($seed2)"
[ -n "$seed" ] && [ "$(echo "$o1" | wc -w)" = 5 ] && [ "$o1" = "$o2" ] && [ "$seed2" = "shuffled $seed" ] &&
	pass "${CHECKS[8]}: $CHECK_MSG" || fail "${CHECKS[8]}" "$CHECK_MSG"

finish
