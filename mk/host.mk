# runner/host: host and NIC discovery, IMDSv2, wire rate, the NIC's counters, the clock's bound.
LIB_SRC += runner/host/cmd_hostinfo.c runner/host/cmd_nicstats.c
LIB_SRC += runner/host/hostinfo.c runner/host/nic.c runner/host/imds.c
LIB_SRC += runner/host/clockbound.c runner/host/wire.c runner/host/ethstats.c runner/host/linkstats.c runner/host/niccount.c
UNIT_TESTS += test_wire test_hostinfo test_ethstats test_clockbound
ITESTS += tests/integration/hostinfo_catalog.sh tests/integration/hostinfo_imds.sh
ITESTS += tests/integration/hostinfo_netns.sh

# The fake IMDSv2 server the hostinfo tests talk to on 127.0.0.1 (never the real one).
FAKE_IMDS := $(BUILD)/tests/fake_imds
EXTRA_TARGETS += $(FAKE_IMDS)
$(FAKE_IMDS): tests/lib/fake_imds.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<
ITESTS += tests/integration/nicstats_veth.sh
ITESTS += tests/integration/probe_nic_veth.sh
