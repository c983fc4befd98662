# runner/sweep: the sweep runner (execution) and provisioning (hooks).
LIB_SRC += runner/sweep/cmd_run.c runner/sweep/progress.c runner/sweep/run.c \
	runner/sweep/search_case.c \
	runner/sweep/retry.c runner/sweep/pricecheck.c runner/sweep/run_pairs.c \
	runner/sweep/hooks.c runner/sweep/compact.c
UNIT_TESTS += test_compact test_retry
ITESTS += tests/integration/run_loopback.sh tests/integration/run_resume.sh \
	tests/integration/run_netns.sh tests/integration/run_checks.sh \
	tests/integration/run_remote_client.sh \
	tests/integration/run_hooks.sh tests/integration/provision_examples.sh \
	tests/integration/run_survive.sh \
	tests/integration/longrun_tbf.sh tests/integration/kube_discovery.sh
BENCHES += tests/bench/sweep_overhead.sh

LONG_TESTS += tests/integration/run_survive.sh
ITESTS += tests/integration/run_rr.sh tests/integration/run_loadlat.sh tests/integration/run_rpm.sh
