# ebs - one Makefile for the whole tree.  kmod/ is built through kbuild.
#
#   make                 build/ebs and one static library per module
#   make test            installs what the tests need that is missing (scripts/deps.sh
#                        test), then every test, the QEMU one too; ends with "N passed,
#                        N failed, N skipped"
#   make check           the tests that need no network and no install; the rest SKIP
#   make test-quick      the unit suites and one run of each command: the inner loop
#   JOBS=N               tests at a time (make test, check, test-quick; default CPUs + 1)
#   make check-libdwarf2 ebs built and tested against libdwarf 2.x (LIBDWARF2_TAR)
#   make demo            install what building and running need (make deps: scripts/deps.sh
#                        build), build, record the bundled workload, report
#   make bench           ebs against perf: recording overhead, report speed (ratios)
#   make kmod            ebs.ko (KDIR= for another kernel tree); make test-kmod: in QEMU
#   make install         PREFIX=/usr/local DESTDIR= LIBDIR=$(PREFIX)/lib   (make uninstall: the same files)
#   make format-check    the C files that clang-format would change (make format: change them)
#   V=1                  full command lines      DEBUG=1 (or CI=true)  -Werror
#   SAN=address,undefined  sanitizer build (into build-san/)
#   NO_CAPSTONE=1        build without capstone (annotate --asm then says so)
#   NO_ZYDIS=1           build without Zydis (AVX-512 code is then listed as .byte)

VERSION   := 0.1.0

# plain `make` is `make all` (the flags stamp's empty rule comes first)
.DEFAULT_GOAL := all
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

# ---- libraries ------------------------------------------------------------
# Goals that compile nothing themselves (those that first install what is
# missing, then run make again) neither probe nor check the libraries.
NO_PROBE_GOALS := clean deps deps-test uninstall test demo fuzz test-kmod check-libdwarf2 libdwarf2 kmod \
	format format-check
PROBE := $(if $(MAKECMDGOALS),$(filter-out $(NO_PROBE_GOALS),$(MAKECMDGOALS)),all)

LIBELF_CFLAGS := $(shell pkg-config --cflags libelf 2>/dev/null)
LIBELF_LIBS   := $(shell pkg-config --libs libelf 2>/dev/null || echo -lelf)
# libdwarf: where pkg-config says (libdwarf 0.x and later install a .pc, with
# -I.../libdwarf-0 or -2; a PKG_CONFIG_PATH points at another, as
# check-libdwarf2 does), else Debian 12's /usr/include/libdwarf (it has no
# .pc).  symbolize/dwarf_compat.h adapts to either API.
LIBDWARF_PC     := $(shell pkg-config --exists libdwarf 2>/dev/null && echo y)
LIBDWARF_CFLAGS := $(if $(LIBDWARF_PC),$(shell pkg-config --cflags libdwarf),$(patsubst \
	%/libdwarf.h,-I%,$(firstword $(wildcard /usr/include/libdwarf/libdwarf.h))))
LIBDWARF_LIBS   := $(if $(LIBDWARF_PC),$(shell pkg-config --libs libdwarf),-ldwarf)
# capstone (ebs annotate --asm decodes instructions with it) is optional:
# without its header, or with NO_CAPSTONE=1, ebs is built without it and
# the code sees EBS_HAVE_CAPSTONE 0.
HASH := \#
ifeq ($(NO_CAPSTONE),)
ifneq ($(PROBE),)
EBS_HAVE_CAPSTONE := $(shell printf '$(HASH)include <capstone/capstone.h>\n' | \
	$(CC) $(CFLAGS) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0)
