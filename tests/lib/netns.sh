# Network-namespace harness for integration tests and benchmarks (source it from bash).
# Builds two-host topologies out of namespaces and a veth pair, shapes links with tbf, makes
# random loss with a tc BPF classifier (this kernel has no netem), and removes everything it
# created when the script exits, also on failure or signal.
#
#   source tests/lib/netns.sh            # installs `trap netns_cleanup EXIT`; idempotent
#   netns_require                        # "SKIP netns: why" and exit 0 without root / ip / tc
#   netns_pair PREFIX NS_A NS_B ADDR_A ADDR_B
#                                        # namespaces "PREFIX-NS_A", "PREFIX-NS_B", a veth pair
#                                        # between them, ADDR/24, lo and links up; prints the two
#                                        # namespace names; sets NETNS_A and NETNS_B; with
#                                        # NETNS_VETH_QUEUES=N each end has N tx and rx queues
#   netns_routed PREFIX C R S C_ADDR R1 R2 S_ADDR  # C and S a hop apart through router R
#   netns_dev NS [PEER]                  # the veth device inside NS (the one facing PEER)
#   netns_shape NS RATE [BURST] [LIMIT]  # tbf on NS's veth egress (RATE as tc: 500mbit, 1gbit)
#   netns_drop NS PERCENT                # clsact + BPF classifier dropping PERCENT % of IPv4
#   netns_tc_drops NS                    # the tbf qdisc's "dropped" counter (backlog drained)
#   netns_tc_stats NS                    # "SENT DROPPED" packets of the tbf, one snapshot
#   netns_wait_tcp NS ADDR PORT [SECS]   # waits (polling ss) until something listens
#   netns_cleanup                        # kills what runs in our namespaces, deletes them
#
# Every NS argument is either the full namespace name ("h6-a") or, as a shorthand, the NS_A /
# NS_B name given to netns_pair ("a"), resolved among the namespaces this script created.
# netns_pair with a namespace it already made adds a veth to it (a star: "netns_pair s3 c a1
# ..." then "netns_pair s3 c a2 ..."); shaping and drops apply to a namespace's first veth,
# so put them on the leaves.
# Extras: NETNS_TMP (a private directory removed at cleanup), netns_exec NS CMD...,
#   netns_clear NS (removes shaping and drop), netns_json FILE PATH (a field of a JSON file,
#   via sqlite3: jq is not a dependency), netns_within VALUE TARGET PCT (|V - T| <= PCT % of T),
#   netns_check_runs NAME FN ARGS (a noisy check, run up to 3 times).
# netsweep itself: netns_need_netsweep CHECK... (SKIP them all until agent and probe exist),
#   netns_agent NS ADDR PORT [ARGS], netns_probe NS OUT ARGS (JSON in OUT), netns_probe_why OUT.
#   Agents outside loopback need a key: netns_agent gives them NETNS_PSK (made with
#   `netsweep key` on first use) and exports NETSWEEP_PSK_FILE for probes and runs.

[ -n "${_NETNS_SH_LOADED:-}" ] && return 0
_NETNS_SH_LOADED=1

