#!/bin/bash
# The CLI dispatcher: help, version, unknown commands.
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
finish
