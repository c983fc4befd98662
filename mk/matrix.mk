# runner/matrix: the matrix model: load, values, axes, expansion, case keys.
LIB_SRC += runner/matrix/sha256.c runner/matrix/matrix.c runner/matrix/matrix_value.c runner/matrix/expand.c \
	runner/matrix/matrix_search.c runner/matrix/bind.c runner/matrix/matrix_longrun.c runner/matrix/matrix_rr.c \
	runner/matrix/pair_key.c runner/matrix/matrix_override.c runner/matrix/matrix_group.c runner/matrix/matrix_mesh.c
UNIT_TESTS += test_matrix test_expand test_matrix_longrun test_sha256
ITESTS += tests/integration/run_matrix_errors.sh tests/integration/loader_bounds.sh tests/integration/run_overrides.sh
BENCHES += tests/bench/sweep_expand.sh

LONG_TESTS += tests/integration/loader_bounds.sh
