#!/bin/bash
# The Kubernetes manifests under podman kube play, no cluster: the agent DaemonSet's pod
# (packaging/kubernetes/agent-daemonset.yaml) and the nightly CronJob's runner pod
# (runner-cronjob.yaml) from this build's images (make image), the runner's volume the PVC
# of pvc.yaml. The runner lists the agents through a stand-in kubectl (NETSWEEP_KUBECTL: no
# API server here) that names the agent pod's address, runs a quick <kubernetes> matrix
# against it with the key, and renders the report and the site into the same volume: the
# database has the night's results, the report and the site are there.
# What podman 4.3 cannot do is stood in for, each said here: kinds other than Pod — the pod
# templates are played as Pods (kubectl --local reads them out of the manifests); Secret
# volumes — podman 4.3 panics on them (VolumeFromSecret), so the key comes from a host folder
# owned and moded as the kubelet writes a Secret for the pod's fsGroup (root:10001, 0440);
# ConfigMap volumes come from --configmap. The agent's liveness probe is not checked (podman
# runs it through a shell the agent's image does not have; image_agent.sh checks the image's
# own health check). About 30 s here (two images, two pods).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/podman.sh"
ROOT=$(cd "$HERE/../.." && pwd)
K8S=$ROOT/packaging/kubernetes
BUILD=${BUILD:-build}
IMAGE=localhost/netsweep
T=$(mktemp -d) || exit 1
chmod 755 "$T"
# names of this run's own (pods, the claim's volume): another run of the test may be playing
AGENT_POD=netsweep-agent-play$$ RUNNER_POD=netsweep-runner-play$$ VOLUME=netsweep-data-play$$
MATRIX_CM=netsweep-matrix-play$$ # podman makes the ConfigMap a volume of that name
cleanup() {
	podman kube play --down "$T/runner.json" >/dev/null 2>&1
	podman kube play --down "$T/agent.json" >/dev/null 2>&1
	podman volume rm -f "$VOLUME" "$MATRIX_CM" >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

if ! command -v kubectl >/dev/null 2>&1; then
	skip "kube play" "kubectl (reads the pod templates out of the manifests, and goes into the runner image) is not installed"
	exit 0
fi
if ! command -v podman >/dev/null 2>&1; then
	skip "kube play" "podman is not installed (apt-get install podman catatonit)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	skip "kube play" "needs root (the key folder is root:10001 as a Secret's; rootless podman here has no /dev/net/tun for pod networks)"
	exit 0
fi
if ! make -s -C "$ROOT" BUILD="$BUILD" image IMAGE="$IMAGE" >"$T/build.log" 2>&1; then
	fail "make image (with kubectl: the runner image too)" "$(grep -v level= "$T/build.log" | tail -n 3)"
	finish
	exit
fi
if ! podman_ready "$T"; then
	skip "kube play" "$PODMAN_WHY"
	exit 0
fi

# template FILE JSONPATH NAME: a manifest's pod template as a Pod (JSON)
template() {
	local spec labels
	spec=$(kubectl label --local -f "$1" netsweep/played=yes -o jsonpath="{$2.spec}") || return 1
	labels=$(kubectl label --local -f "$1" netsweep/played=yes -o jsonpath="{$2.metadata.labels}") || return 1
	printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","labels":%s},"spec":%s}\n' \
		"$3" "$labels" "$spec"
}
# the Secret's volume as the kubelet would write it for fsGroup 10001
"$NETSWEEP" key "$T/psk.key"
mkdir "$T/psk" && cp "$T/psk.key" "$T/psk/key" && chown 0:10001 "$T/psk/key" && chmod 0440 "$T/psk/key"
secret_to_host() { sed "s|\"secret\":{[^}]*\"secretName\":\"netsweep-psk\"[^}]*}|\"hostPath\":{\"path\":\"$T/psk\",\"type\":\"Directory\"}|"; }

template "$K8S/agent-daemonset.yaml" .spec.template "$AGENT_POD" | secret_to_host >"$T/agent.json"
if grep -q '"hostPath"' "$T/agent.json" && grep -q '"runAsNonRoot":true' "$T/agent.json"; then
	pass "the agent DaemonSet's pod template, as a Pod"
else
	fail "the agent DaemonSet's pod template, as a Pod" "$(head -c 300 "$T/agent.json")"
fi
if ! podman kube play "$T/agent.json" >"$T/play-agent.log" 2>&1; then
	fail "podman kube play: the agent pod" "$(grep -v level= "$T/play-agent.log" | tail -n 3)"
	finish
	exit
fi
infra=$(podman pod inspect "$AGENT_POD" --format '{{.InfraContainerID}}')
AGENT_IP=$(podman inspect "$infra" --format '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')
up=
for _ in $(seq 100); do
	podman logs "$AGENT_POD-agent" 2>&1 | grep -q "listening on :: port 5301" && { up=1; break; }
	sleep 0.1
done
if [ -n "$up" ] && [ -n "$AGENT_IP" ]; then
	pass "the agent pod serves on its pod address, as user 10001 with the Secret's key (0440 root:10001)"
else
	fail "the agent pod serves" "ip '$AGENT_IP': $(podman logs "$AGENT_POD-agent" 2>&1 | grep -v level= | tail -n 3)"
	finish
	exit
fi

# the stand-in kubectl in the runner pod (its image has /bin/sh): the agent pod on node-a of
# us-east-1a, the runner on node-b of the same zone
mkdir "$T/kubectl"
cat >"$T/kubectl/kubectl" <<KUBECTL
#!/bin/sh
case "\$2" in
pods) printf '%s\n' '{"kind":"List","items":[{"metadata":{"name":"netsweep-agent-play","labels":{"app.kubernetes.io/name":"netsweep-agent","netsweep/network":"pod"}},"spec":{"nodeName":"node-a","containers":[{"name":"agent","ports":[{"name":"netsweep","containerPort":5301}]}]},"status":{"phase":"Running","podIP":"$AGENT_IP"}}]}' ;;
nodes) printf '%s\n' '{"kind":"List","items":[{"metadata":{"name":"node-a","labels":{"topology.kubernetes.io/zone":"us-east-1a","topology.kubernetes.io/region":"us-east-1","node.kubernetes.io/instance-type":"c5n.xlarge"}}},{"metadata":{"name":"node-b","labels":{"topology.kubernetes.io/zone":"us-east-1a","topology.kubernetes.io/region":"us-east-1","node.kubernetes.io/instance-type":"c5n.xlarge"}}}]}' ;;
*) echo "stand-in kubectl: \$*" >&2; exit 1 ;;
esac
KUBECTL
chmod 755 "$T/kubectl" "$T/kubectl/kubectl"
# the night's matrix: the ConfigMap's, quick (one 1 s case per zone relation that fits)
cat >"$T/matrix-configmap.yaml" <<CM
apiVersion: v1
kind: ConfigMap
metadata:
  name: $MATRIX_CM
