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
# A copy of the page with a measuring script (the page itself has none) writes its findings
# into <pre id="measure"> for --dump-dom.
probe='<script>
addEventListener("load", function () {
  var W = innerWidth, out = [], bad = [];
  document.querySelectorAll("body *").forEach(function (e) {
    if (e.closest("[data-scroll]") && !e.matches("[data-scroll]")) return;
    var r = e.getBoundingClientRect();
    if (r.width && r.right > W + 1) bad.push(e.tagName + (e.id ? "#" + e.id : "") + ":" + Math.round(r.right));
  });
  out.push("scrollWidth " + document.documentElement.scrollWidth + " " + W);
  out.push("overflow " + (bad.slice(0, 5).join(",") || "none"));
  var minpx = 1e9;
  document.querySelectorAll("figure svg").forEach(function (s) {
    var vb = s.viewBox.baseVal.width, rw = s.getBoundingClientRect().width;
    s.querySelectorAll("text").forEach(function (t) {
      var fs = parseFloat(getComputedStyle(t).fontSize);
      if (fs && vb && rw) minpx = Math.min(minpx, fs * rw / vb);
    });
  });
  out.push("minfont " + (minpx < 1e9 ? minpx.toFixed(2) : "none"));
  var h = document.getElementById("headline").getBoundingClientRect();
  var reg = document.querySelector("#changes-table tr.regression");
  out.push("headline " + Math.round(h.bottom) + " " + innerHeight);
  out.push("firstreg " + (reg ? Math.round(reg.getBoundingClientRect().top) : -1));
  var p = document.createElement("pre"); p.id = "measure"; p.textContent = out.join("\n");
  document.body.appendChild(p);
});
</script>'
measure() { # report-dir width height -> prints the measurements
	# Headless Chromium will not make a window narrower than 500 px: the page is measured in
	# an iframe of the width wanted, inside a host page that copies out what it measured.
	local name page host ud win
	name=m-$(basename "$1")-$2
	page=$1/$name.html host=$1/$name-host.html
	{ cat "$1/index.html"; printf '%s\n' "$probe"; } >"$page"   # after </html>: still run
	cat >"$host" <<HOST
<html><body style="margin:0"><iframe id="f" src="$name.html" style="width:$2px;height:$3px;border:0"></iframe>
<pre id="out"></pre><script>document.getElementById("f").addEventListener("load", function () {
var m = this.contentWindow.document.getElementById("measure");
document.getElementById("out").textContent = m ? m.textContent : "none"; });</script></body></html>
HOST
	win=$(($2 < 500 ? 500 : $2))
	ud=$(mktemp -d)
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--allow-file-access-from-files --user-data-dir="$ud" --window-size="$win,$(($3 + 20))" \
		--dump-dom "file://$host" 2>/dev/null |
		sed -n '/<pre id="out">/,/<\/pre>/p' | sed 's/<[^>]*>//g'
	timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
		--disable-background-networking --allow-file-access-from-files --user-data-dir="$ud" \
		--window-size="$win,$(($3 + 20))" --screenshot="$tmp/shot-$(basename "$1")-$2.png" \
		"file://$host" >/dev/null 2>&1
	rm -rf "$ud"
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
[ -n "${KEEP:-}" ] && cp -r "$tmp" /tmp/i13/layout
finish
