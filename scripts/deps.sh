#!/bin/sh
# scripts/deps.sh - install the Debian packages ebs needs for a purpose,
# only those missing.  Quiet and fast when all are present.
#
#   scripts/deps.sh build      what building and running ebs need
#                              (make deps, make demo)
#   scripts/deps.sh test       those and what the tests need (make test,
#                              make fuzz, make check-libdwarf2, make test-kmod)
#   scripts/deps.sh            the same as test
#   scripts/deps.sh PURPOSE --list
#                              print the purpose's packages, one a line,
#                              installed or not; check and install nothing
#   EBS_DEPS_EXTRA="pkg ..."   more packages (e.g. the kernel-module test's)
#   EBS_OFFLINE=1              install nothing: say what is missing, exit 1
#                              (make check; tests then skip, saying why)
#
# build: the compiler and the libraries' headers (scripts/check-deps.sh
# names the headers): build-essential, pkg-config, libelf-dev, libdwarf-dev,
# libunwind-dev (unwinding of call graphs), uthash-dev, zlib1g-dev,
# libncurses-dev (ebs monitor's screen), nettle-dev (Nettle: SHA-256, the
# digest that says which file an entry of the DWARF cache is of,
# symbolize/digest.c), libiberty-dev (binutils' demangler, a static PIC
# archive: C++ and Rust names, symbolize/demangle.c); libdebuginfod-dev
# (elfutils' debuginfod client: its header's prototypes; ebs loads the
# library, libdebuginfod1, with dlopen when DEBUGINFOD_URLS asks for a
# server, and runs without it: symbolize/debuginfod.c); libcapstone-dev (annotate --asm; optional: ebs
# builds without it and says so); less, the default pager of report and
# annotate on a terminal (cli/pager.c).  The libraries ebs runs with come
# with their -dev packages.
#
# test adds the tests' own: elfutils, binutils and python3 (oracles and
# helpers of most tests); libstb-dev (stb_image.h, a real program for
# tests/integration/symbolize.sh); clang and llvm (clang-built fixtures,
# llvm-symbolizer as an oracle); libclang-rt-dev, the default clang's
# runtime (libclang-rt-14-dev on Debian 12): libFuzzer, for the fuzz
# harnesses (docs/fuzzing.md); clang-format for make format-check; cmake
# and ninja-build (with libzstd-dev, a build package now) build libdwarf 2 for
# tests/integration/libdwarf2.sh; golang-go (go tool pprof reads back ebs
# export --format pprof; tests/integration/go.sh builds Go programs and
# profiles Debian's stripped Go compiler) and python3-jsonschema (--format speedscope
# against speedscope's schema) for tests/integration/export.sh; chromium
# (headless, over the DevTools pipe: tests/tools/render.py and browse.py)
# renders annotate --html, drives ebs flamegraph's SVG (hover, zoom,
# search) in tests/integration/flamegraph.sh and runs speedscope's
# importer in export.sh; tmux runs ebs monitor's screen in
# tests/integration/monitor.sh (send-keys, capture-pane); strace watches
# that no device or FIFO a recording names is opened
# (tests/integration/neighbours.sh); nlohmann-json3-dev is the C++ library
# tests/integration/cxx.sh builds tests/real/jsonwork.cpp against (real
# template code's names: shortening and naming functions); cargo (and
# rustc) build the Rust program of tests/integration/rust.sh where
# rustup's cargo is not there; dwz makes the supplementary debug files of
# tests/integration/debuginfo-forms.sh; lld and mold link the call-graph
# workload beside GNU ld and gold (binutils) in tests/integration/linkers.sh;
# debuginfod is the real server tests/integration/debuginfod.sh asks; xz-utils
# is the real program tests/integration/timefilter.sh records (xz compressing)
# and the multi-threaded one (xz -T2) whose ebs view page
# tests/integration/view.sh drives in chromium.
set -u

BUILD_PKGS="build-essential pkg-config libelf-dev libdwarf-dev libunwind-dev uthash-dev zlib1g-dev
libncurses-dev nettle-dev libiberty-dev libdebuginfod-dev libcapstone-dev less"
# libdeflate-dev: symbolize/inflate.c inflates compressed DWARF sections with it
# (2-3x faster than zlib given the size, which ELF's compression header holds)
BUILD_PKGS="$BUILD_PKGS libdeflate-dev"
# libzydis-dev: annotate --asm decodes with Zydis what capstone 4.0.2 cannot (AVX-512's
# mask and EVEX instructions: glibc's *_evex string functions); optional, as capstone is
BUILD_PKGS="$BUILD_PKGS libzydis-dev"
# libarchive-dev: ebs archive writes, and every reader reads, a tar compressed with
# zstd through libarchive (data/archive.c): no tar or compression written by hand
BUILD_PKGS="$BUILD_PKGS libarchive-dev"
# libzstd-dev: a -g recording's samples are zstd frames (format 4.0, SAMPLES_CGZ records:
# data/writer.c writes them, data/reader.c reads them)
BUILD_PKGS="$BUILD_PKGS libzstd-dev"
TEST_PKGS="elfutils binutils python3 libstb-dev clang llvm libclang-rt-dev clang-format
cmake ninja-build golang-go python3-jsonschema chromium tmux strace nlohmann-json3-dev
cargo dwz lld mold debuginfod xz-utils"

usage() {
	echo "usage: scripts/deps.sh [build|test] [--list]" >&2
	exit 2
}
purpose=test list=""
for a in "$@"; do
	case $a in
	build | test) purpose=$a ;;
	--list) list=1 ;;
	*) usage ;;
	esac
done
case $purpose in
build) PKGS="$BUILD_PKGS ${EBS_DEPS_EXTRA:-}" ;;
test) PKGS="$BUILD_PKGS $TEST_PKGS ${EBS_DEPS_EXTRA:-}" ;;
esac
if [ -n "$list" ]; then
	for p in $PKGS; do echo "$p"; done
	exit 0
fi

missing=""
for p in $PKGS; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null)
	[ "$st" = "installed" ] || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ -n "${EBS_OFFLINE:-}" ]; then
	echo "scripts/deps.sh: missing Debian packages:$missing; not installed (EBS_OFFLINE, make check)" >&2
	exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		SUDO="sudo -n"
	else
		echo "scripts/deps.sh: missing Debian packages:$missing" >&2
		echo "scripts/deps.sh: run as root: apt-get install$missing" >&2
		exit 1
	fi
else
	SUDO=""
fi
echo "scripts/deps.sh: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
if ! $SUDO apt-get install -y -q --no-install-recommends $missing >/tmp/ebs-deps.log 2>&1; then
	# the package lists may be stale or absent on a fresh machine
	$SUDO apt-get update -q >>/tmp/ebs-deps.log 2>&1
	if ! $SUDO apt-get install -y -q --no-install-recommends $missing >>/tmp/ebs-deps.log 2>&1; then
		echo "scripts/deps.sh: apt-get install$missing failed; see /tmp/ebs-deps.log" >&2
		tail -n 5 /tmp/ebs-deps.log >&2
		exit 1
	fi
fi
exit 0