data:
  matrix.xml: |
    <matrix name="cluster-quick" cooldown="0s" case-timeout="30s">
      <pairs>
        <kubernetes selector="app.kubernetes.io/name=netsweep-agent,netsweep/network=pod"
                    namespace="netsweep" from="runner"/>
      </pairs>
      <axes>
        <axis name="zone"><value>same</value><value>cross</value></axis>
        <axis name="rate"><value>50M</value></axis>
        <axis name="duration"><value>1</value></axis>
      </axes>
    </matrix>
CM
template "$K8S/runner-cronjob.yaml" .spec.jobTemplate.spec.template "$RUNNER_POD" | secret_to_host |
	sed -e 's|"fieldPath":"spec.nodeName"}}}|"fieldPath":"spec.nodeName"}}},{"name":"NETSWEEP_KUBECTL","value":"/etc/netsweep/kubectl/kubectl"}|' \
	    -e 's|"volumeMounts":\[|"volumeMounts":[{"mountPath":"/etc/netsweep/kubectl","name":"kubectl","readOnly":true},|' \
	    -e "s|\"volumes\":\[|\"volumes\":[{\"name\":\"kubectl\",\"hostPath\":{\"path\":\"$T/kubectl\",\"type\":\"Directory\"}},|" \
	    -e 's|"valueFrom":{"fieldRef":{"fieldPath":"spec.nodeName"}}|"value":"node-b"|' \
	    -e "s|\"claimName\":\"netsweep-data\"|\"claimName\":\"$VOLUME\"|" \
	    -e "s|\"configMap\":{\"name\":\"netsweep-matrix\"}|\"configMap\":{\"name\":\"$MATRIX_CM\"}|" >"$T/runner.json"
