#!/bin/sh
# mk/image.sh STAGE BINARY [KUBECTL]: the image's root file system in STAGE/rootfs, from this
# build and nothing pulled: the binary and its data as `make install PREFIX=/usr` lays them
# out, exactly the shared libraries it loads (its ldd closure, with the loader), an account
# netsweep (uid and gid 10001) in /etc/passwd and /etc/group, /tmp and /var/lib/netsweep (the
# runner's database and reports). No shell, no package manager, no CA bundle: the agent and
# the runner need none. With KUBECTL, STAGE/runner gets that one static binary for the runner
# image (packaging/Containerfile.runner), which lists the cluster's agents with it, and
# gnuplot (with its libraries, data and a font) that draws the report's and the site's charts.
set -eu
stage=$1
bin=$2
kubectl=${3:-}
root=$stage/rootfs
rm -rf "$stage"
mkdir -p "$root"
make --no-print-directory install DESTDIR="$root" PREFIX=/usr >"$stage/install.log"
rm -rf "$root/usr/share/man" "$root/usr/share/netsweep/examples"
# libs BINARY DEST: every library BINARY loads, at the path the loader finds it (symlinks
# resolved), into DEST unless the image root has it already
libs() {
	ldd "$1" | awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' |
	while read -r lib; do
		[ -e "$root$lib" ] && continue
		mkdir -p "$2$(dirname "$lib")"
		cp -L "$lib" "$2$lib"
	done
}
libs "$bin" "$root"
# the loader is also looked for through its canonical path (/lib64 may be a symlink here)
interp=$(readelf -l "$bin" | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
	mkdir -p "$root$(dirname "$interp")"
	cp -L "$interp" "$root$interp"
fi
mkdir -p "$root/etc/netsweep" "$root/tmp" "$root/var/lib" "$stage/state"
chmod 1777 "$root/tmp"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnetsweep:x:10001:10001:netsweep:/var/lib/netsweep:/sbin/nologin\n' \
	>"$root/etc/passwd"
printf 'root:x:0:\nnetsweep:x:10001:\n' >"$root/etc/group"
chmod 0755 "$stage/state" # the Containerfile copies it to /var/lib/netsweep owned by netsweep
if [ -n "$kubectl" ]; then
	mkdir -p "$stage/runner/usr/bin" "$stage/runner/bin"
	cp -L "$kubectl" "$stage/runner/usr/bin/kubectl"
	cp -L /bin/sh "$stage/runner/bin/sh"
	libs /bin/sh "$stage/runner"
	# gnuplot, so the CronJob's report and site have their charts and the site its card.png:
	# the program (GNUPLOT, else the one on PATH), its libraries, its data, and the one font
	# fontconfig gives for "sans" with the configuration that finds it
	gp=$(command -v "${GNUPLOT:-gnuplot}" 2>/dev/null || true)
	if [ -n "$gp" ]; then
		gp=$(readlink -f "$gp")
		cp -L "$gp" "$stage/runner/usr/bin/gnuplot"
		libs "$gp" "$stage/runner"
		for d in /usr/share/gnuplot /etc/fonts; do
			[ -d "$d" ] && mkdir -p "$stage/runner$(dirname "$d")" && cp -rL "$d" "$stage/runner$d"
		done
		if command -v fc-match >/dev/null 2>&1; then
			for f in "$(fc-match -f '%{file}' sans)" "$(fc-match -f '%{file}' sans:bold)"; do
				[ -f "$f" ] || continue
				mkdir -p "$stage/runner$(dirname "$f")"
				cp -L "$f" "$stage/runner$f"
			done
		fi
		mkdir -p "$stage/runner/var/cache/fontconfig"
		chmod 1777 "$stage/runner/var/cache/fontconfig"
	else
		echo "mk/image.sh: no gnuplot here: the runner image's reports will have tables only" >&2
	fi
fi
du -sk "$root" | cut -f1
