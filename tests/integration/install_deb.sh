#!/bin/bash
# make install with DESTDIR/PREFIX gives a tree whose binary finds its data next to itself
# (also after the tree moves); make deb builds a package that dpkg installs (into a private
# root: this machine's own /usr is not touched) with the agent service. systemd does not run
# here: the unit is checked with systemd-analyze verify and its command is run by hand.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
ROOT=$(cd "$HERE/../.." && pwd)
T=$(mktemp -d) || exit 1
AGENT=
trap '[ -n "$AGENT" ] && kill "$AGENT" 2>/dev/null; rm -rf "$T"' EXIT
BUILD=${BUILD:-build}

if ! make -s -C "$ROOT" BUILD="$BUILD" install DESTDIR="$T/x" PREFIX=/usr >"$T/log" 2>&1; then
	fail "make install DESTDIR PREFIX=/usr" "$(tail -n 3 "$T/log")"
	finish
	exit
fi
for f in usr/bin/netsweep usr/share/netsweep/catalog/aws.xml usr/share/netsweep/matrices/quick.xml \
	usr/share/netsweep/schemas/matrix.xsd usr/share/netsweep/schemas/store.sql \
	usr/share/netsweep/provision/aws-ec2.sh usr/share/man/man1/netsweep.1.gz \
	usr/share/netsweep/examples/netsweep-nightly.timer; do
	[ -e "$T/x/$f" ] || missing="${missing:-} $f"
done
if [ -z "${missing:-}" ]; then pass "make install: binary, data, schemas, man page, examples"; else fail "make install: binary, data, schemas, man page, examples" "missing:$missing"; fi
if "$T/x/usr/bin/netsweep" run "$T/x/usr/share/netsweep/matrices/c5n-100g.xml" --dry-run >"$T/dry" 2>&1 &&
	grep -q "cases" "$T/dry"; then
	pass "the installed binary runs a shipped matrix with --dry-run"
else
	fail "the installed binary runs a shipped matrix with --dry-run" "$(tail -n 2 "$T/dry")"
fi
# Moved elsewhere, with a price only its own catalog has: the binary reads that catalog.
mv "$T/x" "$T/moved"
sed -i '0,/usd-per-hour="0.1" as-of="2024-06-01"/s//usd-per-hour="0.1234" as-of="2024-06-01"/' \
	"$T/moved/usr/share/netsweep/catalog/aws.xml"
if env -u NETSWEEP_CATALOG "$T/moved/usr/bin/netsweep" cost --region us-east-1 2>&1 | grep -q "^m4.large .* 0.1234 "; then
	pass "the binary finds its data relative to itself (PREFIX/share/netsweep)"
else
	fail "the binary finds its data relative to itself (PREFIX/share/netsweep)" "$("$T/moved/usr/bin/netsweep" cost --region us-east-1 2>&1 | head -n 3)"
fi
if man -l "$T/moved/usr/share/man/man1/netsweep.1.gz" 2>/dev/null | grep -q "db merge"; then pass "the man page renders"; else fail "the man page renders"; fi

# The package
if ! command -v dpkg-deb >/dev/null || ! command -v fakeroot >/dev/null; then
	skip "make deb" "dpkg-dev and fakeroot are needed (mk/deps.sh deb)"
	finish
	exit
fi
if make -s -C "$ROOT" BUILD="$BUILD" deb >"$T/log" 2>&1; then pass "make deb"; else fail "make deb" "$(tail -n 3 "$T/log")"; finish; exit; fi
deb=$(ls "$ROOT/$BUILD"/netsweep_*.deb | head -n 1)
R=$T/root
mkdir -p "$R/var/lib/dpkg/info" "$R/var/lib/dpkg/updates"
: >"$R/var/lib/dpkg/status"
# --root: a private dpkg database and tree; the maintainer scripts see DPKG_ROOT and leave
# this machine's systemd alone. Depends are this machine's, not the private root's.
if dpkg --root="$R" --force-depends --force-script-chrootless -i "$deb" >"$T/dpkg" 2>&1 &&
	dpkg --root="$R" -s netsweep 2>/dev/null | grep -q "^Status: install ok installed" &&
	[ -x "$R/usr/bin/netsweep" ] && [ -f "$R/lib/systemd/system/netsweep-agent.service" ] &&
	[ -d "$R/etc/netsweep" ] && "$R/usr/bin/netsweep" --version >/dev/null; then
	pass "dpkg -i installs the package"
else
	fail "dpkg -i installs the package" "$(tail -n 5 "$T/dpkg")"
fi
if dpkg-deb -c "$deb" 2>/dev/null | grep -q "etc/default/netsweep-agent"; then
	pass "the package ships the agent's defaults"
else
	fail "the package ships the agent's defaults"
fi
# Every library the packaged binary NEEDs, found from outside (readelf, the loader's cache,
# dpkg -S), belongs to a package the Depends name, at a version this machine satisfies.
depends=$(dpkg-deb -f "$deb" Depends)
uncovered="" needed=0
for so in $(readelf -d "$R/usr/bin/netsweep" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	needed=$((needed + 1))
	path=$(ldconfig -p | awk -v so="$so" '$1 == so { print $NF; exit }')
	pkg=$(dpkg -S "$path" 2>/dev/null || dpkg -S "$(realpath "$path" 2>/dev/null)" 2>/dev/null)
	pkg=${pkg%%:*}
	# "pkg (>= v)" among the comma-separated Depends, alternatives split at "|"
	want=$(tr ',|' '\n\n' <<<"$depends" | sed 's/^ *//' | awk -v p="$pkg" '$1 == p { print; exit }')
	ver=$(sed -n 's/.*(>= *\(.*\))/\1/p' <<<"$want")
	have=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null)
	if [ -z "$pkg" ] || [ -z "$want" ] || { [ -n "$ver" ] && ! dpkg --compare-versions "$have" ge "$ver"; }; then
		uncovered="$uncovered $so (${path:-not found} in ${pkg:-no package}, declared: ${want:-no})"
	fi
