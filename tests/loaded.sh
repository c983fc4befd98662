#!/bin/sh
# make test-loaded: `make test` with CPU hogs beside it (stress-ng --cpu N, N = NS_LOAD_CPUS,
# default 4), stopped after however the suite ends. The suite must hold on an oversubscribed
# machine: a rate check passes on the rate when the result is not flagged and on the flag
# (sender_limited, limited_by) when it is.
N=${NS_LOAD_CPUS:-4}
MAKE=${MAKE:-make}
if ! command -v stress-ng >/dev/null 2>&1; then
	echo "make test-loaded: stress-ng is not installed (apt-get install stress-ng)" >&2
	exit 2
fi
stress-ng --cpu "$N" --quiet &
HOGS=$!
trap 'kill "$HOGS" 2>/dev/null; wait "$HOGS" 2>/dev/null' EXIT INT TERM
echo "make test-loaded: $N CPU hogs (stress-ng pid $HOGS) beside make test"
"$MAKE" --no-print-directory test
