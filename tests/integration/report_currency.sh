#!/bin/bash
# Currencies apart everywhere (issue 39, item 5). Two real loopback nights of a USD-priced AWS
# pair (m5.large, us-east-1) beside a EUR-priced Hetzner pair (cx22, fsn1), priced from the
# shipped catalogs, then a report and a site:
# - no "$" next to a EUR figure in any output: the report's HTML and Markdown (each table of
#   the ranking headed in its own money, the latency table's price per million transactions
#   in each pair's), report.json (every key holding "usd" is null on a
#   EUR row), ranking.csv (the usd_per_hour column empty on a EUR row), findings and headline,
#   the site's index, pair pages, night pages, Atom feed, night.xml and the Open Graph cards'
#   gnuplot sources (their titles, axes and data), netsweep export's ranks (label currency);
# - separate rankings: each currency ranks from 1 ("1 of 1 in EUR"), the findings name the
#   best per dollar and the best per euro, and the run's cost is told per currency;
# - no chart axis shared by two currencies: every gnuplot script's data holds one currency's
#   pairs, its axis names that currency;
# - with the catalog's exchange rate (<fx currency="EUR" usd-per-unit="1.08">, run_fx) one
#   ranking in US dollars, the rate stated in the report, the site and report.json.
here=$(cd "$(dirname "$0")" && pwd)
source "$here/../lib/check.sh"
source "$here/../fixtures/report_browser.sh"
for tool in sqlite3 jq perl xmllint; do
	command -v "$tool" >/dev/null || { skip "report_currency" "$tool is not installed: NOTHING CHECKED"; exit 0; }
done
tmp=$(mktemp -d)
agent=
trap '[ -n "$agent" ] && kill "$agent" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
pin_netsweep "$tmp" || { fail "copy of netsweep" "$NETSWEEP does not run"; exit 1; }
export NETSWEEP_IMDS=0
cat=$here/../../data/catalog
loopback_agent "$tmp" 2>"$tmp/agent.err"
agent=$AGENT_PID port=$AGENT_PORT
[ -n "$port" ] || { fail "agent on loopback" "$(cat "$tmp/agent.err")"; finish; exit; }

cat >"$tmp/m.xml" <<EOF
<matrix name="two-currencies" cooldown="0s" case-timeout="20s">
  <pairs>
    <pair name="aws" instance-type="m5.large" region="us-east-1" agent="127.0.0.1:$port"/>
    <pair name="hetzner" instance-type="cx22" region="fsn1" agent="127.0.0.1:$port"/>
  </pairs>
  <axes><axis name="rate"><value>20M</value></axis><axis name="duration"><value>1s</value></axis>
    <axis name="rr"><value>none</value><value>tcp</value></axis></axes>
  <rules><exclude><when axis="rr" value="tcp"/><when axis="rate" value="20M"/></exclude>
    <include><set axis="pair" value="aws"/><set axis="rr" value="tcp"/><set axis="rate" value="0"/></include>
    <include><set axis="pair" value="hetzner"/><set axis="rr" value="tcp"/><set axis="rate" value="0"/></include></rules>
</matrix>
EOF
# the Hetzner catalog with an exchange rate of its own (the converted nights)
sed 's|<instance type="ccx13"|<fx currency="EUR" usd-per-unit="1.08" as-of="2026-11-30" source="test rate"/>\n  &|' \
	"$cat/hetzner.xml" >"$tmp/hetzner-fx.xml"
night() { # DB CATALOG LABEL
	"$NETSWEEP" run "$tmp/m.xml" --db "$1" --catalog "$cat/aws.xml" --catalog "$2" --label "$3" \
		--quiet >>"$tmp/run.log" 2>&1
}
if ! night "$tmp/n.db" "$cat/hetzner.xml" night-1 || ! night "$tmp/n.db" "$cat/hetzner.xml" night-2 ||
	! night "$tmp/fx.db" "$tmp/hetzner-fx.xml" night-1; then
	fail "three nights of a USD and a EUR pair on loopback" "$(tail -3 "$tmp/run.log")"
	finish; exit
