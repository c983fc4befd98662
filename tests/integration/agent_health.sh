#!/bin/bash
# The health check (issues 42, 43): `netsweep health` is the handshake, with the key, and a
# STATUS_REQUEST — no test, no data socket, no test slot, no draw on --max-rate. In two
# namespaces (prefix i43h), an agent with a key, --max-rate 1M and --max-tests 1:
#  - under the cap, where an unpaced probe (the old health check) is refused, it passes;
#  - its bytes are all control bytes: iptables counters in the agent's namespace see the
#    control port's and nothing else (no data port, no UDP);
#  - beside a running test that holds the only slot (a second test is told busy), it passes
#    and reports the test; the running test's bytes on the data ports are the same with the
#    health checks as the test's own count (no byte added), and its result is ok and within
#    15 % of its rate unless flagged;
#  - a wrong key and no agent exit 1 with the reason.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/../lib/check.sh"
source "$HERE/../lib/netns.sh"
netns_require
netns_need_netsweep "agent health check"
command -v iptables >/dev/null || { skip "agent health check" "no iptables"; exit 0; }

C=10.66.143.1 A=10.66.143.2 PORT=7143
netns_pair i43h c a "$C" "$A" >/dev/null || { fail "namespace setup" "netns_pair failed"; exit 1; }
NS_A=$(_netns_resolve a)
netns_agent a "$A" "$PORT" --max-rate 1M --max-tests 1 ||
	{ fail "agent --max-rate 1M --max-tests 1" "did not start"; exit 1; }
health() { ip netns exec "$(_netns_resolve c)" "$NETNS_NETSWEEP" health "$A:$PORT" "$@"; }

# what reaches the agent: the control port's bytes, and every other TCP and UDP byte
ipt() { ip netns exec "$NS_A" iptables -w "$@"; }
ipt -A INPUT -p tcp --dport "$PORT" -j ACCEPT && ipt -A INPUT -p tcp ! --dport "$PORT" -j ACCEPT &&
	ipt -A INPUT -p udp -j ACCEPT || { fail "iptables counters" "cannot add rules"; exit 1; }
counters() { # CONTROL DATA bytes since the last zero
	ipt -Z INPUT >/dev/null
	"$@"
	# protocol numbers: 6 TCP, 17 UDP; "dpt:!PORT" is every TCP port but the control one
	ipt -nvxL INPUT | awk -v p="$PORT" '$3 == "ACCEPT" {
		if ($4 == "17" || $4 == "udp" || $0 ~ "dpt:!" p) d += $2; else if ($0 ~ "dpt:" p) c += $2 }
		END { printf "%d %d\n", c, d }'
}

# 1. under the cap
netns_probe c "$NETNS_TMP/unpaced.json" "$A:$PORT" -t 0.2
if [ -s "$NETNS_TMP/unpaced.json" ] && grep -q 'max-rate' "$NETNS_TMP/unpaced.json" "$NETNS_TMP/unpaced.json.err"; then
	pass "an unpaced probe (the old health check) is refused under --max-rate 1M"
else
	fail "an unpaced probe is refused under --max-rate 1M" "$(netns_probe_why "$NETNS_TMP/unpaced.json")"
fi
out=$(health 2>&1)
[ $? = 0 ] && grep -q 'healthy: protocol 24, 0 of 1 test running, --max-rate 1.00 Mbit/s' <<<"$out" &&
	pass "health passes under --max-rate 1M ($out)" || fail "health passes under --max-rate 1M" "$out"

# 2. control bytes only
ten() { for _ in $(seq 10); do health -q || return 1; done; }
read -r ctl data < <(counters ten)
[ "${ctl:-0}" -gt 0 ] && [ "${data:-1}" = 0 ] &&
	pass "10 health checks: $ctl bytes to the control port, none to a data port" ||
	fail "10 health checks send control bytes only" "control $ctl, data $data"

# 3. beside a running test that holds the only slot
run_test() {
	netns_probe c "$NETNS_TMP/t.json" "$A:$PORT" -b 800k -t 4 &
	local tp=$! i
	for i in $(seq 100); do # until the test holds the slot
		health 2>/dev/null | grep -q ' 1 of 1 test running' && break
		sleep 0.05
	done
	health >"$NETNS_TMP/during.out" 2>&1; echo $? >"$NETNS_TMP/during.rc"
	netns_probe c "$NETNS_TMP/busy.json" "$A:$PORT" -b 100k -t 0.2
	for i in $(seq 20); do health -q 2>/dev/null; done
	wait "$tp"
}
read -r ctl data < <(counters run_test)
during=$(cat "$NETNS_TMP/during.out")
[ "$(cat "$NETNS_TMP/during.rc")" = 0 ] && grep -q ' 1 of 1 test running' <<<"$during" &&
	pass "health passes with every slot busy ($during)" ||
	fail "health passes with every slot busy" "$during"
grep -qi 'busy' "$NETNS_TMP/busy.json" "$NETNS_TMP/busy.json.err" &&
	pass "a second test meanwhile is told busy (the old health check's failure)" ||
	fail "a second test meanwhile is told busy" "$(netns_probe_why "$NETNS_TMP/busy.json")"
st=$(netns_json "$NETNS_TMP/t.json" '$.status')
snd=$(netns_json "$NETNS_TMP/t.json" '$.sum.sender.bytes')
if [ "$st" = ok ] && [ -n "$snd" ]; then
	# the data ports carried the test's bytes and their headers (TCP/IP ~ 5 %, the data
	# streams' hellos, a busy refusal's none): never the health checks' control bytes
	verdict=$(awk -v d="$data" -v s="$snd" 'BEGIN { printf "%s data-port bytes %d for %d test bytes", \
		(d >= s && d <= s * 1.10 + 20000) ? "ok" : "bad", d, s }')
	[ "${verdict%% *}" = ok ] && pass "the running test's bytes: ${verdict#* }" ||
		fail "the running test's bytes are the test's own" "${verdict#* }"
	CHECK_MSG=
	netns_rate_or_flag "$NETNS_TMP/t.json" 800000 15 &&
		pass "the running test's rate beside 21 health checks ($CHECK_MSG)" ||
		fail "the running test's rate beside 21 health checks" "$CHECK_MSG"
else
	fail "the running test ended ok" "status $st: $(netns_probe_why "$NETNS_TMP/t.json")"
fi

# 4. reasons
rm -f "$NETNS_TMP/wrong.key"
"$NETNS_NETSWEEP" key "$NETNS_TMP/wrong.key" >/dev/null
out=$(health --psk-file "$NETNS_TMP/wrong.key" 2>&1)
[ $? = 1 ] && grep -q 'not healthy' <<<"$out" && pass "a wrong key: exit 1 ($out)" ||
	fail "a wrong key: exit 1" "$out"
out=$(ip netns exec "$(_netns_resolve c)" "$NETNS_NETSWEEP" health "$A:1" --timeout 3 2>&1)
[ $? = 1 ] && grep -q 'not healthy' <<<"$out" && pass "no agent: exit 1" || fail "no agent: exit 1" "$out"
finish
