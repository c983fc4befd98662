# runner/session: one end of a measured run, shared by the agent and the client — data socket
# options, the engine under the interval clock, the exchange of figures.
LIB_SRC += runner/session/sockopt.c runner/session/session.c runner/session/latency.c runner/session/shaping.c \
	runner/session/amount.c runner/session/limit.c runner/session/cpu_placement.c
UNIT_TESTS += test_limit test_cpu_placement
ITESTS += tests/integration/sender_limited.sh
ITESTS += tests/integration/shaping_tbf.sh
