#!/bin/bash
# hostinfo against a fake IMDSv2 server on 127.0.0.1 (tests/lib/fake_imds.c), never the
# real metadata address: instance type, region and AZ, the token flow (PUT first, GETs with
# the token, a GET without it refused), and a silent address costing no more than the timeout.
source "$(dirname "$0")/../lib/check.sh"
FAKE=$(dirname "$NETSWEEP")/tests/fake_imds
if [ ! -x "$FAKE" ]; then
	fail "fake imds built" "$FAKE is missing: make all builds it"
	finish
	exit
fi
TMP=$(mktemp -d) || exit 1
PIDS=""
cleanup() {
	local p
	for p in $PIDS; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT

# start_fake NAME ARGS...: starts the fake server; its port lands in $TMP/NAME.port.
start_fake() {
	local name=$1 i
	shift
	"$FAKE" --port-file "$TMP/$name.port" --lifetime 20 "$@" &
	PIDS="$PIDS $!"
	for i in $(seq 50); do
		[ -s "$TMP/$name.port" ] && return 0
		sleep 0.05
	done
	return 1
}

now_ms() { date +%s%3N; }

# --- a metadata service that answers
if ! start_fake ok --log "$TMP/ok.log" --instance-type m4.10xlarge --region ap-northeast-1 \
	--az ap-northeast-1a; then
	fail "fake imds starts" "no port file"
	finish
	exit
fi
PORT=$(cat "$TMP/ok.port")
out=$("$NETSWEEP" hostinfo --json --peer 127.0.0.1 --imds-addr "127.0.0.1:$PORT")
rc=$?
[ "$rc" = 0 ] && pass "hostinfo with metadata exits 0" || fail "hostinfo with metadata exits 0" "exit $rc"
want='"cloud":{"provider":"aws","instance_type":"m4.10xlarge","region":"ap-northeast-1","availability_zone":"ap-northeast-1a"}'
case $out in
*"$want"*) pass "cloud: instance type, region and AZ from IMDSv2" ;;
*) fail "cloud: instance type, region and AZ from IMDSv2" "got: $out" ;;
esac

# The flow as the server saw it: the token PUT first, then three GETs that carried it.
if [ "$(sed -n 1p "$TMP/ok.log")" = "PUT /latest/api/token ok ttl=60" ] &&
	[ "$(grep -c '^GET .* ok$' "$TMP/ok.log")" = 3 ] && ! grep -q refused "$TMP/ok.log"; then
	pass "token PUT before GETs that carry it"
else
	fail "token PUT before GETs that carry it" "log: $(tr '\n' '|' <"$TMP/ok.log")"
fi

# A GET without the token is refused by the server, so the flow above is really checked.
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'GET /latest/meta-data/instance-type HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' >&3
status=$(head -n 1 <&3 | tr -d '\r')
exec 3<&-
[ "$status" = "HTTP/1.1 401 Unauthorized" ] && pass "GET without token refused" ||
	fail "GET without token refused" "got '$status'"

# The address also comes from the environment.
out=$(NETSWEEP_IMDS_ADDR="127.0.0.1:$PORT" "$NETSWEEP" hostinfo --json --peer 127.0.0.1)
case $out in
*'"instance_type":"m4.10xlarge"'*) pass "NETSWEEP_IMDS_ADDR redirects the query" ;;
*) fail "NETSWEEP_IMDS_ADDR redirects the query" "got: $out" ;;
esac

# --no-imds and NETSWEEP_IMDS=off ask nothing.
before=$(wc -l <"$TMP/ok.log")
out=$("$NETSWEEP" hostinfo --json --no-imds --peer 127.0.0.1 --imds-addr "127.0.0.1:$PORT")
out2=$(NETSWEEP_IMDS=off "$NETSWEEP" hostinfo --json --peer 127.0.0.1 --imds-addr "127.0.0.1:$PORT")
after=$(wc -l <"$TMP/ok.log")
if [ "$before" = "$after" ] && [[ $out == *'"cloud":null'* ]] && [[ $out2 == *'"cloud":null'* ]]; then
	pass "--no-imds and NETSWEEP_IMDS=off do not query"
else
	fail "--no-imds and NETSWEEP_IMDS=off do not query" "requests $before -> $after"
fi

# The readable table shows the same facts.
out=$("$NETSWEEP" hostinfo --peer 127.0.0.1 --imds-addr "127.0.0.1:$PORT")
if grep -q '^cloud  *aws m4.10xlarge, ap-northeast-1 (ap-northeast-1a)$' <<<"$out" &&
	grep -q '^interface  *lo$' <<<"$out"; then
	pass "table shows cloud and interface"
else
	fail "table shows cloud and interface" "got: $out"
fi

# --- a server that answers but keeps the connection open: Content-Length ends the answer
if start_fake linger --linger --instance-type c7gn.16xlarge; then
	t0=$(now_ms)
	out=$("$NETSWEEP" hostinfo --json --peer 127.0.0.1 --imds-addr "127.0.0.1:$(cat "$TMP/linger.port")" \
		--imds-timeout 8)
	elapsed=$(($(now_ms) - t0))
	# Waiting for the close would cost the whole 8 s timeout; the answer comes well before.
	[[ $out == *'"instance_type":"c7gn.16xlarge"'* ]] && [ "$elapsed" -lt 6000 ] &&
		pass "open connection: answer read by Content-Length (${elapsed} ms)" ||
		fail "open connection: answer read by Content-Length" "${elapsed} ms: $out"
else
	fail "lingering fake imds starts" "no port file"
fi

# --- a metadata address that accepts connections and never answers
if ! start_fake silent --silent; then
	fail "silent fake imds starts" "no port file"
	finish
	exit
fi
SPORT=$(cat "$TMP/silent.port")
t0=$(now_ms)
out=$("$NETSWEEP" hostinfo --json --peer 127.0.0.1 --imds-addr "127.0.0.1:$SPORT" --imds-timeout 0.5)
rc=$?
t1=$(now_ms)
elapsed=$((t1 - t0))
# 0.5 s of timeout plus start-up: never less; the upper bound only says it gives up, with
# slack for a loaded 2-core machine.
if [ "$rc" = 0 ] && [ "$elapsed" -ge 450 ] && [ "$elapsed" -lt 8000 ]; then
	pass "silent metadata address costs the timeout (${elapsed} ms for 500 ms)"
else
	fail "silent metadata address costs the timeout" "exit $rc after ${elapsed} ms"
fi
if [[ $out == *'"cloud":null'* ]] &&
	[[ $out == *"imds (127.0.0.1:$SPORT): timed out waiting for the metadata token from 127.0.0.1:$SPORT"* ]]; then
	pass "silent address: cloud null with a warning naming the address and what it awaited"
else
	fail "silent address: cloud null with a warning naming the address and what it awaited" "got: $out"
fi

# --- a refused port (nothing listens) fails fast, with a warning
out=$("$NETSWEEP" hostinfo --json --peer 127.0.0.1 --imds-addr 127.0.0.1:1)
[[ $out == *'"cloud":null'* && $out == *"imds (127.0.0.1:1)"* ]] && pass "refused address: warning, no cloud" ||
	fail "refused address: warning, no cloud" "got: $out"

expect_exit "bad --imds-timeout is a usage error" 2 "$NETSWEEP" hostinfo --imds-timeout -1
out=$("$NETSWEEP" hostinfo --json --peer 127.0.0.1 --imds-addr localhost:80)
[[ $out == *"numeric address"* ]] && pass "named metadata host refused (could block)" ||
	fail "named metadata host refused (could block)" "got: $out"
finish
