# runner/client: `netsweep probe`, probe_run, delegated runs and host-info queries.
LIB_SRC += runner/client/cmd_probe.c runner/client/ctl.c runner/client/client.c \
	runner/client/client_hostinfo.c runner/client/delegate.c runner/client/longrun.c \
	runner/client/probe_opts.c runner/client/iperf3_text.c runner/client/client_notes.c \
	runner/client/client_lat.c runner/client/cmd_health.c runner/client/client_rpm.c
UNIT_TESTS += test_delegate test_ctl test_timeouts test_longrun test_iperf3_json
ITESTS += tests/integration/probe_iperf3.sh
ITESTS += tests/integration/probe_rr.sh
ITESTS += tests/integration/latency_tbf.sh
ITESTS += tests/integration/rpm_queue.sh tests/integration/probe_placement.sh
