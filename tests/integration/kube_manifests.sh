#!/bin/bash
# Every manifest of packaging/kubernetes/ checked without a cluster. `kubectl apply
# --dry-run=client` needs an API server's discovery even with --validate=false, so kubectl
# reads them locally instead (kubectl label --local: each document parsed as kubectl parses
# it) and the test checks what they must say: the kinds and names, the namespaces, the agents
# non-root without capabilities or a service-account token, the two network variants, RBAC
# that only lists pods (and nodes), the names the pods use defined by the other manifests,
# the matrix's selector matching the agents' labels; and the ConfigMap's matrix loads (run
# --dry-run, pairs from the recorded pod and node lists through a stand-in kubectl), and the
# Secret's placeholder is refused by an agent. Issue 43: every manifest, and the recorded pod
# and node lists, validate against the Kubernetes API's published schema (strict: an unknown
# field fails; tests/fixtures/kubernetes/schema/README names its source); every pod meets the
# restricted Pod Security Standard with requests and limits, an immutable image (the version
# `make image` tags) and no toleration of every taint — the hostNetwork agents keeping exactly
# hostNetwork and their host port, in a namespace of their own that says why — checked by
# tests/fixtures/kubernetes/k8s_check.py, which fails the manifests as they were before.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$(cd "$HERE/../.." && pwd)
K8S=$ROOT/packaging/kubernetes
FIX=$ROOT/tests/fixtures/kubernetes
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
if ! command -v kubectl >/dev/null 2>&1; then
	skip "kubernetes manifests" "kubectl is not installed (it reads the manifests as a cluster would)"
	exit 0
fi
# jp FILE JSONPATH: the value of every document of FILE, one line each
jp() { kubectl label --local -f "$1" netsweep/checked=yes -o jsonpath="$2" 2>&1; }
# the hostNetwork file's DaemonSet alone (its namespace, RBAC and policy come before it)
ds_of() { awk 'BEGIN { RS = "\n---\n" } /\nkind: DaemonSet\n/ { print }' "$1"; }
ds_of "$K8S/agent-daemonset-hostnetwork.yaml" >"$T/agent-daemonset-hostnetwork.yaml"

