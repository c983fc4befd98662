#!/bin/bash
# QUIC benchmark (make bench; not a test, issue 41): on one veth between two namespaces of our
# own, unshaped, the server/agent end sending to the client end:
#  - ngtcp2's own example server and client (Debian's ngtcp2-server/-client: gtlsserver,
#    gtlsclient) fetching a BENCH_QUIC_MB file (default 300 MiB, sparse, from the page cache;
#    the client discards it: --no-http-dump without --download), timed from the client's
#    start to its exit (its handshake included), both processes' CPU from /proc and `time`;
#  - netsweep probe --quic -R for BENCH_QUIC_SECS (default 4) after a 1 s omit;
#  - netsweep probe -R (TCP) alike, for CPU per Gbit/s.
# Both tools use ngtcp2 0.12.1 with GnuTLS and CUBIC. Each runs BENCH_QUIC_ROUNDS times
# (default 2), in turn so that they share the machine's state; the best round of each counts.
# Prints the goodputs, each end's CPU per Gbit/s (% of one core for 1 Gbit/s) and the ratios
# the issue judges on: netsweep QUIC >= 1.0x ngtcp2's example (stretch 1.5x), and QUIC's CPU
# per Gbit/s against netsweep TCP's.
HERE=$(cd "$(dirname "$0")" && pwd)
NETNS_NICE= # every tool at the same priority
source "$HERE/../lib/netns.sh"
netns_require

MB=${BENCH_QUIC_MB:-300}
SECS=${BENCH_QUIC_SECS:-4}
ROUNDS=${BENCH_QUIC_ROUNDS:-2}
C=10.66.41.1 S=10.66.41.2 P_NS=5441 P_NG=5442
have() { command -v "$1" >/dev/null 2>&1; }
netns_pair q41 qc qs "$C" "$S" >/dev/null || { echo "bench: namespace setup failed" >&2; exit 1; }
netns_netsweep_ready && netns_agent qs "$S" "$P_NS" || { echo "bench: netsweep agent did not start" >&2; exit 1; }
if ! "$NETNS_NETSWEEP" probe --help 2>&1 | grep -q -- --quic; then
	echo "bench: this netsweep has no --quic" >&2
	exit 1
fi

NG=""
if have gtlsserver && have gtlsclient && have openssl; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 \
		-subj /CN=bench -keyout "$NETNS_TMP/k.pem" -out "$NETNS_TMP/c.pem" >/dev/null 2>&1 &&
		mkdir -p "$NETNS_TMP/htdocs" && truncate -s "${MB}M" "$NETNS_TMP/htdocs/big" &&
		NG=yes
	netns_exec qs gtlsserver -q -d "$NETNS_TMP/htdocs" "$S" "$P_NG" "$NETNS_TMP/k.pem" \
		"$NETNS_TMP/c.pem" >"$NETNS_TMP/ngserver.log" 2>&1 &
	sleep 0.5
	for p in $(ip netns pids q41-qs); do # the server itself, not the shell that started it
		[ "$(cat "/proc/$p/comm" 2>/dev/null)" = gtlsserver ] && NG_PID=$p
	done
else
	echo "bench: no gtlsserver/gtlsclient (apt-get install ngtcp2-server ngtcp2-client) or openssl: netsweep only" >&2
