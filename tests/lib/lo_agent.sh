# Loopback agents for integration scripts (source it after check.sh): a private TMP removed at
# exit with every process in PIDS ended, NS a copy of netsweep, and start_agent.
#   lo_agent_setup NAME        TMP=/tmp/NAME.XXXXXX, the trap, NS; exits 1 if it cannot
#   start_agent LOG ARGS...    `NS agent --listen 127.0.0.1:0 ARGS` with stderr in LOG; PORT is
#                              set once it listens (returns 1 after 5 s without)
export NETSWEEP_IMDS=0
unset NETSWEEP_PSK_FILE
PIDS=()
lo_agent_cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
lo_agent_setup() {
	TMP=$(mktemp -d "/tmp/$1.XXXXXX") || exit 2
	trap lo_agent_cleanup EXIT
	NS=$TMP/netsweep
	cp "$NETSWEEP" "$NS" || { fail "copy netsweep" "$NETSWEEP"; exit 1; }
}
start_agent() {
	local log=$1 i
	shift
	"$NS" agent --listen 127.0.0.1:0 "$@" 2>"$log" &
	PIDS+=("$!")
	for i in $(seq 100); do
		PORT=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$log")
		[ -n "$PORT" ] && return 0
		sleep 0.05
	done
	return 1
}
