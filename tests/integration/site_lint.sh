#!/bin/bash
# The site and a night's report as a newcomer's first build has them — one night, run in the
# lab — checked by the tools a reader's browser and a publisher would use: the Nu HTML
# Checker (vnu-jar's vnu.jar on Debian's java) finds no error on the index, a pair page and
# the night's report, nor on those of a site of three unlabelled nights minutes apart;
# Lighthouse 12 (with Debian's chromium, the pages served on loopback) scores accessibility
# and best practices at 100 on each; in headless Chromium at 400 and 1280 px no two texts of
# a chart overlap, the per-dollar figure is on screen at 400 px, the one night is one
# labelled place on the axis (not a year of dates) and the three nights three; and every
# page, chart and card of the lab night says the run was emulated.
# `mk/deps.sh test` installs vnu-jar and lighthouse (npm, pinned) when run as root.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
http_pid=
trap '[ -n "$http_pid" ] && kill "$http_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
db=$tmp/n.db site=$tmp/site
bash "$here/../fixtures/report_fixture.sh" nights "$db" 1 9 ||
	{ fail "fixture" "report_fixture.sh nights"; finish; exit; }
# the night's pairs were emulated by `netsweep lab`, as the runner records it
sqlite3 "$db" "INSERT INTO endpoint_emulation (endpoint_id, emulation)
	SELECT id, '{\"scale\":0.01,\"scale_text\":\"1/100\"}' FROM endpoints"
out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1) ||
	{ fail "one-night site" "$out"; finish; exit; }
night=$(ls -d "$site"/nights/*/ | head -1)
pages=("$site/index.html" "$site/pairs/m4.xlarge/index.html" "${night}index.html")

# One night is one place on the axis, labelled by the night's label.
for gp in "$site/per_dollar.gp" "$site/pairs/m4.xlarge/throughput.gp"; do
	tics=$(sed -n 's/^set xtics (\(.*\))$/\1/p' "$gp")
	if [ "$tics" = "'night-1' 0" ] && grep -qx 'set xrange \[-1:1\]' "$gp" && ! grep -q 'xdata time' "$gp"; then
		pass "${gp#"$site"/}: one night, one labelled place ($tics)"
	else
		fail "${gp#"$site"/}: one night, one labelled place" "xtics '$tics'"
	fi
done

# "emulated" on every page, chart and card of a lab night.
emu=
grep -q '(emulated)' <<<"$(xp "$site/index.html" 'string(//h1)')" || emu="$emu index-h1"
grep -q 'emulated' <<<"$(xp "$site/pairs/m4.xlarge/index.html" 'string(//h1)')" || emu="$emu pair-h1"
grep -q 'Emulated' <<<"$(xp "$site/pairs/m4.xlarge/index.html" 'string(//meta[@name="description"]/@content)')" ||
	emu="$emu pair-description"
grep -q 'emulated' <<<"$(xp "$site/index.html" 'string(//table[@id="pairs-table"]//tr[1]/td[2])')" ||
	emu="$emu index-pairs-table"
for f in "$site/index.html" "$site/pairs/m4.xlarge/index.html"; do
	n=$(xp "$f" 'count(//figure[@data-status="ok"])')
	e=$(xp "$f" 'count(//figure[@data-status="ok"]/h2[contains(., "emulated")])')
	[ "$n" -ge 1 ] && [ "$n" = "$e" ] || emu="$emu ${f#"$site"/}-charts($e/$n)"
done
for f in "$site/card.gp" "$site/pairs/m4.xlarge/card.gp"; do
	grep -q '^set title .*(emulated)' "$f" || emu="$emu ${f#"$site"/}"
done
grep -q 'Emulated lab run' "${night}index.html" || emu="$emu night-report"
[ -z "$emu" ] && pass "a lab night's pages, charts and cards say emulated" ||
	fail "a lab night's pages, charts and cards say emulated" "missing in:$emu"

# Chromium: no overlapping chart text at a phone's and a desktop's width.
if [ -z "$CHROMIUM" ]; then
	skip "charts in a browser" "chromium is not installed"
else
	for page in index.html pairs/m4.xlarge/index.html; do
		for w in 400 1280; do
			m=$(measure_width "$site/$page" "$w" 900 "$tmp/shot-$w.png")
			ov=$(sed -n 's/^overlap //p' <<<"$m")
			[ "$ov" = none ] && pass "$page at $w px: no chart text overlaps another" ||
				fail "$page at $w px: no chart text overlaps another" "${ov:-no measurement}"
			[ "$w" = 400 ] || continue
			read -r pr pw <<<"$(sed -n 's/^perdollar //p' <<<"$m")"
			[ "$pr" != none ] && [ -n "$pw" ] && [ "$pr" -le "$pw" ] &&
				pass "$page at 400 px: the per-dollar figure on screen (ends at $pr px)" ||
				fail "$page at 400 px: the per-dollar figure on screen" "ends at ${pr:-?} of ${pw:-?} px"
		done
	done
fi

# Three nights minutes apart without labels (a first lab campaign): each its own place,
# labelled by date and time, no two chart texts overlapping, in the site and in the last
# night's report (its trend over the runs).
db3=$tmp/three.db site3=$tmp/site3
bash "$here/../fixtures/report_fixture.sh" nights "$db3" 3 9 >/dev/null &&
	sqlite3 "$db3" "UPDATE runs SET label = NULL, started_at = '2026-11-01T01:0' || id || ':00Z',
		finished_at = '2026-11-01T01:0' || id || ':30Z'" &&
	"$NETSWEEP" site --db "$db3" -o "$site3" >/dev/null 2>&1 ||
	fail "three nights minutes apart: site built"
tics=$(sed -n 's/^set xtics (\(.*\))$/\1/p' "$site3/per_dollar.gp")
[ "$tics" = "'11-01 01:01' 0, '11-01 01:02' 1, '11-01 01:03' 2" ] &&
	pass "three nights minutes apart: each labelled by its date and time ($tics)" ||
	fail "three nights minutes apart: each labelled by its date and time" "xtics: $tics"
last=$(ls -d "$site3"/nights/*/ | tail -1)
pages+=("$site3/index.html" "$site3/pairs/m4.xlarge/index.html" "${last}index.html")
if [ -n "$CHROMIUM" ]; then
	for page in "$site3/index.html" "$site3/pairs/m4.xlarge/index.html" "${last}index.html"; do
		m=$(measure_width "$page" 400 900 "$tmp/shot3.png")
		if [ "$page" = "${last}index.html" ]; then
			read -r pr pw <<<"$(sed -n 's/^perdollar //p' <<<"$m")"
			[ "$pr" != none ] && [ -n "$pw" ] && [ "$pr" -le "$pw" ] &&
				pass "a night's report at 400 px: the ranking's per-dollar figure on screen ($pr px)" ||
				fail "a night's report at 400 px: the per-dollar figure on screen" "ends at ${pr:-?} of ${pw:-?} px"
		fi
		ov=$(sed -n 's/^overlap //p' <<<"$m")
		[ "$ov" = none ] && pass "three nights: ${page#"$site3"/} at 400 px: no chart text overlaps" ||
			fail "three nights: ${page#"$site3"/} at 400 px: no chart text overlaps" "${ov:-no measurement}"
	done
