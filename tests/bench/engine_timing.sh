#!/bin/bash
# Benchmark (not part of make test): the engine and control-protocol unit tests with their
# timing bounds at the accuracy the code is built for (NS_STRICT_TIMING=1): paced rates within
# 3 %, fq-rate within -5..+10 %, stop within 200 ms, a sender facing a full queue under 0.15 s
# of CPU. make test runs the same tests with bounds that hold on a loaded 2-core machine.
# Run it on a quiet machine.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$ROOT/build
make -s -C "$ROOT" build/tests/test_engine build/tests/test_proto >/dev/null || exit 1
rc=0
for t in test_engine test_proto; do
	if NS_STRICT_TIMING=1 "$BUILD/tests/$t" >"$BUILD/tests/$t.strict.log" 2>&1; then
		echo "PASS $t with strict timing"
	else
		echo "FAIL $t with strict timing: $(grep -m 3 -E 'ERROR|FAIL|took|paced|Mbit|CPU' "$BUILD/tests/$t.strict.log" | tr '\n' ' ')"
		rc=1
	fi
done
exit $rc
