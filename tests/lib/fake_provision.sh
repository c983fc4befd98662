#!/bin/bash
# A fake provisioner for the hook protocol (tests/integration/run_hooks.sh): instead of cloud
# instances, a network namespace per pair with a veth to this host and a netsweep agent in it.
#   fake_provision.sh setup N [fail]   namespace $FAKE_PREFIX-N, 10.212.N.2, agent on :7212;
#                                      "fail": exits 3 after creating the namespace (a setup
#                                      that fails half-way, leaving something to tear down)
#   fake_provision.sh teardown N       kills what runs in the namespace and deletes it
# Every call appends "HOOK PAIR TYPE REGION ATTEMPT RUN_ID" to $FAKE_LOG; the agent binary is
# $NETSWEEP. Logs go to stderr: stdout carries only the JSON object the runner reads.
set -u
what=$1 n=$2 mode=${3:-}
ns=$FAKE_PREFIX-$n
echo "$what ${NETSWEEP_PAIR:-} ${NETSWEEP_INSTANCE_TYPE:-} ${NETSWEEP_REGION:-} ${NETSWEEP_ATTEMPT:-} ${NETSWEEP_RUN_ID:-}" >>"$FAKE_LOG"
case $what in
setup)
	ip netns add "$ns" || exit 1
	echo "fake: made $ns" >&2
	ip link add "${FAKE_PREFIX}r$n" type veth peer name "${FAKE_PREFIX}n$n" netns "$ns" || exit 1
	ip addr add "10.212.$n.1/24" dev "${FAKE_PREFIX}r$n"
	ip link set "${FAKE_PREFIX}r$n" up
	ip -n "$ns" addr add "10.212.$n.2/24" dev "${FAKE_PREFIX}n$n"
	ip -n "$ns" link set "${FAKE_PREFIX}n$n" up
	ip -n "$ns" link set lo up
	if [ "$mode" = fail ]; then
		echo "fake: no capacity for pair $n" >&2
		exit 3
	fi
	# the agent outlives this script: its own session, nothing of ours held open
	# with the runner's key (NETSWEEP_PSK_FILE): a keyless agent serves loopback clients only
	ip netns exec "$ns" setsid "$NETSWEEP" agent --quiet --listen :7212 \
		${NETSWEEP_PSK_FILE:+--psk-file "$NETSWEEP_PSK_FILE"} </dev/null >/dev/null 2>&1 &
	echo "fake: started an agent in $ns" >&2
	printf '{"agent": "10.212.%s.2:7212", "namespace": "%s", "instance_id": "i-fake%s"}\n' "$n" "$ns" "$n"
	;;
teardown)
	for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
	for _ in $(seq 50); do [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break; sleep 0.1; done
	for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
	# the veth goes with the namespace, but only once the kernel gets to it: remove it now,
	# so that a setup right after (a resumed run) can make it again
	ip link del "${FAKE_PREFIX}r$n" 2>/dev/null
	# not a word on stderr but ours: `ip netns list` prints "Error: Peer netns reference is
	# invalid." for any namespace someone is making or removing at that moment (a plain file
	# in /run/netns before its mount, or after its unmount), and the hooks table keeps stderr
	if ip netns list 2>/dev/null | awk '{print $1}' | grep -qxF -- "$ns"; then ip netns del "$ns" || exit 1; fi
	echo "fake: removed $ns" >&2
	;;
*)
	echo "fake_provision.sh: setup or teardown" >&2
	exit 2
	;;
esac
