# runner/net: engines, control protocol, agent, probe (issue 2).
LIB_SRC += runner/net/cmd_agent.c runner/net/cmd_probe.c
# engines (data plane): sequence accounting, pacing, TCP/UDP send and receive threads.
LIB_SRC += runner/net/udpseq.c runner/net/pace.c runner/net/engine.c runner/net/engine_tcp.c runner/net/engine_udp.c
UNIT_TESTS += test_udpseq test_engine
# control protocol, agent, probe client, JSON result (issue 2, part 2).
LIB_SRC += runner/net/proto.c runner/net/params.c runner/net/sockopt.c runner/net/sysstat.c
LIB_SRC += runner/net/session.c runner/net/client.c runner/net/client_hostinfo.c runner/net/agent.c runner/net/agent_test.c
LIB_SRC += runner/net/result_json.c
# delegated runs: a matrix pair's client, `netsweep probe --from` (issue 3 follow-up)
LIB_SRC += runner/net/agent_delegate.c runner/net/delegate.c runner/net/result_parse.c
UNIT_TESTS += test_delegate
UNIT_TESTS += test_proto test_params test_result_json
ITESTS += tests/integration/agent_probe.sh tests/integration/agent_connect_rtt.sh