fi

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
HZ=$(getconf CLK_TCK)
# ngtcp2: prints "Mbit/s client_cpu% server_cpu%" (CPU as % of one core over the transfer)
ngtcp2_round() {
	local t0 tk0 tk1 out=$NETNS_TMP/ngclient.time rc
	tk0=$(ticks "$NG_PID")
	TIMEFORMAT='%R %U %S'
	{ time netns_exec qc timeout 120 gtlsclient -q --no-quic-dump --no-http-dump \
		--exit-on-all-streams-close "$S" "$P_NG" "https://$S:$P_NG/big" \
		>"$NETNS_TMP/ngclient.log" 2>&1; } 2>"$out"
	rc=$?
	tk1=$(ticks "$NG_PID")
	[ "$rc" = 0 ] || { echo "bench: gtlsclient exited $rc: $(tail -1 "$NETNS_TMP/ngclient.log")" >&2; return 1; }
	awk -v mb="$MB" -v tk=$((tk1 - tk0)) -v hz="$HZ" '{ r = $1; printf "%.1f %.1f %.1f\n",
		mb * 1048576 * 8 / r / 1e6, ($2 + $3) / r * 100, tk / hz / r * 100 }' "$out"
}
# netsweep: prints "Mbit/s sender_cpu% receiver_cpu%"
netsweep_round() {
	local j=$NETNS_TMP/ns.json
	netns_probe qc "$j" "$S" -p "$P_NS" -R -t "$SECS" -O 1 "$@" ||
		{ echo "bench: netsweep probe $*: $(netns_probe_why "$j")" >&2; return 1; }
	jq -r '.sum | "\(.receiver.bits_per_second / 1e6) \(.sender.cpu_percent) \(.receiver.cpu_percent)"' "$j"
}
best() { sort -g -k1,1 | tail -1; } # the round with the highest goodput

: >"$NETNS_TMP/ng" ; : >"$NETNS_TMP/nq" ; : >"$NETNS_TMP/nt"
for ((r = 1; r <= ROUNDS; r++)); do
	[ -n "$NG" ] && ngtcp2_round >>"$NETNS_TMP/ng"
	netsweep_round --quic >>"$NETNS_TMP/nq"
	netsweep_round >>"$NETNS_TMP/nt"
done
read -r ng_mbps ng_ccpu ng_scpu <<<"$(best <"$NETNS_TMP/ng")"
read -r q_mbps q_scpu q_rcpu <<<"$(best <"$NETNS_TMP/nq")"
read -r t_mbps t_scpu t_rcpu <<<"$(best <"$NETNS_TMP/nt")"

per_gbit() { awk -v c="$1" -v m="$2" 'BEGIN { if (m + 0 > 0) printf "%.1f", c / (m / 1000); else printf "n/a" }'; }
line() { printf "  %-34s %10s Mbit/s   CPU per Gbit/s: sender %6s %%, receiver %6s %%\n" "$@"; }
ratio() {
	awk -v n="$1" -v a="$2" -v b="$3" -v t="$4" -v s="$5" 'BEGIN {
		if (a == "" || b == "" || a == "n/a" || b == "n/a" || b + 0 == 0) { printf "  %-44s n/a\n", n; exit }
		r = a / b
		if (t == "") { printf "  %-44s %.2fx\n", n, r; exit }
		met = (r >= t) ? "met" : "NOT met"
		st = ""
		if (s != "") st = (r >= s) ? sprintf(", stretch %.1fx met", s) : sprintf(", stretch %.1fx not met", s)
		printf "  %-44s %.2fx (goal >= %.1fx: %s%s)\n", n, r, t, met, st }'
}
echo "QUIC bench: veth $C -> $S unshaped, server/agent sending, best of $ROUNDS rounds (load average $(cut -d' ' -f1 /proc/loadavg))"
[ -n "$NG" ] && line "ngtcp2 example (gtlsserver/client)" "${ng_mbps:-n/a}" "$(per_gbit "$ng_scpu" "$ng_mbps")" "$(per_gbit "$ng_ccpu" "$ng_mbps")"
line "netsweep --quic" "${q_mbps%.*}" "$(per_gbit "$q_scpu" "$q_mbps")" "$(per_gbit "$q_rcpu" "$q_mbps")"
line "netsweep TCP" "${t_mbps%.*}" "$(per_gbit "$t_scpu" "$t_mbps")" "$(per_gbit "$t_rcpu" "$t_mbps")"
ratio "netsweep QUIC / ngtcp2 example goodput" "$q_mbps" "$ng_mbps" 1.0 1.5
ratio "QUIC / TCP sender CPU per Gbit/s" "$(per_gbit "$q_scpu" "$q_mbps")" "$(per_gbit "$t_scpu" "$t_mbps")"
ratio "QUIC / TCP receiver CPU per Gbit/s" "$(per_gbit "$q_rcpu" "$q_mbps")" "$(per_gbit "$t_rcpu" "$t_mbps")"
