# runner/agent: the daemon (`netsweep agent`), its sessions, tests and delegated runs.
LIB_SRC += runner/agent/cmd_agent.c runner/agent/cmd_key.c runner/agent/conn.c runner/agent/agent.c \
	runner/agent/gate.c runner/agent/caps.c runner/agent/agent_session.c runner/agent/agent_delegate.c
UNIT_TESTS += test_agent_data test_agent_sessions
ITESTS += tests/integration/agent_probe.sh tests/integration/agent_connect_rtt.sh \
	tests/integration/agent_auth.sh tests/integration/agent_delegate.sh \
	tests/integration/agent_lockout.sh tests/integration/agent_caps.sh \
	tests/integration/agent_rate_cap.sh tests/integration/agent_fair_slots.sh \
	tests/integration/agent_delegate_timing.sh tests/integration/agent_concurrent.sh \
	tests/integration/agent_incast_netns.sh
LONG_TESTS += tests/integration/agent_fair_slots.sh
BENCHES += tests/bench/agent_handshake.sh
ITESTS += tests/integration/probe_options.sh tests/integration/probe_family.sh tests/integration/agent_health.sh tests/integration/agent_refusals.sh tests/integration/agent_cap_shares.sh
