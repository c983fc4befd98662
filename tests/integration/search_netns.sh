#!/bin/bash
# The zero-loss rate search (netsweep search) over network namespaces, against figures from
# outside netsweep:
#   - behind tbf links of two rates and queue settings (100 Mbit/s with a 5 ms queue, 30 Mbit/s
#     with a 20 ms one), NDR and PDR 0.5 % for 64-byte and 1472-byte payloads (with
#     NETSWEEP_LONG=1 also 64 bytes at 100 Mbit/s and 512 at 30) lie within 5 % of
#     the packet rate tbf allows: tbf counts L2 bytes, payload + 42 (UDP 8, IPv4 20, Ethernet
#     14), so rate / 8 / (payload + 42). A goal the search calls sender-limited (a busy machine
#     kept the sender from offering the loads) is checked for what it claims instead: a floor
#     at or below what tbf allows, said in words;
#   - through a BPF classifier dropping 0.1 % at random (100 Mbit/s, 1472 bytes), NDR is reported as not met (never a
#     made-up rate) and PDR 0.5 % is found within 5 % of the clean link's;
#   - a sender held to a fifth of a CPU (a cgroup CPU quota) on an unshaped link cannot offer
#     the loads: the answer says "the sender could not offer more than X pps: NDR is at least
#     Y" (sender_limited), never "not met";
#   - the trials and their time stay within the worst case the dry run states.
# Short trials (0.3 s narrowing, 1 s confirming) keep this around a minute; the defaults
# (1 s and 5 s) are for real paths.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

# rate, burst, latency (tbf's queue) and the payload sizes searched behind it; make test has
# one 64-byte and one large search, make check-long (NETSWEEP_LONG=1) 64 bytes at 118 k pps
# and a middle size as well
if [ "${NETSWEEP_LONG:-0}" = 1 ]; then
	LINKS=("100mbit 32kb 5ms 64 1472" "30mbit 16kb 20ms 64 512")
else
	LINKS=("100mbit 32kb 5ms 1472" "30mbit 16kb 20ms 64")
fi
CHECKS=()
for link in "${LINKS[@]}"; do
	read -r rate burst lat sizes <<<"$link"
	for l in $sizes; do CHECKS+=("search NDR and PDR for $l bytes behind tbf $rate latency $lat"); done
done
CHECKS+=("search under 0.1 % random loss: NDR not met, PDR found"
	"search with the sender's CPU held back: NDR is at least what it offered"
	"search stays within its stated bounds")
netns_need_netsweep "${CHECKS[@]}"

S=10.66.14.1 R=10.66.14.2 PORT=$((20000 + RANDOM % 20000))
netns_pair srch ss sa "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
if ! netns_agent sa "$R" "$PORT"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
DEV=$(netns_dev ss)

SEARCH_ARGS=(--udp -w 4M --initial-duration 0.3 --final-duration 1 --width 1% --connect-timeout 3)
OUT=$NETNS_TMP/search.json
search_run() { # search_run OUT ARGS...: the search from namespace ss (SEARCH_WRAP before it)
	local out=$1
	shift
	timeout -k 5 300 ${SEARCH_WRAP:-} ip netns exec "$(_netns_resolve ss)" $NETNS_NICE_CMD \
		"$NETNS_NETSWEEP" search "$R:$PORT" "${SEARCH_ARGS[@]}" "$@" --json >"$out" 2>"$out.err"
}
j() { netns_json "$1" "$2"; }

# Goal G of search OUT against tbf's packet rate WANT: within 5 % when the search measured the
# path; when it says the sender bounded it, a floor no higher than tbf allows (5 % margin) and
# the sentence saying so.
goal_holds() { # goal_holds OUT G WANT
	local out=$1 g=$2 want=$3 lim low floor note
	lim=$(j "$out" "\$.goals[$g].sender_limited") low=$(j "$out" "\$.goals[$g].lower_pps")
	if [ "$lim" = 1 ]; then
		floor=$(j "$out" "\$.goals[$g].at_least_pps") note=$(j "$out" "\$.goals[$g].note")
		GOAL_MSG="sender-limited, at least ${floor:-?}"
		[ -n "$floor" ] && awk -v f="$floor" -v w="$want" 'BEGIN { exit !(f <= w * 1.05) }' &&
			[[ $note == *"the sender could not offer more than"*"is at least"* ]]
	else
		GOAL_MSG="${low:-not met}"
		[ "$(j "$out" "\$.goals[$g].met")" = 1 ] && netns_within "$low" "$want" 5
	fi
}