NETNS_ROOT=${NETNS_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
NETNS_TMP=$(mktemp -d "${TMPDIR:-/tmp}/netns.XXXXXX") || return 1
# Namespaces created, one per line, and their veths. Files rather than variables so that
# netns_pair may also run in a subshell (e.g. inside $(...)) and the parent still finds them.
_NETNS_LIST=$NETNS_TMP/namespaces
: >"$_NETNS_LIST"
_NETNS_DEVS=$NETNS_TMP/devices
: >"$_NETNS_DEVS"

netns_cleanup() {
	local ns pid i
	[ -f "$_NETNS_LIST" ] || return 0
	while read -r ns; do
		[ -n "$ns" ] || continue
		# Deleting a namespace only drops its name: processes inside would keep it (and its
		# addresses) alive, so end them first. They are ours: nothing else runs in these.
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -TERM "$pid" 2>/dev/null; done
		for i in 1 2 3 4 5 6 7 8 9 10; do
			[ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && break
			sleep 0.1
		done
		for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
		ip netns del "$ns" 2>/dev/null
	done <"$_NETNS_LIST"
	rm -rf "$NETNS_TMP"
}
trap netns_cleanup EXIT
# A signal ends the script through exit, so the EXIT trap runs.
trap 'exit 130' INT
trap 'exit 143' TERM

netns_require() {
	local why=""
	if [ "$(id -u)" != 0 ]; then why="not root"
	elif ! command -v ip >/dev/null 2>&1; then why="no ip (iproute2)"
	elif ! command -v tc >/dev/null 2>&1; then why="no tc (iproute2)"
	elif ! command -v ss >/dev/null 2>&1; then why="no ss (iproute2)"
	elif ! ip netns list >/dev/null 2>&1; then why="ip netns does not work here"
	fi
	if [ -n "$why" ]; then
		echo "SKIP netns: network-namespace tests need root and iproute2: $why"
		exit 0
	fi
}

# Full namespace name for a full or short name; fails when it is not one of ours.
_netns_resolve() {
	local want=$1 ns found=""
	while read -r ns; do
		[ "$ns" = "$want" ] && { echo "$ns"; return 0; }
		case $ns in *-"$want") found=$ns ;; esac
	done <"$_NETNS_LIST"
	[ -n "$found" ] && { echo "$found"; return 0; }
	echo "netns: '$want' is not a namespace this script created" >&2
	return 1
}

netns_exec() {
	local ns
	ns=$(_netns_resolve "$1") || return 1
	shift
	ip netns exec "$ns" "$@"
}

# Interface names are at most 15 bytes.
_netns_ifname() { printf '%s' "${1:0:15}"; }

netns_pair() {
	if [ $# -ne 5 ]; then
		echo "usage: netns_pair PREFIX NS_A NS_B ADDR_A ADDR_B" >&2
		return 2
	fi
	local prefix=$1 a="$1-$2" b="$1-$3" addr_a=$4 addr_b=$5 ns
	local dev_a dev_b
	dev_a=$(_netns_ifname "$a")
	dev_b=$(_netns_ifname "$b")
	[ "$dev_a" = "$dev_b" ] && dev_b=$(_netns_ifname "$prefix-peer")
	# A namespace this script already made gets one more veth (stars: one runner, several
	# agents), named after the peer so that it differs from the first.
	grep -qxF -- "$a" "$_NETNS_LIST" && dev_a=$(_netns_ifname "$b")
	grep -qxF -- "$b" "$_NETNS_LIST" && dev_b=$(_netns_ifname "$a")
	for ns in "$a" "$b"; do
		grep -qxF -- "$ns" "$_NETNS_LIST" && continue
		# The same test may run twice at once on a shared machine (two `make test`s): a lock
		# per namespace name, held until this script exits, makes the second wait instead of
		# deleting the first one's namespace. (Held only when netns_pair is not run in $(...).)
		local lockfd
		exec {lockfd}>"${TMPDIR:-/tmp}/netns-harness.$ns.lock" || return 1
		if ! flock -w 300 "$lockfd"; then
			echo "netns: namespace $ns still in use by another run after 300 s" >&2
			return 1
		fi
		# A namespace left by an earlier run that died without cleanup: reuse would mix state.
		if ip netns list | awk '{ print $1 }' | grep -qxF -- "$ns"; then
			ip netns del "$ns" 2>/dev/null
		fi
		ip netns add "$ns" || return 1
		echo "$ns" >>"$_NETNS_LIST"
		ip -n "$ns" link set lo up || return 1
	done
	# Created directly inside the namespaces, so the names never appear in the root namespace.
	ip link add "$dev_a" netns "$a" ${NETNS_VETH_QUEUES:+numtxqueues $NETNS_VETH_QUEUES numrxqueues $NETNS_VETH_QUEUES} type veth peer name "$dev_b" netns "$b" ${NETNS_VETH_QUEUES:+numtxqueues $NETNS_VETH_QUEUES numrxqueues $NETNS_VETH_QUEUES} || return 1
	ip -n "$a" addr add "$addr_a/24" dev "$dev_a" || return 1
	ip -n "$b" addr add "$addr_b/24" dev "$dev_b" || return 1
	# IPv4 only on the veth: no IPv6 router solicitations or MLD reports crossing the link,
	# so packet counts on it are exactly the test's traffic.
	ip netns exec "$a" sysctl -qw "net.ipv6.conf.$dev_a.disable_ipv6=1" 2>/dev/null
	ip netns exec "$b" sysctl -qw "net.ipv6.conf.$dev_b.disable_ipv6=1" 2>/dev/null
	ip -n "$a" link set "$dev_a" up || return 1
	ip -n "$b" link set "$dev_b" up || return 1
	# The veth carrier comes up asynchronously; wait (bounded) so the first packet is not lost.
	local i
	for i in $(seq 50); do
		ip -n "$a" -o link show "$dev_a" | grep -q 'state UP' &&
			ip -n "$b" -o link show "$dev_b" | grep -q 'state UP' && break
		sleep 0.05
	done
	# Permanent neighbour entries: no ARP exchange, so the first datagrams of a test are
	# neither held back nor dropped while an address resolves.
	local mac_a mac_b
	mac_a=$(ip -n "$a" -o link show "$dev_a" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	mac_b=$(ip -n "$b" -o link show "$dev_b" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p')
	ip -n "$a" neigh replace "$addr_b" lladdr "$mac_b" dev "$dev_a" nud permanent || return 1
	ip -n "$b" neigh replace "$addr_a" lladdr "$mac_a" dev "$dev_b" nud permanent || return 1
	# "NS PEER DEV" lines: netns_dev NS is NS's first veth, netns_dev NS PEER the one facing PEER.
	printf '%s %s %s\n' "$a" "$b" "$dev_a" "$b" "$a" "$dev_b" >>"$_NETNS_DEVS"
	NETNS_A=$a
	NETNS_B=$b
	echo "$a $b"
}

# netns_routed PREFIX C R S C_ADDR R1 R2 S_ADDR: client C and server S a hop apart through
# router R (C_ADDR and R1 on one /24, R2 and S_ADDR on another; routes both ways), with GSO,
# TSO and GRO off along the path so that a tbf on R's veth towards S (netns_dev R S) sees
# MTU-sized packets. A queue there is a hop away from the sender, as a real bottleneck is:
# on the sender's own egress TCP small queues keep a qdisc nearly empty. Prints nothing.
netns_routed() {
	local p=$1 c=$2 r=$3 s=$4 ns d
	{ netns_pair "$p" "$c" "$r" "$5" "$6" && netns_pair "$p" "$r" "$s" "$7" "$8"; } >/dev/null ||
		return 1
	netns_exec "$r" sysctl -qw net.ipv4.ip_forward=1 || return 1
	netns_exec "$c" ip route add "${8%.*}.0/24" via "$6" || return 1
	netns_exec "$s" ip route add "${5%.*}.0/24" via "$7" || return 1
	for ns in "$c" "$r" "$s"; do
		for d in $(netns_exec "$ns" ls /sys/class/net); do
			[ "$d" = lo ] || netns_exec "$ns" ethtool -K "$d" gso off tso off gro off >/dev/null 2>&1
		done
	done
}

netns_dev() {
	local ns dev peer
	ns=$(_netns_resolve "$1") || return 1
	if [ -n "${2:-}" ]; then
		peer=$(_netns_resolve "$2") || return 1
		dev=$(awk -v n="$ns" -v p="$peer" '$1 == n && $2 == p { print $3; exit }' "$_NETNS_DEVS")
	else
		dev=$(awk -v n="$ns" '$1 == n { print $3; exit }' "$_NETNS_DEVS")
		# A namespace registered in the list but wired by its script itself: its first veth.
		[ -n "$dev" ] ||
			dev=$(ip -n "$ns" -o link show type veth | sed -n '1s/^[0-9]*: \([^@:]*\).*/\1/p')
	fi
	[ -n "$dev" ] || { echo "netns: no veth in $ns${peer:+ facing $peer}" >&2; return 1; }
	echo "$dev"
}

# Bits per second of a tc-style rate ("500mbit", "1gbit", "64kbit", "1000000bit", "500M").
_netns_rate_bps() {
	awk -v r="$1" 'BEGIN {
		n = r + 0; u = tolower(substr(r, length(n "") + 1));
		if (n <= 0) exit 1;
		if (u == "" || u == "bit") m = 1;
		else if (u == "k" || u == "kbit") m = 1e3;
		else if (u == "m" || u == "mbit") m = 1e6;
		else if (u == "g" || u == "gbit") m = 1e9;
		else exit 1;
		printf "%.0f\n", n * m }'
}

netns_shape() {
	local ns dev rate bps burst limit
	ns=$(_netns_resolve "$1") || return 1
	dev=$(netns_dev "$ns") || return 1
	bps=$(_netns_rate_bps "$2") || { echo "netns: bad rate '$2'" >&2; return 2; }
	rate=${bps}bit
	# Default bucket: 4 ms at the rate (one timer tick at HZ=250 so tbf never starves between
	# ticks) and at least a few full 64 KiB GSO packets, which veth hands to tbf unsplit.
	burst=${3:-$(awk -v b="$bps" 'BEGIN { x = b / 8 * 0.004; if (x < 200000) x = 200000; printf "%.0f", x }')}
	# Default queue: 20 ms at the rate on top of the bucket.
	limit=${4:-$(awk -v b="$bps" -v k="$burst" 'BEGIN { printf "%.0f", k + b / 8 * 0.02 }')}
	ip netns exec "$ns" tc qdisc replace dev "$dev" root tbf rate "$rate" burst "$burst" \
		limit "$limit"
}

# Builds (once per share, cached in NETNS_TMP) the classifier for PERCENT, with the same flags
# as mk/harness.mk, and prints the object's path.
_netns_drop_obj() {
	local pct=$1 thr obj
	thr=$(awk -v p="$pct" 'BEGIN { if (p !~ /^[0-9]+(\.[0-9]+)?$/ || p > 100) exit 1;
		t = p / 100 * 4294967296; if (t > 4294967295) t = 4294967295; printf "%.0f", t }') ||
		{ echo "netns: bad drop percent '$pct'" >&2; return 2; }
	obj=$NETNS_TMP/drop-$thr.o
	if [ ! -f "$obj" ]; then
		command -v clang >/dev/null 2>&1 || { echo "netns: clang is needed for netns_drop" >&2; return 1; }
		clang -O2 -target bpf -I/usr/include/x86_64-linux-gnu -DDROP_THRESHOLD="${thr}u" \
			-c "$NETNS_ROOT/tests/bpf/drop.c" -o "$obj" || return 1
	fi
	echo "$obj"
}

netns_drop() {
	local ns dev obj
	ns=$(_netns_resolve "$1") || return 1
	dev=$(netns_dev "$ns") || return 1
	obj=$(_netns_drop_obj "$2") || return $?
	ip netns exec "$ns" tc qdisc replace dev "$dev" clsact || return 1
	ip netns exec "$ns" tc filter del dev "$dev" egress 2>/dev/null
	ip netns exec "$ns" tc filter add dev "$dev" egress bpf da obj "$obj" sec classifier
}

# Back to a plain link: no tbf, no classifier.
netns_clear() {
	local ns dev
	ns=$(_netns_resolve "$1") || return 1
	dev=$(netns_dev "$ns") || return 1
	ip netns exec "$ns" tc qdisc del dev "$dev" root 2>/dev/null
	ip netns exec "$ns" tc qdisc del dev "$dev" clsact 2>/dev/null
	return 0
}

netns_json() {
	sqlite3 :memory: "select json_extract(readfile('$1'), '$2')" 2>/dev/null
}

netns_within() {
	awk -v v="$1" -v t="$2" -v p="$3" 'BEGIN {
		if (v !~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/) exit 1;
		d = v - t; if (d < 0) d = -d; exit !(d <= p / 100 * t) }'
}

# netns_rate_or_flag JSON WANT_BPS TOL_PCT [FIELD]: the receiver's rate in the probe result
# JSON (or the figure at jq path FIELD, e.g. .sum.receiver.shaping.sustained_bps) is within
# TOL_PCT of WANT_BPS, unless the result says the tool, not the path, set it — its sender
# offered more than 3 % less than asked (sum.limit.sender_limited, with a cause and its
# warning) or a thread of either end used a whole core or waited for one a fifth of its time
# (limited_by sender_cpu, receiver_cpu, steal) — and then that flag is what is checked: a busy
# machine may starve the tool, but never silently. Appends what it saw to CHECK_MSG.
netns_rate_or_flag() {
	local out=$1 want=$2 tol=$3 field=${4:-.sum.receiver.bits_per_second} lim bps
	lim=$(jq -r '.sum.limit | "\(.sender_limited) \(.shortfall_pct) \(.cause) \(.limited_by)"' "$out" 2>/dev/null)
	local flagged short cause by
	read -r flagged short cause by <<<"$lim"
	bps=$(jq -r "$field" "$out" 2>/dev/null)
	if [ "$flagged" = true ]; then
		CHECK_MSG="$CHECK_MSG; the sender fell short by $short % ($cause) and says so"
		[ -n "$cause" ] && awk -v s="$short" 'BEGIN { exit !(s > 3) }' &&
			jq -e '.warnings | map(select(test("the sender offered"))) | length == 1' "$out" >/dev/null
		return
	fi
	netns_within "$bps" "$want" "$tol" && return 0
	netns_tool_bound "$out"
}

# netns_flagged JSON: the probe result says the tool, not the path, set its figures — its
# sender fell short (sum.limit.sender_limited) or limited_by is a CPU of the tool or steal —
# so figures derived from its rate (a knee, a ratio of two runs) are not asserted.
netns_flagged() {
	jq -e '.sum.limit | .sender_limited == true or (.limited_by | IN("sender_cpu", "receiver_cpu", "steal"))' "$1" >/dev/null 2>&1
}

# netns_tool_bound JSON: the probe result says a CPU of the tool, not the path, set its figure
# — limited_by sender_cpu, receiver_cpu or steal, with the evidence for it: a thread of either
# end at >= 90 % of a core, >= 10 % of a host's CPU stolen, or a thread waiting for a CPU
# >= 20 % of its time. Appends what it saw to CHECK_MSG.
netns_tool_bound() {
	local out=$1 by
	by=$(jq -r '.sum.limit.limited_by' "$out" 2>/dev/null)
	CHECK_MSG="$CHECK_MSG; limited_by '$by' (busiest threads $(jq -r '.sum.limit | "\(.sender_thread_cpu) / \(.receiver_thread_cpu) % CPU, waited for a CPU \(.sender_runq_pct) / \(.receiver_runq_pct) %"' "$out" 2>/dev/null))"
	case $by in
	sender_cpu | receiver_cpu | steal) ;;
	*) return 1 ;;
	esac
	CHECK_MSG="$CHECK_MSG, as the result says"
	awk -v c="$(jq -r '.sum.limit | [.sender_thread_cpu, .receiver_thread_cpu] | max' "$out")" \
		-v st="$(jq -r '.sum.limit | [.sender_steal_pct, .receiver_steal_pct] | max' "$out")" \
		-v rq="$(jq -r '.sum.limit | [.sender_runq_pct, .receiver_runq_pct] | max' "$out")" \
		'BEGIN { exit !(c >= 90 || st >= 10 || rq >= 20) }'
}