if grep -q NETSWEEP_KUBECTL "$T/runner.json" && grep -q "\"claimName\":\"$VOLUME\"" "$T/runner.json"; then
	pass "the CronJob's pod template, as a Pod"
else
	fail "the CronJob's pod template, as a Pod" "$(head -c 300 "$T/runner.json")"
fi
sed "s/name: netsweep-data$/name: $VOLUME/" "$K8S/pvc.yaml" >"$T/pvc.yaml"
if ! grep -q "name: $VOLUME" "$T/pvc.yaml" || ! podman kube play "$T/pvc.yaml" >"$T/play-pvc.log" 2>&1; then
	fail "podman kube play: the PVC (as $VOLUME)" "$(grep -v level= "$T/play-pvc.log" | tail -n 2)"
fi
start=$(date +%s)
if ! podman kube play --configmap "$T/matrix-configmap.yaml" "$T/runner.json" >"$T/play-runner.log" 2>&1; then
	fail "podman kube play: the runner pod" "$(grep -v level= "$T/play-runner.log" | tail -n 3)"
	finish
	exit
fi
state=
for _ in $(seq 240); do
	state=$(podman inspect "$RUNNER_POD-runner" --format '{{.State.Status}} {{.State.ExitCode}}' 2>/dev/null)
	case "$state" in exited*|stopped*) break ;; esac
	sleep 0.5
done
podman logs "$RUNNER_POD-runner" >"$T/runner.log" 2>&1
if [ "$state" = "exited 0" ] || [ "$state" = "stopped 0" ]; then
	pass "the runner pod completes: run, then report and site ($(( $(date +%s) - start )) s)"
else
	fail "the runner pod completes" "state '$state': $(grep -v level= "$T/runner.log" | tail -n 4)"
fi
vol=$(podman volume inspect "$VOLUME" --format '{{.Mountpoint}}')
DB=$vol/nightly.db
got=$(sqlite3 "$DB" "select endpoint || ' ' || instance_type || ' ' || status from v_results" 2>&1)
if [ "$got" = "us-east-1a:node-a c5n.xlarge ok" ]; then
	pass "the volume's database has the night's result: the discovered pair, same zone, priced type"
else
	fail "the volume's database has the night's result" "$got"
fi
if [ -s "$vol/report/index.html" ] && grep -q "cluster-quick" "$vol/report/index.html"; then
	pass "the report is in the same volume (report/index.html)"
else
	fail "the report is in the same volume" "$(ls "$vol" "$vol/report" 2>&1 | head -n 5)"
fi
if [ -s "$vol/site/index.html" ] && [ -s "$vol/site/feed.xml" ]; then
	pass "the site of every night is in the same volume (site/index.html, feed.xml)"
else
	fail "the site is in the same volume" "$(ls "$vol" "$vol/site" 2>&1 | head -n 5)"
fi
# the runner image has gnuplot (its libraries, data and a font): the charts are drawn there,
# the report's SVGs and the site's Open Graph card as a PNG
svgs=$(find "$vol/report" -name '*.svg' 2>/dev/null | wc -l)
card=$(find "$vol/site" -name card.png 2>/dev/null | head -n 1)
if [ "$svgs" -ge 1 ] && grep -q '<svg' "$vol/report/per_dollar.svg" 2>/dev/null &&
	[ -n "$card" ] && [ "$(head -c 8 "$card" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; then
	pass "the runner image draws the charts: $svgs SVGs in the report, the site's card.png a PNG"
else
	fail "the runner image draws the charts" "$svgs SVGs, card '${card:-none}'; $(grep -i gnuplot "$vol"/report/*.html 2>/dev/null | head -c 300)"
fi
owner=$(stat -c %u "$DB" 2>/dev/null)
if [ "$owner" = 10001 ]; then pass "the runner wrote as user 10001, not root"; else fail "the runner wrote as user 10001" "owner '$owner'"; fi
finish
