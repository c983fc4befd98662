# runner/group: group cases (incast, fan-out): several tests started together as one case,
# and how fairly they shared the path.
LIB_SRC += runner/group/fairness.c runner/group/group.c runner/group/group_total.c runner/group/group_case.c
UNIT_TESTS += test_fairness test_group_total
ITESTS += tests/integration/run_group.sh
BENCHES += tests/bench/incast.sh
