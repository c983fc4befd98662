#!/bin/sh
# netsweep provisioning hook that emulates the pair on this host instead of launching it:
# `netsweep lab up --hook` makes a network namespace shaped to the instance type's network
# figures and starts an agent in it, `netsweep lab down --hook` removes it (needs root). Any
# matrix written for real instances runs against it unchanged with
#
#   netsweep run MATRIX --provision lab          # every pair's hooks become this script's
#
# or, written into a pair:
#
#   <setup timeout="2m" wait="10s">data/provision/lab.sh setup</setup>
#   <teardown timeout="2m">data/provision/lab.sh teardown</teardown>
#
# setup prints {"agent": "198.18.N.2:5301", "client": null, "psk_file": "...", "emulation":
# {...}, ...}; the runner stores "emulation", so the pair's results say they were emulated and
# at what scale, and proves the key psk_file names to the agent: NETSWEEP_PSK_FILE when the
# run has a key, else the lab's own (made in its state directory, removed with its last pair).
# From netsweep: NETSWEEP_PAIR, NETSWEEP_INSTANCE_TYPE, NETSWEEP_PSK_FILE, NETSWEEP_BIN (the
# runner's own binary; else netsweep from PATH). Yours, all optional:
#   NETSWEEP_LAB_SCALE    every rate times this (1/100), stated in the results
#   NETSWEEP_LAB_RATE     goodputs over the catalog's (m4.large=436M,m4.xlarge=730M)
#   NETSWEEP_LAB_CREDIT   seconds an "up to" type keeps its burst (default 10)
#   NETSWEEP_LAB_PREFIX   namespace prefix (default nslab); NETSWEEP_LAB_DIR its state folder
#   NETSWEEP_LAB_CATALOG  an instance catalog over the default one
set -eu

what=${1:?usage: lab.sh setup|teardown}
bin=${NETSWEEP_BIN:-netsweep}
set --
[ -n "${NETSWEEP_LAB_PREFIX:-}" ] && set -- "$@" --prefix "$NETSWEEP_LAB_PREFIX"
case $what in
setup)
	[ -n "${NETSWEEP_LAB_SCALE:-}" ] && set -- "$@" --scale "$NETSWEEP_LAB_SCALE"
	[ -n "${NETSWEEP_LAB_RATE:-}" ] && set -- "$@" --rate "$NETSWEEP_LAB_RATE"
	[ -n "${NETSWEEP_LAB_CREDIT:-}" ] && set -- "$@" --credit "$NETSWEEP_LAB_CREDIT"
	[ -n "${NETSWEEP_LAB_CATALOG:-}" ] && set -- "$@" --catalog "$NETSWEEP_LAB_CATALOG"
	exec "$bin" lab up --hook "$@"
	;;
teardown)
	exec "$bin" lab down --hook "$@"
	;;
*)
	echo "lab.sh: '$what' is neither setup nor teardown" >&2
	exit 2
	;;
esac