fi

# The Nu HTML Checker: no error.
VNU_JAR=${VNU_JAR:-$(npm root -g 2>/dev/null)/vnu-jar/build/dist/vnu.jar}
if [ ! -f "$VNU_JAR" ] || ! command -v java >/dev/null; then
	skip "Nu HTML Checker" "no vnu.jar or java (mk/deps.sh test as root installs vnu-jar; default-jre-headless)"
else
	if java -jar "$VNU_JAR" --errors-only "${pages[@]}" >"$tmp/vnu.out" 2>&1; then
		pass "Nu HTML Checker: no error on the index, a pair page and a night's report of both sites"
	else
		fail "Nu HTML Checker: no error" "$(head -5 "$tmp/vnu.out")"
	fi
fi

# Lighthouse: accessibility and best practices at 100, the pages served on loopback (it
# refuses file:// addresses).
LIGHTHOUSE=${LIGHTHOUSE:-$(command -v lighthouse || true)}
if [ -z "$LIGHTHOUSE" ] || [ -z "$CHROMIUM" ] || ! command -v python3 >/dev/null; then
	skip "Lighthouse" "needs lighthouse (mk/deps.sh test as root), chromium and python3"
	finish
	exit
fi
port=
for _ in 1 2 3 4 5; do
	p=$((20000 + RANDOM % 20000))
	python3 -m http.server "$p" --bind 127.0.0.1 --directory "$tmp" >/dev/null 2>&1 &
	http_pid=$!
	for _ in $(seq 50); do
		curl -sf -o /dev/null "http://127.0.0.1:$p/site/index.html" 2>/dev/null && { port=$p; break; }
		kill -0 "$http_pid" 2>/dev/null || break
		sleep 0.1
	done
	[ -n "$port" ] && break
	kill "$http_pid" 2>/dev/null
	http_pid=
done
[ -n "$port" ] || { fail "Lighthouse: a loopback server for the site" "python3 -m http.server did not start"; finish; exit; }
for page in "${pages[@]}"; do
	rel=${page#"$tmp"/}
	j=$tmp/lh-$(tr / _ <<<"$rel").json
	CHROME_PATH=$CHROMIUM timeout 300 "$LIGHTHOUSE" "http://127.0.0.1:$port/$rel" --quiet \
		--only-categories=accessibility,best-practices --output=json --output-path="$j" \
		--chrome-flags="--headless --no-sandbox" >/dev/null 2>"$tmp/lh.err"
	res=$(node -e 'const r = require(process.argv[1]); const c = r.categories, bad = [];
		for (const a of Object.values(r.audits))
			if (a.score !== null && a.score < 1 && !["informative", "notApplicable", "manual"].includes(a.scoreDisplayMode))
				bad.push(a.id);
		console.log(c.accessibility.score * 100, c["best-practices"].score * 100, bad.join(",") || "-")' "$j" 2>/dev/null)
	read -r a b why <<<"$res"
	if [ "$a" = 100 ] && [ "$b" = 100 ]; then
		pass "Lighthouse $rel: accessibility $a, best practices $b"
	else
		fail "Lighthouse $rel: accessibility and best practices at 100" "${res:-$(tail -2 "$tmp/lh.err")}"
	fi
done
finish
