# tests/lib, tests/bpf and tests/bench: the namespace harness, BPF drop classifier, benchmarks.
ITESTS += tests/integration/netns_harness.sh tests/integration/accuracy_tcp.sh \
	tests/integration/accuracy_udp.sh

# The tc BPF drop classifier. tests/lib/netns.sh builds one object per drop share on demand
# with these same flags (the share is a -D constant); `make all` builds the 1 % object so that
# a broken drop.c shows at build time. Skipped, with a note, where clang is missing: it is only
# needed by the namespace tests, which then say SKIP themselves.
BPF_CC     ?= clang
BPF_CFLAGS := -O2 -target bpf -I/usr/include/x86_64-linux-gnu -Wall -Wextra
ifeq ($(WERROR),1)
BPF_CFLAGS += -Werror
endif
ifneq ($(shell command -v $(BPF_CC) 2>/dev/null),)
EXTRA_TARGETS += $(BUILD)/bpf/drop.o
else
$(info netsweep: $(BPF_CC) not found; tests/bpf/drop.c not built, netns loss tests will skip)
endif

# 1 % of 2^32.
$(BUILD)/bpf/drop.o: tests/bpf/drop.c
	@mkdir -p $(dir $@)
	$(BPF_CC) $(BPF_CFLAGS) -DDROP_THRESHOLD=42949673u -c -o $@ $<

# make bench (not make test): netsweep side by side with iperf and iperf3.
BENCHES += tests/bench/engines.sh
