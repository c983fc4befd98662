#!/bin/bash
# The zero-loss rate search (netsweep search) over network namespaces, against figures from
# outside netsweep:
#   - behind a tbf of 100 Mbit/s with a small queue (latency 5 ms), NDR and PDR 0.5 % for
#     64, 512 and 1472-byte payloads lie within 5 % of the packet rate tbf allows: tbf counts
#     L2 bytes, payload + 42 (UDP 8, IPv4 20, Ethernet 14), so rate / 8 / (payload + 42);
#   - through a BPF classifier dropping 0.1 % at random, NDR is reported as not met (never a
#     made-up rate) and PDR 0.5 % is found within 5 % of the clean link's;
#   - the trials and their time stay within the worst case the dry run states.
# Short trials (0.3 s narrowing, 1 s confirming) keep this under a minute; the defaults
# (1 s and 5 s) are for real paths.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require

SIZES="64 512 1472"
CHECKS=()
for l in $SIZES; do CHECKS+=("search NDR and PDR for $l bytes behind tbf 100mbit"); done
CHECKS+=("search under 0.1 % random loss: NDR not met, PDR found" "search stays within its stated bounds")
netns_need_netsweep "${CHECKS[@]}"

S=10.66.14.1 R=10.66.14.2 PORT=5301
netns_pair sr ss sa "$S" "$R" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
if ! netns_agent sa "$R" "$PORT"; then
	for c in "${CHECKS[@]}"; do fail "$c" "the agent did not start"; done
	exit 1
fi
DEV=$(netns_dev ss)
netns_exec ss tc qdisc replace dev "$DEV" root tbf rate 100mbit burst 32kb latency 5ms ||
	{ fail "tbf setup" "tc refused the qdisc"; exit 1; }

SEARCH_ARGS=(--udp -w 4M --initial-duration 0.3 --final-duration 1 --width 1% --connect-timeout 3)
OUT=$NETNS_TMP/search.json
search_run() { # search_run OUT ARGS...
	local out=$1
	shift
	timeout -k 5 300 ip netns exec "$(_netns_resolve ss)" $NETNS_NICE_CMD "$NETNS_NETSWEEP" search "$R:$PORT" \
		"${SEARCH_ARGS[@]}" "$@" --json >"$out" 2>"$out.err"
}
j() { netns_json "$1" "$2"; }

declare -A CLEAN_PDR
# One size's search, checked against tbf's packet rate; a search that a loaded machine kept
# from offering the load (the shortfall counts as loss) is run again (netns_check_runs).
check_size() {
	local l=$1 want out ndr pdr
	want=$(awk -v l="$l" 'BEGIN { printf "%.1f", 100e6 / 8 / (l + 42) }')
	out=$NETNS_TMP/search-$l.json
	search_run "$out" -l "$l" || { CHECK_MSG="search failed: $(head -c 300 "$out.err")"; return 1; }
	ndr=$(j "$out" '$.goals[0].lower_pps') pdr=$(j "$out" '$.goals[1].lower_pps')
	CLEAN_PDR[$l]=$pdr
	cp "$out" "$OUT"
	CHECK_MSG="NDR $ndr, PDR $pdr pps, tbf allows $want ($(j "$out" '$.n_trials') trials)"
	[ "$(j "$out" '$.goals[0].met')" = 1 ] && [ "$(j "$out" '$.goals[1].met')" = 1 ] &&
		netns_within "$ndr" "$want" 5 && netns_within "$pdr" "$want" 5
}
for l in $SIZES; do
	netns_check_runs "search NDR and PDR for $l bytes behind tbf 100mbit" check_size "$l"
done

# Bounds: what the last search ran against what the dry run states for the same settings.
bounds=$NETNS_TMP/bounds.json
name="search stays within its stated bounds"
if ip netns exec "$(_netns_resolve ss)" "$NETNS_NETSWEEP" search "$R:$PORT" "${SEARCH_ARGS[@]}" \
	-l 1472 --dry-run --json >"$bounds" 2>/dev/null; then
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

# 0.1 % random loss on top of the tbf, at 512 bytes.
name="search under 0.1 % random loss: NDR not met, PDR found"
if ! netns_drop ss 0.1; then
	skip "$name" "no BPF drop classifier (clang or tc bpf missing)"
elif ! search_run "$OUT" -l 512; then
	fail "$name" "search failed: $(head -c 300 "$OUT.err")"
else
	met0=$(j "$OUT" '$.goals[0].met') low0=$(j "$OUT" '$.goals[0].lower_pps')
	pdr=$(j "$OUT" '$.goals[1].lower_pps') clean=${CLEAN_PDR[512]}
	if [ "$met0" = 0 ] && [ -z "$low0" ] && [ -n "$clean" ] && netns_within "$pdr" "$clean" 5; then
		pass "$name: NDR not met ($(j "$OUT" '$.goals[0].note')), PDR $pdr pps vs $clean clean"
	else
		fail "$name" "NDR met=$met0 lower=$low0, PDR $pdr pps vs $clean on the clean link"
	fi
fi
finish
