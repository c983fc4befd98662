# netsweep — one binary, a static library of everything but main, cmocka unit tests linked
# against the same library, and integration tests that drive the real binary.
# Each module area lists its own sources in mk/<area>.mk (explicit lists, no wildcards).

# `make` with no target builds the binary, whatever the included mk/*.mk define first.
.DEFAULT_GOAL := all

CC      ?= cc
BUILD   ?= build
PKGS    := libxml-2.0 sqlite3 gsl libcrypto
PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null || echo -I/usr/include/libxml2)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -lxml2 -lsqlite3 -lgsl -lgslcblas -lcrypto)
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
ifeq ($(WERROR),1)
WARN    += -Werror
endif
CFLAGS  ?= -O2 -g
DATADIR ?= $(CURDIR)/data
override CFLAGS += -std=c11 -D_GNU_SOURCE -pthread -I. $(WARN) $(PKG_CFLAGS) -MMD -MP \
           -DNETSWEEP_DATADIR=\"$(DATADIR)\" -DNETSWEEP_SCHEMADIR=\"$(CURDIR)/schemas\"
LDLIBS  += $(PKG_LIBS) -pthread -lm

LIB_SRC    :=
EMBED      :=
UNIT_TESTS :=
ITESTS     :=
BENCHES    :=
LONG_TESTS :=
EXTRA_TARGETS :=

include mk/lib.mk
include mk/core.mk
include mk/engine.mk
include mk/proto.mk
include mk/session.mk
include mk/agent.mk
include mk/client.mk
include mk/search.mk
include mk/sweep.mk
include mk/host.mk
include mk/lab.mk
include mk/report.mk
include mk/harness.mk
include mk/fuzz.mk
include mk/install.mk
include mk/xdp.mk

# Schemas compiled into the binary: EMBED += SYMBOL:path (see mk/embed.sh); declare them
# in C as `extern const char SYMBOL[];`.
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(foreach e,$(EMBED),$(BUILD)/gen/$(firstword $(subst :, ,$(e))).o)
LIB      := $(BUILD)/libnetsweep.a
BIN      := $(BUILD)/netsweep
TEST_BINS := $(UNIT_TESTS:%=$(BUILD)/tests/%)

.PHONY: all deps test unit itest bench check-long demo asan asan-unit clean
all: $(BIN) $(EXTRA_TARGETS)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c -o $@ $<

define embed_rule
$(BUILD)/gen/$(1).c: $(2) mk/embed.sh
	@mkdir -p $$(dir $$@)
	sh mk/embed.sh $(1) $(2) > $$@
$(BUILD)/gen/$(1).o: $(BUILD)/gen/$(1).c
	$$(CC) $$(CFLAGS) -c -o $$@ $$<
endef
$(foreach e,$(EMBED),$(eval $(call embed_rule,$(firstword $(subst :, ,$(e))),$(word 2,$(subst :, ,$(e))))))

$(LIB): $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BIN): $(BUILD)/obj/runner/core/main.o $(LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/%: tests/unit/%.c $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS) -lcmocka

deps:
	@sh mk/deps.sh

# The README's test command: installs what is missing (as root), builds, runs every unit and
# integration test, and ends with "N passed, N failed".
test:
	@sh mk/deps.sh test
	@$(MAKE) --no-print-directory all $(TEST_BINS)
	@sh tests/run.sh $(TEST_BINS) -- $(ITESTS)

unit: all $(TEST_BINS)
	@sh tests/run.sh $(TEST_BINS) --

itest: all
	@sh tests/run.sh -- $(ITESTS)

bench: deps
	@$(MAKE) --no-print-directory all
	@for b in $(BENCHES); do echo "== $$b"; bash $$b || exit 1; done

# Soaks too long for make test: the same scripts at full size (NETSWEEP_LONG=1).
check-long: all
	@NETSWEEP_LONG=1 sh tests/run.sh -- $(LONG_TESTS)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh mk/demo.sh

asan:
	$(MAKE) BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" all $(UNIT_TESTS:%=build-asan/tests/%)

# The unit tests built and run under AddressSanitizer and UndefinedBehaviorSanitizer.
asan-unit: asan
	@sh tests/run.sh $(UNIT_TESTS:%=build-asan/tests/%) --

clean:
	rm -rf build build-asan build-fuzz

# Header dependencies (-MMD): a changed header rebuilds the objects and unit tests using it.
-include $(LIB_OBJ:.o=.d) $(BUILD)/obj/runner/core/main.d $(TEST_BINS:=.d)
