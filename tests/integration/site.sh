#!/bin/bash
# netsweep site: three nights in one database, the site built, a fourth night added (it was
# running at the first build, so not yet a night), the site rebuilt. The index links every
# night's page; no local link (href or src) of any page is broken and none leaves the site;
# the Atom feed validates (tests/fixtures/atom.rng, RFC 4287) and has one entry per night;
# every file of the first build is still there and the first nights were not rendered again;
# each page has an Open Graph card whose image exists. In headless Chromium at 400 and
# 1280 px the index and a pair page do not scroll sideways, their chart text is at least 9 px
# high and no two texts of a chart overlap; the trend charts label each night by its label.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
rng=$here/../fixtures/atom.rng
db=$tmp/n.db site=$tmp/site
# Four nights; the m4.xlarge link drops to 60 % in night 4, which is still running.
bash "$here/../fixtures/report_fixture.sh" nights "$db" 4 4 ||
	{ fail "fixture" "report_fixture.sh nights"; finish; exit; }
sqlite3 "$db" "UPDATE runs SET status = 'running', finished_at = NULL WHERE id = 4"

out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
if [ $? = 0 ] && [ -s "$site/index.html" ] && grep -q '3 nights (3 rendered' <<<"$out"; then
	pass "first build: 3 nights rendered"
else
	fail "first build: 3 nights rendered" "$out"
