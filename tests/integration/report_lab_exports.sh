#!/bin/bash
# An emulated run's figures carry their caveat wherever they are copied out, as the page's
# headline does: results.csv and ranking.csv have emulated and lab_scale columns (per row:
# a run may mix lab and real pairs), report.json has run.emulation and each emulated row's
# lab_scale, and every chart's title (page, Markdown, .gp) and SVG say "emulated" and the
# scale. The same run on real instances is exported exactly as before: no such column, key
# or words. The database is the m4 fixture with endpoint_emulation rows as the runner stores
# them for a lab pair (four of its five pairs emulated at 1/100).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../fixtures/report_browser.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pin_netsweep "$T" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
export NETSWEEP_IMDS=0
bash "$HERE/../fixtures/report_fixture.sh" m4 "$T/real.db" || { fail "m4 fixture"; finish; exit; }
cp "$T/real.db" "$T/lab.db"
sqlite3 "$T/lab.db" "INSERT INTO endpoint_emulation (endpoint_id, emulation)
	SELECT id, json_object('lab', 'netns', 'scale', 0.01, 'scale_text', '1/100', 'source', 'catalog',
		'goodput_bps', 4360000) FROM endpoints WHERE name != 'm4.10xlarge'" ||
	{ fail "emulation rows"; finish; exit; }
for k in real lab; do
	if ! "$NETSWEEP" report --db "$T/$k.db" -o "$T/$k" >"$T/$k.log" 2>&1; then
		fail "report of the $k run" "$(tail -2 "$T/$k.log")"; finish; exit
	fi
done
L=$T/lab R=$T/real

# results.csv: the last two columns, per row; the real run's header ends as before
hdr=$(head -1 "$L/results.csv" | tr -d '\r')
rows=$(sed 1d "$L/results.csv" | tr -d '\r' | awk -F, '{ print $4 ":" $(NF-1) ":" $NF }' | sort | tr '\n' ' ')
if [[ $hdr == *,mbps_per_usd_hour,emulated,lab_scale ]] &&
   [ "$rows" = "m4.10xlarge:0: m4.2xlarge:1:0.01 m4.4xlarge:1:0.01 m4.large:1:0.01 m4.xlarge:1:0.01 " ]; then
	pass "results.csv: emulated and lab_scale on every row"
else
	fail "results.csv: emulated and lab_scale on every row" "header ...${hdr: -60}; rows $rows"
fi
real_hdr=$(head -1 "$R/results.csv" | tr -d '\r')
if [[ $real_hdr == *,mbps_per_usd_hour ]] && ! grep -qi emulat "$R/results.csv"; then
	pass "results.csv of a real run: unchanged, no caveat"
else
	fail "results.csv of a real run: unchanged, no caveat" "header ...${real_hdr: -60}"
fi

# ranking.csv
rk=$(awk -F, 'NR == 1 { print $(NF-1) "," $NF; next } { print $3 ":" $(NF-1) ":" $NF }' "$L/ranking.csv" | sort | tr '\n' ' ')
if [ "$rk" = "emulated,lab_scale m4.10xlarge:0: m4.2xlarge:1:0.01 m4.4xlarge:1:0.01 m4.large:1:0.01 m4.xlarge:1:0.01 " ]; then
	pass "ranking.csv: emulated and lab_scale per pair"
else
	fail "ranking.csv: emulated and lab_scale per pair" "$rk"
fi
if [ "$(head -1 "$L/ranking.csv")" = "$(head -1 "$R/ranking.csv"),emulated,lab_scale" ] &&
   ! grep -qi emulat "$R/ranking.csv"; then
	pass "ranking.csv of a real run: the same columns but the two, no caveat"
else
	fail "ranking.csv of a real run: the same columns but the two, no caveat" "$(head -1 "$R/ranking.csv")"
fi

# report.json
q() { sqlite3 :memory: "SELECT $1 FROM (SELECT readfile('$2') AS j)"; }
em=$(q "json_extract(j, '\$.run.emulation.scale') || ' ' || json_extract(j, '\$.run.emulation.scale_text') || ' ' || json_extract(j, '\$.run.emulation.pairs') || ' ' || (json_extract(j, '\$.run.emulation.note') LIKE '%not measured on cloud instances%')" "$L/report.json")
rows=$(q "(SELECT group_concat(json_extract(r.value, '\$.pair') || '=' || coalesce(json_extract(r.value, '\$.lab_scale'), '-'), ' ')
	FROM json_each(j, '\$.ranking.rows') r)" "$L/report.json")
if [ "$em" = "0.01 1/100 4 1" ] && [[ $rows == *m4.large=0.01* ]] && [[ $rows == *m4.10xlarge=-* ]]; then
	pass "report.json: run.emulation (scale 0.01, 1/100, 4 pairs) and lab_scale on the emulated rows"
else
	fail "report.json: run.emulation and lab_scale" "emulation: $em; rows: $rows"
fi
if [ "$(q "json_type(j, '\$.run.emulation') IS NULL AND NOT instr(j, 'lab_scale')" "$R/report.json")" = 1 ]; then
	pass "report.json of a real run: no emulation, no lab_scale"
else
	fail "report.json of a real run: no emulation, no lab_scale"
fi

# chart titles: page, Markdown, .gp; the SVG itself when gnuplot ran
titles=$(xp "$L/index.html" "count(//figure/h3)")
marked=$(xp "$L/index.html" "count(//figure/h3[contains(., '(emulated, scale 1/100)')])")
md=$(grep -c '^### .*(emulated, scale 1/100)' "$L/report.md")
gp=$(grep -l "^# .*(emulated, scale 1/100)" "$L"/*.gp | wc -l)
ngp=$(ls "$L"/*.gp | wc -l)
# the charts with nothing to draw are named in one line, each title marked too
nd=$(xp "$L/index.html" "string(//p[@id='charts-nodata'])")
nd_n=$(( $(grep -o '; ' <<<"$nd" | wc -l) + 1 )) nd_marked=$(grep -o '(emulated, scale 1/100)' <<<"$nd" | wc -l)
if [ "$titles" -ge 1 ] && [ "$marked" = "$titles" ] && [ "$md" -ge 1 ] && [ "$gp" = "$ngp" ] &&
   { [ -z "$nd" ] || [ "$nd_marked" = "$nd_n" ]; } && [ $((titles + nd_n)) -ge 3 ] &&
   grep -q "^set title 'Emulated: netsweep lab at scale 1/100'" "$L/per_dollar.gp"; then
	pass "every chart title says emulated, scale 1/100 ($titles on the page, $gp scripts)"
else
	fail "every chart title says emulated, scale 1/100" "$marked of $titles headings, $nd_marked of $nd_n not drawn, $md in report.md, $gp of $ngp .gp"
fi
if [ ! -s "$L/per_dollar.svg" ]; then
	skip "the per-dollar SVG says emulated" "no per_dollar.svg (gnuplot: $(grep -o 'gnuplot[^;]*' "$T/lab.log" | head -1))"
elif grep -q "Emulated: netsweep lab at scale 1/100" "$L/per_dollar.svg"; then
	pass "the per-dollar SVG itself says emulated and the scale"
else
	fail "the per-dollar SVG itself says emulated and the scale"
fi
if ! grep -qi "emulated" "$R"/*.gp "$R/report.md" && ! grep -qi "emulated" "$R"/*.svg 2>/dev/null &&
   [ "$(xp "$R/index.html" "count(//*[contains(., 'mulated')])")" = 0 ]; then
	pass "a real run's charts and page say nothing of emulation"
else
	fail "a real run's charts and page say nothing of emulation"
fi
finish
