#!/bin/bash
# -Z benchmark (make bench; not a test): sender CPU per gigabit with and without MSG_ZEROCOPY,
# TCP, and UDP with GSO at BENCH_ZC_UDP_RATE (default 4G), on a namespace's loopback and across
# a veth pair, BENCH_ZC_ROUNDS rounds (default 2) in alternating order. On loopback and veth
# the kernel delivers to a local socket, so it copies the pinned pages at delivery (the
# completions say "copied"): the figures show what the pinning and completion handling cost
# there; the saving itself needs a NIC that sends from the pages.
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS_NICE=
source "$HERE/../lib/netns.sh"
netns_require

SECS=${BENCH_ZC_SECS:-5}
UDP="-u --gso -l 1400 -b ${BENCH_ZC_UDP_RATE:-4G}"
ROUNDS=${BENCH_ZC_ROUNDS:-2}
netns_pair i17b zs zr 10.66.17.65 10.66.17.66 >/dev/null || { echo "bench: namespace setup failed" >&2; exit 1; }
netns_netsweep_ready || { echo "bench: netsweep probe not available" >&2; exit 1; }
J=$NETNS_TMP/out.json
# An agent in each namespace: across the veth, and on the sender's loopback (with the same
# key: the probe offers it, exported by netns_agent, and a keyless agent cannot answer).
netns_agent zr 10.66.17.66 7191 -q || exit 1
ip netns exec i17b-zs "$NETNS_NETSWEEP" agent --listen 127.0.0.1:7190 --psk-file "$NETNS_PSK" -q &
netns_wait_tcp zs 127.0.0.1 7190 5 || exit 1

# one WHERE ADDR ARGS...: "goodput_bps sender_cpu_percent completions copied" of one run.
one() {
	local addr=$1
	shift
	timeout -k 5 $((SECS + 60)) ip netns exec i17b-zs "$NETNS_NETSWEEP" probe "$addr" -t "$SECS" \
		-O 1 -i 0 --json "$@" >"$J" 2>"$J.err" || { echo "bench: probe $addr $*: $(head -n 1 "$J.err")" >&2; echo "n/a n/a n/a n/a"; return; }
	echo "$(netns_json "$J" '$.sum.receiver.bits_per_second') $(netns_json "$J" '$.sum.sender.cpu_percent')" \
		"$(netns_json "$J" '$.zerocopy_completions') $(netns_json "$J" '$.zerocopy_copied')"
}

for where in "loopback/tcp 127.0.0.1:7190" "loopback/udp 127.0.0.1:7190 $UDP" \
	"veth/tcp 10.66.17.66:7191" "veth/udp 10.66.17.66:7191 $UDP"; do
	set -- $where
	name=$1 addr=$2
	shift 2
	for ((r = 1; r <= ROUNDS; r++)); do
		for mode in copy zerocopy; do
			[ $((r % 2)) = 0 ] && mode=$([ "$mode" = copy ] && echo zerocopy || echo copy)
			if [ "$mode" = zerocopy ]; then res=$(one "$addr" "$@" -Z); else res=$(one "$addr" "$@"); fi
			echo "$name $mode $res"
		done
	done
done | awk '
	{ k = $1 " " $2; if ($3 != "n/a") { g[k] += $3; c[k] += $4; n[k]++; done[k] += $5; cp[k] += $6 } }
	END {
		printf "%-12s %-9s %14s %12s %18s %20s\n", "link", "mode", "goodput", "sender CPU",
			"CPU % per Gbit/s", "completions (copied)"
		for (k in n) {
			split(k, a, " ")
			gb = g[k] / n[k] / 1e9
			printf "%-12s %-9s %10.2f Gbit/s %10.1f %% %18.2f %12d (%d)\n", a[1], a[2], gb,
				c[k] / n[k], (gb > 0 ? c[k] / n[k] / gb : 0), done[k] / n[k], cp[k] / n[k]
		}
	}' | sort
