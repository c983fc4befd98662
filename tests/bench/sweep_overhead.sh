#!/bin/bash
# Benchmark (not a timed test): what the runner adds per case beyond the case's own duration,
# over 10 loopback cases of 0.5 s (TCP paced at 100M, so the machine is not the limit).
# Prints, per case: the whole overhead (wall time / cases - duration), the part inside the
# case (connect, setup, result exchange: finished_at - started_at - duration) and the part
# between cases (database write, progress, next setup: the gap between one case's end and the
# next one's start). The whole overhead must stay under 100 ms.
HERE=$(cd "$(dirname "$0")" && pwd)
NETSWEEP=${NETSWEEP:-$HERE/../../build/netsweep}
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
cat >"$T/m.xml" <<'X'
<matrix name="overhead" repeats="10">
  <axes><axis name="rate"><value>100M</value></axis><axis name="duration"><value>0.5</value></axis></axes>
</matrix>
X
"$NETSWEEP" run "$T/m.xml" --db "$T/o.db" --quiet || { echo "FAIL run exited $?"; exit 1; }
read -r n whole inside between <<<"$(sqlite3 -separator ' ' "$T/o.db" "
	with r as (select julianday(started_at) * 86400 as s, julianday(finished_at) * 86400 as f,
	                  c.duration_s + c.omit_s as d
	           from results join cases c on c.id = results.case_id order by results.id),
	     g as (select s - lag(f) over (order by s) as gap from r)
	select count(*),
	       round(((select max(f) - min(s) from r) - sum(d)) / count(*) * 1000, 1),
	       round(avg(f - s - d) * 1000, 1),
	       round((select avg(gap) from g where gap is not null) * 1000, 1)
	from r")"
echo "runner overhead per case over $n cases: ${whole} ms (inside the case ${inside} ms, between cases ${between} ms)"
awk -v w="$whole" 'BEGIN { exit !(w < 100) }' && echo "PASS under 100 ms" || { echo "FAIL ${whole} ms is over 100 ms"; exit 1; }
