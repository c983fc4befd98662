# runner/sweep: matrix files, expansion, the runner, the SQLite store (issue 3).
LIB_SRC += runner/sweep/cmd_run.c runner/sweep/sha256.c runner/sweep/matrix.c \
	runner/sweep/expand.c runner/sweep/store.c runner/sweep/progress.c runner/sweep/run.c \
	runner/sweep/stubs.c
EMBED += NS_MATRIX_XSD:schemas/matrix.xsd NS_STORE_SQL:schemas/store.sql
UNIT_TESTS += test_matrix test_expand test_store
ITESTS +=
BENCHES +=

# Stand-ins (runner/sweep/stubs.c) for modules not yet in their area's list: each section is
# compiled only while the real file is missing, so they vanish by themselves as modules land.
sweep_missing = $(if $(shell grep -s -l '$(1)' $(2)),0,1)
$(BUILD)/obj/runner/sweep/stubs.o: mk/net.mk mk/host.mk
$(BUILD)/obj/runner/sweep/stubs.o: CFLAGS += \
	-DSTUB_PARAMS=$(call sweep_missing,runner/net/params.c,mk/net.mk) \
	-DSTUB_PROBE=$(call sweep_missing,runner/net/probe.c,mk/net.mk) \
	-DSTUB_RESULT_JSON=$(call sweep_missing,runner/net/result_json.c,mk/net.mk) \
	-DSTUB_AGENT=$(call sweep_missing,runner/net/agent.c,mk/net.mk) \
	-DSTUB_HOSTINFO=$(call sweep_missing,runner/host/hostinfo.c,mk/host.mk) \
	-DSTUB_CATALOG=$(call sweep_missing,runner/host/catalog.c,mk/host.mk)
