# The AF_XDP engine (runner/engine/xdp/engine_xdp*.c) and its XDP programs (runner/engine/xdp/bpf/:
# xdp_rx.c hands the test's flow to AF_XDP sockets, xdp_count.c counts it; built with clang
# and compiled into the binary). Built when
# libxdp, libbpf and clang are there; otherwise engine_xdp_none.c says, at use, what is
# missing, and everything else builds and works as before.
XDP_OK := $(shell pkg-config --exists libxdp libbpf 2>/dev/null && command -v $(BPF_CC) >/dev/null 2>&1 && echo yes)
ifeq ($(XDP_OK),yes)
LIB_SRC += runner/engine/xdp/engine_xdp_base.c runner/engine/xdp/engine_xdp.c runner/engine/xdp/engine_xdp_rx.c
EMBED += NS_XDP_COUNT_OBJ:$(BUILD)/bpf/xdp_count.o NS_XDP_RX_OBJ:$(BUILD)/bpf/xdp_rx.o
LDLIBS += $(shell pkg-config --libs libxdp libbpf)
UNIT_TESTS += test_xdp_count
# tests/bench/xdp.sh's yardstick: a bare AF_XDP copy-mode sender, not part of netsweep
XDP_RAW_TX := $(BUILD)/tests/xdp_raw_tx
EXTRA_TARGETS += $(XDP_RAW_TX)
EXTRA_TARGETS += $(BUILD)/bpf/xdp_drop.o
# xdp_netns.sh's busy device: every third AF_XDP kick fails EBUSY (LD_PRELOAD)
XDP_BUSY_SHIM := $(BUILD)/tests/xdp_busy_shim.so
EXTRA_TARGETS += $(XDP_BUSY_SHIM)
$(XDP_BUSY_SHIM): tests/lib/xdp_busy_shim.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -fPIC -o $@ $< -ldl
$(BUILD)/bpf/xdp_drop.o: tests/bpf/xdp_drop.c
	@mkdir -p $(dir $@)
	$(BPF_CC) $(BPF_CFLAGS) -c -o $@ $<
$(XDP_RAW_TX): tests/lib/xdp_raw_tx.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(shell pkg-config --libs libxdp libbpf)
$(BUILD)/bpf/%.o: runner/engine/xdp/bpf/%.c runner/engine/xdp/bpf/udp4.h runner/engine/xdp/bpf/flow_state.h
	@mkdir -p $(dir $@)
	$(call say,BPF,$<)$(BPF_CC) $(BPF_CFLAGS) -g -c -o $@ $<
else
LIB_SRC += runner/engine/xdp/engine_xdp_none.c
$(info netsweep: libxdp/libbpf (pkg-config) or $(BPF_CC) missing: the AF_XDP engine is not built)
endif
BENCHES += tests/bench/xdp.sh
ITESTS += tests/integration/xdp_netns.sh tests/integration/xdp_fallback.sh