endif
endif
EBS_HAVE_CAPSTONE ?= 0
# capstone, Zydis and libarchive are not linked but loaded at their first
# use (util/dynlib.c: linked, they cost every ebs start some 20 ms), by the
# soname of the library the linker would take; "" when there is none
soname = $(shell f=$$($(CC) -print-file-name=lib$(1).so); [ -f "$$f" ] && \
	readelf -d "$$f" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
ifneq ($(PROBE),)
CAPSTONE_SONAME := $(if $(filter 1,$(EBS_HAVE_CAPSTONE)),$(call soname,capstone))
ARCHIVE_SONAME := $(call soname,archive)
endif
# Zydis (libzydis-dev) decodes, after capstone, what Debian 12's capstone
# 4.0.2 cannot: AVX-512's mask and EVEX instructions, of which glibc's
# *_evex string functions are made (report/annotate/decode.c).  Optional as
# capstone is: without its header, with NO_ZYDIS=1, or without capstone,
# EBS_HAVE_ZYDIS is 0 and those bytes are listed as .byte.
ifeq ($(NO_ZYDIS),)
ifneq ($(PROBE),)
EBS_HAVE_ZYDIS := $(if $(filter 1,$(EBS_HAVE_CAPSTONE)),$(shell \
	printf '$(HASH)include <Zydis/Zydis.h>\n' | \
	$(CC) $(CFLAGS) -E -x c - >/dev/null 2>&1 && echo 1 || echo 0),0)
endif
endif
EBS_HAVE_ZYDIS ?= 0
ifneq ($(PROBE),)
ZYDIS_SONAME := $(if $(filter 1,$(EBS_HAVE_ZYDIS)),$(call soname,Zydis))
endif
# libiberty (libiberty-dev, a static PIC archive) for its demangler: C++ and
# Rust names (symbolize/demangle.c)
# libunwind: its generic (remote) API, for unwinding copied stacks
LIBUNWIND_CFLAGS := $(shell pkg-config --cflags libunwind-generic 2>/dev/null)
LIBUNWIND_LIBS   := $(shell pkg-config --libs libunwind-generic 2>/dev/null || \
	echo -lunwind-generic -lunwind)
# ncurses for ebs monitor's and ebs top's screens (cli/tty.c, cli/cmd-monitor.c, cli/cmd-top.c only): the wide-character
# build where pkg-config knows it, else whichever library is there
NCURSES_CFLAGS := $(shell pkg-config --cflags ncursesw 2>/dev/null)
NCURSES_LIBS   := $(shell pkg-config --libs ncursesw 2>/dev/null || \
	(printf 'int main(void){return 0;}' | $(CC) -x c - -lncursesw -o /dev/null 2>/dev/null && \
	 echo -lncursesw) || echo -lncurses)
# Nettle: SHA-256 for the DWARF cache's digest (symbolize/digest.c)
LIBCRYPTO_CFLAGS := $(shell pkg-config --cflags nettle 2>/dev/null)
LIBCRYPTO_LIBS   := $(shell pkg-config --libs nettle 2>/dev/null || echo -lnettle)
# libdeflate: inflates a debug file's compressed DWARF sections (symbolize/inflate.c),
# 2-3 times faster than zlib (libelf's) when the size is known, as ELF's Chdr gives it
LIBDEFLATE_LIBS := $(shell pkg-config --libs libdeflate 2>/dev/null || echo -ldeflate)
# libdebuginfod is not linked: symbolize/debuginfod.c loads it (dlopen) at its first question,
# so that ebs runs where it is absent; its header gives the prototypes
LIBS := $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(LIBUNWIND_LIBS) $(LIBCRYPTO_LIBS) $(LIBDEFLATE_LIBS) -lz \
	-liberty -lm -pthread -ldl
# libarchive: ebs archive's tar + zstd, written and read (data/archive.c), loaded as capstone
# libzstd: a -g recording's SAMPLES_CGZ records (format 4.0), written and read (data/writer.c,
# data/reader.c): zstd frames of the packed samples
LIBS += $(shell pkg-config --libs libzstd 2>/dev/null || echo -lzstd)

ALL_CFLAGS = $(BASE_CFLAGS) $(LIBELF_CFLAGS) -DEBS_HAVE_CAPSTONE=$(EBS_HAVE_CAPSTONE) \
	-DEBS_HAVE_ZYDIS=$(EBS_HAVE_ZYDIS) -DEBS_CAPSTONE_SONAME='"$(CAPSTONE_SONAME)"' \
	-DEBS_ZYDIS_SONAME='"$(ZYDIS_SONAME)"' -DEBS_ARCHIVE_SONAME='"$(ARCHIVE_SONAME)"' $(CFLAGS)

# Every header the code takes from a package must be there, or the build
# stops at once with one line naming the Debian packages to install
# (scripts/check-deps.sh), not with a compiler error.
ifneq ($(PROBE),)
DEPS_MISSING := $(shell CC='$(CC)' scripts/check-deps.sh $(LIBELF_CFLAGS) $(LIBDWARF_CFLAGS) \
	$(LIBUNWIND_CFLAGS) $(LIBCRYPTO_CFLAGS) $(CFLAGS))
ifneq ($(DEPS_MISSING),)
$(error $(DEPS_MISSING))
endif
endif

# Objects depend on the flags they are built with: a library found or gone,
# DEBUG=1 or another CFLAGS rebuilds them (the file changes only then).
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW = $(CC) $(ALL_CFLAGS) $(LIBDWARF_CFLAGS) $(LIBUNWIND_CFLAGS) $(LIBCRYPTO_CFLAGS) \
	$(NCURSES_CFLAGS) | \
	$(LDFLAGS) $(LIBS) $(NCURSES_LIBS)
ifneq ($(PROBE),)
ifneq ($(file <$(FLAGS_STAMP)),$(FLAGS_NOW))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(FLAGS_NOW))
endif
endif
$(FLAGS_STAMP):

