#!/bin/bash
# netsweep probe --rr over loopback (issue 24): TCP_RR, UDP_RR and TCP_CRR results agree with
# themselves
# — the histogram holds exactly the transactions reported (its own counts add up), the
# percentiles are monotone within [min, max], the measured intervals add up to the total and
# transactions/s is transactions over the measured time — a paced test never exceeds its rate,
# and options that do not go with a request/response test are usage errors. No speed bound:
# it holds on a loaded machine.
source "$(dirname "$0")/../lib/check.sh"

TMP=$(mktemp -d /tmp/ns-probe-rr.XXXXXX) || exit 2
export NETSWEEP_IMDS=0
APID=
cleanup() { [ -n "$APID" ] && kill -9 "$APID" 2>/dev/null; wait 2>/dev/null; rm -rf "$TMP"; }
trap cleanup EXIT

NS=$TMP/netsweep # a private copy: a rebuild beside us must not break the run
cp "$NETSWEEP" "$NS" 2>/dev/null && "$NS" --version >/dev/null 2>&1 ||
	{ fail "copy netsweep" "$NETSWEEP missing or not runnable"; exit 1; }

json() { sqlite3 :memory: "select json_extract(readfile('$1'), '$2')" 2>/dev/null; }
listening() { ss -Hltn "sport = :$1" 2>/dev/null | grep -q .; }
PORT=
for try in 1 2 3 4 5; do
	p=$(( 20000 + RANDOM % 40000 ))
	listening "$p" && continue
	"$NS" agent --listen "127.0.0.1:$p" --quiet 2>"$TMP/agent.log" &
	APID=$!
	for i in $(seq 50); do listening "$p" && break; sleep 0.1; done
	listening "$p" && { PORT=$p; break; }
	kill -9 "$APID" 2>/dev/null; APID=
done
[ -n "$PORT" ] || { fail "start agent" "no agent listening"; exit 1; }

