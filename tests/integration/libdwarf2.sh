#!/usr/bin/env bash
# timeout: 1500
# libdwarf2.sh - ebs on the current libdwarf API, the one Fedora, Arch and
# Debian 13 ship (0.x and 2.x; Debian 12's 20210528 is the older API, see
# symbolize/dwarf_compat.h).  `make libdwarf2` builds libdwarf 2.3.1 from
# LIBDWARF2_TAR (../shared/vendor/libdwarf-2.3.1-src.tar.gz) with cmake and
# ninja into $BUILD/libdwarf2/inst, then ebs and the unit tests on it into
# $BUILD/libdwarf2/ebs (with SAN= when the suite runs with sanitizers).
# This runs there the unit tests and the symbolizer's integration tests,
# unchanged (TESTS_ON: symbolize, lines, names, annotate, hostile-elf,
# debuginfo-forms),
# their lines prefixed with "libdwarf2: ", and compares its answers with
# those of the ebs built on the system's libdwarf.  It installs nothing and
# downloads nothing: without cmake, ninja, zstd's header or the tarball it
# skips, saying which (scripts/deps.sh installs them).
. "$(dirname "$0")/../lib.sh"

# With sanitizers (SAN=, the suite's second run) only the tests that decode
# the most DWARF, real and corrupt: what they look for there is the memory
# libdwarf's newer API hands out and takes back; the rest adds time, not that.
if [ -n "${SAN:-}" ]; then
	TESTS_ON=${LIBDWARF2_TESTS:-symbolize hostile-elf}
else
	TESTS_ON=${LIBDWARF2_TESTS:-symbolize lines names annotate hostile-elf debuginfo-forms}
fi
# the Makefile's default, relative to the tree
TAR=$(cd "$TOP" && realpath -m "${LIBDWARF2_TAR:-../shared/vendor/libdwarf-2.3.1-src.tar.gz}")
B=$BUILD/libdwarf2/ebs	# relative to $TOP, as BUILD is
ART=$ARTEFACTS/libdwarf2
rm -rf "$ART"
mkdir -p "$ART"

missing=""
command -v cmake >/dev/null || missing="$missing cmake"
command -v ninja >/dev/null || missing="$missing ninja-build"
printf '#include <zstd.h>\n' | cc -E -x c - >/dev/null 2>&1 || missing="$missing libzstd-dev"
if [ -n "$missing" ]; then
	skip "all" "libdwarf 2 is built with cmake, ninja and zstd (for compressed sections):" \
		"install the Debian packages$missing (scripts/deps.sh does)"
	exit 0
fi
if [ ! -r "$TAR" ]; then
	skip "all" "no libdwarf source at $TAR (LIBDWARF2_TAR= names another)"
	exit 0
fi

# the build, with this run's flags (CI=true's -Werror, SAN=) but not its make's
start=$(date +%s)
if ! env -u MAKEFLAGS -u MAKELEVEL make -C "$TOP" -j2 BUILD="$BUILD" LIBDWARF2_TAR="$TAR" \
	${SAN:+SAN="$SAN"} libdwarf2 >build.log 2>&1; then
	cp build.log "$ART/"
	fail "build ebs on libdwarf 2.3.1" "$(grep -m 1 -E 'error|Error|did not build' build.log)"
	exit 0
fi
pass "build ebs on libdwarf 2.3.1 ($(($(date +%s) - start)) s)"
E=$TOP/$B/ebs
# the archive's code is in ebs (dwarf_dealloc_ranges exists only from 0.1.0 on)
check "ebs runs on libdwarf 2.3.1's archive, not on a libdwarf.so" \
	bash -c "nm '$E' | grep -q ' T dwarf_dealloc_ranges$' && ! ldd '$E' | grep -q libdwarf"

# run NAME CMD...: CMD's PASS/FAIL/SKIP lines, prefixed; as run.sh, a crash
# or no check at all is a FAIL
run() {
	local name=$1 out rc
	shift
	out=$(cd "$TOP" && timeout 600 "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$ART/$name.log"
	grep -E '^(PASS|FAIL|SKIP): ' <<<"$out" | sed -E 's/^(PASS|FAIL|SKIP): /\1: libdwarf2: /'
	if grep -q '^FAIL: ' <<<"$out"; then
		grep -v -E '^(PASS|SKIP): ' <<<"$out" | grep -v '^FAIL: ' | tail -n 10 | sed 's/^/    /'
	elif [ "$rc" -ne 0 ]; then
		fail "$name" "exited with status $rc and no FAIL line: $(tail -n 1 <<<"$out")"
	elif ! grep -q -E '^(PASS|SKIP): ' <<<"$out"; then
		fail "$name" "ran no check"
	fi
}

# The same answers as the ebs built on the system's libdwarf (Debian 12's
# 20210528 API, or the same current one elsewhere), address by address:
# up to 20000 addresses spread over the .text of ebs itself, of workloads
# with inlined code and a shared library, and of the dynamic loader (with
# its separate debug file when Debian's libc6-dbg is installed).
same() {	# FILE
	local f=$1 n
	n=$(basename "$f")
	if [ ! -e "$f" ]; then
		skip "same answers as with the system's libdwarf: $n" "no $f on this machine"
		return
	fi
	readelf -SW "$f" 2>/dev/null | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2), $(i + 4) }' |
		python3 -c 'import sys
lo, size = (int(x, 16) for x in sys.stdin.read().split()[:2])
print("\n".join("%x" % a for a in range(lo, lo + size, max(1, size // 20000))))' >"$n.addrs" 2>/dev/null
	if [ ! -s "$n.addrs" ]; then
		fail "same answers as with the system's libdwarf: $n" "no .text in $f"
		return
	fi
	"$EBS" addr2line -e "$f" <"$n.addrs" >"$n.sys" 2>"$n.sys.err"
	"$E" addr2line -e "$f" <"$n.addrs" >"$n.ld2" 2>"$n.ld2.err"
	if [ -s "$n.sys" ] && cmp -s "$n.sys" "$n.ld2" && cmp -s "$n.sys.err" "$n.ld2.err"; then
		pass "same answers as with the system's libdwarf: $n ($(wc -l <"$n.addrs") addresses)"
	else
		cp "$n.sys" "$n.ld2" "$n.sys.err" "$n.ld2.err" "$ART/" 2>/dev/null
		fail "same answers as with the system's libdwarf: $n" \
			"$(diff "$n.sys" "$n.ld2" | grep -m 2 '^[<>]' | tr '\n' '|') (both in $ART)"
	fi
}
for f in "$EBS" "$WORKLOADS/inlmany" "$WORKLOADS/libebshot.so" "$WORKLOADS/leafloop-nopie" \
	/lib64/ld-linux-x86-64.so.2; do
	same "$f"
done

for t in "$TOP/$B"/tests/unit/test-*; do
	case $t in *.o | *.d) continue ;; esac
	[ -x "$t" ] && run "unit-$(basename "$t")" "$t"
done
for s in $TESTS_ON; do
	run "$s" env BUILD="$B" EBS="$E" ARTEFACTS="$ART" bash "$TOP/tests/integration/$s.sh"
done