# Modules, in link order (a module may use those after it).
MODULES := report count symbolize sampler data util
define module_vars
$(1)_SRCS := $$(wildcard $(1)/*.c $(1)/*/*.c)
$(1)_OBJS := $$(patsubst %.c,$(BUILD)/%.o,$$($(1)_SRCS))
$(1)_LIB  := $(BUILD)/libebs-$(1).a
endef
$(foreach m,$(MODULES),$(eval $(call module_vars,$(m))))
# ebs view's page (report/view/assets/*) built into report's archive by
# report/view/assets.S (.incbin): an edited asset rebuilds it
VIEW_ASSETS := $(wildcard report/view/assets/view.*)
report_OBJS += $(BUILD)/report/view/assets.o
# count/rule.c, counting's one rule (count/rule.h), takes nothing but
# include/ebs/: the sampler's backends scale with it, and libebs compiles
# it in.  Its own archive, last, below every module.
COUNT_RULE_SRCS := count/rule.c
count_SRCS := $(filter-out $(COUNT_RULE_SRCS),$(count_SRCS))
count_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(count_SRCS))
COUNT_RULE_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(COUNT_RULE_SRCS))
COUNT_RULE_LIB := $(BUILD)/libebs-count-rule.a
MODULE_LIBS := $(foreach m,$(MODULES),$($(m)_LIB)) $(COUNT_RULE_LIB)

