#!/bin/sh
# Installs what netsweep needs to build, test and chart on Debian, when something is missing.
# As root it runs apt-get; otherwise it names the packages to install and fails.
set -u
PKGS="build-essential pkg-config libsqlite3-dev sqlite3 libxml2-dev libxml2-utils libcmocka-dev libgsl-dev libssl-dev
      gnuplot-nox iproute2 clang llvm libclang-rt-14-dev iperf3 iperf ethtool procps libxdp-dev libbpf-dev
      libngtcp2-dev libngtcp2-crypto-gnutls-dev libgnutls28-dev"
# (the last three: the QUIC engine, mk/quic.mk; without them netsweep builds without QUIC)
# `deps.sh test` adds what only the tests need: ngtcp2's example client and server
# (tests/bench/quic.sh's yardstick), a headless browser for the report test, ping,
# stress-ng (sender_limited.sh's hogs), promtool (prometheus: export_metrics.sh) and podman
# with what it runs containers with here (image_agent.sh, kube_play.sh: runc where crun
# refuses hybrid cgroups, uidmap for rootless);
# `deps.sh deb` what `make deb` needs to build the package.
# `deps.sh test` also adds the Nu HTML Checker (npm vnu-jar, run on Debian's java) and
# Lighthouse (npm, run on Debian's chromium; npm itself comes with Node.js) that site_lint.sh checks the pages with, pinned.
[ "${1:-build}" = test ] && PKGS="$PKGS ngtcp2-client ngtcp2-server chromium iputils-ping stress-ng prometheus podman catatonit runc uidmap slirp4netns fuse-overlayfs default-jre-headless"
NPM_PKGS="vnu-jar@26.9.27 lighthouse@12.2.3"

# npm_test: the test's npm packages, globally, when missing or at another version (as root).
npm_test() {
	[ "${1:-build}" = test ] || return 0
	local want="" p root
	root=$(npm root -g 2>/dev/null)
	for p in $NPM_PKGS; do
		grep -qs "\"version\": \"${p##*@}\"" "$root/${p%@*}/package.json" || want="$want $p"
	done
	[ -z "$want" ] && return 0
	command -v npm >/dev/null || { echo "netsweep: npm is needed for:$want (Node.js 18 or later)" >&2; return 1; }
	if [ "$(id -u)" != 0 ]; then
		echo "netsweep: missing npm packages:$want (install: sudo npm install -g$want)" >&2
		return 1
	fi
	echo "netsweep: installing npm packages:$want"
	# shellcheck disable=SC2086
	npm install -g --no-audit --no-fund $want >/dev/null || {
		echo "netsweep: npm install failed for:$want" >&2
		return 1
	}
}
[ "${1:-build}" = deb ] && PKGS="$PKGS dpkg-dev fakeroot debhelper"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && { npm_test "${1:-build}"; exit; }

if [ "$(id -u)" != 0 ]; then
	echo "netsweep: missing Debian packages:$missing" >&2
	echo "netsweep: install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "netsweep: installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null || { echo "netsweep: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null || {
	echo "netsweep: apt-get install failed for:$missing" >&2
	exit 1
}
npm_test "${1:-build}"
