#!/usr/bin/env bash
# prefetch.sh - reading the DWARF of a recording's files on all CPUs before
# the pass over the samples (symbolizer__prefetch, from the hints report's
# first pass keeps) changes nothing a view shows.  With EBS_DEBUG_NO_PREFETCH
# set, each file is read as the pass meets it, as before.  Every view of
# SQLite (its one 250,000-line unit and libc's separate, compressed debug
# file), of a program with two shared libraries, one of whose DWARF cannot
# be read, and of inlined code must be the same byte for byte either way
# (stdout, stderr: the same warnings, in the same order, and the status),
# with an empty cache and a warm one.  And the threads must be there: a
# report of SQLite starts one on two CPUs, none on one.
. "$(dirname "$0")/../lib.sh"

SQLWORK=$("$TOP/tests/real/build-sqlite.sh" 2>build.err)
if [ $? -ne 0 ] || [ ! -x "$SQLWORK" ]; then
	skip "SQLite" "no SQLite to build: $(tail -n 1 build.err)"
	SQLWORK=
else
	record sq.data -e cpu-clock -F 2000 "$SQLWORK" 100000
	check "record sqlwork" [ $? -eq 0 ]
fi

# shlib and its two libraries, copied: libebsdl.so's DWARF is broken after recording
mkdir -p lib
cp "$WORKLOADS/shlib" "$WORKLOADS/libebshot.so" "$WORKLOADS/libebsdl.so" lib/
record sh.data -e cpu-clock -F 2000 lib/shlib 0.5
check "record shlib" [ $? -eq 0 ]
python3 - lib/libebsdl.so <<'PY'
import struct, subprocess, sys
# the first unit's version (after its 4-byte length) made 0x7777: no unit reads
out = subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True, text=True).stdout
for line in out.splitlines():
    f = line.replace('[ ', '[').split()
    if len(f) > 5 and f[1] == '.debug_info':
        off = int(f[4], 16)
        with open(sys.argv[1], 'r+b') as fh:
            fh.seek(off + 4)
            fh.write(struct.pack('<H', 0x7777))
        break
else:
    sys.exit('no .debug_info in ' + sys.argv[1])
PY
check "libebsdl.so's DWARF broken" [ $? -eq 0 ]
record inl.data -e cpu-clock -F 2000 "$WORKLOADS/inlmany" 0.5
check "record inlmany" [ $? -eq 0 ]

# same NAME ARGS...: ebs ARGS gives the same stdout, stderr and status with
# the prefetch and without, each with a cache of its own: empty, then warm
n=0
same() {
	local name=$1 how pass ok=1
	shift
	n=$((n + 1))
	for how in pre none; do
		rm -rf "cache.$how"
		for pass in cold warm; do
			if [ $how = none ]; then
				EBS_DEBUG_NO_PREFETCH=1 XDG_CACHE_HOME=$PWD/cache.$how "$EBS" "$@" \
					>$n.$how.$pass.out 2>$n.$how.$pass.err
			else
				XDG_CACHE_HOME=$PWD/cache.$how "$EBS" "$@" \
					>$n.$how.$pass.out 2>$n.$how.$pass.err
			fi
			echo "status $?" >>$n.$how.$pass.out
		done
	done
	for pass in cold warm; do
		cmp -s $n.pre.$pass.out $n.none.$pass.out && cmp -s $n.pre.$pass.err $n.none.$pass.err ||
			ok=0
	done
	check "$name: the same with the prefetch and without, cold and warm" [ $ok -eq 1 ]
}

for f in ${SQLWORK:+sq} sh inl; do
	same "$f: report" report -i $f.data
	[ $f = sh ] && sh_n=$n
	same "$f: report --sort line" report -i $f.data --sort line
	same "$f: report --stats" report -i $f.data --stats
	same "$f: report --sort dso,func --json" report -i $f.data --sort dso,func --json
	same "$f: annotate" annotate -i $f.data
	same "$f: export --format folded" export -i $f.data --format folded
done
check "shlib: report warns once of libebsdl.so's DWARF" \
	[ "$(grep -c 'libebsdl.so' $sh_n.pre.cold.err)" -eq 1 ]
check "shlib: report still counts dl_hot" grep -q dl_hot $sh_n.pre.cold.out
keep $sh_n.pre.cold.err

# the threads: strace sees one clone on two CPUs, none on one or without the prefetch
if [ -z "$SQLWORK" ]; then
	skip "threads" "no SQLite recording"
elif ! command -v strace >/dev/null; then
	skip "threads" "strace is not installed"
elif [ "$(nproc)" -lt 2 ]; then
	skip "threads" "one CPU here: nothing to read on another"
else
	# LeakSanitizer stops the world with ptrace, which strace already holds
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	one=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	clones() {
		rm -rf cache.t
		XDG_CACHE_HOME=$PWD/cache.t strace -f -qq -e trace=clone,clone3 -o st.txt "$@" \
			>/dev/null 2>&1
		grep -c 'clone' st.txt
	}
	check "threads: a cold report of SQLite on 2 CPUs starts a thread" \
		[ "$(clones "$EBS" report -i sq.data)" -ge 1 ]
	check "threads: ...none on 1 CPU" \
		[ "$(clones taskset -c $one "$EBS" report -i sq.data)" -eq 0 ]
	check "threads: ...none with EBS_DEBUG_NO_PREFETCH" \
		[ "$(clones env EBS_DEBUG_NO_PREFETCH=1 "$EBS" report -i sq.data)" -eq 0 ]
	check "threads: ...none with --no-inline (no DWARF read)" \
		[ "$(clones "$EBS" report -i sq.data --no-inline)" -eq 0 ]
	XDG_CACHE_HOME=$PWD/cache.t1 taskset -c $one "$EBS" report -i sq.data >one.out 2>one.err
	XDG_CACHE_HOME=$PWD/cache.t2 "$EBS" report -i sq.data >two.out 2>two.err
	check "threads: the report on 1 CPU is the one on 2" \
		sh -c 'cmp -s one.out two.out && cmp -s one.err two.err'
fi
