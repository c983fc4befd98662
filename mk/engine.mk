# runner/engine: the data plane — TCP/UDP send and receive threads, pacing, sequence
# accounting, host counters. Knows nothing of agents or the control protocol.
LIB_SRC += runner/engine/base/udpseq.c runner/engine/pace.c runner/engine/budget.c runner/engine/base/engine_base.c \
	runner/engine/engine.c runner/engine/engine_rt.c runner/engine/engine_tcp.c runner/engine/engine_rr.c runner/engine/engine_udp.c runner/engine/base/zerocopy.c \
	runner/engine/sysstat.c
UNIT_TESTS += test_udpseq test_budget test_engine test_zerocopy test_engine_rr
ITESTS += tests/integration/probe_truth.sh
BENCHES += tests/bench/engine_timing.sh tests/bench/zerocopy.sh tests/bench/rr.sh
