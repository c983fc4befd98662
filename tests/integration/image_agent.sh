#!/bin/bash
# make image builds netsweep's OCI image without a registry (packaging/Containerfile: no base
# image, the binary's own libraries, user netsweep, labels with version and commit, a keyed
# netsweep health of itself as health check), and its agent, given a key file, serves a probe from this
# host with the key and refuses one without it. As root, and rootless as a user the test
# makes when it can (SKIP with the reason when this machine cannot run rootless podman).
# The agent shares the host's network (as the hostNetwork DaemonSet does) and listens on a
# loopback port the kernel picks: probes reach it over 127.0.0.1 only.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/podman.sh"
ROOT=$(cd "$HERE/../.." && pwd)
BUILD=${BUILD:-build}
IMAGE=localhost/netsweep-itest-$$
T=$(mktemp -d) || exit 1
chmod 755 "$T"
CTR=ns-itest-agent-$$
RUSER=
cleanup() {
	podman rm -f "$CTR" "$CTR-hc" >/dev/null 2>&1
	podman rmi -f "$IMAGE:latest" "$IMAGE:$VERSION" >/dev/null 2>&1
	if [ -n "$RUSER" ]; then
		runuser -u "$RUSER" -- sh -c "cd /; podman rm -f $CTR $CTR-hc; podman rmi -f $IMAGE:latest" >/dev/null 2>&1
	fi
	rm -rf "$T"
}
trap cleanup EXIT
VERSION=$(sed -n 's/.*NETSWEEP_VERSION "\(.*\)".*/\1/p' "$ROOT/runner/core/version.h")

if ! command -v podman >/dev/null 2>&1 && ! command -v docker >/dev/null 2>&1; then
	out=$(make -s -C "$ROOT" BUILD="$BUILD" image IMAGE="$IMAGE" IMAGE_TOOL= 2>&1)
	if echo "$out" | grep -q "needs podman or docker"; then pass "make image without podman or docker says what to install"; else fail "make image without a tool" "$out"; fi
	skip "image agent" "neither podman nor docker is installed"
	finish
	exit
fi
if ! command -v podman >/dev/null 2>&1; then
	skip "image agent" "the test drives podman; only docker is installed"
	finish
	exit
fi

if make -s -C "$ROOT" BUILD="$BUILD" image IMAGE="$IMAGE" KUBECTL= >"$T/build.log" 2>&1; then
	pass "make image builds without a registry"
else
	fail "make image builds without a registry" "$(grep -v 'level=' "$T/build.log" | tail -n 5)"
	finish
	exit
fi
out=$(make -s -C "$ROOT" BUILD="$BUILD" image IMAGE="$IMAGE" IMAGE_TOOL= 2>&1)
if echo "$out" | grep -q "needs podman or docker"; then pass "make image without podman or docker says what to install"; else fail "make image without a tool" "$out"; fi

commit=$(git -C "$ROOT" rev-parse --short=12 HEAD)
labels=$(podman image inspect "$IMAGE:$VERSION" --format '{{index .Labels "org.opencontainers.image.version"}} {{index .Labels "org.opencontainers.image.revision"}}')
if [ "$labels" = "$VERSION $commit" ]; then pass "labels: version and commit"; else fail "labels: version and commit" "got '$labels', want '$VERSION $commit'"; fi
user=$(podman image inspect "$IMAGE:$VERSION" --format '{{.Config.User}}')
if [ "$user" = 10001:10001 ]; then pass "runs as netsweep (10001), not root"; else fail "runs as netsweep (10001), not root" "User '$user'"; fi
# docker format keeps HEALTHCHECK; podman's own inspect shows it as Healthcheck
hc=$(podman image inspect "$IMAGE:$VERSION" | tr -d ' \n' | grep -o '"Healthcheck":{"Test":\[[^]]*\]')
if echo "$hc" | grep -q '"CMD","/usr/bin/netsweep","health","127.0.0.1"'; then pass "health check: netsweep health of the agent itself (control only)"; else fail "health check: netsweep health of the agent itself" "$hc"; fi
ep=$(podman image inspect "$IMAGE:$VERSION" --format '{{json .Config.Entrypoint}}')
if [ "$ep" = '["/usr/bin/netsweep","agent"]' ]; then pass "entry point: the agent"; else fail "entry point: the agent" "$ep"; fi
size=$(podman image inspect "$IMAGE:$VERSION" --format '{{.Size}}')
if [ "$size" -lt 100000000 ]; then pass "image under 100 MB ($((size / 1000000)) MB)"; else fail "image under 100 MB" "$size bytes"; fi
mounted=$(podman image mount "$IMAGE:$VERSION" 2>/dev/null)
if [ -n "$mounted" ]; then
	extra=$(cd "$mounted" && find . -type f \( -name sh -o -name bash -o -name dpkg -o -name apt \) | head -n 3)
	if [ -z "$extra" ]; then pass "no shell, no package manager in the image"; else fail "no shell, no package manager in the image" "$extra"; fi
	podman image unmount "$IMAGE:$VERSION" >/dev/null 2>&1
