#!/bin/bash
# The CLI dispatcher: help, version, unknown commands; probe and search parse the test options
# they share in one place (runner/client/probe_opts.c), so they word a bad value alike.
source "$(dirname "$0")/../lib/check.sh"

expect_exit "no command exits 2" 2 "$NETSWEEP"
expect_exit "--help exits 0" 0 "$NETSWEEP" --help
expect_exit "unknown command exits 2" 2 "$NETSWEEP" frobnicate
if "$NETSWEEP" --version | grep -Eq '^netsweep [0-9]+\.[0-9]+\.[0-9]+$'; then
	pass "--version prints a version"
else
	fail "--version prints a version"
fi
if "$NETSWEEP" --help | grep -q '^  probe '; then pass "--help lists probe"; else fail "--help lists probe"; fi
# a bad value of a shared option: exit 2 and the same words from both
same=1
for opt in "-P 0" "--threads 999" "-w 5X" "--connect-timeout 0x" "-A $(printf '%0300d' 0)"; do
	# shellcheck disable=SC2086
	p=$("$NETSWEEP" probe 127.0.0.1 -u $opt 2>&1 >/dev/null; echo "rc=$?")
	# shellcheck disable=SC2086
	s=$("$NETSWEEP" search 127.0.0.1 -u $opt 2>&1 >/dev/null; echo "rc=$?")
	if [ "${p#netsweep probe: }" != "${s#netsweep search: }" ] || [[ "$p" != *rc=2 ]] ||
		[[ $p != "netsweep probe: -"* ]]; then
		same=0
		fail "probe and search word a bad shared option alike" "$opt: probe '$p', search '$s'"
	fi
done
[ "$same" = 1 ] && pass "probe and search word a bad shared option alike: ${s%%$'\n'*}"
# a bad value names the option as typed, and a short one with its long name
for typed in "-b 100X:-b/--bitrate: '100X'" "--rate 100X:--rate: '100X'" "--bitrate=100X:--bitrate: '100X'"; do
	# shellcheck disable=SC2086
	m=$("$NETSWEEP" probe 127.0.0.1 ${typed%%:*} 2>&1)
	[[ $m == "netsweep probe: ${typed#*:}"* ]] && pass "probe ${typed%%:*}: the message names ${typed#*:}" ||
		fail "probe ${typed%%:*}: the message names the option" "$m"
done
finish
