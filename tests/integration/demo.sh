#!/bin/bash
# make demo as a new user meets it: from a clean clone of the current commit (a file missing
# from git fails the build here), with no environment but PATH and HOME. As root the lab demo:
# 12 of 12 cases ok with no key given (the lab makes its own and the runner finds it), the
# lab's key and namespaces gone afterwards, and the report opening on the per-dollar chart
# (then the ranking) right after the headline, in the first screen of a 1280x900 browser. As an
# unprivileged user (nobody, or the user running this) the loopback demo and a complete
# report. Cases run 1 s instead of the matrices' 2-3 s (NETSWEEP_DEMO_DURATION); the lab gets
# its own prefix and state directory so that it meets no other lab on this host.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../fixtures/report_browser.sh"
ROOT=$(cd "$HERE/../.." && pwd)
commit=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null) ||
	{ skip "make demo from a clean clone" "$ROOT is not a git checkout"; exit 0; }
T=$(mktemp -d)
chmod 755 "$T"
SRC=$T/src PREFIX=nsdemot LABDIR=$T/lab
cleanup() {
	[ -x "$SRC/build/netsweep" ] && [ "$(id -u)" = 0 ] &&
		NETSWEEP_LAB_DIR=$LABDIR "$SRC/build/netsweep" lab down --prefix "$PREFIX" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# demo_env CMD...: CMD with nothing of this shell's environment but a PATH, a HOME, the lab's
# place and the short cases
demo_env() {
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME="$T/home" \
		NETSWEEP_LAB_PREFIX=$PREFIX NETSWEEP_LAB_DIR="$LABDIR" NETSWEEP_DEMO_DURATION=1s "$@"
}
mkdir -p "$T/home"
if ! git clone -q --no-checkout "$ROOT" "$SRC" 2>"$T/clone.err" ||
   ! git -C "$SRC" checkout -q "$commit" 2>>"$T/clone.err"; then
	fail "clean clone of $commit" "$(head -2 "$T/clone.err")"; finish; exit
fi
# make demo's build, as its recipe makes it (the binary, QUIET=1): a short line per step, no
# compiler command, nothing of the tests' own programs
demo_make=$(make -C "$SRC" -n --no-print-directory demo 2>/dev/null | grep -m1 -- '-C\|QUIET\|netsweep$' )
if demo_env make -C "$SRC" -j2 --no-print-directory QUIET=1 build/netsweep >"$T/demo-build.log" 2>&1 &&
	[ -x "$SRC/build/netsweep" ] && [ ! -e "$SRC/build/tests" ] &&
	! grep -Eq '^(cc|gcc|clang|ar) ' "$T/demo-build.log" &&
	[ "$(grep -cE '^  (CC|AR|LD|EMBED|BPF) ' "$T/demo-build.log")" -ge 100 ] &&
	[[ $demo_make == *"QUIET=1"*"build/netsweep"* ]]; then
	pass "make demo builds the binary only, a line per step ($(wc -l <"$T/demo-build.log") lines)"
else
	fail "make demo builds the binary only, a line per step" "'$demo_make'; $(head -3 "$T/demo-build.log"); $(ls "$SRC/build")"
fi
if demo_env make -C "$SRC" -j2 all >"$T/build.log" 2>&1; then
	pass "a clean clone of ${commit:0:12} builds"
else
	fail "a clean clone of ${commit:0:12} builds" "$(grep -m2 -i 'error\|no rule' "$T/build.log")"; finish; exit
fi

# --- as root: the lab
lab_ok=
if [ "$(id -u)" != 0 ]; then
	skip "make demo as root" "not root"
elif ! command -v ip >/dev/null || ! command -v tc >/dev/null || ! ip netns list >/dev/null 2>&1; then
	skip "make demo as root" "no ip/tc or ip netns does not work here"
else
	lab_ok=1
fi
if [ -n "$lab_ok" ]; then
	if demo_env make -C "$SRC" demo >"$T/root.log" 2>&1; then pass "make demo as root exits 0"
	else fail "make demo as root exits 0" "$(grep -m3 'FAILED\|netsweep' "$T/root.log")"; fi
	if grep -q '^run [0-9]*: 12 ok, 0 failed' "$T/root.log"; then pass "lab demo: 12 of 12 cases ok"
	else fail "lab demo: 12 of 12 cases ok" "$(grep -m2 '^run \|FAILED' "$T/root.log")"; fi
	db=$SRC/netsweep.db
	em=$(sqlite3 "$db" "SELECT count(*) FROM v_results WHERE emulated = 1 AND lab_scale = 0.01" 2>&1)
	if [ "$em" = 12 ]; then pass "lab demo: every result says emulated at 1/100"
	else fail "lab demo: every result says emulated at 1/100" "$em"; fi
	key=$(sqlite3 "$db" "SELECT json_extract(output, '\$.psk_file') FROM hooks WHERE kind = 'setup' LIMIT 1")
	if [ "$key" = "$LABDIR/$PREFIX.psk" ]; then pass "lab demo: the lab made its own key ($key)"
	else fail "lab demo: the lab made its own key" "setup named '$key'"; fi
	left=$(ls "$LABDIR" 2>/dev/null | grep -v '^lock$'; ip netns list | grep "^$PREFIX-")
	if [ -z "$left" ]; then pass "lab demo: no key, state file or namespace left"
	else fail "lab demo: no key, state file or namespace left" "$(echo $left)"; fi

	html=$SRC/netsweep-report/index.html
	first=$(xp "$html" "string((//figure)[1]/@id)")
	status=$(xp "$html" "string((//figure)[1]/@data-status)")
	# after the headline: the news section (on a first run only its note), then the chart
	after=$(xp "$html" "string(//section[@id='news']/following-sibling::*[1]/@id)")
	nextsec=$(xp "$html" "string(//figure[@id='chart-per_dollar']/following-sibling::section[1]/@id)")
	newsbody=$(xp "$html" "count(//section[@id='news']//table | //section[@id='news']//figure)")
	if [ "$first" = chart-per_dollar ] && [ "$status" = ok ] && [ "$after" = chart-per_dollar ] &&
	   [ "$nextsec" = cost ] && [ "$newsbody" = 0 ]; then
		pass "lab report: the per-dollar chart, then the ranking, first after the headline"
	else
		fail "lab report: the per-dollar chart, then the ranking, first after the headline" \
			"first figure $first ($status), after news: $after, then section $nextsec, news holds $newsbody"
	fi
	rows=$(xp "$html" "count(//table[@id='cost-table']/tbody/tr)")
	top=$(xp "$html" "normalize-space(//table[@id='cost-table']/tbody/tr[1]/td[2])")
	head=$(xp "$html" "string(//p[@id='headline'])")
	if [ "$rows" = 3 ] && [ "$top" = c5n.9xlarge ] && grep -q '^Emulated lab run' <<<"$head"; then
		pass "lab report: 3 types ranked, c5n.9xlarge first, the headline says emulated"
	else
		fail "lab report: 3 types ranked, c5n.9xlarge first, the headline says emulated" \
			"$rows rows, first $top; headline: ${head:0:60}"
	fi
	if [ -z "$CHROMIUM" ]; then
		skip "lab report: the ranking in the first screen" "chromium is not installed"
	else
		page=$T/measure.html ud=$(mktemp -d)
		{ cat "$html"; cat <<'JS'; } >"$page"
<script>addEventListener("load", function () {
  var c = document.getElementById("chart-per_dollar").getBoundingClientRect();
  var r = document.querySelector("#cost-table tbody tr").getBoundingClientRect();
  var p = document.createElement("pre"); p.id = "measure";
  p.textContent = "chart " + Math.round(c.top) + " " + Math.round(c.bottom) + " row " + Math.round(r.top);
  document.body.appendChild(p); });</script>
JS
		m=$(timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --disable-component-update --disable-sync \
			--user-data-dir="$ud" --window-size=1280,900 --dump-dom "file://$page" 2>/dev/null |
			sed -n 's/.*<pre id="measure">\([^<]*\)<.*/\1/p')
		timeout 90 "$CHROMIUM" --headless --no-sandbox --disable-gpu --no-first-run \
			--disable-background-networking --user-data-dir="$ud" --window-size=1280,900 \
			--screenshot="$T/first-screen.png" "file://$html" >/dev/null 2>&1
		rm -rf "$ud"
		read -r _ ctop cbot _ rtop <<<"$m"
		# the chart starts in the upper half and most of it (the bars and their figures) shows
		if [ -n "$m" ] && [ "$ctop" -lt 450 ] && [ $((900 - ctop)) -ge $(((cbot - ctop) * 6 / 10)) ] &&
		   [ -s "$T/first-screen.png" ]; then
			pass "lab report: the per-dollar chart in the first 1280x900 screen ($m)"
		else
			fail "lab report: the per-dollar chart in the first 1280x900 screen" "${m:-no measurement}"
		fi
		[ -n "${KEEP:-}" ] && cp "$T/first-screen.png" "$KEEP/"
	fi
	rm -rf "$SRC/netsweep.db" "$SRC/netsweep-report"
fi

# --- not root: the loopback default
if [ "$(id -u)" = 0 ]; then
	if ! id nobody >/dev/null 2>&1 || ! command -v setpriv >/dev/null; then
		skip "make demo as an unprivileged user" "no user nobody or no setpriv"; finish; exit
	fi
	chown -R nobody:nogroup "$SRC" "$T/home"
	as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	who=nobody
else
	as_user=()
	who=$(id -un)
fi
if demo_env "${as_user[@]}" make -C "$SRC" demo >"$T/user.log" 2>&1; then pass "make demo as $who exits 0"
else fail "make demo as $who exits 0" "$(grep -m3 'FAILED\|netsweep\|rror' "$T/user.log")"; fi
if grep -q '^run [0-9]*: 8 ok, 0 failed' "$T/user.log" && grep -q 'This was the loopback demo' "$T/user.log"; then
	pass "loopback demo as $who: 8 of 8 cases ok"
else
	fail "loopback demo as $who: 8 of 8 cases ok" "$(grep -m2 '^run \|FAILED' "$T/user.log")"
fi
out=$SRC/netsweep-report html=$out/index.html
missing=""
for f in index.html report.md results.csv ranking.csv report.json streams.gp streams.dat; do
	[ -s "$out/$f" ] || missing="$missing $f"
done
csv_rows=$(($(wc -l <"$out/results.csv" 2>/dev/null || echo 1) - 1))
tables=$(xp "$html" "count(//table[@id='results-table']/tbody/tr)")
drawn=$(xp "$html" "count(//figure[@data-status='ok']/svg)")
sections=$(xp "$html" "count(//section[@id='results'] | //section[@id='method'] | //section[@id='summary'])")
valid=$(sqlite3 :memory: "SELECT json_valid(readfile('$out/report.json'))" 2>/dev/null)
owner=$(stat -c %U "$html" 2>/dev/null)
if [ -z "$missing" ] && [ "$tables" = 8 ] && [ "$csv_rows" -ge 8 ] && [ "$drawn" -ge 1 ] &&
   [ "$sections" = 3 ] && [ "$valid" = 1 ] && [ "$owner" = "$who" ]; then
	pass "loopback demo as $who: a complete report (8 cases, $drawn charts, CSV, Markdown, JSON)"
else
	fail "loopback demo as $who: a complete report" "missing:${missing:- none}; $tables rows, $csv_rows CSV rows, $drawn charts, $sections sections, json $valid, owner $owner"
fi
finish
