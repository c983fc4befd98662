#!/bin/bash
# `netsweep run` on the loopback default (no pairs: the runner forks its own agent): every
# (case, repeat) lands once with figures, samples and both ends' host information; dry-run
# writes nothing; case keys are the same in a second run; the forked agent is gone afterwards.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
# A private copy of the binary: a colleague's rebuild must not pull it away mid-test.
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

cat >"$T/m.xml" <<'X'
<matrix name="loop" repeats="2" order="interleaved">
  <axes>
    <axis name="protocol"><value>tcp</value><value>udp</value></axis>
    <axis name="streams"><value>1</value><value>2</value></axis>
    <axis name="rate"><value>200M</value></axis>
    <axis name="duration"><value>1</value></axis>
  </axes>
</matrix>
X
DB=$T/r.db

out=$("$NETSWEEP" run "$T/m.xml" --dry-run --db "$DB" 2>&1)
if [ $? = 0 ] && [[ $out == *"4 cases (0 excluded) x 2 repeats = 8 runs"*estimated* ]] && [ ! -e "$DB" ]; then
	pass "dry-run lists the cases and the estimate, writes nothing"
else
	fail "dry-run lists the cases and the estimate, writes nothing" "$out"
fi

NETSWEEP_DB=$DB timeout 120 "$NETSWEEP" run "$T/m.xml" >"$T/log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then pass "the run exits 0"; else fail "the run exits 0" "exit $rc: $(tail -n 3 "$T/log")"; fi
q() { sqlite3 "$DB" "$1" 2>&1; }
n=$(q "select count(*) from results r join cases c on c.id = r.case_id where r.status = 'ok'")
if [ "$n" = 8 ]; then pass "every (case, repeat) landed (NETSWEEP_DB honoured)"; else fail "every (case, repeat) landed" "$n ok results: $(q 'select error from results')"; fi
if [ "$(q 'select count(*) from (select case_id, repeat from results group by 1, 2)')" = 8 ]; then
	pass "no (case, repeat) twice"
else
	fail "no (case, repeat) twice"
fi
# Figures are stored, and pacing at 200M is never exceeded (accuracy itself is checked over
# shaped namespaces in run_netns.sh: loopback on a shared machine is too noisy for it).
bad=$(q "select count(*) from v_results where not (goodput_bps > 0 and fwd_snd_bps > 0 and goodput_bps < 220e6)")
if [ "$bad" = 0 ]; then pass "figures stored, within the 200M asked for"; else fail "figures stored, within the 200M asked for" "$(q 'select protocol, streams, goodput_mbps from v_results')"; fi
if [ "$(q "select count(*) from results r where (select count(*) from samples s where s.result_id = r.id and s.stream = -1) >= 1")" = 8 ]; then
	pass "every result has its interval samples"
else
	fail "every result has its interval samples"
fi
if [ "$(q "select count(*) from results where json_valid(probe_json) and json_extract(probe_json, '\$.params') is not null")" = 8 ]; then
	pass "probe JSON stored with every result"
else
	fail "probe JSON stored with every result" "$(q 'select substr(probe_json, 1, 200) from results limit 1')"
fi
if [ "$(q "select count(*) from endpoints where name = 'loopback' and json_extract(client_info, '\$.interface.name') is not null and json_extract(agent_info, '\$.hostname') is not null")" = 1 ]; then
	pass "both ends' host information stored"
else
	fail "both ends' host information stored" "$(q 'select substr(client_info,1,100), substr(agent_info,1,100) from endpoints')"
fi
if [ "$(q "select status || ' ' || (finished_at is not null) || ' ' || order_mode || ' ' || repeats from runs")" = "done 1 interleaved 2" ]; then
	pass "the run is recorded as done"
else
	fail "the run is recorded as done" "$(q 'select * from runs')"
fi
# interleaved: the first four results are the four cases once each
if [ "$(q 'select count(distinct case_id) from (select case_id from results order by id limit 4)')" = 4 ]; then
	pass "interleaved order: every case once before any repeat"
else
	fail "interleaved order: every case once before any repeat"
fi
if grep -q '^\[8/8 ' "$T/log"; then pass "plain progress lines when not a terminal"; else fail "plain progress lines when not a terminal" "$(head -n 3 "$T/log")"; fi

port=$(q "select substr(agent_addr, instr(agent_addr, ':') + 1) from endpoints")
if ss -Hltn "sport = :$port" | grep -q .; then
	fail "the forked agent is gone after the run" "something still listens on $port"
else
	pass "the forked agent is gone after the run"
fi

# A second run, quiet and with a label: a new run, the same case keys.
"$NETSWEEP" run "$T/m.xml" --db "$DB" --quiet --label second >"$T/log2" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ ! -s "$T/log2" ]; then pass "--quiet prints nothing"; else fail "--quiet prints nothing" "exit $rc: $(head -n 2 "$T/log2")"; fi
same=$(q "select count(*) from cases a join cases b on a.case_key = b.case_key and a.run_id = 1 and b.run_id = 2 and a.params = b.params")
if [ "$same" = 4 ] && [ "$(q "select label from runs where id = 2")" = second ]; then
	pass "the same cases keep their keys across runs"
else
	fail "the same cases keep their keys across runs" "$same matching"
fi
if [ "$(q 'pragma integrity_check')" = ok ]; then pass "integrity_check ok"; else fail "integrity_check ok"; fi

# Affinity policies become CPU lists for the probe: spread = one CPU per thread, a list as is,
# irq = the NIC's IRQ CPUs: loopback has none, so the agent host's NIC's or, when that has
# none either, a warning and no pinning.
cat >"$T/aff.xml" <<'X'
<matrix name="aff">
  <axes>
    <axis name="streams"><value>2</value></axis>
    <axis name="threads"><value>2</value></axis>
    <axis name="rate"><value>50M</value></axis>
    <axis name="affinity"><value>spread</value><value>0</value><value>irq</value></axis>
    <axis name="duration"><value>0.3</value></axis>
  </axes>
</matrix>
X
"$NETSWEEP" run "$T/aff.xml" --db "$T/aff.db" --quiet
rc=$?
got=$(sqlite3 "$T/aff.db" "select c.affinity || '=' || json_extract(r.probe_json, '\$.params.affinity') || (case when r.warnings like '%IRQ CPUs are unknown%' then '+warning' else '' end) from results r join cases c on c.id = r.case_id order by c.ordinal" | tr '\n' ' ')
irq=$(sqlite3 "$T/aff.db" "select replace(replace(replace(json_extract(agent_info, '\$.interface.irq_cpus'), '[', ''), ']', ''), ' ', '') from endpoints")
want="spread=$([ "$(nproc)" -ge 2 ] && echo 0-1 || echo 0) 0=0 irq=${irq:-+warning} "
if [ "$rc" = 0 ] && [ "$got" = "$want" ]; then pass "affinity policies resolve to CPU lists: $got"; else fail "affinity policies" "exit $rc: got '$got', want '$want'"; fi
finish
