# runner/net: engines, control protocol, agent, probe (issue 2).
LIB_SRC += runner/net/cmd_agent.c runner/net/cmd_probe.c
