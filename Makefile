# ebs - one Makefile for the whole tree.  kmod/ is built through kbuild.
#
#   make                 build/ebs and one static library per module
#   make test            unit + integration tests; ends with "N passed, N failed, N skipped"
#   make demo            install missing packages, build, record the bundled workload, report
#   make bench           ebs against perf: recording overhead, report speed (ratios)
#   make kmod            ebs.ko (KDIR= for another kernel tree); make test-kmod: in QEMU
#   make install         PREFIX=/usr/local DESTDIR=   (make uninstall: the same files)
#   V=1                  full command lines      DEBUG=1 (or CI=true)  -Werror
#   SAN=address,undefined  sanitizer build (into build-san/)

VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
AR        ?= ar

ifeq ($(origin CC),default)
CC := gcc
endif

ifneq ($(SAN),)
BUILD ?= build-san
else
BUILD ?= build
endif

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2);
endif

WARN := -Wall -Wextra -Wshadow -Wformat=2 -Wstrict-prototypes -Wmissing-prototypes \
	-Wundef -Wwrite-strings
CFLAGS ?= -O2 -g
BASE_CFLAGS := -std=gnu11 $(WARN) -MMD -MP -D_GNU_SOURCE -Iinclude -I. \
	-DEBS_VERSION='"$(VERSION)"'
ifneq ($(DEBUG)$(filter true,$(CI)),)
BASE_CFLAGS += -Werror
endif
LDFLAGS ?=
ifneq ($(SAN),)
BASE_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=$(SAN)
endif

LIBELF_CFLAGS := $(shell pkg-config --cflags libelf 2>/dev/null)
LIBELF_LIBS   := $(shell pkg-config --libs libelf 2>/dev/null || echo -lelf)
LIBDWARF_LIBS := $(shell pkg-config --libs libdwarf 2>/dev/null || echo -ldwarf)
# libstdc++ for __cxa_demangle, the C++ runtime's demangler
# capstone: ebs annotate --asm decodes instructions with it
CAPSTONE_LIBS := $(shell pkg-config --libs capstone 2>/dev/null || echo -lcapstone)
LIBS := $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(CAPSTONE_LIBS) -lz -lstdc++ -lm

ALL_CFLAGS = $(BASE_CFLAGS) $(LIBELF_CFLAGS) $(CFLAGS)

