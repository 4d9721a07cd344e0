#!/bin/sh
# scripts/deps.sh - install the Debian packages ebs builds and tests with,
# only those missing.  Quiet and fast (one dpkg-query) when all are present.
#
#   scripts/deps.sh            build and test dependencies
#   EBS_DEPS_EXTRA="pkg ..."   more packages (e.g. the kernel-module test's)
#   EBS_OFFLINE=1              install nothing: say what is missing, exit 1
#                              (make check; tests then skip, saying why)
#
# The build's own (scripts/check-deps.sh names the headers): build-essential,
# pkg-config, libelf-dev, libdwarf-dev, libunwind-dev (unwinding of call
# graphs), uthash-dev, zlib1g-dev, libncurses-dev (ebs monitor's screen),
# nettle-dev (Nettle: SHA-256, the digest that says which file an entry of
# the DWARF cache is of, symbolize/digest.c);
# libcapstone-dev is optional (annotate --asm).  The rest are the tests': libclang-rt-dev is
# the default clang's runtime (libclang-rt-14-dev on Debian 12): libFuzzer,
# for the fuzz harnesses (docs/fuzzing.md); clang-format for make
# format-check; cmake, ninja-build and libzstd-dev build libdwarf 2 for
# tests/integration/libdwarf2.sh; golang-go (go tool pprof reads back
# ebs export --format pprof) and python3-jsonschema (--format speedscope
# against speedscope's schema) for tests/integration/export.sh; chromium
# (headless, over the DevTools pipe: tests/tools/render.py and browse.py)
# renders annotate --html, drives ebs flamegraph's SVG (hover, zoom,
# search) in tests/integration/flamegraph.sh and runs speedscope's
# importer in export.sh; tmux runs ebs monitor's screen in
# tests/integration/monitor.sh (send-keys, capture-pane); strace watches
# that no device or FIFO a recording names is opened
# (tests/integration/neighbours.sh).
set -u

PKGS="build-essential pkg-config libelf-dev libdwarf-dev libunwind-dev uthash-dev zlib1g-dev
libncurses-dev nettle-dev tmux
libcapstone-dev libstb-dev
elfutils binutils python3 clang llvm libclang-rt-dev clang-format cmake ninja-build libzstd-dev
golang-go python3-jsonschema chromium strace
${EBS_DEPS_EXTRA:-}"

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
