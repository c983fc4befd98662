# tests/fuzz: libFuzzer targets (clang -fsanitize=fuzzer,address,undefined) for the control
# protocol's decoders, the key handshake, and the matrix and catalog loaders, each with its seed
# corpus in tests/fuzz/NAME/. `make fuzz` runs each for FUZZ_SECONDS (default 600); new inputs
# it finds go to build-fuzz/corpus/NAME, the seeds stay as they are. The proto fuzzer starts
# from generated seeds too: fuzz_seeds writes one valid message per decoder case with the real
# encoders (tests/lib/proto_seeds.h) into build-fuzz/seeds/proto before each run, so that they
# follow the protocol as it is; test_fuzz_seeds (make unit) holds each to decoding whole. To
# refresh the committed copies: build-fuzz/fuzz/fuzz_seeds tests/fuzz/proto after make fuzz-build.
FUZZ_TARGETS := proto auth matrix catalog
FUZZ_SECONDS ?= 600
FUZZ_BUILD := build-fuzz
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer

.PHONY: fuzz fuzz-build
UNIT_TESTS += test_fuzz_seeds

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(BUILD)/libnetsweep.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libnetsweep.a $(LDLIBS)

# a plain program (no libFuzzer main), with the same sanitizers
$(BUILD)/fuzz/fuzz_seeds: tests/fuzz/fuzz_seeds.c $(BUILD)/libnetsweep.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(BUILD)/libnetsweep.a $(LDLIBS)

fuzz-build:
	@$(MAKE) --no-print-directory CC=clang BUILD=$(FUZZ_BUILD) CFLAGS="$(FUZZ_CFLAGS)" \
		LDFLAGS="-fsanitize=address,undefined" $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz/fuzz_%) \
		$(FUZZ_BUILD)/fuzz/fuzz_seeds

# Each target's corpus: what earlier runs found, the committed seeds, and the generated ones
# (build-fuzz/seeds/NAME, written afresh) where there are.
fuzz: fuzz-build
	@rm -rf $(FUZZ_BUILD)/seeds/proto && mkdir -p $(FUZZ_BUILD)/seeds/proto && \
		$(FUZZ_BUILD)/fuzz/fuzz_seeds $(FUZZ_BUILD)/seeds/proto
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t; \
		seeds=tests/fuzz/$$t; \
		[ -d $(FUZZ_BUILD)/seeds/$$t ] && seeds="$$seeds $(FUZZ_BUILD)/seeds/$$t"; \
		echo "== fuzz_$$t for $(FUZZ_SECONDS) s"; \
		$(FUZZ_BUILD)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=30 \
			-rss_limit_mb=2048 -print_final_stats=1 \
			$(FUZZ_BUILD)/corpus/$$t $$seeds 2>$(FUZZ_BUILD)/fuzz_$$t.log || \
			{ tail -n 60 $(FUZZ_BUILD)/fuzz_$$t.log; echo "FAIL fuzz_$$t"; exit 1; }; \
		grep -E '^stat::number_of_executed_units|^Done' $(FUZZ_BUILD)/fuzz_$$t.log | tr '\n' ' '; \
		echo "PASS fuzz_$$t"; \
	done