declare -A CLEAN_PDR
# One size's search behind the current tbf, checked against tbf's packet rate; a search whose
# goals a loaded machine left sender-limited is run again (netns_check_runs) and accepted as
# such, with its claims checked, on the last run.
check_size() {
	local l=$1 rate_bps=$2 want out m0 m1 ok=0
	CHECK_RUN=$((CHECK_RUN + 1))
	want=$(awk -v l="$l" -v r="$rate_bps" 'BEGIN { printf "%.1f", r / 8 / (l + 42) }')
	out=$NETNS_TMP/search-$l-$rate_bps.json
	search_run "$out" -l "$l" || { CHECK_MSG="search failed: $(head -c 300 "$out.err")"; return 1; }
	CLEAN_PDR[$l-$rate_bps]=$(j "$out" '$.goals[1].lower_pps')
	cp "$out" "$OUT"
	goal_holds "$out" 0 "$want" && ok=$((ok + 1))
	m0=$GOAL_MSG
	goal_holds "$out" 1 "$want" && ok=$((ok + 1))
	m1=$GOAL_MSG
	CHECK_MSG="NDR $m0, PDR $m1 pps, tbf allows $want ($(j "$out" '$.n_trials') trials)"
	[ "$ok" = 2 ] || return 1
	# a floor well below the link (a busy machine's sender) is true but no measurement of the
	# link: try again first. tbf's own back-pressure on the sender (its queue fills the
	# socket's buffer) leaves a floor at the link's rate, which is the answer.
	if [ "$(j "$out" '$.goals[0].sender_limited')" = 1 ] && [ "$CHECK_RUN" -lt "${NETNS_CHECK_RUNS:-3}" ] &&
		! netns_within "$(j "$out" '$.goals[0].at_least_pps')" "$want" 5; then
		CHECK_MSG="$CHECK_MSG: sender-limited well below the link"
		return 1
	fi
	return 0
}
for link in "${LINKS[@]}"; do
	read -r rate burst lat sizes <<<"$link"
	netns_exec ss tc qdisc replace dev "$DEV" root tbf rate "$rate" burst "$burst" latency "$lat" ||
		{ fail "tbf setup" "tc refused tbf rate $rate burst $burst latency $lat"; exit 1; }
	rate_bps=$(awk -v r="$rate" 'BEGIN { printf "%d", r * 1e6 }') # "100mbit": awk reads 100
	for l in $sizes; do
		CHECK_RUN=0
		netns_check_runs "search NDR and PDR for $l bytes behind tbf $rate latency $lat" \
			check_size "$l" "$rate_bps"
	done
done

# Bounds: what the last search ran against what the dry run states for the same settings.
bounds=$NETNS_TMP/bounds.json
name="search stays within its stated bounds"
if ip netns exec "$(_netns_resolve ss)" "$NETNS_NETSWEEP" search "$R:$PORT" "${SEARCH_ARGS[@]}" \
	-l 64 --dry-run --json >"$bounds" 2>/dev/null; then
	mt=$(j "$bounds" '$.max_trials') ms=$(j "$bounds" '$.max_seconds')
	nt=$(j "$OUT" '$.n_trials') el=$(j "$OUT" '$.elapsed_s')
	if [ -n "$nt" ] && [ "$nt" -le "$mt" ] && awk -v e="$el" -v m="$ms" 'BEGIN { exit !(e <= m) }'; then
		pass "$name: $nt trials in $el s, stated at most $mt trials and $ms s"
	else
		fail "$name" "$nt trials in $el s, stated at most $mt trials and $ms s"
	fi
else
	fail "$name" "the dry run failed"
fi

