#!/bin/bash
# Every manifest of packaging/kubernetes/ checked without a cluster. `kubectl apply
# --dry-run=client` needs an API server's discovery even with --validate=false, so kubectl
# reads them locally instead (kubectl label --local: each document parsed as kubectl parses
# it) and the test checks what they must say: the kinds and names, one namespace, the agents
# non-root without capabilities or a service-account token, the two network variants, RBAC
# that only reads pods (and nodes' labels), the names the pods use defined by the other
# manifests, the matrix's selector matching the agents' labels; and the ConfigMap's matrix
# loads (run --dry-run, pairs from the recorded pod and node lists through a stand-in
# kubectl), and the Secret's placeholder is refused by an agent.
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

want_kinds() { # FILE "Kind/name ..."
	local got
	got=$(jp "$K8S/$1" '{.kind}/{.metadata.name} ' | sed 's/ $//')
	if [ "$got" = "$2" ]; then pass "$1: $2"; else fail "$1: kinds and names" "got '$got', want '$2'"; fi
}
want_kinds namespace.yaml "Namespace/netsweep"
want_kinds secret.yaml "Secret/netsweep-psk"
want_kinds agent-daemonset.yaml "DaemonSet/netsweep-agent"
want_kinds agent-daemonset-hostnetwork.yaml "DaemonSet/netsweep-agent-host"
want_kinds rbac.yaml "ServiceAccount/netsweep-runner Role/netsweep-runner RoleBinding/netsweep-runner ClusterRole/netsweep-runner-nodes ClusterRoleBinding/netsweep-runner-nodes"
want_kinds pvc.yaml "PersistentVolumeClaim/netsweep-data"
want_kinds matrix-configmap.yaml "ConfigMap/netsweep-matrix"
want_kinds runner-cronjob.yaml "CronJob/netsweep-nightly"
n=$(ls "$K8S"/*.yaml | wc -l)
if [ "$n" = 8 ]; then pass "every manifest is checked (8)"; else fail "every manifest is checked" "$n files: $(ls "$K8S")"; fi

ns=$(for f in "$K8S"/*.yaml; do jp "$f" '{.kind}={.metadata.namespace} '; done | tr ' ' '\n' | grep . |
	grep -v -e '^Namespace=$' -e '^ClusterRole=$' -e '^ClusterRoleBinding=$' | grep -v '=netsweep$')
if [ -z "$ns" ]; then pass "every namespaced object is in netsweep"; else fail "every namespaced object is in netsweep" "$ns"; fi

# pod security: agents and runner as 10001, no privilege escalation, no capabilities
for f in agent-daemonset.yaml agent-daemonset-hostnetwork.yaml runner-cronjob.yaml; do
	pod='.spec.template.spec'
	[ "$f" = runner-cronjob.yaml ] && pod='.spec.jobTemplate.spec.template.spec'
	got=$(jp "$K8S/$f" "{$pod.securityContext.runAsNonRoot} {$pod.securityContext.runAsUser} {$pod.securityContext.fsGroup} {$pod.containers[0].securityContext.allowPrivilegeEscalation} {$pod.containers[0].securityContext.capabilities.drop[0]} {$pod.containers[0].securityContext.readOnlyRootFilesystem}")
	if [ "$got" = "true 10001 10001 false ALL true" ]; then pass "$f: non-root (10001), no capabilities, read-only root"; else fail "$f: pod security" "$got"; fi
done
got=$(jp "$K8S/agent-daemonset.yaml" '{.spec.template.spec.hostNetwork}|{.spec.template.spec.containers[0].ports[0].name}:{.spec.template.spec.containers[0].ports[0].containerPort}|{.spec.template.spec.automountServiceAccountToken}|{.spec.template.metadata.labels.netsweep/network}')
if [ "$got" = "|netsweep:5301|false|pod" ]; then pass "agent-daemonset.yaml: the pod network, port netsweep 5301, no API token"; else fail "agent-daemonset.yaml: pod network" "$got"; fi
got=$(jp "$K8S/agent-daemonset-hostnetwork.yaml" '{.spec.template.spec.hostNetwork}|{.spec.template.spec.containers[0].ports[0].hostPort}|{.spec.template.spec.automountServiceAccountToken}|{.spec.template.metadata.labels.netsweep/network}')
if [ "$got" = "true|5301|false|host" ]; then pass "agent-daemonset-hostnetwork.yaml: the node's network, host port 5301, no API token"; else fail "agent-daemonset-hostnetwork.yaml: host network" "$got"; fi
for f in agent-daemonset.yaml agent-daemonset-hostnetwork.yaml; do
	got=$(jp "$K8S/$f" '{.spec.template.spec.containers[0].args} {.spec.template.spec.containers[0].livenessProbe.exec.command}')
	if [[ "$got" == *'"--psk-file","/etc/netsweep/psk/key","--delegate"'*'"/usr/bin/netsweep","probe","127.0.0.1"'* ]]; then
		pass "$f: the Secret's key, delegated tests, a keyed probe of itself as liveness probe"
	else
		fail "$f: key, delegate, liveness" "$got"
	fi
done

# RBAC: read pods in the namespace, read nodes; nothing else
got=$(jp "$K8S/rbac.yaml" '{.kind}:{.rules} ' | tr ' ' '\n' | grep -E '^(Role|ClusterRole):')
want='Role:[{"apiGroups":[""],"resources":["pods"],"verbs":["get","list","watch"]}]
ClusterRole:[{"apiGroups":[""],"resources":["nodes"],"verbs":["get","list"]}]'
if [ "$got" = "$want" ]; then pass "RBAC: get/list/watch pods, get/list nodes, nothing else"; else fail "RBAC rules" "$got"; fi
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
