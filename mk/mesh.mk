# runner/mesh: a matrix's <mesh> pairs in rounds (a round-robin tournament): the runner's
# order for them and run --dry-run's schedule.
LIB_SRC += runner/mesh/mesh_rounds.c
UNIT_TESTS += test_mesh_rounds
ITESTS += tests/integration/run_mesh.sh