# Modules, in link order (a module may use those after it).
MODULES := report symbolize sampler data util
define module_vars
$(1)_SRCS := $$(wildcard $(1)/*.c)
$(1)_OBJS := $$(patsubst %.c,$(BUILD)/%.o,$$($(1)_SRCS))
$(1)_LIB  := $(BUILD)/libebs-$(1).a
endef
$(foreach m,$(MODULES),$(eval $(call module_vars,$(m))))
MODULE_LIBS := $(foreach m,$(MODULES),$($(m)_LIB))

CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRCS))
EBS := $(BUILD)/ebs

.PHONY: all deps test unit-bins demo bench kmod test-kmod install uninstall clean
all: $(EBS)

# a recipe that fails leaves no half-written target for the next make to trust
.DELETE_ON_ERROR:

$(BUILD)/%.o: %.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

define module_rule
$$($(1)_LIB): $$($(1)_OBJS)
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(eval $(call module_rule,$(m))))

$(EBS): $(CLI_OBJS) $(MODULE_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(MODULE_LIBS) $(LIBS)

deps:
	$(Q)scripts/deps.sh

# ---- tests ---------------------------------------------------------------
# Unit tests: tests/unit/test-*.c, each linked against the module libraries.
UNIT_SRCS := $(wildcard tests/unit/test-*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/unit/%,$(UNIT_SRCS))

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(MODULE_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(filter $(BUILD)/tests/kmod/%,$^) $(MODULE_LIBS) $(LIBS)

# Test tools (tests/tools/*.c): helpers the integration tests run, such
# as mkdata, which writes ebs.data files from a script.
TOOL_SRCS := $(wildcard tests/tools/*.c)
TOOL_BINS := $(patsubst tests/tools/%.c,$(BUILD)/tests/tools/%,$(TOOL_SRCS))
$(BUILD)/tests/tools/%: $(BUILD)/tests/tools/%.o $(MODULE_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(MODULE_LIBS) $(LIBS)

# Workloads are built by tests/workloads/Makefile.part (plain and PIE/non-PIE
# variants, shared and dlopen()ed libraries), never with sanitizers.
include tests/workloads/Makefile.part

test: deps
	$(Q)$(MAKE) --no-print-directory all unit-bins workloads
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) tests/run.sh

# The module's portable parts, compiled for user space into test-kmod
# against a simulated PMU (tests/kmod/ebs_compat.h stands in for the kernel).
KMOD_PORTABLE := ebs_ring ebs_msr ebs_check
KMOD_USER_OBJS := $(patsubst %,$(BUILD)/tests/kmod/%.o,$(KMOD_PORTABLE))
$(BUILD)/tests/kmod/%.o: kmod/%.c
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -Itests/kmod -Wno-missing-prototypes -c -o $@ $<
$(BUILD)/tests/unit/test-kmod: $(KMOD_USER_OBJS)
$(BUILD)/tests/unit/test-kmod.o: ALL_CFLAGS += -Itests/kmod -Ikmod

unit-bins: $(UNIT_BINS) $(TOOL_BINS)
# Keep the unit tests' objects: make would delete them as intermediates.
.SECONDARY: $(patsubst %,%.o,$(UNIT_BINS) $(TOOL_BINS))

# ---- fuzzing (tests/fuzz/, docs/fuzzing.md) ----------------------------------
# libFuzzer harnesses tests/fuzz/fuzz-*.c, built with clang, ASan and UBSan
# into FUZZ_BUILD (a whole build of the modules they test, instrumented).
# `make fuzz` runs each for FUZZ_SECONDS on seed corpora made from real files;
# `make test` runs each for a few seconds (tests/integration/fuzz.sh).
FUZZ_BUILD   ?= $(BUILD)/fuzz
FUZZ_SECONDS ?= 600
FUZZ_CC      ?= clang
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz-*.c)
FUZZ_BINS := $(patsubst tests/fuzz/%.c,$(BUILD)/tests/fuzz/%,$(FUZZ_SRCS))
# the modules the harnesses test, in link order
FUZZ_LIBS := $(symbolize_LIB) $(sampler_LIB) $(data_LIB) $(util_LIB)
.PHONY: fuzz fuzz-bins fuzz-harnesses

$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(FUZZ_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS) $(LIBS)
# the module's portable rules, compiled in user space as test-kmod compiles them
$(BUILD)/tests/fuzz/fuzz-kmod.o: ALL_CFLAGS += -Itests/kmod -Ikmod -Wno-missing-prototypes
fuzz-harnesses: $(FUZZ_BINS)
.SECONDARY: $(patsubst %,%.o,$(FUZZ_BINS))

fuzz-bins:
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) SAN=address,undefined \
		CFLAGS='-O1 -g -fsanitize=fuzzer-no-link' fuzz-harnesses

fuzz: deps
	$(Q)$(MAKE) --no-print-directory all workloads $(BUILD)/tests/tools/mkdata
	$(Q)$(MAKE) --no-print-directory fuzz-bins
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) FUZZ_BIN=$(FUZZ_BUILD)/tests/fuzz \
		FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all workloads
	$(Q)BUILD=$(BUILD) scripts/demo.sh

# ebs.ko through kbuild, against KDIR: the running kernel's headers, else the
# newest of Debian's /usr/src/linux-headers-*-amd64.
KDIR ?= $(firstword $(wildcard /lib/modules/$(shell uname -r)/build) \
	$(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))
kmod:
	$(if $(KDIR),,$(error no kernel headers: install linux-headers-amd64, or give KDIR=))
	$(Q)$(MAKE) -C kmod KDIR=$(KDIR)

# ebs.ko in a QEMU guest (also part of `make test`): installs what it needs
test-kmod: deps
	$(Q)$(MAKE) --no-print-directory all unit-bins workloads
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) TESTS=kmod tests/run.sh

# ebs against perf on the same work; prints times and ratios (never part of test)
bench: all
	$(Q)BUILD=$(BUILD) bench/bench.sh

MAN_PAGES := $(wildcard docs/*.1)
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(EBS) $(DESTDIR)$(PREFIX)/bin/ebs
	$(if $(MAN_PAGES),install -m 0644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/)

# exactly what install put there
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ebs \
		$(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir $(MAN_PAGES)))

clean:
	rm -rf build build-san
	$(if $(KDIR),-$(MAKE) -C kmod KDIR=$(KDIR) clean >/dev/null 2>&1)

ALL_OBJS := $(foreach m,$(MODULES),$($(m)_OBJS)) $(CLI_OBJS) \
	$(patsubst %,%.o,$(UNIT_BINS) $(TOOL_BINS)) $(KMOD_USER_OBJS)
-include $(ALL_OBJS:.o=.d) $(FUZZ_BINS:=.d)