# ---- libebs: the counting library (include/ebs/count.h, docs/ebs-count.3) ----
# Its own -fPIC objects, symbols hidden but the API's (libebs/libebs.map),
# into $(BUILD)/libebs.a and $(BUILD)/libebs.so.1 (soname libebs.so.1);
# util/stats.c is compiled in for the mode, util/text.c for its error lines,
# count/rule.c for the scaling rule ebs's counts follow.
# ebs (`ebs list`: the read path) and the unit tests link the archive, last.
# make install puts the header, both libraries, ebs.pc and the man page
# under PREFIX and LIBDIR.
LIBDIR ?= $(PREFIX)/lib
# libebs's own version, the API's (EBS_COUNT_VERSION in its header, which
# ebs.pc carries), apart from ebs's VERSION: ebs --version prints both
LIBEBS_VERSION := $(shell sed -n 's/^\#define EBS_COUNT_VERSION[[:space:]]*"\(.*\)"/\1/p' include/ebs/count.h)
LIBEBS_SONAME  := libebs.so.1
LIBEBS_SRCS := $(wildcard libebs/*.c) util/stats.c util/text.c $(COUNT_RULE_SRCS)
LIBEBS_OBJS := $(patsubst %.c,$(BUILD)/pic/%.o,$(LIBEBS_SRCS))
LIBEBS_A    := $(BUILD)/libebs.a
LIBEBS_SO   := $(BUILD)/$(LIBEBS_SONAME)
MODULE_LIBS += $(LIBEBS_A)

$(BUILD)/pic/%.o: %.c $(FLAGS_STAMP)
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<
$(LIBEBS_A): $(LIBEBS_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^
$(LIBEBS_SO): $(LIBEBS_OBJS) libebs/libebs.map
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,-soname,$(LIBEBS_SONAME) \
		-Wl,--version-script=libebs/libebs.map -o $@ $(LIBEBS_OBJS) -lm
	$(Q)ln -sf $(LIBEBS_SONAME) $(BUILD)/libebs.so
all: $(LIBEBS_A) $(LIBEBS_SO)

.PHONY: install-libebs uninstall-libebs
# A real install (DESTDIR empty) updates the dynamic linker's cache, so that
# programs find libebs.so.1 in LIBDIR (when LIBDIR is one of its folders:
# /usr/local/lib is on Debian); a staged one leaves it to the package.
ifeq ($(DESTDIR),)
LDCONFIG := $(shell command -v ldconfig 2>/dev/null || ls /sbin/ldconfig 2>/dev/null)
endif
install: install-libebs
uninstall: uninstall-libebs
install-libebs: $(LIBEBS_A) $(LIBEBS_SO)
	install -d $(DESTDIR)$(PREFIX)/include/ebs $(DESTDIR)$(LIBDIR)/pkgconfig \
		$(DESTDIR)$(PREFIX)/share/man/man3
	install -m 0644 include/ebs/count.h $(DESTDIR)$(PREFIX)/include/ebs/count.h
	install -m 0644 $(LIBEBS_A) $(DESTDIR)$(LIBDIR)/libebs.a
	install -m 0755 $(LIBEBS_SO) $(DESTDIR)$(LIBDIR)/$(LIBEBS_SONAME)
	ln -sf $(LIBEBS_SONAME) $(DESTDIR)$(LIBDIR)/libebs.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(LIBEBS_VERSION)|' \
		libebs/ebs.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/ebs.pc
	install -m 0644 docs/ebs-count.3 $(DESTDIR)$(PREFIX)/share/man/man3/ebs-count.3
	$(if $(LDCONFIG),$(LDCONFIG))
uninstall-libebs:
	rm -f $(DESTDIR)$(PREFIX)/include/ebs/count.h $(DESTDIR)$(LIBDIR)/libebs.a \
		$(DESTDIR)$(LIBDIR)/$(LIBEBS_SONAME) $(DESTDIR)$(LIBDIR)/libebs.so \
		$(DESTDIR)$(LIBDIR)/pkgconfig/ebs.pc $(DESTDIR)$(PREFIX)/share/man/man3/ebs-count.3
	$(if $(LDCONFIG),$(LDCONFIG))
-include $(LIBEBS_OBJS:.o=.d)
# ---- end of libebs ----

CLI_SRCS := $(wildcard cli/*.c)
CLI_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(CLI_SRCS))
EBS := $(BUILD)/ebs

.PHONY: all deps deps-test test test-quick check unit-bins demo bench kmod test-kmod install uninstall clean
all: $(EBS)

# a recipe that fails leaves no half-written target for the next make to trust
.DELETE_ON_ERROR:

$(BUILD)/%.o: %.c $(FLAGS_STAMP)
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(BUILD)/cli/cmd-monitor.o $(BUILD)/cli/cmd-top.o $(BUILD)/cli/tty.o: ALL_CFLAGS += $(NCURSES_CFLAGS)
$(BUILD)/report/view/assets.o: report/view/assets.S $(VIEW_ASSETS) $(FLAGS_STAMP)
	$(call msg,AS,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<
# only symbolize/ includes libdwarf's headers (and its dwarf.h is not elfutils')
$(BUILD)/symbolize/%.o: ALL_CFLAGS += $(LIBDWARF_CFLAGS) $(LIBUNWIND_CFLAGS) $(LIBCRYPTO_CFLAGS)
# test-dwcache sorts line-table rows as dwarf.c does (symbolize/dwarf_int.h: libdwarf's types)
$(BUILD)/tests/unit/test-dwcache.o: ALL_CFLAGS += $(LIBDWARF_CFLAGS)

define module_rule
$$($(1)_LIB): $$($(1)_OBJS)
	$$(call msg,AR,$$@)
	$$(Q)rm -f $$@ && $$(AR) rcs $$@ $$^
endef
$(foreach m,$(MODULES),$(eval $(call module_rule,$(m))))
$(COUNT_RULE_LIB): $(COUNT_RULE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && $(AR) rcs $@ $^

$(EBS): $(CLI_OBJS) $(MODULE_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJS) $(MODULE_LIBS) $(LIBS) $(NCURSES_LIBS)

# The Debian packages that are missing (scripts/deps.sh): deps installs what
# building and running ebs need (make demo's), deps-test those and what the
# tests need (the goals that run tests).  Plain make installs nothing: a
# missing header stops it, naming the package (scripts/check-deps.sh).
deps:
	$(Q)scripts/deps.sh build
deps-test:
	$(Q)scripts/deps.sh test

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

# Tests run JOBS at a time (tests/run.sh -j): by default one more than the
# CPUs, as many tests wait (for a workload's CPU time, a terminal, a guest)
# and every test holds on a loaded machine (docs/testing.md).
JOBS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))

test: deps-test
	$(Q)$(MAKE) --no-print-directory all unit-bins workloads
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) JOBS=$(JOBS) tests/run.sh

# The inner loop: the unit suites and one run of each command (smoke.sh),
# installing nothing; a minute or two.
test-quick: all unit-bins workloads
	$(Q)EBS_OFFLINE=1 BUILD=$(BUILD) EBS=$(abspath $(EBS)) JOBS=$(JOBS) tests/run.sh unit integration/smoke

# The same tests, installing nothing and downloading nothing: a test that
# would (the QEMU guest's packages and kernel, SQLite from npm, chromium)
# skips, saying so, unless what it needs is already here or in its cache.
check: all unit-bins workloads
	$(Q)EBS_OFFLINE=1 BUILD=$(BUILD) EBS=$(abspath $(EBS)) JOBS=$(JOBS) tests/run.sh

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
FUZZ_LIBS := $(symbolize_LIB) $(sampler_LIB) $(data_LIB) $(util_LIB) $(COUNT_RULE_LIB)
.PHONY: fuzz fuzz-bins fuzz-harnesses

$(BUILD)/tests/fuzz/%: $(BUILD)/tests/fuzz/%.o $(FUZZ_LIBS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS) $(LIBS)
# the module's portable rules, compiled in user space as test-kmod compiles them
$(BUILD)/tests/fuzz/fuzz-kmod.o: ALL_CFLAGS += -Itests/kmod -Ikmod -Wno-missing-prototypes
# fuzz-dwcache looks into the DWARF index (symbolize/dwarf_int.h: libdwarf's types)
$(BUILD)/tests/fuzz/fuzz-dwcache.o: ALL_CFLAGS += $(LIBDWARF_CFLAGS)
fuzz-harnesses: $(FUZZ_BINS)
.SECONDARY: $(patsubst %,%.o,$(FUZZ_BINS))

fuzz-bins:
	$(Q)$(MAKE) --no-print-directory BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) SAN=address,undefined \
		CFLAGS='-O1 -g -fsanitize=fuzzer-no-link' fuzz-harnesses

fuzz: deps-test
	$(Q)$(MAKE) --no-print-directory all workloads $(BUILD)/tests/tools/mkdata
	$(Q)$(MAKE) --no-print-directory fuzz-bins
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) FUZZ_BIN=$(FUZZ_BUILD)/tests/fuzz \
		FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

# ---- format ---------------------------------------------------------------------
# .clang-format over the C files (scripts/format.sh says which).
.PHONY: format format-check
format-check:
	$(Q)scripts/format.sh check
format:
	$(Q)scripts/format.sh apply

# ---- libdwarf 2.x -------------------------------------------------------------
# ebs on the current libdwarf API (symbolize/dwarf_compat.h): libdwarf built
# from LIBDWARF2_TAR with cmake and ninja (static, once, about 10 s) into
# $(LIBDWARF2)/inst, then ebs and the unit tests against it into
# $(LIBDWARF2)/ebs.  tests/integration/libdwarf2.sh (part of make test and
# make check) builds both and runs the symbolizer's tests on them;
# check-libdwarf2 runs that test alone, after installing what it needs.
LIBDWARF2_TAR ?= ../shared/vendor/libdwarf-2.3.1-src.tar.gz
LIBDWARF2     := $(BUILD)/libdwarf2
LIBDWARF2_PC  := $(LIBDWARF2)/inst/lib/pkgconfig/libdwarf.pc
.PHONY: libdwarf2 check-libdwarf2

# libdwarf reads compressed sections only when cmake finds both zlib and
# zstd (zlib1g-dev, libzstd-dev); a build without them is refused here.
$(LIBDWARF2_PC): $(wildcard $(LIBDWARF2_TAR))
	$(call msg,CMAKE,$(LIBDWARF2)/inst)
	$(Q)[ -r "$(LIBDWARF2_TAR)" ] || { echo "no libdwarf source at $(LIBDWARF2_TAR) (LIBDWARF2_TAR=)"; exit 1; }
	$(Q)rm -rf $(LIBDWARF2)/src $(LIBDWARF2)/b $(LIBDWARF2)/inst
	$(Q)mkdir -p $(LIBDWARF2)/src && tar -xzf $< -C $(LIBDWARF2)/src --strip-components=1
	$(Q)(cmake -S $(LIBDWARF2)/src -B $(LIBDWARF2)/b -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DBUILD_DWARFDUMP=OFF -DPIC_ALWAYS=ON -DCMAKE_INSTALL_PREFIX=$(abspath $(LIBDWARF2)/inst) && \
		grep -q '^#define HAVE_ZSTD 1' $(LIBDWARF2)/b/config.h && \
		ninja -C $(LIBDWARF2)/b install) >$(LIBDWARF2)/build.log 2>&1 || \
		{ tail -n 5 $(LIBDWARF2)/build.log; \
		  echo "libdwarf from $< did not build (cmake, ninja-build, zlib1g-dev, libzstd-dev?): see $(LIBDWARF2)/build.log"; \
		  rm -rf $(LIBDWARF2)/inst; exit 1; }

# libdwarf.a, so the ebs built on it runs without LD_LIBRARY_PATH; its .pc
# from cmake does not name the decompressors that the archive needs
libdwarf2: $(LIBDWARF2_PC)
	$(Q)PKG_CONFIG_PATH=$(abspath $(LIBDWARF2)/inst/lib/pkgconfig) $(MAKE) --no-print-directory \
		BUILD=$(LIBDWARF2)/ebs \
		LIBDWARF_LIBS="-L$(abspath $(LIBDWARF2)/inst/lib) -ldwarf -lzstd -lz" all unit-bins

check-libdwarf2: deps-test
	$(Q)$(MAKE) --no-print-directory all workloads
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) TESTS=libdwarf2 tests/run.sh

demo: deps
	$(Q)$(MAKE) --no-print-directory all workloads
	$(Q)BUILD=$(BUILD) scripts/demo.sh

# ebs.ko through kbuild, against KDIR: the running kernel's headers, else
# Debian's default (those linux-headers-amd64 depends on), else the newest
# /usr/src/linux-headers-*-amd64 (scripts/kdir.sh: the path, then why).
KDIR_PICK = $(shell scripts/kdir.sh)
KDIR ?= $(firstword $(KDIR_PICK))
kmod:
	$(if $(KDIR),,$(error no kernel headers: install linux-headers-amd64, or give KDIR=))
	$(if $(filter file,$(origin KDIR)),@echo "kmod: KDIR=$(KDIR): $(wordlist 2,99,$(KDIR_PICK))")
	$(Q)$(MAKE) -C kmod KDIR=$(KDIR)

# ebs.ko in a QEMU guest (also part of `make test`): installs what it needs
test-kmod: deps-test
	$(Q)$(MAKE) --no-print-directory all unit-bins workloads
	$(Q)BUILD=$(BUILD) EBS=$(abspath $(EBS)) TESTS=kmod tests/run.sh

# ebs against perf on the same work, every row of issue 14's table: writes
# bench/results.json and README.md's table (docs/bench.md; never part of test)
bench: all $(BUILD)/tests/tools/digest
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

ALL_OBJS := $(foreach m,$(MODULES),$($(m)_OBJS)) $(COUNT_RULE_OBJS) $(CLI_OBJS) \
	$(patsubst %,%.o,$(UNIT_BINS) $(TOOL_BINS)) $(KMOD_USER_OBJS)
-include $(ALL_OBJS:.o=.d) $(FUZZ_BINS:=.d)
