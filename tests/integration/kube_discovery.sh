#!/bin/bash
# A matrix's <kubernetes> pairs against a stand-in kubectl (NETSWEEP_KUBECTL): the runner asks
# it for the agent pods (get pods -o json -l SELECTOR -n NAMESPACE) and the nodes (get nodes -o
# json: the recorded tests/fixtures/kubernetes/nodes.json), names each pair by its nodes' zones
# and names, prices it by their instance type, and runs the zone axis's same-zone and
# cross-zone cases over the pairs that fit each: agent to agent (the first sending on the
# runner's behalf, delegate) and from the runner. The agents are loopback agents of this test,
# with a key; the pod list puts them on three of the recorded nodes (two in us-east-1a, one in
# us-east-1b). Also: kubectl missing or failing, and no agent running, fail before any case.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
FIX=$(cd "$HERE/../fixtures/kubernetes" && pwd)
T=$(mktemp -d) || exit 1
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
export NETSWEEP_IMDS=0
"$NETSWEEP" key "$T/psk.key"
PORTS=()
for i in 1 2 3; do
	mkdir "$T/a$i"
	loopback_agent "$T/a$i" --psk-file "$T/psk.key" --delegate || { fail "agent $i starts"; finish; exit; }
	PIDS+=("$AGENT_PID")
	PORTS+=("$AGENT_PORT")
done

# the pod list: three running agents on three nodes (each with its control port named
# netsweep) and one pending without an address, in kubectl's layout
pod() { # NAME NODE PORT PHASE IP
	local ip=
	[ -n "$5" ] && ip=$(printf ',"podIP":"%s","podIPs":[{"ip":"%s"}]' "$5" "$5")
	printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","namespace":"netsweep","labels":{"app.kubernetes.io/name":"netsweep-agent"}},"spec":{"nodeName":"%s","containers":[{"name":"agent","image":"localhost/netsweep:latest","ports":[{"containerPort":%s,"name":"netsweep","protocol":"TCP"}]}]},"status":{"phase":"%s"%s}}' \
		"$1" "$2" "$3" "$4" "$ip"
}
{
	printf '{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":['
	pod netsweep-agent-4kx7d ip-10-0-1-23.ec2.internal "${PORTS[0]}" Running 127.0.0.1; printf ,
	pod netsweep-agent-9qzpl ip-10-0-1-87.ec2.internal "${PORTS[1]}" Running 127.0.0.1; printf ,
	pod netsweep-agent-h2wfm ip-10-0-2-41.ec2.internal "${PORTS[2]}" Running 127.0.0.1; printf ,
	pod netsweep-agent-tx5rb ip-10-0-2-99.ec2.internal 5301 Pending ""
	printf ']}\n'
} >"$T/pods.json"
cat >"$T/kubectl" <<KUBECTL
#!/bin/sh
echo "\$*" >>"$T/kubectl.log"
case "\$1 \$2" in
"get pods") cat "$T/pods.json" ;;
"get nodes") cat "$FIX/nodes.json" ;;
*) echo "error: unknown command \$*" >&2; exit 1 ;;
esac
KUBECTL
chmod +x "$T/kubectl"
export NETSWEEP_KUBECTL=$T/kubectl

matrix() { # FROM ZONES...
	echo "<matrix name=\"k8s-$1\" cooldown=\"0s\" case-timeout=\"20s\"><pairs>"
	echo "<kubernetes selector=\"app.kubernetes.io/name=netsweep-agent\" namespace=\"netsweep\" from=\"$1\"/></pairs>"
	shift
	echo "<axes><axis name=\"zone\">"
	for z in "$@"; do echo "<value>$z</value>"; done
	echo "</axis><axis name=\"rate\"><value>20M</value></axis><axis name=\"duration\"><value>0.5</value></axis></axes></matrix>"
}
DB=$T/k.db
q() { sqlite3 "$DB" "$1" 2>&1; }

matrix agents same cross >"$T/agents.xml"
if "$NETSWEEP" run "$T/agents.xml" --db "$DB" --psk-file "$T/psk.key" >"$T/run.out" 2>&1; then
	pass "from agents: the run over the discovered pairs succeeds"
else
	fail "from agents: the run over the discovered pairs succeeds" "$(tail -n 3 "$T/run.out")"
fi
if grep -q -- "get pods -o json -l app.kubernetes.io/name=netsweep-agent -n netsweep" "$T/kubectl.log" &&
	grep -q -- "get nodes -o json" "$T/kubectl.log"; then
	pass "kubectl is asked for the selector's pods in the namespace, and the nodes"
else
	fail "kubectl is asked for the selector's pods in the namespace, and the nodes" "$(cat "$T/kubectl.log")"
