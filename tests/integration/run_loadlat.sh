#!/bin/bash
# Latency under load in a matrix (issue 24), on the loopback default: the latency-probe axis
# (none, tcp, udp) with latency-rate and latency-size turns a latency probe on for a
# throughput case; each probed result lands in v_latency_under_load with its goodput, idle and
# loaded figures consistent with the two rows of result_latency_load (added = loaded - idle,
# sizes and rate as asked, at most rate x window transactions), the case without a probe has
# no row, and the report shows the "Latency under load" table in HTML and Markdown.
# Consistency only: no speed bound.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
T=$(mktemp -d) || exit 1
trap '[ -n "$KEEP" ] || rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
for _ in 1 2 3; do cp "$NETSWEEP" "$T/netsweep" 2>/dev/null && "$T/netsweep" --version >/dev/null 2>&1 && break; sleep 2; done
NETSWEEP=$T/netsweep

cat >"$T/m.xml" <<'X'
<matrix name="loadlat" repeats="1" order="as-written" cooldown="0s">
  <axes>
    <axis name="latency-probe"><value>none</value><value>tcp</value><value>udp</value></axis>
    <axis name="latency-rate"><value>200/s</value></axis>
    <axis name="latency-size"><value>32</value></axis>
    <axis name="rate"><value>200M</value></axis>
    <axis name="duration"><value>1</value></axis>
  </axes>
</matrix>
X
DB=$T/r.db
timeout 120 "$NETSWEEP" run "$T/m.xml" --db "$DB" --quiet >"$T/log" 2>&1
rc=$?
if [ "$rc" = 0 ]; then pass "a latency-probe matrix runs"; else fail "a latency-probe matrix runs" "exit $rc: $(tail -n 3 "$T/log")"; fi
q() { sqlite3 "$DB" "$1" 2>&1; }
n=$(q "select group_concat(test) from (select test from v_latency_under_load where status = 'ok' order by test)")
none=$(q "select count(*) from v_results r where r.status = 'ok' and not exists
	(select 1 from result_latency_load l where l.result_id = r.result_id)")
if [ "$n" = "tcp_rr,udp_rr" ] && [ "$none" = 1 ]; then
	pass "each probed case is in v_latency_under_load, the unprobed one is not"
else
	fail "each probed case is in v_latency_under_load, the unprobed one is not" \
		"tests '$n', results without a probe '$none': $(q 'select error from results')"
fi
bad=$(q "select count(*) from v_latency_under_load v where not (
	idle_transactions > 0 and loaded_transactions > 0 and goodput_mbps > 0 and
	request = 32 and response = 32 and rate = 200 and idle_s > 0 and loaded_s > 0 and
	loaded_transactions <= 200 * loaded_s + 1 and idle_p50_us <= idle_p99_us and
	loaded_p50_us <= loaded_p99_us and
	abs(added_p50_us - (loaded_p50_us - idle_p50_us)) < 1e-6 and
	abs(added_p99_us - (loaded_p99_us - idle_p99_us)) < 1e-6 and
	loaded_p99_us = (select p99_us from result_latency_load l where l.result_id = v.result_id
	                 and phase = 'loaded'))")
if [ "$bad" = 0 ]; then
	pass "v_latency_under_load: phases consistent, added = loaded - idle, sizes and rate as asked"
else
	fail "v_latency_under_load rows consistent" "$bad bad: $(q 'select * from v_latency_under_load')"
fi
"$NETSWEEP" report --db "$DB" -o "$T/rep" >"$T/rep.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && grep -q 'id="latency-under-load"' "$T/rep/index.html" &&
	grep -q 'Added p99' "$T/rep/index.html" && grep -q '^## Latency under load' "$T/rep/report.md" &&
	grep -qF 'tcp\_rr probe' "$T/rep/report.md" && grep -qF 'udp\_rr probe' "$T/rep/report.md"; then
	pass "the report shows latency under load beside throughput (HTML and Markdown)"
else
	fail "the report shows latency under load beside throughput (HTML and Markdown)" \
		"exit $rc: $(tail -n 2 "$T/rep.log")"
fi
finish
