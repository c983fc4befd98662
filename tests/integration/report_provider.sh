#!/bin/bash
# The provider finding (issue 11): a run on loopback stores shaped_by_provider = 0 for its
# results (no allowance counter there); with one result then marked as an ENA end would have
# stored it — the flag and the agent's result_nics row with bw_out_allowance_exceeded moved —
# the report's page, report.md and report.json say in a sentence that the provider shaped the
# case, and without the mark they say nothing of the kind.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
export NETSWEEP_GNUPLOT=none
cat >"$tmp/m.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="provider" repeats="2" order="as-written" cooldown="0s" case-timeout="20s">
  <axes><axis name="duration"><value>1s</value></axis></axes>
</matrix>
XML
db=$tmp/r.db
if ! "$NETSWEEP" run "$tmp/m.xml" --db "$db" >"$tmp/run.log" 2>&1; then
	fail "a loopback run" "$(tail -3 "$tmp/run.log")"
	finish
	exit
fi
flags=$(sqlite3 "$db" "select group_concat(coalesce(shaped_by_provider, 'NULL')) from results")
nics=$(sqlite3 "$db" "select count(*) from result_nics")
if [ "$flags" = "0,0" ] && [ "$nics" = 0 ]; then
	pass "the runner stores shaped_by_provider 0 and no NIC rows on loopback"
else
	fail "the runner stores shaped_by_provider 0 and no NIC rows on loopback" "flags $flags, rows $nics"
fi

SENT="shaped by the cloud provider"
"$NETSWEEP" report --db "$db" -o "$tmp/clean" >/dev/null 2>&1
if ! grep -q "$SENT" "$tmp/clean/report.md" "$tmp/clean/index.html" "$tmp/clean/report.json"; then
	pass "no provider finding when no allowance counter moved"
else
	fail "no provider finding when no allowance counter moved" "$(grep -h "$SENT" "$tmp/clean/report.md")"
fi

sqlite3 "$db" "UPDATE results SET shaped_by_provider = 1 WHERE repeat = 1;
	INSERT INTO result_nics SELECT id, 'agent', 'ens5', 5, 0, 1234, 0, 0, 0, 0, 900, 800,
	1350000, 1200000 FROM results WHERE repeat = 1;"
"$NETSWEEP" report --db "$db" -o "$tmp/shaped" >/dev/null 2>&1
md=$(grep -h "$SENT" "$tmp/shaped/report.md")
want="in 1 of 2 repeats: bw\\\\_out\\\\_allowance\\\\_exceeded +1234 on the agent's ens5, which moved 1700 packets (2.5 MB) in and out over those repeats"
if [ -n "$md" ] && grep -q "$want" <<<"$md" && grep -q "not the instance's capacity" <<<"$md" &&
	grep -q "$SENT" "$tmp/shaped/index.html" && grep -q "$SENT" "$tmp/shaped/report.json"; then
	pass "a flagged result's case gets the provider sentence: ${md#- }"
else
	fail "a flagged result's case gets the provider sentence" "report.md: ${md:-none}"
fi
finish
