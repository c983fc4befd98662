#!/bin/bash
# Incast in the lab: `lab up --matrix data/matrices/incast.xml` builds one shaped server and
# eight client namespaces on a bridge in front of it, and the matrix as written for real
# instances runs against it with --lab: every group case completes with all its clients (none
# refused), the total of 4 and of 8 clients is at least 0.8x what one client alone gets through
# the same tbf (or the result says its senders were the limit), each case has Jain's index and
# its start spread, and `lab down` leaves no namespace, bridge, veth or state file.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("lab incast: every client completes" "lab incast: total against one client" "lab incast: down")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0 NETSWEEP_LAB_DIR=$NETNS_TMP/lab
P=nstinc
lab() { $NETNS_NICE_CMD "$NETNS_NETSWEEP" lab "$1" --prefix "$P" "${@:2}"; }
trap 'lab down >/dev/null 2>&1; netns_cleanup' EXIT

M=$NETNS_TMP/incast.xml DB=$NETNS_TMP/incast.db J=$NETNS_TMP/incast.json
sed -e 's|<value>5s</value>|<value>3s</value>|' "$NETNS_ROOT/data/matrices/incast.xml" >"$M"
if lab up --matrix "$M" --scale 1/100 >"$J" 2>"$NETNS_TMP/up.err" &&
	[ "$(grep -c '"198.18.[0-9]*.1[0-9]:5301"' "$J")" = 8 ]; then
	pass "lab up --matrix: one server and 8 client agents"
else
	fail "lab up --matrix" "$(cat "$NETNS_TMP/up.err") $(head -c 600 "$J")"
	exit 1
fi
n_ns=$(ip netns list | grep -c "^$P-")
br=$(ip -o link show type bridge | grep -c " $P-[0-9]*b:")
if [ "$n_ns" = 9 ] && [ "$br" = 1 ]; then pass "9 namespaces and one bridge"
else fail "9 namespaces and one bridge" "$n_ns namespaces, $br bridges"; fi
$NETNS_NICE_CMD "$NETNS_NETSWEEP" run "$M" --lab "$J" --db "$DB" >"$NETNS_TMP/run.log" 2>&1
rc=$?
q() { sqlite3 "$DB" "$1" 2>&1; }
if [ "$rc" = 0 ] && [ "$(q "select count(*) from v_group_fairness where status = 'ok' and completed = clients")" = 4 ] &&
	[ "$(q "select count(*) from v_group_clients where status = 'ok'")" = 15 ]; then
	pass "lab incast: every client completes (1, 2, 4 and 8 clients; none refused)"
else
	fail "lab incast: every client completes" "exit $rc: $(tail -n 5 "$NETNS_TMP/run.log") $(q 'select name, status, error from v_group_clients where status != "ok"')"
fi
one=$(q "select total_bps from v_group_fairness where clients = 1")
for n in 4 8; do
	read -r tot lim jain spread < <(q "select total_bps, coalesce(sender_limited, 0), round(jain, 3), round(start_spread_ms, 1) from v_group_fairness where clients = $n" | tr '|' ' ')
	if [ "$lim" = 1 ]; then
		pass "lab incast: $n clients: a sender was the limit (flagged), jain $jain"
	elif awk -v t="$tot" -v o="$one" 'BEGIN { exit !(o > 0 && t >= 0.8 * o) }'; then
		pass "lab incast: $n clients move $(awk -v t="$tot" -v o="$one" 'BEGIN { printf "%.2f", t / o }')x one client alone (>= 0.8x); Jain's index $jain, start spread $spread ms"
	else
		fail "lab incast: total against one client" "$n clients $tot bit/s, one alone $one"
	fi
done
if [ "$(q "select count(*) from v_group_fairness where jain is not null and start_spread_ms is not null")" = 4 ] &&
	[ "$(q "select count(distinct client) from group_samples s join group_results g on g.result_id = s.result_id where g.clients = 8")" = 8 ]; then
	pass "lab incast: fairness, start spread and each client's series stored"
else
	fail "lab incast: fairness stored" "$(q 'select clients, jain, start_spread_ms from v_group_fairness')"
fi
# the report charts each client of the 2-, 4- and 8-client cases, one line a client, named as the matrix names it (c1..c8)
"$NETNS_NETSWEEP" report --db "$DB" -o "$NETNS_TMP/rep" >"$NETNS_TMP/rep.log" 2>&1
if [ -s "$NETNS_TMP/rep/clients.svg" ] && grep -q "title 'c8'" "$NETNS_TMP/rep/clients.gp" &&
	[ "$(grep -c "x 8 clients" "$NETNS_TMP/rep/clients.gp")" -ge 1 ]; then
	pass "lab incast: the report charts each client's rate over time (clients.svg)"
else
	fail "lab incast: clients chart" "$(cat "$NETNS_TMP/rep.log")"
fi
# ... and opens on how the clients shared the link: right after "What changed" the group
# section, a row per number of clients with Jain's index and the slowest share, each client
# by its member name (c1..c8), throughput and fairness against the clients; the panels with
# nothing to draw are one line, not empty figures
h=$NETNS_TMP/rep/index.html
x() { xmllint --html --xpath "$1" "$h" 2>/dev/null; }
second=$(x 'string((//main/section)[2]/@id)')
frows=$(x 'count(//table[@id="fairness-table"]/tbody/tr)')
jain=$(x 'string(//table[@id="fairness-table"]/tbody/tr[last()]/td[4])')
names=$(x '//table[@id="clients-table"]/tbody/tr[td[1]="8"]/td[2]/text()' | tr '\n' ' ')
nodata=$(x 'count(//figure[@data-status="nodata"])')
if [ "$second" = clients ] && [ "$frows" = 4 ] && [[ $jain =~ ^[01]\.[0-9]{3}$ ]] &&
	[ "$names" = "c1 c2 c3 c4 c5 c6 c7 c8 " ] && [ -s "$NETNS_TMP/rep/fairness.svg" ] &&
	[ "$nodata" = 0 ]; then
	pass "lab incast: the report opens on the clients: fairness by clients, each client by name, its chart"
else
	fail "lab incast: the report opens on the clients" "second section '$second', $frows fairness rows, Jain '$jain', 8-client names '$names', $nodata empty panels"
fi
lab down >/dev/null 2>&1
left=""
ip netns list | grep -q "^$P-" && left="$left namespaces"
ip -o link show | grep -q " $P-[0-9]*b\?[@:]" && left="$left links"
ls "$NETSWEEP_LAB_DIR" 2>/dev/null | grep -q "^$P-" && left="$left state-files"
if [ -z "$left" ]; then pass "lab incast: down leaves no namespace, bridge, veth or state file"
else fail "lab incast: down" "$left"; fi
finish