fi
q=$(sqlite3 "$tmp/n.db" "select group_concat(currency || '=' || per_hour, ' ') from (select distinct currency, per_hour from v_endpoint_quotes order by currency)")
[ "$q" = "EUR=0.012 USD=0.192" ] && pass "the night stores the EUR and the USD pair's prices ($q)" ||
	fail "the night stores the EUR and the USD pair's prices" "$q"

rep=$tmp/rep site=$tmp/site
"$NETSWEEP" report --db "$tmp/n.db" --baseline previous -o "$rep" >"$tmp/rep.log" 2>&1 &&
	"$NETSWEEP" site --db "$tmp/n.db" -o "$site" >"$tmp/site.log" 2>&1 ||
	{ fail "report and site" "$(cat "$tmp/rep.log" "$tmp/site.log")"; finish; exit; }

# The EUR pair's figures as the outputs write them: its price per hour (both instances) and
# its Mbit/s per euro-hour, rounded as the pages show it.
eur_price=0.012
eur_mpd=$(jq -r '.ranking.rows[] | select(.pair == "hetzner") | .mbps_per_hour | round' "$rep/report.json")

# text FILE: the words of an HTML or XML file, one element's text a line (inline SVG dropped)
text() { perl -0777 -pe 's/<style.*?<\/style>//gs; s/<svg.*?<\/svg>//gs; s/<[^>]+>/\n/g;
	s/&amp;/&/g; s/&lt;/</g; s/&gt;/>/g; s/&#8364;|&euro;/€/g' "$1" | grep -v '^\s*$'; }
# dollar_clauses FILE: the clauses (split at ; | . and line ends) that name the EUR pair or
# its figures and carry a "$" (a gnuplot column, $2, is not money)
dollar_clauses() {
	perl -ne 'BEGIN { $p = shift; $m = shift }
		s/\$\d//g; for (split /;|\||\. |\n/) {
		print "$_\n" if /\$/ && (/cx22|hetzner|€|EUR|\b\Q$p\E\b/ || ($m ne "" && /\b$m\b/)) }' \
		"$eur_price" "$eur_mpd" "$@"
}
bad=
for f in "$rep"/*.md "$rep"/*.csv "$rep"/*.json "$rep"/*.gp "$rep"/*.dat "$site"/*.gp "$site"/*.dat \
	"$site"/pairs/*/*.gp "$site"/pairs/*/*.dat "$site"/nights/*/*.md "$site"/nights/*/*.gp; do
	out=$(dollar_clauses "$f")
	[ -n "$out" ] && bad="$bad ${f#"$tmp"/}: $out;"
done
for f in "$rep"/index.html "$site"/index.html "$site"/pairs/*/index.html "$site"/nights/*/index.html \
	"$site"/feed.xml "$site"/nights/*/night.xml; do
	out=$(text "$f" | dollar_clauses /dev/stdin)
	# the pages' heads: description and the Open Graph card's words
	out2=$(grep -o 'content="[^"]*"' "$f" | dollar_clauses /dev/stdin)
	[ -n "$out$out2" ] && bad="$bad ${f#"$tmp"/}: $out $out2;"
done
[ -z "$bad" ] && [ -n "$eur_mpd" ] &&
	pass "no \"\$\" beside a EUR figure in any page, table, finding, feed, card or chart source ($eur_mpd Mbit/s per €/hour)" ||
	fail "no \"\$\" beside a EUR figure in any output" "$bad"

