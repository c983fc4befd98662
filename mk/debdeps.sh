#!/bin/sh
# mk/debdeps.sh BINARY: the package's Depends, computed from the binary: every library it
# NEEDs mapped by dpkg-shlibdeps to the package that ships it, with the version its symbols
# need. Fails when a library belongs to no package (a local build would not install).
set -eu
bin=$(realpath "$1")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# dpkg-shlibdeps wants a source tree's debian/control; an empty one does for -O
mkdir "$tmp/debian"
: >"$tmp/debian/control"
if ! (cd "$tmp" && dpkg-shlibdeps -O "$bin") >"$tmp/out" 2>"$tmp/err"; then
	cat "$tmp/err" >&2
	exit 1
fi
# the binary is analysed where it was built, not in a debian/PACKAGE tree: that is expected
grep -v "should already be installed in their package's directory" "$tmp/err" >&2 || true
sed -n 's/^shlibs:Depends=//p' "$tmp/out" | grep .
