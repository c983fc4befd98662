#!/bin/bash
# The page on any screen: a two-run report (and the many-chart basic one) opened in headless
# Chromium at 400, 1280 and 1920 px. The page never scrolls sideways (only tables that say
# they scroll, data-scroll="x"); chart text is at least 9 px high at 400 px (font size x
# rendered width / viewBox width); the regressions are in the first screen; charts carry
# a viewBox and no fixed size, no gnuplot tooltips, and the colour-blind-safe palette.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
fx=$here/../fixtures/report_fixture.sh
bash "$fx" nights "$tmp/n.db" 2 2 && bash "$fx" basic "$tmp/b.db" ||
	{ fail "fixtures" "report_fixture.sh nights/basic"; finish; exit; }
if ! command -v gnuplot >/dev/null; then
	skip "report layout" "gnuplot is not installed (apt-get install gnuplot-nox)"; finish; exit
fi
"$NETSWEEP" report --db "$tmp/n.db" --baseline previous -o "$tmp/n" >/dev/null 2>&1 &&
"$NETSWEEP" report --db "$tmp/b.db" -o "$tmp/b" >/dev/null 2>&1 ||
	{ fail "reports written"; finish; exit; }

# Static checks on the inline charts.
for r in n b; do
	html=$tmp/$r/index.html
	nsvg=$(xp "$html" 'count(//figure/svg)')
	nvb=$(xp "$html" 'count(//figure/svg[@viewbox][not(@width)][not(@height)])')
	ntitle=$(xp "$html" 'count(//figure/svg//title)')
	if [ "$nsvg" -gt 0 ] && [ "$nsvg" = "$nvb" ] && [ "$ntitle" = 0 ] && ! grep -q "using 0:2" "$html"; then
		pass "$r: $nsvg charts with a viewBox, no fixed size, no gnuplot tooltips"
	else
		fail "$r: charts with a viewBox, no fixed size, no gnuplot tooltips" "$nsvg svg, $nvb ok, $ntitle titles"
	fi
done
if grep -q "set linetype 1 lc rgb '#0072B2'" "$tmp/b/streams.gp" && grep -q 'set logscale x 2' "$tmp/b/pps_size.gp" &&
   grep -q 'set logscale x 2' "$tmp/b/streams.gp"; then
	pass "Okabe-Ito palette; log-2 axes for streams and packet sizes"
else
	fail "Okabe-Ito palette; log-2 axes for streams and packet sizes"
fi

[ -n "$CHROMIUM" ] || { skip "report layout in a browser" "chromium is not installed (apt-get install chromium)"; finish; exit; }
measure() { # report-dir width height -> prints the measurements
	measure_width "$1/index.html" "$2" "$3" "$tmp/shot-$(basename "$1")-$2.png"
}
for r in n b; do
	for w in 400 1280 1920; do
		m=$(measure "$tmp/$r" "$w" 900)
		[ -n "${KEEP:-}" ] && echo "$m"
		[ -n "$m" ] || { fail "$r at $w px: measured" "no measurement from chromium"; continue; }
		read -r _ sw vw <<<"$(grep '^scrollWidth' <<<"$m")"
		ov=$(sed -n 's/^overflow //p' <<<"$m")
		if [ "$sw" -le "$vw" ] && [ "$ov" = none ]; then
			pass "$r at $w px: no sideways page scroll"
		else
			fail "$r at $w px: no sideways page scroll" "scrollWidth $sw > $vw; $ov"
		fi
		fpx=$(sed -n 's/^minfont //p' <<<"$m")
		if [ "$w" = 400 ] || [ "$w" = 1280 ]; then
			if awk -v f="$fpx" 'BEGIN { exit !(f + 0 >= 9) }'; then
				pass "$r at $w px: chart text at least 9 px ($fpx px)"
			else
				fail "$r at $w px: chart text at least 9 px" "smallest $fpx px"
			fi
		fi
		if [ "$r" = n ]; then
			read -r _ hb ih <<<"$(grep '^headline' <<<"$m")"
			rt=$(sed -n 's/^firstreg \(-*[0-9]*\).*/\1/p' <<<"$m")
			if [ "$hb" -le 900 ] && [ "$rt" -ge 0 ] && [ "$rt" -le 900 ]; then
				pass "$r at $w px: the regressions are in the first screen (900 px)"
			else
				fail "$r at $w px: the regressions are in the first screen" "headline ends at $hb, first regression row at $rt"
			fi
		fi
		[ -s "$tmp/shot-$r-$w.png" ] || fail "$r at $w px: screenshot" "none written"
	done
done
# TCP at Gbit/s and UDP paced 100 times slower on the streams chart: a log y axis, so the
# slow lines are not flat on zero; the same rates within 20x keep a linear axis from 0
bash "$fx" nights "$tmp/mix.db" 1 9 >/dev/null &&
	sqlite3 "$tmp/mix.db" "UPDATE cases SET protocol = 'udp' WHERE endpoint_id IN
		(SELECT id FROM endpoints WHERE name = 'm4.large');
		UPDATE results SET fwd_rcv_bps = fwd_rcv_bps / 100, fwd_snd_bps = fwd_snd_bps / 100
		WHERE case_id IN (SELECT id FROM cases WHERE protocol = 'udp')" &&
	NETSWEEP_GNUPLOT=none "$NETSWEEP" report --db "$tmp/mix.db" -o "$tmp/mix" >/dev/null 2>&1
if grep -q '^set logscale y' "$tmp/mix/streams.gp" && ! grep -q '^set logscale y' "$tmp/n/streams.gp" &&
	grep -q '^set yrange \[0:\*\]' "$tmp/n/streams.gp"; then
	pass "streams chart: TCP and UDP 100x apart on a log axis, close lines on a linear one from 0"
else
	fail "streams chart: a log axis for lines far apart" "$(grep -h 'logscale\|yrange' "$tmp/mix/streams.gp" "$tmp/n/streams.gp")"
fi
[ -n "${KEEP:-}" ] && cp -r "$tmp" /tmp/i13/layout
finish
