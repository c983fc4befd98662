#!/bin/bash
# A matrix's rank-by attribute reaches the database (run_rank) and the report ranks on it,
# as v_cost_ranking does; a malformed one is refused naming the file, line and attribute.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
cat >"$tmp/m.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<matrix name="rank-by" repeats="1" cooldown="0s" rank-by="streams=1">
  <axes>
    <axis name="streams"><value>1</value><value>2</value></axis>
    <axis name="duration"><value>1s</value></axis>
  </axes>
</matrix>
XML
if "$NETSWEEP" run "$tmp/m.xml" --db "$tmp/r.db" --quiet >"$tmp/run.log" 2>&1 &&
   [ "$(sqlite3 "$tmp/r.db" 'SELECT rank_by FROM run_rank')" = streams=1 ]; then
	pass "rank-by stored with the run"
else
	fail "rank-by stored with the run" "$(tail -2 "$tmp/run.log")"
fi
NETSWEEP_GNUPLOT=none "$NETSWEEP" report --db "$tmp/r.db" -o "$tmp/o" >/dev/null 2>&1
if xp "$tmp/o/index.html" 'string(//p[@id="rank-rule"])' | grep -q 'Ranked on: streams=1'; then
	pass "the report ranks on the matrix's rank-by"
else
	fail "the report ranks on the matrix's rank-by" "$(xp "$tmp/o/index.html" 'string(//p[@id="rank-rule"])')"
fi
sed 's/rank-by="streams=1"/rank-by="streams 1"/' "$tmp/m.xml" >"$tmp/bad.xml"
err=$("$NETSWEEP" run "$tmp/bad.xml" --dry-run 2>&1); rc=$?
if [ "$rc" = 2 ] && [[ $err == *"bad.xml:2:"*"rank-by"* ]]; then pass "a malformed rank-by exits 2 naming file:line and the attribute"
else fail "a malformed rank-by exits 2 naming file:line and the attribute" "exit $rc: $err"; fi
finish
