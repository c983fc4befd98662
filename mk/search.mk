# runner/search: the zero-loss rate search (NDR/PDR, after RFC 9971) and `netsweep search`.
LIB_SRC += runner/search/search.c runner/search/trial.c runner/search/search_json.c \
	runner/search/cmd_search.c
UNIT_TESTS += test_search
ITESTS += tests/integration/search_matrix.sh tests/integration/search_netns.sh
LONG_TESTS += tests/integration/search_netns.sh
