#!/bin/bash
# The one nightly recipe (packaging/netsweep-nightly.sh), as the systemd example and the
# Kubernetes CronJob run it, three nights against a loopback agent: each night is run,
# reported against the one before with the regression gate, and added to the site; the
# third night's agent refuses the rate the matrix asks (its --max-rate), so its case fails:
# the gate trips (it names the case that succeeded before), the recipe exits 1, and the
# report and the site are written all the same. Then as the runner image has it — sh and
# netsweep, no date, find or ln — a night's report goes to report/ beside site/. The systemd
# unit and the CronJob both name the recipe.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/lo_agent.sh"
lo_agent_setup nightly
ROOT=$(cd "$HERE/../.." && pwd)
RECIPE=$ROOT/packaging/netsweep-nightly.sh
export NETSWEEP_GNUPLOT=none # the charts are site.sh's; this is the recipe

start_agent "$TMP/a.log" || { fail "agent listens" "$(cat "$TMP/a.log")"; exit 1; }
P=$PORT
cat >"$TMP/m.xml" <<X
<matrix name="nightly-test" repeats="3" cooldown="0s">
  <pairs><pair name="lo" agent="127.0.0.1:$P" instance-type="m5.large" region="us-east-1"/></pairs>
  <axes>
    <axis name="rate"><value>20M</value></axis>
    <axis name="duration"><value>0.5</value></axis>
  </axes>
</matrix>
X
state=$TMP/state
night() { # LABEL: one night by the recipe; its output in $TMP/LABEL.log, its exit in $rc
	NETSWEEP_MATRIX=$TMP/m.xml NETSWEEP_STATE=$state NETSWEEP_BIN=$NS NETSWEEP_LABEL=$1 \
		NETSWEEP_KEEP_REPORTS=2 sh "$RECIPE" >"$TMP/$1.log" 2>&1
	rc=$?
}
night n1
r1=$rc
night n2
r2=$rc
if [ "$r1$r2" = 00 ] && [ -s "$state/reports/n2/index.html" ] && [ -s "$state/site/index.html" ] &&
	[ "$(readlink "$state/latest")" = reports/n2 ] &&
	grep -q 'Against run 1' "$state/reports/n2/report.md"; then
	pass "two good nights: exit 0, each reported against the one before, the site built"
else
	fail "two good nights" "exits $r1 $r2: $(tail -n 3 "$TMP/n1.log" "$TMP/n2.log")"
fi

# the third night: the agent now refuses the 20M the matrix asks
kill "${PIDS[0]}"
wait "${PIDS[0]}" 2>/dev/null
PIDS=()
"$NS" agent --listen "127.0.0.1:$P" --max-rate 5M 2>"$TMP/a2.log" &
PIDS+=("$!")
for _ in $(seq 100); do grep -q listening "$TMP/a2.log" && break; sleep 0.05; done
night n3
nights=$(xmllint --html --xpath 'count(//table[@id="nights-table"]//a)' "$state/site/index.html" 2>/dev/null)
if [ "$rc" = 1 ] && grep -q "netsweep report: 1 case had successful repeats in run 2" "$TMP/n3.log" &&
	[ -s "$state/reports/n3/index.html" ] && [ "$nights" = 3 ]; then
	pass "a night whose case fails: the gate trips (exit 1), its report and its site page are written"
else
	fail "a night whose case fails" "exit $rc, $nights nights on the site: $(tail -n 4 "$TMP/n3.log")"
fi
left=$(cd "$state/reports" && ls | tr '\n' ' ')
[ "$left" = "n2 n3 " ] && pass "NETSWEEP_KEEP_REPORTS=2: the newest 2 reports kept" ||
	fail "NETSWEEP_KEEP_REPORTS=2: the newest 2 reports kept" "$left"

# as in the runner image: sh and netsweep only
mkdir -p "$TMP/bin"
ln -s "$(command -v sh)" "$TMP/bin/sh"
kill "${PIDS[0]}"
wait "${PIDS[0]}" 2>/dev/null
PIDS=()
"$NS" agent --listen "127.0.0.1:$P" 2>"$TMP/a3.log" &
PIDS+=("$!")
for _ in $(seq 100); do grep -q listening "$TMP/a3.log" && break; sleep 0.05; done
mkdir "$TMP/pod" # the pod's volume
env -i PATH="$TMP/bin" NETSWEEP_MATRIX="$TMP/m.xml" NETSWEEP_STATE="$TMP/pod" NETSWEEP_BIN="$NS" \
	NETSWEEP_GNUPLOT=none NETSWEEP_IMDS=0 "$TMP/bin/sh" "$RECIPE" >"$TMP/pod.log" 2>&1
rc=$?
if [ "$rc" = 0 ] && [ -s "$TMP/pod/report/index.html" ] && [ -s "$TMP/pod/site/index.html" ] &&
	[ ! -e "$TMP/pod/reports" ]; then
	pass "with sh and netsweep only (the runner image): report/ and site/, exit 0"
else
	fail "with sh and netsweep only" "exit $rc: $(tail -n 3 "$TMP/pod.log")"
fi

# both the systemd unit and the CronJob run this recipe
if grep -q '^ExecStart=/usr/share/netsweep/netsweep-nightly.sh$' "$ROOT/packaging/systemd/netsweep-nightly.service" &&
	grep -q 'command: \["/bin/sh", "/usr/share/netsweep/netsweep-nightly.sh"\]' "$ROOT/packaging/kubernetes/runner-cronjob.yaml" &&
	grep -q 'packaging/netsweep-nightly.sh $(NS_SHARE)/' "$ROOT/mk/install.mk"; then
	pass "the systemd unit and the CronJob run the one recipe, installed at /usr/share/netsweep/"
else
	fail "the systemd unit and the CronJob run the one recipe"
fi
finish
