# runner/core: CLI dispatch, errors, units, JSON writer.
LIB_SRC += runner/core/err.c runner/core/units.c runner/core/jsonw.c runner/core/cli.c
UNIT_TESTS += test_units test_jsonw
ITESTS += tests/integration/cli.sh
