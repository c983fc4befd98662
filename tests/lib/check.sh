# Shared helpers for integration scripts (source it). Every check prints one line that
# tests/run.sh counts: "PASS name", "FAIL name: why", "SKIP name: why".
NETSWEEP=${NETSWEEP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/netsweep}
FAILS=0

pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; FAILS=$((FAILS + 1)); }
skip() { echo "SKIP $1${2:+: $2}"; }

# check NAME COMMAND...: passes when the command exits 0.
check() {
	local name=$1; shift
	if "$@"; then pass "$name"; else fail "$name" "command failed: $*"; fi
}

# expect_exit NAME CODE COMMAND...: passes when the command exits with CODE.
expect_exit() {
	local name=$1 want=$2; shift 2
	"$@" >/dev/null 2>&1
	local rc=$?
	if [ "$rc" = "$want" ]; then pass "$name"; else fail "$name" "exit $rc, wanted $want: $*"; fi
}

finish() { [ "$FAILS" = 0 ]; }

# loopback_agent DIR [AGENT OPTION...]: starts `BIN agent` (BIN = $NS, a private copy, else
# $NETSWEEP) on 127.0.0.1, on a port the kernel picks, logging to DIR/agent.log; sets AGENT_PORT
# and AGENT_PID (the caller's trap kills it). Returns 1, the log on stderr, when it does not
# listen within 10 s (a loaded machine can take seconds to start it).
loopback_agent() {
	local dir=$1 bin=${NS:-$NETSWEEP}
	shift
	"$bin" agent --listen 127.0.0.1:0 "$@" 2>"$dir/agent.log" &
	AGENT_PID=$!
	AGENT_PORT=
	for _ in $(seq 200); do
		AGENT_PORT=$(sed -n 's/.*listening on 127.0.0.1 port \([0-9]*\).*/\1/p' "$dir/agent.log" 2>/dev/null)
		[ -n "$AGENT_PORT" ] && return 0
		sleep 0.05
	done
	cat "$dir/agent.log" >&2
	return 1
}
