# runner/host: host and NIC discovery, IMDSv2, instance catalog, cost, wire rate.
LIB_SRC += runner/host/cmd_hostinfo.c runner/host/cmd_cost.c runner/host/cmd_nicstats.c
LIB_SRC += runner/host/hostinfo.c runner/host/nic.c runner/host/imds.c runner/host/catalog.c
LIB_SRC += runner/host/clockbound.c runner/host/wire.c runner/host/ethstats.c runner/host/linkstats.c runner/host/niccount.c
LIB_SRC += runner/host/catalog_import.c runner/host/catalog_import_clouds.c runner/host/cmd_catalog.c
UNIT_TESTS += test_wire test_catalog test_hostinfo test_ethstats test_clockbound
ITESTS += tests/integration/hostinfo_catalog.sh tests/integration/hostinfo_imds.sh
ITESTS += tests/integration/hostinfo_netns.sh tests/integration/catalog_import.sh tests/integration/catalog_clouds.sh tests/integration/catalog_shipped.sh

# The fake IMDSv2 server the hostinfo tests talk to on 127.0.0.1 (never the real one).
FAKE_IMDS := $(BUILD)/tests/fake_imds
EXTRA_TARGETS += $(FAKE_IMDS)
$(FAKE_IMDS): tests/helpers/fake_imds.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<
BENCHES += tests/bench/catalog_load.sh
ITESTS += tests/integration/nicstats_veth.sh
ITESTS += tests/integration/probe_nic_veth.sh