# 0.1 % random loss on top of the 100 Mbit/s tbf, at 1472 bytes.
name="search under 0.1 % random loss: NDR not met, PDR found"
check_random_loss() {
	local met0 low0 pdr clean=${CLEAN_PDR[1472-100000000]} lim0 lim1
	netns_exec ss tc qdisc replace dev "$DEV" root tbf rate 100mbit burst 32kb latency 5ms
	search_run "$OUT" -l 1472 || { CHECK_MSG="search failed: $(head -c 300 "$OUT.err")"; return 1; }
	met0=$(j "$OUT" '$.goals[0].met') low0=$(j "$OUT" '$.goals[0].lower_pps')
	pdr=$(j "$OUT" '$.goals[1].lower_pps')
	lim0=$(j "$OUT" '$.goals[0].sender_limited') lim1=$(j "$OUT" '$.goals[1].sender_limited')
	CHECK_MSG="NDR met=$met0 lower=$low0 sender-limited=$lim0 ($(j "$OUT" '$.goals[0].note')), PDR $pdr pps (sender-limited=$lim1) vs $clean clean"
	[ "$met0" = 0 ] && [ -z "$low0" ] && [ -n "$clean" ] && [ "$lim1" = 0 ] && netns_within "$pdr" "$clean" 5
}
if ! netns_drop ss 0.1; then
	skip "$name" "no BPF drop classifier (clang or tc bpf missing)"
else
	netns_check_runs "$name" check_random_loss
fi
netns_clear ss

# The sender held to a fifth of one CPU by a CPU cgroup (v1 cpu controller or v2 cpu.max):
# on an unshaped veth the receiver keeps up with whatever it sends, so every goal's bracket
# ends where the sender gives out.
name="search with the sender's CPU held back: NDR is at least what it offered"
CG=""
cpu_cgroup() { # makes CG, a cgroup with a CPU quota of 20 ms per 100 ms; false when it cannot
	local base
	for base in /sys/fs/cgroup/cpu /sys/fs/cgroup /sys/fs/cgroup/unified; do
		if [ -w "$base/cpu.cfs_quota_us" ] || [ -f "$base/cpu.cfs_quota_us" ]; then
			CG=$base/netsweep-search-$$
			mkdir "$CG" 2>/dev/null && echo 100000 >"$CG/cpu.cfs_period_us" &&
				echo 20000 >"$CG/cpu.cfs_quota_us" && return 0
		elif grep -qw cpu "$base/cgroup.subtree_control" 2>/dev/null; then
			CG=$base/netsweep-search-$$
			mkdir "$CG" 2>/dev/null && echo "20000 100000" >"$CG/cpu.max" && return 0
		fi
		[ -n "$CG" ] && rmdir "$CG" 2>/dev/null
		CG=""
	done
	return 1
}
cgroup_cleanup() { [ -n "$CG" ] && [ -d "$CG" ] && rmdir "$CG" 2>/dev/null; netns_cleanup; }
trap cgroup_cleanup EXIT
check_cpu_held() {
	local out=$NETNS_TMP/held.json g lim floor note bad=""
	# two seconds of confirming trials per load carry confirm_packets at the few thousand
	# packets/s such a sender manages
	SEARCH_WRAP="$CGEXEC" search_run "$out" -l 64 --duration-sum 2 ||
		{ CHECK_MSG="search failed: $(head -c 300 "$out.err")"; return 1; }
	for g in 0 1; do
		lim=$(j "$out" "\$.goals[$g].sender_limited") floor=$(j "$out" "\$.goals[$g].at_least_pps")
		note=$(j "$out" "\$.goals[$g].note")
		[ "$lim" = 1 ] && [ -n "$floor" ] && [[ $note == *"the sender could not offer more than"*"is at least"* ]] ||
			bad="goal $g: sender_limited=$lim at_least=$floor note: $note"
	done
	CHECK_MSG="${bad:-NDR is at least $(j "$out" '$.goals[0].at_least_pps') pps: $(j "$out" '$.goals[0].note')}"
	[ -z "$bad" ]
}
if ! cpu_cgroup; then
	skip "$name" "no CPU cgroup controller to hold the sender back"
else
	# the search joins the cgroup, then becomes ip netns exec ... netsweep search
	printf '#!/bin/sh\necho $$ >"%s/cgroup.procs" && exec "$@"\n' "$CG" >"$NETNS_TMP/cgexec"
	chmod +x "$NETNS_TMP/cgexec"
	CGEXEC=$NETNS_TMP/cgexec
	netns_check_runs "$name" check_cpu_held
fi
finish