# consistent NAME FILE STREAMS: the self-consistency of one result's latency figures.
consistent() {
	local name=$1 f=$2 why=
	[ "$(json "$f" '$.status')" = ok ] || { fail "$name" "status: $(json "$f" '$.error')"; return; }
	local n h bsum
	n=$(json "$f" '$.latency.transactions')
	h=$(json "$f" '$.latency.histogram')
	# the histogram text: "LH1 n=N ... b=STEP:COUNT,..."; its counts must add up to N
	bsum=$(printf '%s\n' "$h" | sed 's/.* b=//' | tr ',' '\n' | awk -F: '{ s += $2 } END { print s + 0 }')
	local hn=${h#LH1 n=}; hn=${hn%% *}
	[ -n "$n" ] && [ "$n" -gt 0 ] || why="no transactions"
	[ -z "$why" ] && [ "$hn" != "$n" ] && why="histogram n=$hn, transactions $n"
	[ -z "$why" ] && [ "$bsum" != "$n" ] && why="histogram buckets hold $bsum, transactions $n"
	if [ -z "$why" ]; then
		why=$(sqlite3 :memory: "with l as (select readfile('$f') -> '\$.latency' as j)
			select case
			when not (j->>'min_us' <= j->>'p50_us' and j->>'p50_us' <= j->>'p90_us' and
				j->>'p90_us' <= j->>'p99_us' and j->>'p99_us' <= j->>'p999_us' and
				j->>'p999_us' <= j->>'max_us') then 'percentiles not monotone'
			when not (j->>'mean_us' between j->>'min_us' and j->>'max_us') then 'mean outside'
			when (select sum(value->>'transactions') from json_each(j, '\$.intervals')
			      where not value->>'omitted') != j->>'transactions'
				then 'intervals do not add up'
			when abs(j->>'transactions_per_second' * (readfile('$f') ->> '\$.duration_s')
				 - j->>'transactions') > 0.01 * j->>'transactions' + 1
				then 'transactions/s is not transactions over the time'
			when j->>'relative_error' > 0.01 then 'error bound above 1 %'
			else '' end from l" 2>&1)
	fi
	if [ -z "$why" ]; then pass "$name"; else fail "$name" "$why"; fi
}

"$NS" probe "127.0.0.1:$PORT" --rr tcp -t 1 -i 0.25 --json >"$TMP/tcp.json" 2>"$TMP/tcp.err"
consistent "tcp_rr: histogram holds exactly the transactions, percentiles monotone" "$TMP/tcp.json"
[ "$(json "$TMP/tcp.json" '$.latency.test')" = tcp_rr ] && [ "$(json "$TMP/tcp.json" '$.latency.request')" = 1 ] &&
	pass "tcp_rr: 1-byte request by default" || fail "tcp_rr: 1-byte request by default" "$(json "$TMP/tcp.json" '$.latency.test')"

w=$(json "$TMP/tcp.json" '$.latency.one_way_why')
[ "$(json "$TMP/tcp.json" '$.latency.one_way')" = "" ] && [[ $w == "round trips only: "* ]] &&
	pass "no one-way figure, and why: $w" || fail "no one-way figure, and why" "'$w'"

"$NS" probe "127.0.0.1:$PORT" --rr udp -P 2 --request 64 --response 512 -t 1 -O 0.25 -i 0.25 --json \
	>"$TMP/udp.json" 2>"$TMP/udp.err"
consistent "udp_rr, 2 streams, omit: histogram of the measured time only" "$TMP/udp.json"

"$NS" probe "127.0.0.1:$PORT" --rr crr -P 2 --request 100 --response 2000 -t 1 -i 0.5 --json \
	>"$TMP/crr.json" 2>"$TMP/crr.err"
consistent "tcp_crr, 2 streams: a connection per transaction, histogram holds them all" "$TMP/crr.json"
t=$(json "$TMP/crr.json" '$.latency.test') n=$(json "$TMP/crr.json" '$.latency.transactions')
b=$(json "$TMP/crr.json" '$.sum.receiver.bytes') a=$(( ${b:-0} / 100 )) # request bytes it read
# the agent answered every timed transaction (and at most one in flight per stream more)
if [ "$t" = tcp_crr ] && [ -n "$a" ] && [ "$a" -ge "$n" ] && [ "$a" -le $((n + 2)) ]; then
	pass "tcp_crr: the agent answered every transaction the client timed ($a for $n)"
else
	fail "tcp_crr: the agent answered every transaction the client timed" "test '$t', agent $a, client $n"
fi

# both ends' CPUs (issue 24): pinned with -A to the last CPU, the client's requester and the
# agent's answerer report that CPU, and each end's CPU load is there
last=$(( $(nproc) - 1 ))
"$NS" probe "127.0.0.1:$PORT" --rr tcp -A "$last" -t 0.5 -i 0 --json >"$TMP/cpu.json" 2>&1
cc=$(json "$TMP/cpu.json" '$.latency.client_cpu') ac=$(json "$TMP/cpu.json" '$.latency.agent_cpu')
sl=$(json "$TMP/cpu.json" '$.sum.sender.cpu_percent') rl=$(json "$TMP/cpu.json" '$.sum.receiver.cpu_percent')
if [ "$cc" = "$last" ] && [ "$ac" = "$last" ] && awk -v s="$sl" -v r="$rl" 'BEGIN { exit !(s > 0 && r > 0) }'; then
	pass "tcp_rr -A $last: client and agent CPU $cc / $ac, load $sl / $rl %"
else
	fail "tcp_rr -A: both ends report the pinned CPU and their load" "client '$cc' agent '$ac' load '$sl' / '$rl': $(json "$TMP/cpu.json" '$.error')"
fi

# 200/s over 1 s: the schedule starts at most one transaction per 5 ms on each stream
"$NS" probe "127.0.0.1:$PORT" --rr tcp -P 2 --rr-rate 200/s -t 1 -i 0 --json >"$TMP/paced.json" 2>&1
n=$(json "$TMP/paced.json" '$.latency.transactions')
if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -le 202 ]; then pass "rr-rate 200/s: at most 200 transactions in 1 s ($n)"
else fail "rr-rate 200/s: at most 200 transactions in 1 s" "got '${n}': $(json "$TMP/paced.json" '$.error')"; fi

expect_exit "--request without --rr is a usage error" 2 "$NS" probe "127.0.0.1:$PORT" --request 10
expect_exit "udp_rr request below the 8-byte sequence is a usage error" 2 \
	"$NS" probe "127.0.0.1:$PORT" --rr udp --request 4
expect_exit "--rr with -R is a usage error" 2 "$NS" probe "127.0.0.1:$PORT" --rr tcp -R
expect_exit "--rr crr with --cport is a usage error" 2 "$NS" probe "127.0.0.1:$PORT" --rr crr --cport 40000
expect_exit "--rr with a bad protocol is a usage error" 2 "$NS" probe "127.0.0.1:$PORT" --rr sctp
finish