# netns_tc_stats NS: "SENT DROPPED" packets of NS's tbf, from one `tc -s` snapshot taken once
# its backlog is empty (waits up to 5 s). tbf counts a drop when a packet is offered and Sent
# when it leaves, so only with nothing queued has every packet offered so far been counted in
# one or the other.
netns_tc_stats() {
	local ns dev i snap
	ns=$(_netns_resolve "$1") || return 1
	dev=$(netns_dev "$ns") || return 1
	for i in $(seq 100); do
		snap=$(ip netns exec "$ns" tc -s qdisc show dev "$dev" | awk '
			/^qdisc tbf/ { t = 1; next }
			/^qdisc/ { t = 0 }
			t && /Sent/ { s = $4; d = $7; sub(/,.*/, "", d) }
			t && /backlog/ { b = $3 }
			END { if (s == "" || d == "" || b == "") exit 1; print s, d, b }') || return 1
		[ "${snap##* }" = 0p ] && { echo "${snap% *}"; return 0; }
		sleep 0.05
	done
	echo "netns: tbf on $dev in $ns still holds a backlog after 5 s" >&2
	return 1
}

# netns_tc_drops NS: the tbf qdisc's "dropped" counter, once its backlog is empty.
netns_tc_drops() {
	local st
	st=$(netns_tc_stats "$1") || return 1
	echo "${st#* }"
}

netns_wait_tcp() {
	local ns addr=$2 port=$3 secs=${4:-5} deadline
	ns=$(_netns_resolve "$1") || return 1
	deadline=$(( $(date +%s%N) + secs * 1000000000 ))
	while :; do
		# A listener on the address itself or on a wildcard ([::] also takes IPv4 when dual-stack).
		if ip netns exec "$ns" ss -Hltn "sport = :$port" 2>/dev/null |
			awk -v a="$addr" '{ l = $4; sub(/:[0-9]+$/, "", l); gsub(/[][]/, "", l); sub(/%.*/, "", l) }
				l == a || l == "0.0.0.0" || l == "*" || l == "::" || l == "::ffff:" a { ok = 1 }
				END { exit !ok }'; then
			return 0
		fi
		[ "$(date +%s%N)" -ge "$deadline" ] && break
		sleep 0.05
	done
	echo "netns: nothing listens on $addr:$port in $ns after ${secs}s" >&2
	return 1
}

# --- netsweep's own ends in namespaces (used by the accuracy tests and benchmarks).
NETNS_NETSWEEP=${NETSWEEP:-$NETNS_ROOT/build/netsweep}

# Agent and probe run at a raised priority (NETNS_NICE, default -10; empty for none): on a
# small machine shared with builds and other tests, a starved sender or receiver shows up as
# a wrong rate or as loss, which is not what the accuracy tests measure.
NETNS_NICE=${NETNS_NICE--10}
NETNS_NICE_CMD=${NETNS_NICE:+nice -n $NETNS_NICE}

# netns_check_runs NAME FN ARGS...: a check (FN sets CHECK_MSG, returns 0 when it holds) for
# figures that CPU contention can spoil. On a failure it is run again, up to NETNS_CHECK_RUNS
# runs (default 3) in all, each failed run printed as a comment. A systematic error fails them
# all. Needs tests/lib/check.sh (pass/fail).
netns_check_runs() {
	local name=$1 run runs=${NETNS_CHECK_RUNS:-3}
	shift
	for ((run = 1; run <= runs; run++)); do
		CHECK_MSG=""
		if "$@"; then
			if [ "$run" = 1 ]; then pass "$name: $CHECK_MSG"; else pass "$name: $CHECK_MSG (run $run)"; fi
			return 0
		fi
		[ "$run" -lt "$runs" ] &&
			echo "# $name: run $run: $CHECK_MSG (load average $(cut -d' ' -f1 /proc/loadavg)); again"
	done
	fail "$name" "$CHECK_MSG ($runs runs, load average $(cut -d' ' -f1 /proc/loadavg))"
}

# True when the binary has a working agent and probe (not the placeholders). The binary is
# first copied into NETNS_TMP and used from there: colleagues rebuilding build/netsweep while a
# test runs would otherwise make an exec fail half-way ("Text file busy", "Permission denied").
netns_netsweep_ready() {
	local copy=$NETNS_TMP/netsweep try
	if [ "$NETNS_NETSWEEP" != "$copy" ]; then
		for try in 1 2 3; do
			[ -x "$NETNS_NETSWEEP" ] && cp "$NETNS_NETSWEEP" "$copy" 2>/dev/null &&
				"$copy" --version >/dev/null 2>&1 && break
			rm -f "$copy"
			sleep 2 # missing or caught mid-link: a rebuild finishes within seconds
		done
		[ -x "$copy" ] || return 1
		NETNS_NETSWEEP=$copy
	fi
	"$NETNS_NETSWEEP" agent --help >/dev/null 2>&1 && "$NETNS_NETSWEEP" probe --help >/dev/null 2>&1
}

# netns_need_netsweep CHECK...: when agent and probe have not landed, prints a loud
# "SKIP CHECK: netsweep probe not available yet" for every check named, and exits 0.
netns_need_netsweep() {
	netns_netsweep_ready && return 0
	local c
	for c in "$@"; do echo "SKIP $c: netsweep probe not available yet"; done
	exit 0
}

# netns_agent NS ADDR PORT [ARGS...]: starts an agent in NS on ADDR:PORT (log in
# $NETNS_TMP/agent-NS-PORT.log, pid in NETNS_AGENT_PID) and waits until it listens; cleanup
# ends it with the namespace.
netns_key() {
	[ -n "${NETNS_PSK:-}" ] && return 0
	NETNS_PSK=$NETNS_TMP/psk.key
	"$NETNS_NETSWEEP" key "$NETNS_PSK" || return 1
	export NETSWEEP_PSK_FILE=$NETNS_PSK
}

netns_agent() {
	local ns addr=$2 port=$3 log
	ns=$(_netns_resolve "$1") || return 1
	shift 3
	netns_key || return 1
	log=$NETNS_TMP/agent-$ns-$port.log
	ip netns exec "$ns" $NETNS_NICE_CMD "$NETNS_NETSWEEP" agent --listen "$addr:$port" \
		--psk-file "$NETNS_PSK" "$@" >"$log" 2>&1 &
	NETNS_AGENT_PID=$!
	if ! netns_wait_tcp "$ns" "$addr" "$port" 5; then
		echo "netns: agent did not start: $(head -c 300 "$log")" >&2
		return 1
	fi
}

# netns_probe NS OUT ARGS...: runs `netsweep probe ARGS --json` in NS with stdout in OUT and
# stderr in OUT.err; bounded by a generous outer timeout in case the probe's own one fails.
netns_probe() {
	local ns out=$2
	ns=$(_netns_resolve "$1") || return 1
	shift 2
	timeout -k 5 120 ip netns exec "$ns" $NETNS_NICE_CMD "$NETNS_NETSWEEP" probe "$@" --json \
		>"$out" 2>"$out.err"
}

# Why a probe run failed, in one line: its JSON error, else the first line of its stderr.
netns_probe_why() {
	local why
	why=$(netns_json "$1" '$.error')
	[ -n "$why" ] || why=$(head -n 1 "$1.err" 2>/dev/null)
	echo "${why:-no output}"
}
