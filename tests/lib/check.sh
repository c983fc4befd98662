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
