#!/bin/bash
# What a test reports is this test's own (issue 11), over a namespace pair:
#   - paced UDP after a forced 200 ms sender stall (NETSWEEP_TEST_SEND_STALL, the engine's test
#     hook) never exceeds the set rate by more than one send batch in any 10 ms interval of the
#     receiver's series: the pacer keeps a batch of credit, not the stall's worth;
#   - --bidir gives each direction its own CPU figure: with the forward direction held to
#     20 Mbit/s by tbf, the probe's sending threads use far less CPU than its receiving ones
#     (the figure used to be the whole process's, the same in both directions);
#   - unlimited UDP into a small -w: the loss reported equals the receiving socket's own
#     drops (SO_RXQ_OVFL) within 0.5 points, while another socket on the receiving host
#     dropping at the same time changes neither.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

CHECKS=("paced udp after a 200 ms stall stays within one batch per 10 ms"
	"bidir reports each direction's own cpu"
	"udp loss is the receiving socket's own drops, not the host's")
netns_need_netsweep "${CHECKS[@]}"

S=10.66.11.1 R=10.66.11.2 PORT=7111
netns_pair i11 ts tr "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
# The agent's senders sleep 200 ms once, 1 s after their start (reverse tests only send there).
if ! NETSWEEP_TEST_SEND_STALL=1000:200 netns_agent tr "$R" "$PORT"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
# A second agent: the other test whose socket drops at the same time.
if ! netns_agent tr "$R" $((PORT + 1)); then
	fail "${CHECKS[2]}" "the second agent did not start"
fi
OUT=$NETNS_TMP/probe.json
f() { netns_json "$OUT" "$1"; }
# q SQL: one figure from the probe's JSON; the intervals are the table `i` (sums only).
q() {
	sqlite3 :memory: "with i as (select json_extract(value, '\$.bytes') as bytes,
		json_extract(value, '\$.bits_per_second') as bps,
		json_extract(value, '\$.start_s') as t from json_each(readfile('$OUT'), '\$.intervals')
		where json_extract(value, '\$.stream') = -1) $1" 2>/dev/null
}

# 1400-byte datagrams at 100 Mbit/s: a send batch is 64 datagrams (UDP_MMSG_BATCH), 716,800
# bits, 7.2 ms at the rate. An interval's own length is bytes x 8 / its bits_per_second.
RATE=100000000 BATCH_BITS=716800
stall_paced() {
	netns_probe ts "$OUT" "$R:$PORT" -R --udp -b 100M -l 1400 -t 2 -i 0.01 -w 4M || {
		CHECK_MSG="probe failed: $(netns_probe_why "$OUT")"
		return 1
	}
	local n empty worst
	n=$(q "select count(*) from i")
	empty=$(q "select count(*) from i where bytes = 0")
	worst=$(q "select cast(max(bytes * 8 - $RATE * bytes * 8.0 / bps) as int) from i where bps > 0")
	CHECK_MSG="$n intervals, $empty empty (the stall), most over the rate ${worst:-?} bits (batch $BATCH_BITS)"
	[ "${n:-0}" -ge 150 ] || { CHECK_MSG="$CHECK_MSG: too few intervals"; return 1; }
	# the hook took: most of 200 ms of 10 ms intervals saw nothing
	[ "${empty:-0}" -ge 12 ] || { CHECK_MSG="$CHECK_MSG: no stall seen"; return 1; }
	[ -n "$worst" ] && [ "$worst" -le "$BATCH_BITS" ]
}
netns_check_runs "${CHECKS[0]}" stall_paced

# UDP, so that no ACKs queue behind the shaped direction: forward is held to 20 Mbit/s by tbf
# on the probe's side, with a queue far larger than a socket buffer so that the sender blocks
# instead of seeing drops; reverse runs unlimited.
bidir_cpu() {
	netns_probe ts "$OUT" "$R:$PORT" --bidir --udp -l 1400 -t 2 || {
		CHECK_MSG="probe failed: $(netns_probe_why "$OUT")"
		return 1
	}
	local snd rcv
	snd=$(f '$.sum.sender.cpu_percent') rcv=$(f '$.sum_reverse.receiver.cpu_percent')
	CHECK_MSG="probe's forward sender ${snd:-?} % CPU, reverse receiver ${rcv:-?} %"
	awk -v s="$snd" -v r="$rcv" 'BEGIN { exit !(s != "" && r != "" && r > 3 * s && r > 5) }'
}
netns_shape ts 20mbit 200000 100000000
netns_check_runs "${CHECKS[1]}" bidir_cpu
netns_clear ts

# Two unlimited UDP tests at once into receivers with a 64 KiB buffer, each dropping in its
# own socket. The first's loss must be its socket's drops; the host-wide counter, which
# counts the other's drops too, must be larger than its own socket's.
socket_drops() {
	local other=$NETNS_TMP/other.json lp sd sent pk lo kd
	netns_probe ts "$other" "$R:$((PORT + 1))" --udp -l 1400 -w 64K -t 3 &
	local opid=$!
	netns_probe ts "$OUT" "$R:$PORT" --udp -l 1400 -w 64K -t 3
	local rc=$?
	wait "$opid"
	[ "$rc" = 0 ] || { CHECK_MSG="probe failed: $(netns_probe_why "$OUT")"; return 1; }
	lp=$(f '$.sum.receiver.lost_percent') sd=$(f '$.sum.receiver.socket_drops')
	pk=$(f '$.sum.receiver.packets') lo=$(f '$.sum.receiver.lost')
	kd=$(f '$.sum.receiver.kernel_drops')
	local od
	od=$(netns_json "$other" '$.sum.receiver.socket_drops')
	sent=$(awk -v d="${sd:-0}" -v p="${pk:-0}" -v l="${lo:-0}" 'BEGIN { if (p + l > 0) printf "%.3f", d * 100 / (p + l) }')
	CHECK_MSG="lost ${lp:-?} % ($lo), own socket dropped ${sd:-?} = ${sent:-?} %, the other test's socket ${od:-?}, host-wide ${kd:-?}"
	[ "${lo:-0}" -ge 1000 ] || { CHECK_MSG="$CHECK_MSG: too little loss to compare"; return 1; }
	[ "${od:-0}" -ge 1000 ] || { CHECK_MSG="$CHECK_MSG: the other socket did not drop"; return 1; }
	awk -v l="$lp" -v s="$sent" -v k="$kd" -v d="$sd" -v o="$od" 'BEGIN {
		x = l - s; if (x < 0) x = -x; exit !(l != "" && s != "" && x <= 0.5 && k >= d + o / 2) }'
}
netns_check_runs "${CHECKS[2]}" socket_drops

finish