# Tables: a table holding the EUR pair is never headed in dollars (Markdown and HTML).
md_bad=$(awk '/^\|/ { if (!intable) { head = $0; intable = 1; next } if ($0 ~ /cx22/ && head ~ /\$/) print head; next }
	{ intable = 0 }' "$rep/report.md" "$site"/nights/*/report.md)
html_bad=
for f in "$rep/index.html" "$site/index.html" "$site/pairs/hetzner/index.html" "$site"/nights/*/index.html; do
	n=$(xp "$f" 'count(//table[.//tr[contains(., "cx22") or contains(., "hetzner")]]//th[contains(., "$")])')
	[ "$n" = 0 ] || html_bad="$html_bad ${f#"$tmp"/}:$n"
done
[ -z "$md_bad$html_bad" ] && grep -q '^| Rank | Instance type | Region | Price basis | €/hour | Throughput | Mbit/s per €/hour | € per Gbit/s-hour |' "$rep/report.md" &&
	grep -q '^| Pair | Case | Transactions/s | .* | Price per million |' "$rep/report.md" &&
	grep -Eq '^\| hetzner \| tcp.*\| €[0-9.e-]+ \| [0-9]+ \|' "$rep/report.md" &&
	pass "every table holding the EUR pair is headed in euros, never \"\$/hour\"" ||
	fail "every table holding the EUR pair is headed in euros" "md: $md_bad html: $html_bad"

# report.json and ranking.csv: dollar keys and columns only in dollars
j_bad=$(jq -c '[.. | objects | select(.currency? == "EUR") | to_entries[] | select((.key | test("usd")) and .value != null)]' "$rep/report.json")
csv_bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
	$col["currency"] == "EUR" && ($col["usd_per_hour"] != "" || $col["mbps_per_usd_hour"] != "") { print }' "$rep/ranking.csv")
[ "$j_bad" = "[]" ] && [ -z "$csv_bad" ] &&
	[ "$(jq -r '.comparison.per_dollar[] | select(.pair == "hetzner") | .currency' "$rep/report.json")" = EUR ] &&
	pass "report.json and ranking.csv: no usd key or column holds a EUR figure" ||
	fail "report.json and ranking.csv: no usd key or column holds a EUR figure" "json $j_bad csv $csv_bad"

# Separate rankings: each currency from 1; findings per dollar and per euro
ranks=$(jq -r '[.ranking.rows[] | "\(.pair):\(.rank)/\(.ranked_among)"] | join(" ")' "$rep/report.json")
site_ranks=$(xp "$site/index.html" 'string(//table[@id="pairs-table"])' | grep -o '[0-9] of [0-9] in [A-Z]*' | tr '\n' ' ')
if [ "$ranks" = "aws:1/1 hetzner:1/1" ] && [ "$site_ranks" = "1 of 1 in USD 1 of 1 in EUR " ] &&
	jq -r '.findings[].text' "$rep/report.json" | grep -q "^m5.large gives the most throughput per dollar of the pairs priced in USD" &&
	jq -r '.findings[].text' "$rep/report.json" | grep -q "^cx22 gives the most throughput per euro of the pairs priced in EUR (each currency ranks on its own): $eur_mpd Mbit/s per €/hour (.* at €0.012/hour)" &&
	grep -q "per euro: cx22, $eur_mpd Mbit/s per €/hour" "$site/feed.xml" &&
	grep -q "^The pairs priced in EUR cost €0\.[0-9]* of instance time, in their own currency\.$" "$rep/report.md"; then
	pass "each currency ranks on its own ($ranks; site: $site_ranks), found and headlined per dollar and per euro"
else
	fail "each currency ranks on its own" "json $ranks site $site_ranks; $(jq -c .findings "$rep/report.json")"
fi

# netsweep export: each rank says which currency's ranking it is; the per-dollar figure is the
# dollar pair's alone
om=$("$NETSWEEP" export --db "$tmp/n.db" --last 1 2>&1)
if grep -q '^netsweep_cost_rank{.*pair="aws".*currency="USD"} 1 ' <<<"$om" &&
	grep -q '^netsweep_cost_rank{.*pair="hetzner".*currency="EUR"} 1 ' <<<"$om" &&
	! grep -q '^netsweep_goodput_bytes_per_second_per_usd_hour{.*pair="hetzner"' <<<"$om"; then
	pass "export: each pair's rank names its currency, no per-dollar figure for the EUR pair"
else
	fail "export: each pair's rank names its currency" "$(grep 'cost_rank{\|per_usd_hour{' <<<"$om")"
fi

# Charts: one currency per chart, its axis in that currency
chart_bad=
for gp in "$rep"/per_*.gp "$site"/per_*.gp "$site"/card.gp "$site"/pairs/*/per_dollar.gp "$site"/pairs/*/card.gp; do
	dat=$(grep -o "'[a-z_]*\.dat'" "$gp" | head -1 | tr -d "'")
	[ -f "$(dirname "$gp")/$dat" ] || { chart_bad="$chart_bad $gp: no $dat;"; continue; }
	# the figures' axis: y on the site's charts over the nights, x on the report's bars across
	axis=$(sed -n "s/^set ylabel '\(.*\)'$/\1/p" "$gp")
	[ -n "$axis" ] || axis=$(sed -n "s/^set xlabel '\(.*\)'$/\1/p" "$gp")
	has_eur=$(grep -c 'cx22\|hetzner' "$(dirname "$gp")/$dat")
	has_usd=$(grep -c 'm5\.large\|aws' "$(dirname "$gp")/$dat")
	case $gp in */pairs/hetzner/*) has_eur=1 has_usd=0 ;; */pairs/aws/*) has_eur=0 has_usd=1 ;; esac
	if [ "$has_eur" -gt 0 ] && [ "$has_usd" -gt 0 ]; then chart_bad="$chart_bad ${gp#"$tmp"/}: both currencies;"
	elif [ "$has_eur" -gt 0 ] && [ "$axis" != "Mbit/s per EUR/hour" ]; then chart_bad="$chart_bad ${gp#"$tmp"/}: axis '$axis';"
	elif [ "$has_usd" -gt 0 ] && [ "$axis" != 'Mbit/s per $/hour' ]; then chart_bad="$chart_bad ${gp#"$tmp"/}: axis '$axis';"
	fi
done
n_charts=$(ls "$rep"/per_*.gp "$site"/per_*.gp | wc -l)
[ -z "$chart_bad" ] && [ "$n_charts" = 4 ] && grep -q "plot .*'per_dollar.dat'" "$site/card.gp" &&
	grep -q "(pairs priced in USD)" "$site/card.gp" &&
	pass "no chart axis shared by two currencies: a per-dollar and a per-euro chart in the report and the site, the card in dollars and saying so" ||
	fail "no chart axis shared by two currencies" "$n_charts charts; $chart_bad"

# The catalog's rate: one ranking in US dollars, the rate stated everywhere it is used.
"$NETSWEEP" report --db "$tmp/fx.db" -o "$tmp/fxr" >/dev/null 2>&1 &&
	"$NETSWEEP" site --db "$tmp/fx.db" -o "$tmp/fxs" >/dev/null 2>&1
fx_ranks=$(jq -r '[.ranking.rows[] | "\(.rank)/\(.ranked_among)/\(.quoted_currency)/\(.fx_usd)"] | sort | join(" ")' "$tmp/fxr/report.json")
if [[ "$fx_ranks" =~ ^1/2/(EUR/1.08|null/null)\ 2/2/(EUR/1.08|null/null)$ ]] && [[ "$fx_ranks" == *EUR/1.08* ]] &&
	grep -q "EUR converted at 1.08 US dollars each (the catalog's rate as of 2026-11-30: test rate)" "$tmp/fxr/report.md" &&
	grep -q "Its EUR price is converted at 1.08 US dollars each\|(EUR at 1.08 US dollars each)" "$tmp/fxr/report.md" &&
	[ "$(xp "$tmp/fxs/index.html" 'count(//table[@id="pairs-table"]//td[contains(., "(EUR at 1.08)")])')" = 1 ] &&
	grep -q "its EUR price converted at the run's rate, 1.08 US dollars each" "$tmp/fxs/pairs/hetzner/index.html" &&
	[ "$(ls "$tmp"/fxr/per_*.gp "$tmp"/fxs/per_*.gp | wc -l)" = 2 ]; then
	pass "the catalog's rate: one ranking in US dollars ($fx_ranks), the rate stated in the report, the site and report.json"
else
	fail "the catalog's rate: one ranking in US dollars, the rate stated" "$fx_ranks; $(grep -i 'convert' "$tmp/fxr/report.md" | head -3)"
fi
finish