fi
got=$(q "select count(*) from endpoints")
if [ "$got" = 6 ]; then pass "six ordered pairs of three agents on three nodes (the pending pod left out)"; else fail "six pairs" "$got"; fi
row=$(q "select name, instance_type, region, price_basis, client_host, agent_addr from endpoints where name = 'us-east-1a:ip-10-0-1-23--us-east-1a:ip-10-0-1-87'")
want="us-east-1a:ip-10-0-1-23--us-east-1a:ip-10-0-1-87|c5n.xlarge|us-east-1|pair|127.0.0.1:${PORTS[0]}|127.0.0.1:${PORTS[1]}"
if [ "$row" = "$want" ]; then pass "a pair is named by zone and node, priced by the nodes' instance type and region"; else fail "pair naming" "got '$row', want '$want'"; fi
row=$(q "select instance_type, price_basis from endpoints where name = 'us-east-1b:ip-10-0-2-41--us-east-1a:ip-10-0-1-23'")
if [ "$row" = "m5.large|sender" ]; then pass "two instance types: the sender's price"; else fail "two instance types: the sender's price" "$row"; fi
# the zone axis: same-zone cases only for the two us-east-1a pairs, cross-zone for the other four
ok=$(q "select count(*) from v_results where status = 'ok'")
if [ "$ok" = 6 ]; then pass "zone same,cross: one case per pair, each in its own zone relation, all ok"; else fail "zone cases" "$ok ok: $(q "select endpoint, status, error from v_results" | head -n 3)"; fi
same=$(q "select group_concat(endpoint, ' ') from v_results where zone = 'same'")
cross=$(q "select count(*) from v_results where zone = 'cross'")
if [ "$(echo "$same" | wc -w)" = 2 ] && [ "$(echo "$same" | tr ' ' '\n' | grep -c '^us-east-1a:.*--us-east-1a:')" = 2 ] &&
	[ "$cross" = 4 ]; then
	pass "v_results.zone: same for the two us-east-1a pairs, cross for the other four"
else
	fail "v_results.zone" "same: '$same', cross: $cross"
fi
# each end's zone and region from its node's topology labels, and the relation from them
place=$(q "select count(*) from v_results where client_zone like 'us-east-1_' and agent_zone like 'us-east-1_' and client_region = 'us-east-1' and agent_region = 'us-east-1' and relation = case when client_zone = agent_zone then 'same-zone' else 'cross-zone' end and relation = case zone when 'same' then 'same-zone' else 'cross-zone' end")
if [ "$place" = 6 ]; then pass "v_results: each end's zone and region from its node's labels, the relation same-zone or cross-zone with them"
else fail "v_results placement" "$place of 6: $(q 'select endpoint, client_zone, agent_zone, client_region, agent_region, relation from v_results' | head -n 3)"; fi
cost=$(q "select count(*) from v_cost where endpoint like 'us-east-1%'" 2>/dev/null)
if [ -n "$cost" ] && [ "$cost" -ge 1 ] 2>/dev/null; then pass "the discovered pairs are priced (v_cost has them)"; else fail "the discovered pairs are priced" "$cost"; fi

# from the runner: one pair per agent; this pod's node (NETSWEEP_NODE_NAME) decides zones
matrix runner same >"$T/runner.xml"
if NETSWEEP_NODE_NAME=ip-10-0-2-99.ec2.internal "$NETSWEEP" run "$T/runner.xml" --db "$T/r.db" --psk-file "$T/psk.key" >"$T/run2.out" 2>&1 &&
	[ "$(sqlite3 "$T/r.db" "select group_concat(endpoint) from v_results where status = 'ok'")" = "us-east-1b:ip-10-0-2-41" ]; then
	pass "from the runner on a us-east-1b node: zone=same is the us-east-1b agent only"
else
	fail "from the runner: zone same" "$(tail -n 2 "$T/run2.out"; sqlite3 "$T/r.db" "select endpoint, status from v_results" 2>&1)"
fi

# errors: before any case, naming the matrix line and kubectl's words
NETSWEEP_KUBECTL=$T/absent "$NETSWEEP" run "$T/agents.xml" --db "$T/e.db" --dry-run >"$T/e1" 2>&1
if grep -q "agents.xml:2: kubernetes: .*absent get pods: not found" "$T/e1"; then pass "kubectl missing: a clear error"; else fail "kubectl missing: a clear error" "$(cat "$T/e1")"; fi
printf '#!/bin/sh\necho "error: You must be logged in to the server (Unauthorized)" >&2\nexit 1\n' >"$T/denied"
chmod +x "$T/denied"
NETSWEEP_KUBECTL=$T/denied "$NETSWEEP" run "$T/agents.xml" --db "$T/e.db" >"$T/e2" 2>&1
rc=$?
if [ "$rc" = 2 ] && grep -q "Unauthorized" "$T/e2" && [ ! -e "$T/e.db" ]; then pass "kubectl refused: its words, exit 2, no database"; else fail "kubectl refused" "rc $rc: $(cat "$T/e2")"; fi
printf '{"kind":"List","items":[]}\n' >"$T/pods.json"
"$NETSWEEP" run "$T/agents.xml" --db "$T/e.db" --dry-run >"$T/e3" 2>&1
if grep -q "no agent runs: no pod with label app.kubernetes.io/name=netsweep-agent in namespace netsweep is running with an address" "$T/e3"; then pass "no agent running: said so"; else fail "no agent running: said so" "$(cat "$T/e3")"; fi
finish