done
if [ "$needed" -gt 0 ] && [ -z "$uncovered" ]; then
	pass "every one of the $needed NEEDED libraries is in a declared Depends ($depends)"
else
	fail "every NEEDED library is in a declared Depends" "uncovered:${uncovered:- none read}"
fi
# ... and every library the loader brings in (ldd: the NEEDED ones' own too) is in the closure
# of those Depends over this machine's package database: a machine with only the declared
# Depends (and what they depend on) has every library the binary loads.
closure=$T/closure
tr ',|' '\n\n' <<<"$depends" | sed 's/^ *//; s/[ :(].*//' | grep . | sort -u >"$closure"
todo=$(cat "$closure")
while [ -n "$todo" ]; do
	next=""
	for p in $todo; do
		for q in $(dpkg-query -W -f='${Depends},${Pre-Depends}\n' "$p" 2>/dev/null | tr ',|' '\n\n' |
			sed 's/^ *//; s/[ :(].*//' | grep . | sort -u); do
			grep -qx "$q" "$closure" || { echo "$q" >>"$closure"; next="$next $q"; }
		done
	done
	todo=$next
done
outside="" loaded=0
for lib in $(ldd "$R/usr/bin/netsweep" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'); do
	loaded=$((loaded + 1))
	pkg=$(dpkg -S "$lib" 2>/dev/null || dpkg -S "$(realpath "$lib")" 2>/dev/null)
	pkg=${pkg%%:*}
	grep -qx "${pkg:-none}" "$closure" || outside="$outside $lib (${pkg:-no package})"
done
if [ "$loaded" -gt "$needed" ] && [ -z "$outside" ]; then
	pass "all $loaded libraries it loads come with the declared Depends ($(wc -l <"$closure") packages)"
else
	fail "every library it loads comes with the declared Depends" "outside:${outside:- none loaded}"
fi
recommends=$(dpkg-deb -f "$deb" Recommends)
if grep -q gnuplot <<<"$recommends" && grep -q iproute2 <<<"$recommends"; then
	pass "the programs it runs are recommended: $recommends"
else
	fail "the programs it runs are recommended (gnuplot, iproute2)" "Recommends: $recommends"
fi
# The key: the agent service serves with /etc/netsweep/agent.psk, the nightly example runs with it
unit=$R/lib/systemd/system/netsweep-agent.service nightly=$R/usr/share/netsweep/examples/netsweep-nightly.service
if grep -q '^LoadCredential=psk:/etc/netsweep/agent.psk$' "$unit" && grep -q '^ExecStart=.* --psk-file %d/psk' "$unit" &&
   grep -q '^Environment=NETSWEEP_PSK_FILE=/etc/netsweep/agent.psk$' "$nightly"; then
	pass "the agent service and the nightly example carry the key /etc/netsweep/agent.psk"
else
	fail "the agent service and the nightly example carry the key /etc/netsweep/agent.psk"
fi
if command -v systemd-analyze >/dev/null; then
	# verify resolves ExecStart on this host: point it at the package's binary
	sed "s|/usr/bin/netsweep|$R/usr/bin/netsweep|; /^Documentation=/d" \
		"$R/lib/systemd/system/netsweep-agent.service" >"$T/netsweep-agent.service"
	if systemd-analyze verify "$T/netsweep-agent.service" >"$T/verify" 2>&1; then
		pass "systemd-analyze verify netsweep-agent.service"
	else
		fail "systemd-analyze verify netsweep-agent.service" "$(head -n 3 "$T/verify")"
	fi
else
	skip "systemd-analyze verify netsweep-agent.service" "systemd-analyze is not installed"
fi
# The service's command as systemd would run it: %d = the credentials folder holding the key.
if ! "$R/usr/bin/netsweep" agent --help 2>&1 | grep -q -- --psk-file; then
	skip "the service's command starts an agent" "this netsweep's agent has no --psk-file yet"
else
	mkdir "$T/creds" && "$R/usr/bin/netsweep" key "$T/creds/psk" # hex, mode 0600: the agent checks both
	cmd=$(sed -n 's/^ExecStart=//p' "$R/lib/systemd/system/netsweep-agent.service")
	cmd=${cmd//%d/$T/creds}
	cmd=${cmd//\/usr\/bin\/netsweep/$R/usr/bin/netsweep}
	cmd=${cmd//\$NETSWEEP_AGENT_ARGS/--listen 127.0.0.1:7213}
	# shellcheck disable=SC2086 # the unit's command line, split as systemd splits it
	$cmd &
	AGENT=$!
	for _ in $(seq 50); do ss -Hltn 'sport = :7213' | grep -q . && break; sleep 0.1; done
	if ss -Hltn 'sport = :7213' | grep -q .; then pass "the service's command starts an agent"; else fail "the service's command starts an agent" "$cmd"; fi
fi
if dpkg --root="$R" --force-script-chrootless -P netsweep >/dev/null 2>&1 && [ ! -e "$R/usr/bin/netsweep" ]; then
	pass "dpkg -P removes it"
else
	fail "dpkg -P removes it"
fi
finish