want_kinds() { # FILE "Kind/name ..."
	local got
	got=$(jp "$K8S/$1" '{.kind}/{.metadata.name} ' | sed 's/ $//')
	if [ "$got" = "$2" ]; then pass "$1: $2"; else fail "$1: kinds and names" "got '$got', want '$2'"; fi
}
want_kinds namespace.yaml "Namespace/netsweep"
want_kinds secret.yaml "Secret/netsweep-psk"
want_kinds agent-daemonset.yaml "DaemonSet/netsweep-agent"
want_kinds agent-daemonset-hostnetwork.yaml "Namespace/netsweep-host Role/netsweep-runner RoleBinding/netsweep-runner NetworkPolicy/netsweep-agent-host DaemonSet/netsweep-agent-host"
want_kinds networkpolicy.yaml "NetworkPolicy/netsweep-agent"
want_kinds rbac.yaml "ServiceAccount/netsweep-runner Role/netsweep-runner RoleBinding/netsweep-runner ClusterRole/netsweep-runner-nodes ClusterRoleBinding/netsweep-runner-nodes"
want_kinds pvc.yaml "PersistentVolumeClaim/netsweep-data"
want_kinds matrix-configmap.yaml "ConfigMap/netsweep-matrix"
want_kinds runner-cronjob.yaml "CronJob/netsweep-nightly"
n=$(ls "$K8S"/*.yaml | wc -l)
if [ "$n" = 9 ]; then pass "every manifest is checked (9)"; else fail "every manifest is checked" "$n files: $(ls "$K8S")"; fi

ns=$(for f in "$K8S"/*.yaml; do jp "$f" '{.kind}={.metadata.namespace} '; done | tr ' ' '\n' | grep . |
	grep -v -e '^Namespace=$' -e '^ClusterRole=$' -e '^ClusterRoleBinding=$' | grep -v '=netsweep$')
host=$(jp "$K8S/agent-daemonset-hostnetwork.yaml" '{.kind}={.metadata.namespace} ' | tr ' ' '\n' | grep -v -e '^Namespace=$' -e '=netsweep-host$' | grep .)
ns=$(grep -v -x -e 'Role=netsweep-host' -e 'RoleBinding=netsweep-host' -e 'NetworkPolicy=netsweep-host' -e 'DaemonSet=netsweep-host' <<<"$ns")
if [ -z "$ns" ] && [ -z "$host" ]; then pass "every namespaced object is in netsweep, the hostNetwork agents' in netsweep-host"; else fail "every namespaced object is in netsweep (netsweep-host)" "$ns $host"; fi

# pod security: agents and runner as 10001, no privilege escalation, no capabilities
for f in agent-daemonset.yaml agent-daemonset-hostnetwork.yaml runner-cronjob.yaml; do
	pod='.spec.template.spec'
	[ "$f" = runner-cronjob.yaml ] && pod='.spec.jobTemplate.spec.template.spec'
	src=$K8S/$f
	[ "$f" = agent-daemonset-hostnetwork.yaml ] && src=$T/$f
	got=$(jp "$src" "{$pod.securityContext.runAsNonRoot} {$pod.securityContext.runAsUser} {$pod.securityContext.fsGroup} {$pod.containers[0].securityContext.allowPrivilegeEscalation} {$pod.containers[0].securityContext.capabilities.drop[0]} {$pod.containers[0].securityContext.readOnlyRootFilesystem}")
	if [ "$got" = "true 10001 10001 false ALL true" ]; then pass "$f: non-root (10001), no capabilities, read-only root"; else fail "$f: pod security" "$got"; fi
done
got=$(jp "$K8S/agent-daemonset.yaml" '{.spec.template.spec.hostNetwork}|{.spec.template.spec.containers[0].ports[0].name}:{.spec.template.spec.containers[0].ports[0].containerPort}|{.spec.template.spec.automountServiceAccountToken}|{.spec.template.metadata.labels.netsweep/network}')
if [ "$got" = "|netsweep:5301|false|pod" ]; then pass "agent-daemonset.yaml: the pod network, port netsweep 5301, no API token"; else fail "agent-daemonset.yaml: pod network" "$got"; fi
got=$(jp "$T/agent-daemonset-hostnetwork.yaml" '{.spec.template.spec.hostNetwork}|{.spec.template.spec.containers[0].ports[0].hostPort}|{.spec.template.spec.automountServiceAccountToken}|{.spec.template.metadata.labels.netsweep/network}')
if [ "$got" = "true|5301|false|host" ]; then pass "agent-daemonset-hostnetwork.yaml: the node's network, host port 5301, no API token"; else fail "agent-daemonset-hostnetwork.yaml: host network" "$got"; fi
for f in agent-daemonset.yaml agent-daemonset-hostnetwork.yaml; do
	got=$(jp "$K8S/$f" '{.spec.template.spec.containers[0].args} {.spec.template.spec.containers[0].livenessProbe.exec.command}')
	if [[ "$got" == *'"--psk-file","/etc/netsweep/psk/key","--delegate"'*'"/usr/bin/netsweep","health","127.0.0.1"'* ]]; then
		pass "$f: the Secret's key, delegated tests, netsweep health of itself (control only) as liveness probe"
	else
		fail "$f: key, delegate, liveness" "$got"
	fi
done

# RBAC: read pods in the namespace, read nodes; nothing else
got=$(jp "$K8S/rbac.yaml" '{.kind}:{.rules} ' | tr ' ' '\n' | grep -E '^(Role|ClusterRole):')
want='Role:[{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]
ClusterRole:[{"apiGroups":[""],"resources":["nodes"],"verbs":["list"]}]'
if [ "$got" = "$want" ]; then pass "RBAC: list pods, list nodes, nothing else (kubepairs.c lists; no get, no watch)"; else fail "RBAC rules" "$got"; fi
got=$(jp "$K8S/agent-daemonset-hostnetwork.yaml" '{.kind}:{.rules} ' | tr ' ' '\n' | grep -E '^Role:')
if [ "$got" = 'Role:[{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]' ]; then pass "RBAC in netsweep-host: list pods"; else fail "RBAC in netsweep-host" "$got"; fi
# kubepairs.c's kubectl calls: the verbs above are exactly what they use
if grep -q '"get", "pods", "-o", "json", "-l"' "$ROOT/runner/pairs/kubepairs.c" &&
	grep -q '"get", "nodes", "-o", "json", NULL' "$ROOT/runner/pairs/kubepairs.c" &&
	! grep -q -e '"watch"' -e '"-w"' -e '"--watch"' "$ROOT/runner/pairs/kubepairs.c"; then
	pass "the runner lists pods by selector and nodes, nothing else (the verbs RBAC grants)"
else
	fail "the runner's kubectl calls are the verbs RBAC grants" "runner/pairs/kubepairs.c changed"
fi
got=$(jp "$K8S/rbac.yaml" '{.kind}:{.roleRef.name}:{.subjects[0].name} ' | tr ' ' '\n' | grep Binding)
if [ "$got" = "RoleBinding:netsweep-runner:netsweep-runner
ClusterRoleBinding:netsweep-runner-nodes:netsweep-runner" ]; then pass "RBAC: bound to the service account netsweep-runner"; else fail "RBAC bindings" "$got"; fi

# the names the runner's pod uses exist in the other manifests
pod='.spec.jobTemplate.spec.template.spec'
got=$(jp "$K8S/runner-cronjob.yaml" "{$pod.serviceAccountName} {$pod.volumes[*].persistentVolumeClaim.claimName} {$pod.volumes[*].configMap.name} {$pod.volumes[*].secret.secretName} {.spec.concurrencyPolicy}")
if [ "$got" = "netsweep-runner netsweep-data netsweep-matrix netsweep-psk Forbid" ]; then pass "the CronJob uses the service account, PVC, ConfigMap and Secret defined here, one run at a time"; else fail "CronJob references" "$got"; fi
cmd=$(jp "$K8S/runner-cronjob.yaml" "{$pod.containers[0].command[*]} {$pod.containers[0].env[?(@.name==\"NETSWEEP_MATRIX\")].value} {$pod.containers[0].env[?(@.name==\"NETSWEEP_STATE\")].value}")
# the one nightly recipe (tests/integration/nightly.sh runs it): run, report with the gate, site
if [ "$cmd" = "/bin/sh /usr/share/netsweep/netsweep-nightly.sh /etc/netsweep/matrix/matrix.xml /var/lib/netsweep" ]; then
	pass "the CronJob runs the nightly recipe: the matrix into the volume's database, then the report and the site beside it"
else
	fail "the CronJob's command" "$cmd"
fi

# the ConfigMap's matrix: its selector is the pod-network agents' labels, and it loads
jp "$K8S/matrix-configmap.yaml" '{.data.matrix\.xml}' >"$T/matrix.xml"
sel=$(sed -n 's/.*selector="\([^"]*\)".*/\1/p' "$T/matrix.xml")
labels=$(jp "$K8S/agent-daemonset.yaml" '{.spec.template.metadata.labels.app\.kubernetes\.io/name} {.spec.template.metadata.labels.netsweep/network}')
if [ "$sel" = "app.kubernetes.io/name=${labels% *},netsweep/network=${labels#* }" ]; then pass "the matrix's selector picks the pod-network agents ($sel)"; else fail "the matrix's selector" "'$sel' vs labels '$labels'"; fi
printf '#!/bin/sh\ncase "$2" in pods) cat "%s/pods.json";; nodes) cat "%s/nodes.json";; esac\n' "$FIX" "$FIX" >"$T/kubectl"
chmod +x "$T/kubectl"
if NETSWEEP_KUBECTL=$T/kubectl "$NETSWEEP" run "$T/matrix.xml" --dry-run >"$T/dry" 2>&1 && grep -q "cases" "$T/dry"; then
	pass "the ConfigMap's matrix loads (run --dry-run, pairs from the recorded cluster)"
else
	fail "the ConfigMap's matrix loads" "$(tail -n 3 "$T/dry")"
fi

# the Kubernetes API's published schema (v1.32.2, strict), offline: the manifests and the
# recorded pod and node lists
CHK=$FIX/k8s_check.py
if python3 -c 'import yaml, jsonschema' 2>/dev/null; then
	out=$(python3 "$CHK" schema "$K8S"/*.yaml "$FIX/pods.json" "$FIX/nodes.json" 2>&1)
	[ $? = 0 ] && pass "every manifest and recorded list validates against the API's schema (${out##*$'\n'})" ||
		fail "manifests validate against the API's schema" "$(tail -n 5 <<<"$out")"
	# a misspelt field fails it: the check has teeth
	sed 's/readOnlyRootFilesystem/readOnlyRootFilesytem/' "$K8S/agent-daemonset.yaml" >"$T/typo.yaml"
	out=$(python3 "$CHK" schema "$T/typo.yaml" 2>&1)
	[ $? = 1 ] && grep -q "readOnlyRootFilesytem" <<<"$out" && pass "a misspelt field fails the schema check" ||
		fail "a misspelt field fails the schema check" "$out"

	# restricted Pod Security, with resources, immutable images, no toleration of every taint
	out=$(python3 "$CHK" pss --allow-privileged=hostNetwork,hostPorts "$K8S"/*.yaml 2>&1)
	if grep -q '^pss: 3 pods, 0 findings, 2 kept$' <<<"$out" &&
		[ "$(grep ': kept: ' <<<"$out" | grep -c 'netsweep-agent-host')" = 2 ]; then
		pass "every pod meets restricted Pod Security with resources set; the hostNetwork agents keep hostNetwork and their host port only"
	else
		fail "restricted Pod Security" "$(grep -v ': kept: ' <<<"$out" | tail -n 6)"
	fi
	for f in agent-daemonset.yaml runner-cronjob.yaml networkpolicy.yaml namespace.yaml; do
		python3 "$CHK" pss "$K8S/namespace.yaml" "$K8S/$f" >"$T/pss.out" 2>&1 ||
			fail "$f: restricted with no exception" "$(tail -n 3 "$T/pss.out")"
	done
	# the manifests as they were before issue 43 fail it, naming what was missing
	git -C "$ROOT" show 0ecbdc5:packaging/kubernetes/agent-daemonset.yaml >"$T/old.yaml" 2>/dev/null &&
		git -C "$ROOT" show 0ecbdc5:packaging/kubernetes/namespace.yaml >"$T/oldns.yaml" 2>/dev/null
	if [ -s "$T/old.yaml" ]; then
		out=$(python3 "$CHK" pss "$T/oldns.yaml" "$T/old.yaml" 2>&1)
		[ $? = 1 ] && grep -q 'seccompProfile is unset' <<<"$out" && grep -q 'no limits.memory' <<<"$out" &&
			grep -q 'operator Exists without a key' <<<"$out" && grep -q 'not a digest nor a versioned tag' <<<"$out" &&
			grep -q 'no pod-security.kubernetes.io/enforce' <<<"$out" &&
			pass "the manifests before issue 43 fail the check (seccomp, limits, tolerations, :latest, namespace label)" ||
			fail "the old manifests fail the check" "$(tail -n 4 <<<"$out")"
	else
		skip "the old manifests fail the check" "no git history here"
	fi
else
	skip "schema and Pod Security checks" "python3 with yaml and jsonschema (python3-yaml, python3-jsonschema) is not installed"
fi
# the image: the version `make image` tags, the same in every pod
ver=$(sed -n 's/^#define NETSWEEP_VERSION "\(.*\)"/\1/p' "$ROOT/runner/core/version.h")
imgs=$(for f in agent-daemonset.yaml agent-daemonset-hostnetwork.yaml runner-cronjob.yaml; do
	jp "$K8S/$f" '{..image} '; done | tr ' ' '\n' | grep . | sort -u | tr '\n' ' ')
if [ "$imgs" = "localhost/netsweep-runner:$ver localhost/netsweep:$ver " ]; then
	pass "images: the tag make image makes ($ver), not :latest"
else
	fail "images: the version make image tags" "'$imgs' (version $ver)"
fi

# the Secret's placeholder is not a key: an agent refuses to start with it
jp "$K8S/secret.yaml" '{.stringData.key}' >"$T/placeholder"
chmod 600 "$T/placeholder"
if "$NETSWEEP" agent --listen 127.0.0.1:0 --psk-file "$T/placeholder" >"$T/agent.out" 2>&1; then
	fail "the Secret's placeholder is refused" "the agent started"
elif grep -q "not a hex digit\|hex digits" "$T/agent.out"; then
	pass "the Secret's placeholder is refused: agents never serve with it"
else
	fail "the Secret's placeholder is refused" "$(cat "$T/agent.out")"
fi
finish
