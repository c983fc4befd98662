# runner/sweep: matrix files, expansion, the runner, the SQLite store.
LIB_SRC += runner/sweep/cmd_run.c runner/sweep/sha256.c runner/sweep/matrix.c runner/sweep/matrix_value.c \
	runner/sweep/expand.c runner/sweep/store.c runner/sweep/progress.c runner/sweep/run.c \
	runner/sweep/loopback.c runner/sweep/matrix_search.c runner/sweep/search_case.c runner/sweep/runs.c runner/sweep/merge.c \
	runner/sweep/lease.c runner/sweep/retry.c runner/sweep/pricecheck.c runner/sweep/run_pairs.c \
	runner/sweep/hooks.c runner/sweep/hooks_exec.c runner/sweep/labpairs.c runner/sweep/bind.c runner/sweep/matrix_longrun.c runner/sweep/matrix_rr.c runner/sweep/compact.c runner/sweep/pair_key.c
UNIT_TESTS += test_matrix test_expand test_store test_hooks test_compact
ITESTS += tests/integration/run_matrix_errors.sh tests/integration/loader_bounds.sh tests/integration/run_loopback.sh tests/integration/run_resume.sh \
	tests/integration/run_netns.sh tests/integration/run_checks.sh \
	tests/integration/run_remote_client.sh tests/integration/runs_merge.sh \
	tests/integration/run_hooks.sh tests/integration/provision_examples.sh \
	tests/integration/run_survive.sh tests/integration/store_storage.sh \
	tests/integration/longrun_tbf.sh
BENCHES += tests/bench/sweep_expand.sh tests/bench/sweep_overhead.sh

LONG_TESTS += tests/integration/run_survive.sh
LONG_TESTS += tests/integration/loader_bounds.sh
LIB_SRC += runner/sweep/store_nic.c runner/sweep/store_catalog.c runner/sweep/store_limit.c runner/sweep/store_latency.c
LIB_SRC += runner/sweep/matrix_override.c
ITESTS += tests/integration/run_overrides.sh
ITESTS += tests/integration/run_rr.sh
