#!/bin/bash
# One matrix across two endpoint pairs that stand in for two instance types: namespaces whose
# agents send through tbf at 200 mbit and 800 mbit. Both pairs x streams {1,4} x protocol
# {tcp,udp} land with figures that match each pair's rate: TCP goodput within 3 % of
# rate x 1448/1514, UDP paced below the rate (150M, 300M) within 3 % of what was asked, or,
# where a busy machine starved the sender, the result says so (sender_limited, limited_by). The
# figures come from a run with one job (two pairs at once on this 2-core machine would starve
# each other's senders); a short run with --jobs 2 shows the pairs served at the same time but
# never two cases on one pair.
#
# Topology (prefix s3): a star, the runner in s3-c with a veth to each agent's namespace,
# s3-a1 and s3-a2. Shaping goes on the leaves (the harness shapes a namespace's first veth),
# so the cases run reversed: the agent sends, through its tbf.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
CHECKS=("netns matrix lands every case")
netns_need_netsweep "${CHECKS[@]}"
export NETSWEEP_IMDS=0

C1=10.33.1.1 A1=10.33.1.2 C2=10.33.2.1 A2=10.33.2.2 PORT=5301
netns_pair s3 c a1 "$C1" "$A1" >/dev/null || { fail "namespace setup" "netns_pair a1 failed"; exit 1; }
netns_pair s3 c a2 "$C2" "$A2" >/dev/null || { fail "namespace setup" "netns_pair a2 failed"; exit 1; }
netns_shape a1 200mbit || { fail "namespace setup" "tbf a1"; exit 1; }
netns_shape a2 800mbit || { fail "namespace setup" "tbf a2"; exit 1; }
netns_agent a1 "$A1" "$PORT" || { fail "agent a1" "did not start"; exit 1; }
netns_agent a2 "$A2" "$PORT" || { fail "agent a2" "did not start"; exit 1; }