fi
(cd "$site" && find . -type f | sort) >"$tmp/first.lst"
for f in "$site"/nights/*/index.html; do md5sum "$f"; done >"$tmp/first.md5"
nights_xp='count(//table[@id="nights-table"]//a)'
[ "$(xp "$site/index.html" "$nights_xp")" = 3 ] && pass "first index lists 3 nights" ||
	fail "first index lists 3 nights" "$(xp "$site/index.html" "$nights_xp")"

sqlite3 "$db" "UPDATE runs SET status = 'done', finished_at = '2026-11-04T01:30:00Z' WHERE id = 4"
out=$("$NETSWEEP" site --db "$db" -o "$site" 2>&1)
if [ $? = 0 ] && grep -q '4 nights (1 rendered' <<<"$out"; then
	pass "rebuild: only the new night rendered"
else
	fail "rebuild: only the new night rendered" "$out"
fi
if md5sum --quiet -c "$tmp/first.md5" >/dev/null 2>&1; then
	pass "the first nights' pages are untouched"
else
	fail "the first nights' pages are untouched" "$(md5sum -c "$tmp/first.md5" 2>&1 | grep -v OK)"
fi
(cd "$site" && find . -type f | sort) >"$tmp/second.lst"
gone=$(comm -23 "$tmp/first.lst" "$tmp/second.lst")
[ -z "$gone" ] && pass "every file of the first build is still there ($(wc -l <"$tmp/first.lst") files)" ||
	fail "every file of the first build is still there" "gone: $gone"

# The index links every night's page, newest first.
n_dirs=$(find "$site/nights" -mindepth 1 -maxdepth 1 -type d | wc -l)
missing=
for d in "$site"/nights/*/; do
	s=$(basename "$d")
	[ "$(xp "$site/index.html" "count(//a[@href=\"nights/$s/index.html\"])")" -ge 1 ] || missing="$missing $s"
done
first=$(xp "$site/index.html" 'string((//table[@id="nights-table"]//a)[1]/@href)')
if [ "$n_dirs" = 4 ] && [ -z "$missing" ] && grep -q 'run4' <<<"$first"; then
	pass "the index links all 4 night pages, newest first"
else
	fail "the index links all 4 night pages, newest first" "$n_dirs folders, missing:$missing, first $first"
fi
grep -q 'id="headline"' "$site/index.html" &&
	[ "$(xp "$site/index.html" 'count(//section[@id="regressions"]//li)')" -ge 1 ] &&
	pass "the index opens with the latest night's headline and regressions" ||
	fail "the index opens with the latest night's headline and regressions"
# a regression's figures keep their own unit at each end: a collapse to 0.47 Mbit/s read
# "100 to 0 Mbit/s" when both were written in whole Mbit/s
reg=$(xp "$site/index.html" 'string((//section[@id="regressions"]//li)[1])')
grep -Eq '\([0-9.]+ [kMG]bit/s to [0-9.]+ [kMG]bit/s\)$' <<<"$reg" && ! grep -q ' to 0 ' <<<"$reg" &&
	pass "a regression names both figures with their units ($reg)" ||
	fail "a regression names both figures with their units" "$reg"

# Every href and src of every page resolves inside the site; none is absolute.
broken= external= nlinks=0
while IFS= read -r page; do
	dir=$(dirname "$page")
	while IFS= read -r link; do
		[ -n "$link" ] || continue
		case $link in
		'#'* | data:*) continue ;; # in-page: an anchor, the favicon
		http:* | https:* | //* | /*) external="$external $page:$link"; continue ;;
		esac
		nlinks=$((nlinks + 1))
		[ -e "$dir/${link%%#*}" ] || broken="$broken ${page#"$site"/}:$link"
	done < <(xmllint --html --xpath '//@href | //@src' "$page" 2>/dev/null | sed -n 's/^ *\(href\|src\)="\([^"]*\)".*/\2/p')
done < <(find "$site" -name '*.html')
[ -z "$broken" ] && [ "$nlinks" -gt 50 ] && pass "no broken local link ($nlinks links checked)" ||
	fail "no broken local link" "$nlinks links;$broken"
[ -z "$external" ] && pass "no link leaves the site (no fonts, scripts or CDNs)" ||
	fail "no link leaves the site" "$external"
! grep -l '<script' "$site/index.html" "$site"/pairs/*/index.html >/dev/null &&
	pass "the site's pages run no script" || fail "the site's pages run no script"

# The feed: valid Atom, one entry per night, each linking its page.
if xmllint --noout --relaxng "$rng" "$site/feed.xml" 2>"$tmp/rng.err"; then
	pass "feed.xml validates against Atom (RFC 4287)"
else
	fail "feed.xml validates against Atom (RFC 4287)" "$(tail -3 "$tmp/rng.err")"
fi
ax() { xmllint --xpath "$1" "$site/feed.xml" 2>/dev/null; }
ne=$(ax 'count(/*[local-name()="feed"]/*[local-name()="entry"])')
nl=$(ax 'count(//*[local-name()="entry"]/*[local-name()="link"][@rel="alternate"])')
nauth=$(ax 'count(/*[local-name()="feed"]/*[local-name()="author"])')
nids=$(ax '//*[local-name()="entry"]/*[local-name()="id"]/text()' | sort -u | wc -l)
[ "$ne" = 4 ] && [ "$nl" = 4 ] && [ "$nauth" -ge 1 ] && [ "$nids" = 4 ] &&
	pass "feed: one entry per night (4), each with its own id and link; the feed has an author" ||
	fail "feed: one entry per night" "$ne entries, $nl links, $nauth authors, $nids ids"
[ "$(ax 'count(//*[local-name()="entry"][1]//*[local-name()="li"])')" -ge 1 ] &&
	pass "feed: the newest entry lists its regressions" || fail "feed: the newest entry lists its regressions"

# Open Graph cards.
for page in "$site/index.html" "$site/pairs/m4.xlarge/index.html"; do
	img=$(xp "$page" 'string(//meta[@property="og:image"]/@content)')
	t=$(xp "$page" 'string(//meta[@property="og:title"]/@content)')
	d=$(xp "$page" 'string(//meta[@property="og:description"]/@content)')
	if [ -n "$t" ] && [ -n "$d" ] && [ -n "$img" ] && file "$(dirname "$page")/$img" | grep -q 'PNG image data, 1200 x 630'; then
		pass "${page#"$site"/}: Open Graph card (title, description, ${img} 1200 x 630)"
	else
		fail "${page#"$site"/}: Open Graph card" "title '$t', image '$img'"
	fi
done
"$NETSWEEP" site --db "$db" -o "$tmp/pub" --base-url https://example.org/bench/ >/dev/null 2>&1
img=$(xp "$tmp/pub/index.html" 'string(//meta[@property="og:image"]/@content)')
base=$(xmllint --xpath 'string(/*/@xml:base)' "$tmp/pub/feed.xml" 2>/dev/null)
[ "$img" = https://example.org/bench/card.png ] && [ "$base" = https://example.org/bench/ ] &&
	pass "--base-url: absolute card address and feed base" ||
	fail "--base-url: absolute card address and feed base" "og:image $img, xml:base $base"
expect_exit "--base-url must be http(s)" 2 "$NETSWEEP" site --db "$db" -o "$tmp/x" --base-url ftp://x
expect_exit "no finished run of a matrix is an error" 2 "$NETSWEEP" site --db "$db" -o "$tmp/x" --matrix nosuch

tics=$(sed -n 's/^set xtics (\(.*\))$/\1/p' "$site/per_dollar.gp")
[ "$tics" = "'night-1' 0, 'night-2' 1, 'night-3' 2, 'night-4' 3" ] &&
	pass "the trend charts label each night by its label ($tics)" ||
	fail "the trend charts label each night by its label" "xtics: $tics"
# Units on every throughput figure (issue 42): each Throughput cell of the site's tables and of
# the night pages' ranking tables says its unit, and none shows Mbit/s at or above 10 000 (Gbit/s
# there). The same nights with every rate 20 times higher put figures above 10 Gbit/s.
cp "$db" "$tmp/big.db"
sqlite3 "$tmp/big.db" "UPDATE results SET fwd_snd_bps = fwd_snd_bps * 20, fwd_rcv_bps =
  fwd_rcv_bps * 20, ret_snd_bps = ret_snd_bps * 20, ret_rcv_bps = ret_rcv_bps * 20;
  UPDATE samples SET bps = bps * 20"
"$NETSWEEP" site --db "$tmp/big.db" -o "$tmp/big" >/dev/null 2>&1
for s_dir in "$site" "$tmp/big"; do
	pages=$(find "$s_dir" -name index.html | sort)
	n=0 bare="" big=""
	for page in $pages; do
		cells=$(xmllint --html --xpath "//td[@data-label='Throughput']" "$page" 2>/dev/null |
			sed 's/<[^>]*>//g; s/^ *//')
		n=$((n + $(grep -c . <<<"$cells")))
		b=$(grep -v 'bit/s' <<<"$cells" | grep -v '^–$' | grep . | head -1)
		[ -n "$b" ] && bare="$bare ${page#"$s_dir"/}: $b;"
		g=$(grep -oE '(^|[^0-9.])[0-9]{5,}(\.[0-9]+)? Mbit/s( [^p]|[^ ]|$)' "$page" | head -1)
		[ -n "$g" ] && big="$big ${page#"$s_dir"/}: $g;"
	done
	[ "$n" -ge 10 ] && [ -z "$bare" ] && [ -z "$big" ] &&
		pass "${s_dir##*/}: every Throughput cell has its unit, none Mbit/s above 10000 ($n cells)" ||
		fail "${s_dir##*/}: every Throughput cell has its unit, none Mbit/s above 10000" \
			"$n cells;$bare$big"
done
grep -q 'Gbit/s</td>' "$tmp/big/index.html" && pass "rates above 10 Gbit/s shown in Gbit/s" ||
	fail "rates above 10 Gbit/s shown in Gbit/s" "no Gbit/s cell in the index"
[ -n "$CHROMIUM" ] || { skip "site in a browser" "chromium is not installed (apt-get install chromium)"; finish; exit; }
for page in index.html pairs/m4.xlarge/index.html; do
	for w in 400 1280; do
		m=$(measure_width "$site/$page" "$w" 900 "$tmp/shot-$w-$(basename "$(dirname "$page")").png")
		[ -n "${KEEP:-}" ] && echo "$m"
		[ -n "$m" ] || { fail "$page at $w px: measured" "no measurement from chromium"; continue; }
		read -r _ sw vw <<<"$(grep '^scrollWidth' <<<"$m")"
		ov=$(sed -n 's/^overflow //p' <<<"$m")
		if [ "$sw" -le "$vw" ] && [ "$ov" = none ]; then
			pass "$page at $w px: no sideways scroll"
		else
			fail "$page at $w px: no sideways scroll" "scrollWidth $sw > $vw; $ov"
		fi
		ov=$(sed -n 's/^overlap //p' <<<"$m")
		[ "$ov" = none ] && pass "$page at $w px: no chart text overlaps another" ||
			fail "$page at $w px: no chart text overlaps another" "$ov"
		fpx=$(sed -n 's/^minfont //p' <<<"$m")
		awk -v f="$fpx" 'BEGIN { exit !(f + 0 >= 9) }' &&
			pass "$page at $w px: chart text at least 9 px ($fpx px)" ||
			fail "$page at $w px: chart text at least 9 px" "smallest $fpx px"
	done
done
[ -n "${KEEP:-}" ] && rm -rf "${KEEP:?}" && cp -r "$tmp" "$KEEP"
finish
