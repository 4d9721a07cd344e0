#!/usr/bin/env bash
# tests/fuzz/seeds.sh - make the fuzz harnesses' seed corpora from real files,
# at fuzz time (nothing binary is committed but minimised regression inputs).
#
#   tests/fuzz/seeds.sh OUT [HARNESS...]	(default: every harness)
#
# Writes OUT/HARNESS/* for the harnesses named (reader elf events kallsyms
# perfmap kmod dwcache gopclntab).  Environment: EBS (an ebs binary, for recordings), WORKLOADS
# (built workloads: the programs recorded, and jit's perf map), BUILD (for
# tests/tools/mkdata), CC (default cc).  What cannot be made here (no
# permission to record, no compiler) is left out with a note on stderr; a
# harness whose directory ends up empty still starts from libFuzzer's own
# empty input.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:?usage: seeds.sh OUT [HARNESS...]}
shift
[ $# -gt 0 ] || set -- reader elf events kallsyms perfmap kmod dwcache gopclntab
CC=${CC:-cc}
BUILD=${BUILD:-build}
W=$TOP/tests/workloads
note() { echo "seeds.sh: $*" >&2; }
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
TMPD=$(mktemp -d /tmp/ebs-seeds.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT

# ebs.data: recordings of the test workloads, short and at a low rate (each
# a few KB: header records, the vdso's image, MMAP/COMM/FORK/EXIT, samples,
# COUNTs and the trailer), one streamed to a pipe, and mkdata's scripted
# files (LOST records, kernel samples).
seeds_reader() {
	local d=$OUT/reader n=0
	mkdir -p "$d"
	if [ -x "${EBS:-}" ] && [ -d "${WORKLOADS:-}" ]; then
		"$EBS" record -q -F 500 -o "$d/leafloop.data" "$WORKLOADS/leafloop" 0.03 >/dev/null 2>&1
		"$EBS" record -q -e cpu-clock,task-clock:u -c 2000000 -o "$d/threads.data" \
			"$WORKLOADS/threads" 0.01 >/dev/null 2>&1
		"$EBS" record -q -e task-clock -F 300 -o "$d/forkexec.data" \
			"$WORKLOADS/forkexec" 0.03 >/dev/null 2>&1
		"$EBS" record -q -e cpu-clock:u -F 500 -o - "$WORKLOADS/leafloop" 0.02 \
			>"$d/streamed.data" 2>/dev/null
		# format 4.0: samples with chains, registers and stacks packed (SAMPLES_CG) and
		# compressed (SAMPLES_CGZ)
		"$EBS" record -q -g -F 500 -o "$d/callgraph.data" "$WORKLOADS/calltree" 0.03 \
			>/dev/null 2>&1
		"$EBS" record -q --call-graph dwarf,512 -F 500 -o "$d/dwarf.data" \
			"$WORKLOADS/calltree" 0.03 >/dev/null 2>&1
		rm -f "$d"/*.old
	else
		note "reader: no EBS or WORKLOADS: no recordings"
	fi
	local mk=$TOP/$BUILD/tests/tools/mkdata
	if [ -x "$mk" ]; then
		sed -e 's|@GOLDEN@|/nonexistent/golden|; s|@JITPID@|4242|g' \
			"$TOP/tests/report/golden.script" | "$mk" "$d/golden.data" 2>/dev/null
		printf '%s\n' 'event cycles:k cycles 1000' 'comm 7 7 x' 'fork 8 7 8 7' \
			'mmap 7 400000 1000 0 /bin/true' 'sample 0 7 7 400010 3' \
			'sample 0 7 7 ffffffff81000000 1 k' 'lost 0 5' 'count 0 5000 9 9' |
			"$mk" "$d/small.data" 2>/dev/null
	fi
	# perf.data, which the reader converts (data/perfdata.c): file and pipe
	# mode, two events, frame-pointer and dwarf call graphs, timestamps and
	# data addresses (-T -d: PERF_SAMPLE_ADDR and TIME in every sample)
	if command -v perf >/dev/null && [ -d "${WORKLOADS:-}" ]; then
		perf record -q -e cpu-clock -F 500 -o "$d/perf-file.data" \
			"$WORKLOADS/forkexec" 0.02 >/dev/null 2>&1
		perf record -q -e cpu-clock,task-clock -g -F 500 -o - "$WORKLOADS/leafloop" 0.02 \
			>"$d/perf-pipe.data" 2>/dev/null
		perf record -q -e cpu-clock -g -F 500 -o "$d/perf-g.data" \
			"$WORKLOADS/calltree" 0.02 >/dev/null 2>&1
		perf record -q -e cpu-clock --call-graph dwarf,512 -F 500 -o "$d/perf-dwarf.data" \
			"$WORKLOADS/calltree" 0.02 >/dev/null 2>&1
		perf record -q -e cpu-clock -T -d -F 500 -o "$d/perf-td.data" \
			"$WORKLOADS/threads" 0.01 >/dev/null 2>&1
		rm -f "$d"/*.old
	else
		note "reader: no perf or WORKLOADS: no perf.data"
	fi
	for f in "$d"/*; do [ -s "$f" ] && n=$((n + 1)); done
	note "reader: $n files"
}

# ELF files: workloads built small (no separate code pages, no .comment),
# with DWARF 5 and 4, compressed debug sections, a shared library, a
# stripped one with a .gnu_debuglink, C++, golden.s's hand-written DWARF,
# and the C++ one and inlmany with a DW_AT_sibling pointed astray.
seeds_elf() {
	local d=$OUT/elf n=0
	# shellcheck disable=SC2054 # the commas are the linker's
	local small=(-std=gnu11 -D_GNU_SOURCE -I"$W" -Wl,-z,noseparate-code -Wl,--build-id)
	mkdir -p "$d"
	if ! command -v "$CC" >/dev/null; then
		note "elf: no $CC"
		return
	fi
	"$CC" "${small[@]}" -O2 -g -o "$d/inlmany" "$W/inlmany.c" 2>/dev/null
	"$CC" "${small[@]}" -O2 -gdwarf-4 -o "$d/inlmany-dwarf4" "$W/inlmany.c" 2>/dev/null
	"$CC" "${small[@]}" -O1 -g -gz=zlib -o "$d/hotline-gz" "$W/hotline.c" 2>/dev/null
	"$CC" "${small[@]}" -O2 -g -fPIC -shared -o "$d/libebshot.so" "$W/ebs_shlib.c" 2>/dev/null
	"$CC" "${small[@]}" -O0 -g -fno-pie -no-pie -o "$d/leafloop-nopie" "$W/leafloop.c" 2>/dev/null
	if "$CC" "${small[@]}" -O2 -g -o "$TMPD/split" "$W/split.c" 2>/dev/null; then
		objcopy --only-keep-debug "$TMPD/split" "$TMPD/split.debug" 2>/dev/null
		objcopy --strip-all --add-gnu-debuglink="$TMPD/split.debug" "$TMPD/split" \
			"$d/split-stripped" 2>/dev/null
		objcopy -R .comment "$TMPD/split.debug" "$d/split.debug" 2>/dev/null
	fi
	if command -v c++ >/dev/null; then
		c++ -O2 -g -Wl,-z,noseparate-code -o "$d/fix_cpp" "$TOP/tests/symbolize/fix_cpp.cpp" \
			2>/dev/null
	fi
	if as --64 -o "$TMPD/golden.o" "$TOP/tests/report/golden.s" 2>/dev/null; then
		ld -o "$d/golden" -Ttext=0x401000 --build-id=none -e work "$TMPD/golden.o" 2>/dev/null
	fi
	for f in "$d"/*; do
		[ -f "$f" ] || continue
		objcopy -R .comment "$f" 2>/dev/null
		n=$((n + 1))
	done
	for f in "$d/fix_cpp" "$d/inlmany"; do
		[ -f "$f" ] && n=$((n + $(sibling_seeds "$f")))
	done
	note "elf: $n files"
}

# sibling_seeds FILE: FILE-sibling-{self,parent,zero,past}, FILE with one
# DIE's DW_AT_sibling pointed at the DIE itself, its parent, 0 and past its
# unit (tests/tools/dwsiblings.py), in a DIE libdwarf passes through on its
# way past the parent where there is one: what hung the DIE walks (issue
# 28), for the fuzzer to go on from.  Prints how many it wrote.
sibling_seeds() {
	local f=$1 pick die parent unit end what target n=0
	pick=$(python3 "$TOP/tests/tools/dwsiblings.py" pick "$f" 2>/dev/null)
	if [ -n "$pick" ]; then
		read -r die parent unit end _ <<<"$pick"
		while read -r what target; do
			python3 "$TOP/tests/tools/dwsiblings.py" set "$f" "$f-sibling-$what" \
				"$die" "$target" 2>/dev/null && n=$((n + 1))
		done <<<"self $die
parent $parent
zero $unit
past $((end + 16))"
	fi
	echo $n
}

# Event strings: every event name `ebs list` knows, and every -e argument
# and raw-event form the documentation shows.
seeds_events() {
	local d=$OUT/events i=0 e
	mkdir -p "$d"
	{
		[ -x "${EBS:-}" ] && "$EBS" list 2>/dev/null | awk 'NF && $1 !~ /^(#|name|NAME)/ {print $1}'
		cat "$TOP"/docs/*.1 "$TOP/README.md" 2>/dev/null | sed 's/\\//g' |
			grep -oE '(-e|--event)[ =][A-Za-z0-9_:,=.-]+' | sed -E 's/^(-e|--event)[ =]//'
		grep -ohE '\br[0-9a-fA-F]{2,}(:[a-z]+(=[0-9a-fx]+)?)+' "$TOP"/docs/*.1 "$TOP/README.md" \
			2>/dev/null
	} | sort -u | while IFS= read -r e; do
		[ -n "$e" ] || continue
		i=$((i + 1))
		printf '%s' "$e" >"$d/doc-$i"
	done
	note "events: $(ls "$d" | wc -l) strings"
}

# kallsyms: real lines of /proc/kallsyms (the first, some of each type,
# a function's padding and module symbols), with the addresses as this user
# may see them, and the test suite's copy.
seeds_kallsyms() {
	local d=$OUT/kallsyms
	mkdir -p "$d"
	if [ -r /proc/kallsyms ]; then
		head -n 64 /proc/kallsyms >"$d/head"
		awk '{ if (seen[$2]++ < 4) print }' /proc/kallsyms >"$d/types"
		grep -m 64 '\[' /proc/kallsyms >"$d/modules"
		grep -m 1 -B 8 -A 8 ' _stext$' /proc/kallsyms >"$d/stext"
		# functions with padding before them (__pfx_, since 6.2): a caller's lookup
		grep -m 1 -B 4 -A 4 ' __pfx_pipe_release$' /proc/kallsyms >"$d/padding"
		[ -s "$d/modules" ] || rm -f "$d/modules"
		[ -s "$d/padding" ] || rm -f "$d/padding"
	else
		note "kallsyms: /proc/kallsyms unreadable"
	fi
	cp "$TOP/tests/report/kallsyms" "$d/tests-report"
	note "kallsyms: $(ls "$d" | wc -l) files"
}

# perf-PID.map: the one tests/workloads/jit writes while it runs, and the
# test suite's copy (a long C++ name).
seeds_perfmap() {
	local d=$OUT/perfmap pid
	mkdir -p "$d"
	if [ -x "${WORKLOADS:-}/jit" ]; then
		pid=$("$WORKLOADS/jit" 0.01 2>/dev/null)
		if [ -n "$pid" ] && [ -f "/tmp/perf-$pid.map" ]; then
			mv "/tmp/perf-$pid.map" "$d/jit.map"
		else
			note "perfmap: jit wrote no map"
		fi
	fi
	cp "$TOP/tests/report/jit.map" "$d/tests-report.map"
	note "perfmap: $(ls "$d" | wc -l) files"
}

# The kmod harness reads a little program (fuzz-kmod.c): a whole session
# (CONFIG, mmap of each ring, START, samples, STATS, reading, TAIL, STOP,
# RESET), a charge, and an msr-mode event encoding.
seeds_kmod() {
	local d=$OUT/kmod
	mkdir -p "$d"
	python3 - "$d" <<'PY' || note "kmod: no python3"
import struct, sys
d = sys.argv[1]
PAGE = 64  # fuzz-kmod.c's page size
def cfg(mode=0, kind=0, ev=6, n=100000, flags=1 | 8, pid=4242, pages=8):
    # struct ebs_config: mode, event_kind, event_id, sample_after, flags, pid, ring_pages, reserved
    return struct.pack('<IIQQIiII', mode, kind, ev, n, flags, pid, pages, 0)
def ioctl(which, arg=b'', cmd=0):  # which: VERSION CONFIG START STOP STATS RESET TAIL
    return bytes([1, which]) + struct.pack('<I', cmd) + arg.ljust(40, b'\0')
def sample(cpu, user):
    return bytes([2, cpu, user])
def mmap(pgoff, length, writable=0):
    return bytes([3]) + struct.pack('<II', pgoff, length) + bytes([writable])
def read(cpu):
    return bytes([6, cpu])
session = (bytes([0, 1]) + ioctl(1, cfg()) + mmap(0, 9 * PAGE) + mmap(9, 9 * PAGE) +
           ioctl(2) + sample(0, 1) * 3 + sample(1, 0) + sample(1, 1) +
           ioctl(4, struct.pack('<IIQ', 2, 0, 0)) + read(0) +
           ioctl(6, struct.pack('<IIQ', 1, 0, 32)) + ioctl(3) + ioctl(5) + ioctl(0) +
           ioctl(7, cmd=0xc018eb07))
open(d + '/session', 'wb').write(session)
open(d + '/allcpus-kernel', 'wb').write(ioctl(1, cfg(flags=1 | 2 | 4, pid=0, pages=1)) +
                                         ioctl(2) + sample(0, 0) * 4 + read(0) + ioctl(3))
open(d + '/charge', 'wb').write(bytes([4]) + struct.pack('<QQQQQ', 36, 100, 258, 0, 16) + b'\0')
eax = 2 | 4 << 8 | 48 << 16 | 7 << 24
open(d + '/evtsel', 'wb').write(bytes([5]) + struct.pack('<II', eax, 0) +
                                cfg(mode=1, kind=1, ev=0x01c2 | 1 << 24, flags=3))
PY
	note "kmod: $(ls "$d" | wc -l) files"
}

# cache entries of decoded DWARF: what ebs addr2line writes for workloads
# (DWARF in the file; one function, all of a program's code) and for libc
# (its separate debug file), a few units each (the harness re-keys them)
seeds_dwcache() {
	local d=$OUT/dwcache w f
	mkdir -p "$d"
	if [ ! -x "${EBS:-}" ] || [ ! -d "${WORKLOADS:-}" ]; then
		note "dwcache: no EBS or WORKLOADS: no entries"
		return
	fi
	for w in leafloop calltree inlmany; do
		[ -x "$WORKLOADS/$w" ] || continue
		rm -rf "$TMPD/xdg"
		nm "$WORKLOADS/$w" | awk '$2 ~ /[tT]/ { print $1 }' | head -n 40 |
			XDG_CACHE_HOME=$TMPD/xdg "$EBS" addr2line -e "$WORKLOADS/$w" >/dev/null 2>&1
		for f in "$TMPD"/xdg/ebs/*.dwarf; do [ -f "$f" ] && cp "$f" "$d/$w.dwarf"; done
	done
	rm -rf "$TMPD/xdg"
	printf '%x\n' 0x28000 0x99000 0x120000 |
		XDG_CACHE_HOME=$TMPD/xdg "$EBS" addr2line -e /lib/x86_64-linux-gnu/libc.so.6 >/dev/null 2>&1
	for f in "$TMPD"/xdg/ebs/*.dwarf; do [ -f "$f" ] && cp "$f" "$d/libc.dwarf"; done
	note "dwcache: $(ls "$d" | wc -l) files"
}

# Go's pclntab: the .gopclntab of a small Go program, built plain and as
# a PIE (.data.rel.ro.gopclntab), when go is installed.
seeds_gopclntab() {
	local d=$OUT/gopclntab b sec
	mkdir -p "$d"
	if ! command -v go >/dev/null; then
		note "gopclntab: no go: no seeds"
		return
	fi
	printf 'package main\n\nfunc main() { println("seed") }\n' >"$TMPD/seed.go"
	for b in exe pie; do
		(cd "$TMPD" && GOCACHE=$TMPD/gocache GO111MODULE=off go build -buildmode=$b \
			-ldflags='-s -w' -o "seed-$b" seed.go) >/dev/null 2>&1 || continue
		sec=.gopclntab
		[ $b = pie ] && sec=.data.rel.ro.gopclntab
		objcopy -O binary --only-section=$sec "$TMPD/seed-$b" "$d/$b.pclntab" 2>/dev/null
	done
	note "gopclntab: $(ls "$d" | wc -l) files"
}

for h in "$@"; do
	case $h in
	reader | elf | events | kallsyms | perfmap | kmod | dwcache | gopclntab) "seeds_$h" ;;
	*) note "no seeds for '$h'" ;;
	esac
done
exit 0