M=$NETNS_TMP/two-rates.xml DB=$NETNS_TMP/two-rates.db
# write_matrix FILE FAST_DRIVER STREAMS DURATION OMIT
write_matrix() {
	cat >"$1" <<X
<matrix name="two-rates" case-timeout="30s">
  <pairs>
    <pair name="slow" instance-type="test.200m" agent="$A1:$PORT" expected-driver="veth"/>
    <pair name="fast" instance-type="test.800m" agent="$A2:$PORT" expected-driver="$2"/>
  </pairs>
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="streams">$3</axis>
    <axis name="direction"><value>reverse</value></axis>
    <axis name="rate"><value>0</value><value>150M</value><value>300M</value></axis>
    <!-- UDP: ~100 ms of receiver slack, so a descheduled receiver on this shared machine
         does not turn into socket-buffer loss (what the harness's accuracy tests do too). -->
    <axis name="window"><value>0</value><value>4M</value></axis>
    <axis name="duration"><value>$4</value></axis>
    <axis name="omit"><value>$5</value></axis>
  </axes>
  <rules>
    <exclude><when axis="protocol" value="tcp"/><when axis="rate" not="0"/></exclude>
    <exclude><when axis="protocol" value="udp"/><when axis="rate" value="0"/></exclude>
    <exclude><when axis="protocol" value="tcp"/><when axis="window" not="0"/></exclude>
    <exclude><when axis="protocol" value="udp"/><when axis="window" value="0"/></exclude>
    <exclude><when axis="pair" value="slow"/><when axis="rate" value="300M"/></exclude>
    <exclude><when axis="pair" value="fast"/><when axis="rate" value="150M"/></exclude>
  </rules>
</matrix>
X
}
write_matrix "$M" veth "<value>1</value><value>4</value>" 3 1
# The runner as the harness runs agent and probe: from its private copy of the binary (a
# colleague's rebuild cannot pull it away mid-run), at the harness's raised priority.
run_matrix() {
	timeout -k 5 180 ip netns exec s3-c $NETNS_NICE_CMD "$NETNS_NETSWEEP" run "$@"
}
run_matrix "$M" --db "$DB" >"$NETNS_TMP/log" 2>&1
rc=$?
q() { sqlite3 "$DB" "$1" 2>&1; }
if [ "$rc" = 0 ] && [ "$(q "select count(*) from results where status = 'ok'")" = 8 ]; then
	pass "${CHECKS[0]}: 8 of 8"
else
	fail "${CHECKS[0]}" "exit $rc; $(q "select endpoint, protocol, streams, status, error from v_results" | tr '\n' ' '); $(tail -n 3 "$NETNS_TMP/log")"
fi

# rate_check RUN PAIR PROTO WANT_MBPS: every such result's goodput within 3 % of WANT, unless
# the result itself says the tool, not the link, set the figure; the figures go to CHECK_MSG.
# A busy machine can starve a sender (issue 22): a paced UDP sender that offered less than
# asked carries sender_limited, and then the check is that the flag tells the truth (the
# shortfall it states is what the sender offered, within 3 %, and the link lost nothing
# beyond 3 %: the figure is the sender's). An unpaced TCP sender has no rate to fall short
# of; its result names the CPU (limited_by sender_cpu, receiver_cpu or steal) when a thread
# of the tool was the bound. A short figure with no such word is a failure.
rate_check() {
	local run=$1 pair=$2 proto=$3 want=$4 rows ok=0 s bps sbps lost lim cause by offered
	rows=$(q "select streams || ' ' || goodput_bps || ' ' || fwd_snd_bps || ' ' || coalesce(fwd_lost_percent, 0) || ' ' || coalesce(sender_limited, 'null') || ' ' || coalesce(limit_cause, '-') || ' ' || coalesce(nullif(limited_by, ''), '-') || ' ' || coalesce(offered_bps, 0) from v_results where run_id = $run and endpoint = '$pair' and protocol = '$proto' order by streams")
	[ -n "$rows" ] && ok=1
	CHECK_MSG="$CHECK_MSG $pair $proto (want $want):"
	while read -r s bps sbps lost lim cause by offered; do
		[ -n "$s" ] || continue
		CHECK_MSG="$CHECK_MSG P$s=$(awk -v b="$bps" 'BEGIN { printf "%.1f", b / 1e6 }')"
		netns_within "$bps" "$(awk -v w="$want" 'BEGIN { printf "%.0f", w * 1e6 }')" 3 && continue
		if [ "$lim" = 1 ] && [ "$cause" != - ] && netns_within "$offered" "$sbps" 3 &&
			netns_within "$bps" "$sbps" 3; then
			CHECK_MSG="$CHECK_MSG (sender-limited: $cause, offered $(awk -v x="$offered" 'BEGIN { printf "%.1f", x / 1e6 }'))"
			continue
		fi
		if [ "$proto" = tcp ] && [ "$lim" != 1 ] &&
			[[ $by = sender_cpu || $by = receiver_cpu || $by = steal ]]; then
			CHECK_MSG="$CHECK_MSG (limited by $by)"
			continue
		fi
		ok=0
		CHECK_MSG="$CHECK_MSG$(awk -v x="$sbps" -v l="$lost" 'BEGIN { printf " (sent %.1f, lost %.2f %%", x / 1e6, l }'), sender_limited $lim, cause $cause, limited_by $by)"
	done <<<"$rows"
	CHECK_MSG="$CHECK_MSG;"
	[ "$ok" = 1 ]
}
# All four figures of the newest run; when one fell short with no word saying why,
# netns_check_runs calls again and the whole matrix runs again as a new run.
RATE_RUNS=0
rates_match() {
	RATE_RUNS=$((RATE_RUNS + 1))
	[ "$RATE_RUNS" -gt 1 ] && run_matrix "$M" --db "$DB" --quiet >/dev/null 2>&1
	local run ok=0
	run=$(q "select max(id) from runs where matrix_name = 'two-rates'")
	rate_check "$run" slow tcp "$(awk 'BEGIN { printf "%.2f", 200 * 1448 / 1514 }')" || ok=1
	rate_check "$run" fast tcp "$(awk 'BEGIN { printf "%.2f", 800 * 1448 / 1514 }')" || ok=1
	rate_check "$run" slow udp 150 || ok=1
	rate_check "$run" fast udp 300 || ok=1
	CHECK_MSG="${CHECK_MSG# } Mbit/s"
	return $ok
}
netns_check_runs "figures match each pair's rate (TCP within 3 % of rate x 1448/1514, UDP of -b) or say the tool set them" rates_match

# --jobs 2: the pairs overlapped in time, but no pair ever ran two cases at once.
write_matrix "$NETNS_TMP/jobs.xml" veth "<value>1</value><value>4</value>" 0.5 0
sed -i 's/name="two-rates"/name="jobs"/' "$NETNS_TMP/jobs.xml"
run_matrix "$NETNS_TMP/jobs.xml" --db "$DB" --jobs 2 --quiet >/dev/null 2>&1
jrc=$?
jr=$(q "select max(id) from runs where matrix_name = 'jobs'")
overlap_same=$(q "select count(*) from v_results a join v_results b on a.run_id = $jr and b.run_id = $jr and a.endpoint_id = b.endpoint_id and a.result_id < b.result_id and a.started_at < b.finished_at and b.started_at < a.finished_at")
overlap_other=$(q "select count(*) from v_results a join v_results b on a.run_id = $jr and b.run_id = $jr and a.endpoint_id <> b.endpoint_id and a.started_at < b.finished_at and b.started_at < a.finished_at")
if [ "$jrc" = 0 ] && [ "$(q "select count(*) from v_results where run_id = $jr and status = 'ok'")" = 8 ] &&
	[ "$overlap_same" = 0 ] && [ "${overlap_other:-0}" -gt 0 ]; then
	pass "--jobs 2 runs the two pairs at once, never two cases on one pair"
else
	fail "--jobs 2" "exit $jrc, $overlap_same overlaps on one pair, $overlap_other across pairs"
fi
if [ "$(q "select count(*) from endpoints where run_id = 1 and (json_extract(agent_info, '\$.interface.driver_family') = 'veth' or json_extract(client_info, '\$.interface.driver') = 'veth')")" = 2 ]; then
	pass "each pair's host information names its veth"
else
	fail "each pair's host information names its veth" "$(q "select name, json_extract(client_info, '\$.interface'), json_extract(agent_info, '\$.interface') from endpoints")"
fi

# A driver that is not there fails that pair's cases (recorded, the run goes on, exit 1).
write_matrix "$NETNS_TMP/ena.xml" ena "<value>1</value>" 1 0
run_matrix "$NETNS_TMP/ena.xml" --db "$DB" --quiet >/dev/null 2>&1
rc=$?
run=$(q "select max(id) from runs")
if [ "$rc" = 1 ] &&
	[ "$(q "select count(*) from v_results where run_id = $run and endpoint = 'fast' and status = 'failed' and error like 'driver mismatch%'")" = 2 ] &&
	[ "$(q "select count(*) from v_results where run_id = $run and endpoint = 'slow' and status = 'ok'")" = 2 ]; then
	pass "a driver mismatch fails that pair's cases, the others run, exit 1"
else
	fail "driver mismatch" "exit $rc: $(q "select endpoint, status, error from v_results where run_id = $run" | tr '\n' ' ') agent: $(tail -n 6 "$NETNS_TMP/agent-s3-a1-$PORT.log" | tr '\n' ' ')"
fi
finish