fi

# run_agent WHO: the agent in the image on the host's network; WHO is "" (this user) or a
# user name (rootless, through runuser). Sets PORT.
podman_as() {
	if [ -n "$1" ]; then
		local who=$1; shift
		runuser -u "$who" -- env CONTAINERS_CONF="$T/$who.conf" XDG_RUNTIME_DIR="/tmp/ns-itest-xdg-$who" \
			sh -c 'cd /; exec podman "$@"' podman "$@"
	else
		shift
		podman "$@"
	fi
}
# The key file: root hands it to the image's user with :U; a rootless user cannot chown (its
# user namespace maps only its own id to itself), so it runs the agent as itself (keep-id),
# not root there either, and the key stays its own file.
key_opts() {
	if [ -n "$1" ]; then
		echo "--userns keep-id --user $(id -u "$1"):$(id -g "$1") -v $2:/etc/netsweep/psk/key:ro"
	else
		echo "-v $2:/etc/netsweep/psk/key:ro,U"
	fi
}
run_agent() {
	local who=$1 key=$2
	# shellcheck disable=SC2046
	podman_as "$who" run -d --name "$CTR" --network host $(key_opts "$who" "$key") "$IMAGE:latest" \
		--listen 127.0.0.1:0 --psk-file /etc/netsweep/psk/key >"$T/run.log" 2>&1 || return 1
	PORT=
	for _ in $(seq 100); do
		PORT=$(podman_as "$who" logs "$CTR" 2>&1 | sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p')
		[ -n "$PORT" ] && return 0
		sleep 0.1
	done
	podman_as "$who" logs "$CTR" >>"$T/run.log" 2>&1
	return 1
}

# probes WHO LABEL KEY: a keyed probe gets a result, a probe without the key is refused, and the
# image's health check (its own keyed probe) passes.
probes() {
	local who=$1 label=$2 key=$3
	if "$NETSWEEP" probe 127.0.0.1 -p "$PORT" -t 0.5 --psk-file "$key" --json >"$T/probe.json" 2>"$T/probe.err" &&
		grep -q '"bits_per_second"' "$T/probe.json"; then
		pass "$label: a keyed probe from the host gets a result"
	else
		fail "$label: a keyed probe from the host gets a result" "$(tail -n 2 "$T/probe.err")"
	fi
	if "$NETSWEEP" probe 127.0.0.1 -p "$PORT" -t 0.5 >"$T/nokey.out" 2>&1; then
		fail "$label: a probe without the key is refused" "it ran"
	elif grep -q "requires a key" "$T/nokey.out"; then
		pass "$label: a probe without the key is refused"
	else
		fail "$label: a probe without the key is refused" "$(tail -n 1 "$T/nokey.out")"
	fi
}

# health WHO LABEL KEY: the image as shipped (the agent on port 5301 of a network namespace
# of its own with loopback only: rootless podman may have no /dev/net/tun for slirp4netns)
# is healthy by its own health check, `netsweep health` of itself with the key.
health() {
	local who=$1 label=$2 key=$3
	# shellcheck disable=SC2046
	podman_as "$who" run -d --name "$CTR-hc" --network none $(key_opts "$who" "$key") "$IMAGE:latest" >"$T/hc.out" 2>&1
	local ok=
	for _ in $(seq 20); do
		if podman_as "$who" healthcheck run "$CTR-hc" >>"$T/hc.out" 2>&1; then ok=1; break; fi
		sleep 0.5
	done
	if [ -n "$ok" ]; then
		pass "$label: health check (netsweep health of itself, keyed) passes"
	else
		fail "$label: health check passes" "$(grep -v level= "$T/hc.out" | tail -n 2; podman_as "$who" logs "$CTR-hc" 2>&1 | tail -n 2)"
	fi
	podman_as "$who" rm -f "$CTR-hc" >/dev/null 2>&1
}

READY=
if ! podman_ready "$T"; then
	skip "image agent as root" "$PODMAN_WHY"
else
	READY=1
	"$NETSWEEP" key "$T/psk.key"
	cp "$T/psk.key" "$T/mounted.key"
	if run_agent "" "$T/mounted.key"; then
		probes "" "root podman" "$T/psk.key"
		cp "$T/psk.key" "$T/hc.key"
		health "" "root podman" "$T/hc.key"
	else
		fail "root podman: the image's agent listens" "$(grep -v level= "$T/run.log" | tail -n 3)"
	fi
	podman rm -f "$CTR" >/dev/null 2>&1
fi

# Rootless: a user of the test's own, with subordinate ids for its user namespace.
rootless() {
	local why=
	if [ "$(id -u)" != 0 ]; then
		RUSER=
		skip "image agent rootless" "not root: cannot make a user for it (run as a normal user, this test's root part is the rootless one)"
		return
	fi
	for tool in newuidmap newgidmap runuser useradd; do
		command -v "$tool" >/dev/null 2>&1 || why="$why $tool"
	done
	if [ -n "$why" ]; then skip "image agent rootless" "missing:$why (apt-get install uidmap)"; return; fi
	RUSER=nsitest
	if ! id "$RUSER" >/dev/null 2>&1; then
		useradd --system --create-home --home-dir /var/lib/nsitest --shell /usr/sbin/nologin "$RUSER" 2>"$T/useradd.err" ||
			{ skip "image agent rootless" "useradd: $(cat "$T/useradd.err")"; RUSER=; return; }
	fi
	grep -q "^$RUSER:" /etc/subuid || echo "$RUSER:300000:65536" >>/etc/subuid
	grep -q "^$RUSER:" /etc/subgid || echo "$RUSER:300000:65536" >>/etc/subgid
	mkdir -p "/tmp/ns-itest-xdg-$RUSER" && chown "$RUSER" "/tmp/ns-itest-xdg-$RUSER" && chmod 700 "/tmp/ns-itest-xdg-$RUSER"
	cp "$T/containers.conf" "$T/$RUSER.conf"
	chmod 644 "$T/$RUSER.conf"
	podman save "$IMAGE:latest" -o "$T/image.tar" >/dev/null 2>&1 && chmod 644 "$T/image.tar"
	if ! podman_as "$RUSER" load -i "$T/image.tar" >"$T/load.log" 2>&1; then
		skip "image agent rootless" "podman load as $RUSER: $(grep -v level= "$T/load.log" | tail -n 1)"
		return
	fi
	"$NETSWEEP" key "$T/rl-client.key" && cp "$T/rl-client.key" "$T/rl.key" && chown "$RUSER" "$T/rl.key"
	if run_agent "$RUSER" "$T/rl.key"; then
		probes "$RUSER" "rootless podman" "$T/rl-client.key"
		"$NETSWEEP" key "$T/rlhc.key" && chown "$RUSER" "$T/rlhc.key"
		health "$RUSER" "rootless podman" "$T/rlhc.key"
	else
		skip "image agent rootless" "this machine cannot run rootless podman: $(grep -v level= "$T/run.log" | tail -n 1)"
	fi
	podman_as "$RUSER" rm -f "$CTR" >/dev/null 2>&1
}
[ -n "$READY" ] && rootless
finish
