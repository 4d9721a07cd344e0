#!/usr/bin/env bash
# timeout: 1200
# cache.sh - the cache of decoded DWARF ($XDG_CACHE_HOME/ebs, docs/symbolize.md
# "The cache"):
#  a. the same output, byte for byte, with the cache cold (empty), warm, and
#     bypassed (--no-cache): report (func, --sort line, --stats, --children,
#     --tree), annotate (the hottest, FUNC, --asm), flamegraph, export and
#     addr2line, on the SQLite driver (tests/real/build-sqlite.sh, -g) and on
#     calltree (-g) and inlmany; their warnings too;
#  b. a warm run reads no debug information through libdwarf (a preloaded
#     spy counts the calls), a cold one and --no-cache do; a copy of a
#     program with its DWARF zeroed (same build-id and size, other bytes) is
#     answered from its own bytes, not from the program's entry; a program
#     without a build-id is not kept; one with a sparse tail of 16 GiB is
#     kept, and neither run reads the tail; nobody's copy of the SQLite
#     driver (read from a copy of what was hashed) answers as without a cache;
#  c. corrupt entries (bytes flipped, truncated, garbage, another version,
#     empty, a symbolic link, a directory) never crash and never change the
#     output, and an entry that does not hold is written anew;
#  d. two reports at once, from an empty cache: the same output, whole
#     entries, no temporary file left;
#  e. the size cap (EBS_CACHE_MAX): the least recently used entries go
#     first; 0 keeps nothing; a bad value is one warning line;
#  f. a directory that cannot be used (group-writable, a symbolic link, not
#     ours, another user's HOME as root, read-only, full, no HOME): the same
#     output, at most one warning line, no failure.
# SEED and MUTANTS override the defaults (seed 5, 60 mutants).
. "$(dirname "$0")/../lib.sh"

SEED=${SEED:-5}
MUTANTS=${MUTANTS:-60}
export XDG_CACHE_HOME=$TMP/xdg HOME=$TMP/home	# never the real one's cache
CACHE=$XDG_CACHE_HOME/ebs
unset EBS_CACHE_MAX

SQLWORK=$("$TOP/tests/real/build-sqlite.sh" 2>build.err)
rc=$?
if [ $rc -ne 0 ] || [ ! -x "$SQLWORK" ]; then
	skip "sqlite" "no SQLite driver ($(tail -n 1 build.err)): the workloads only"
	SQLWORK=
fi

# ---- recordings ---------------------------------------------------------------
recs=()
if [ -n "$SQLWORK" ]; then
	record sq.data -g -e cpu-clock -F 1000 "$SQLWORK" 60000 &&
		recs+=("sq.data:sqlite3VdbeExec") || fail "record sqlwork" "$(tail -n 1 sq.data.err)"
fi
record ct.data -g -e cpu-clock -F 2000 "$WORKLOADS/calltree" 0.4 &&
	recs+=("ct.data:leaf_a") || fail "record calltree" "$(tail -n 1 ct.data.err)"
record im.data -e cpu-clock -F 2000 "$WORKLOADS/inlmany" 0.3 &&
	recs+=("im.data:") || fail "record inlmany" "$(tail -n 1 im.data.err)"

# outputs DIR [OPTION]: every reader's output of every recording into DIR,
# stdout and stderr, each with its exit status
outputs() {
	local dir=$1 r data fn
	shift
	mkdir -p "$dir"
	for r in "${recs[@]}"; do
		data=${r%%:*} fn=${r#*:}
		run "$dir" "$data.report" report -i "$data" "$@"
		run "$dir" "$data.line" report -i "$data" --sort line "$@"
		run "$dir" "$data.stats" report -i "$data" --stats "$@"
		run "$dir" "$data.children" report -i "$data" --children "$@"
		run "$dir" "$data.tree" report -i "$data" --tree "$@"
		run "$dir" "$data.annotate" annotate -i "$data" --color never "$@"
		run "$dir" "$data.flame" flamegraph -i "$data" -o "$dir/$data.svg" "$@"
		run "$dir" "$data.folded" export -i "$data" --format folded "$@"
		run "$dir" "$data.speedscope" export -i "$data" --format speedscope "$@"
		if [ -n "$fn" ]; then
			run "$dir" "$data.annfn" annotate -i "$data" "$fn" --color never "$@"
			run "$dir" "$data.asm" annotate -i "$data" "$fn" --asm --color never "$@"
		fi
	done
	if [ -n "$SQLWORK" ]; then
		run "$dir" addr2line addr2line -e "$SQLWORK" "$@" <sq.addrs
	fi
}
run() {
	local dir=$1 name=$2
	shift 2
	"$EBS" "$@" >"$dir/$name.out" 2>"$dir/$name.err"
	echo "$?" >"$dir/$name.rc"
}
# addresses all over sqlwork's code (link-time: every 4093rd byte), for addr2line
if [ -n "$SQLWORK" ]; then
	python3 - "$SQLWORK" >sq.addrs <<'EOF'
import subprocess, sys
lo = None
for l in subprocess.run(['readelf', '-lW', sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = l.split()
    if f and f[0] == 'LOAD' and 'E' in l:
        lo, size = int(f[2], 16), int(f[5], 16)
for i, a in enumerate(range(lo, lo + size, 4093)):
    print(hex(a))
EOF
fi

# same A B: two output directories hold the same files, byte for byte
same() {
	diff -r "$1" "$2" >"$TMP/diff.txt" 2>&1
}

rm -rf "$CACHE"
outputs ref --no-cache
check "a. --no-cache writes nothing to the cache" [ ! -e "$CACHE" ]
outputs cold
check "a. cold cache: entries written" [ -n "$(ls "$CACHE" 2>/dev/null)" ]
outputs warm
outputs warm2
for d in cold warm warm2; do
	if same ref $d; then
		pass "a. $d: every output as with --no-cache, stderr and status too"
	else
		fail "a. $d: every output as with --no-cache, stderr and status too" \
			"$(head -c 400 "$TMP/diff.txt" | tr '\n' ' ')"
	fi
done
check "a. the outputs are not empty" [ -s "ref/ct.data.report.out" ] && [ -s ref/ct.data.folded.out ]
check "a. no temporary file left" [ -z "$(ls -A "$CACHE" | grep '\.tmp\.')" ]
check "a. the directory is 0700" [ "$(stat -c %a "$CACHE")" = 700 ]
if [ -n "$SQLWORK" ]; then
	bid=$(readelf -n "$SQLWORK" | awk '/Build ID/ { print $3 }')
	lbid=$(readelf -n /lib/x86_64-linux-gnu/libc.so.6 | awk '/Build ID/ { print $3 }')
	check "a. sqlwork has an entry, named by its build-id" [ -f "$CACHE/$bid.v6.dwarf" ]
	if [ -e "/usr/lib/debug/.build-id/${lbid:0:2}/${lbid:2}.debug" ]; then
		check "a. libc has an entry, by its debug file's build-id" [ -f "$CACHE/$lbid.v6.dwarf" ]
	fi
	run ref demangled report -i sq.data --no-demangle --no-cache
	run cold demangled report -i sq.data --no-demangle
	run warm demangled report -i sq.data --no-demangle
	check "a. --no-demangle: its own entries, the same output" \
		cmp -s ref/demangled.out warm/demangled.out
	check "a. --no-demangle: entries named .mangled" [ -n "$(ls "$CACHE" | grep '\.mangled\.dwarf$')" ]
	# a report of functions keeps sqlwork's unit without its line table (rows:
	# most of the entry); what wants lines after it reads them, and keeps them
	rm -rf "$CACHE"
	mkdir -p a2
	run a2 report report -i sq.data
	func_size=$(stat -c %s "$CACHE/$bid.v6.dwarf" 2>/dev/null || echo 0)
	run a2 line report -i sq.data --sort line
	line_size=$(stat -c %s "$CACHE/$bid.v6.dwarf" 2>/dev/null || echo 0)
	run a2 report2 report -i sq.data
	run a2 annotate annotate -i sq.data --color never
	check "a. after a report of functions, --sort line, report and annotate as with --no-cache" \
		sh -c "cmp -s a2/report.out ref/sq.data.report.out && cmp -s a2/line.out ref/sq.data.line.out &&
			cmp -s a2/report2.out ref/sq.data.report.out && cmp -s a2/annotate.out ref/sq.data.annotate.out"
	check "a. the entry of a report of functions has no rows ($func_size bytes), --sort line's has ($line_size)" \
		[ "$func_size" -gt 0 ] && [ $((func_size * 2)) -lt "$line_size" ]
fi

# ---- b. a warm run reads no DWARF -------------------------------------------------
# spy.so counts the calls of libdwarf's unit walk and line-table reader
# (used only to read debug information, never for .eh_frame) into
# $DWARF_SPY, and those that inflate a compressed section (libdwarf's
# uncompress, libelf's elf_compress) into $INFLATE_SPY
cat >spy.c <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <libdwarf.h>
static void mark_to(const char *var)
{
	const char *f = getenv(var);
	int fd = f ? open(f, O_WRONLY | O_CREAT | O_APPEND, 0644) : -1;
	if (fd >= 0) {
		if (write(fd, "x", 1) != 1) {}
		close(fd);
	}
}
static void mark(void)
{
	mark_to("DWARF_SPY");
}
int uncompress(unsigned char *d, unsigned long *dl, const unsigned char *s, unsigned long sl)
{
	int (*real)(unsigned char *, unsigned long *, const unsigned char *, unsigned long) =
		(int (*)())dlsym(RTLD_NEXT, "uncompress");
	mark_to("INFLATE_SPY");
	return real(d, dl, s, sl);
}
int elf_compress(void *scn, int type, unsigned int flags)
{
	int (*real)(void *, int, unsigned int) = (int (*)())dlsym(RTLD_NEXT, "elf_compress");
	mark_to("INFLATE_SPY");
	return real(scn, type, flags);
}
int dwarf_srclines_b(Dwarf_Die d, Dwarf_Unsigned *v, Dwarf_Small *t, Dwarf_Line_Context *c,
		     Dwarf_Error *e)
{
	int (*real)(Dwarf_Die, Dwarf_Unsigned *, Dwarf_Small *, Dwarf_Line_Context *,
		    Dwarf_Error *) = (int (*)())dlsym(RTLD_NEXT, "dwarf_srclines_b");
	mark();
	return real(d, v, t, c, e);
}
int dwarf_next_cu_header_d(Dwarf_Debug dbg, Dwarf_Bool info, Dwarf_Unsigned *a, Dwarf_Half *b,
			   Dwarf_Off *c, Dwarf_Half *d, Dwarf_Half *e, Dwarf_Half *f, Dwarf_Sig8 *g,
			   Dwarf_Unsigned *h, Dwarf_Unsigned *i, Dwarf_Half *j, Dwarf_Error *k)
{
	int (*real)(Dwarf_Debug, Dwarf_Bool, Dwarf_Unsigned *, Dwarf_Half *, Dwarf_Off *,
		    Dwarf_Half *, Dwarf_Half *, Dwarf_Half *, Dwarf_Sig8 *, Dwarf_Unsigned *,
		    Dwarf_Unsigned *, Dwarf_Half *, Dwarf_Error *) =
		(int (*)())dlsym(RTLD_NEXT, "dwarf_next_cu_header_d");
	mark();
	return real(dbg, info, a, b, c, d, e, f, g, h, i, j, k);
}
EOF
# spied CMD...: CMD under the spy; the number of its calls into libdwarf's
# debug-information readers on stdout (its own output into spied.out/err)
spied() {
	rm -f spy.count
	DWARF_SPY=$PWD/spy.count LD_PRELOAD=$PWD/spy.so \
		ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" "$@" >spied.out 2>spied.err
	if [ -f spy.count ]; then wc -c <spy.count; else echo 0; fi
}
SPY=
if cc -shared -fPIC -O1 -I/usr/include/libdwarf -o spy.so spy.c -ldl 2>spy.err; then
	SPY=1
else
	skip "b. libdwarf spy" "cannot build spy.c against this libdwarf: $(head -n 1 spy.err)"
fi
if [ -n "$SPY" ] && [ -n "$SQLWORK" ]; then
	rm -rf "$CACHE"
	n_cold=$(spied "$EBS" report -i sq.data --sort line)
	n_warm=$(spied "$EBS" report -i sq.data --sort line)
	check "b. sqlwork: the warm report reads no debug information through libdwarf ($n_cold calls cold, $n_warm warm), the same output" \
		eval '[ "$n_cold" -gt 0 ] && [ "$n_warm" -eq 0 ] && cmp -s spied.out ref/sq.data.line.out'
	# libc's separate debug file, its sections compressed (Debian's are): inflated
	# once into the cache (HEX.v2.inflated), read from there when a unit is missing
	ldbg=/usr/lib/debug/.build-id/${lbid:0:2}/${lbid:2}.debug
	if [ ! -e "$ldbg" ] || ! readelf -SW "$ldbg" | grep '\.debug_info' | grep -q ' C '; then
		skip "b. inflated copy" "libc's debug file is not installed, or its DWARF not compressed"
	else
		copy=$CACHE/$lbid.v2.inflated
		check "b. libc's compressed debug file: an inflated copy kept" [ -f "$copy" ]
		cp "$copy" good.inflated
		rm -f "$CACHE"/*.dwarf # the decoded units gone: each must be read again
		rm -f infl.count
		n=$(INFLATE_SPY=$PWD/infl.count spied "$EBS" report -i sq.data --sort line)
		ninf=$(cat infl.count 2>/dev/null | wc -c)
		check "b. ... a report missing libc's units reads the copy: libdwarf called ($n), nothing inflated ($ninf), the same output" \
			eval '[ "$n" -gt 0 ] && [ "$ninf" -eq 0 ] && cmp -s spied.out ref/sq.data.line.out'
		rm -f infl.count
		INFLATE_SPY=$PWD/infl.count spied "$EBS" report -i sq.data --sort line --no-cache >/dev/null
		ninf=$(cat infl.count 2>/dev/null | wc -c)
		check "b. ... and --no-cache inflates libc's sections ($ninf calls)" [ "$ninf" -gt 0 ]
		# a byte of the copy flipped: not used, made again
		python3 -c "
import os, sys
f = open(sys.argv[1], 'r+b'); n = os.path.getsize(sys.argv[1]); f.seek(n // 2)
b = f.read(1); f.seek(n // 2); f.write(bytes([b[0] ^ 0x20]))" "$copy"
		rm -f "$CACHE"/*.dwarf
		"$EBS" report -i sq.data --sort line >bad-copy.out 2>bad-copy.err
		check "b. ... a copy with a byte flipped: the same output, no word, the copy made again" \
			eval 'cmp -s bad-copy.out ref/sq.data.line.out && [ ! -s bad-copy.err ] && cmp -s "$copy" good.inflated'
		rm -rf "$CACHE"
		EBS_CACHE_MAX=16M "$EBS" report -i sq.data --sort line >small.out 2>&1
		check "b. ... no copy when it would take more than a quarter of EBS_CACHE_MAX (16M), the same output" \
			eval '[ ! -e "$copy" ] && cmp -s small.out ref/sq.data.line.out'
	fi
fi
cat >b.c <<'EOF'
#include <stdlib.h>
static volatile unsigned long sink;
static inline unsigned long step(unsigned long x) { return x * 2654435761u + 1; }
__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
	for (int i = 0; i < 100; i++)
		x = step(x) ^ (x >> 3);
	return x;
}
int main(int argc, char **argv)
{
	sink = mix(argc > 1 ? strtoul(argv[1], NULL, 0) : 3);
	return 0;
}
EOF
if cc -g -O2 -o b b.c 2>cc.err && cc -g -O2 -Wl,--build-id=none -o nobid b.c 2>>cc.err; then
	addrs=$(nm b | awk '$3 == "main" || $3 == "mix" { print $1 }')
	rm -rf "$CACHE"
	"$EBS" addr2line -e "$PWD/b" --no-cache $addrs >b.want 2>&1
	"$EBS" addr2line -e "$PWD/b" $addrs >b.cold 2>&1
	if [ -n "$SPY" ]; then
		n=$(spied "$EBS" addr2line -e "$PWD/b" $addrs)
		check "b. addr2line warm: no debug information read ($n calls), the same answers" \
			eval '[ "$n" -eq 0 ] && cmp -s spied.out b.want'
		n=$(spied "$EBS" addr2line -e "$PWD/b" --no-cache $addrs)
		check "b. ... and with --no-cache it is read ($n calls)" [ "$n" -gt 0 ]
	fi
	check "b. addr2line cold: the same answers, b's lines among them" \
		eval 'cmp -s b.cold b.want && grep -q "b\.c:" b.want'
	# a copy with its DWARF zeroed: the same build-id and size, other bytes
	cp b bz
	python3 - bz <<'EOF'
import subprocess, sys
for l in subprocess.run(['readelf', '-SW', sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    f = l.replace('[ ', '[').split()
    if len(f) > 6 and f[1] in ('.debug_info', '.debug_line'):
        off, size = int(f[4], 16), int(f[5], 16)
        with open(sys.argv[1], 'r+b') as fh:
            fh.seek(off); fh.write(b'\0' * size)
EOF
	"$EBS" addr2line -e "$PWD/bz" --no-cache $addrs >bz.want 2>&1
	"$EBS" addr2line -e "$PWD/bz" $addrs >bz.got 2>&1
	"$EBS" addr2line -e "$PWD/b" $addrs >b.after 2>&1
	check "b. a copy with the same build-id but other bytes: answered from its own bytes, not b's entry" \
		eval 'cmp -s bz.got bz.want && not cmp -s bz.want b.want'
	check "b. ... and b's answers after it are b's" cmp -s b.after b.want
	n=$(ls "$CACHE" | wc -l)
	"$EBS" addr2line -e "$PWD/nobid" $addrs >/dev/null 2>&1
	check "b. a file without a build-id is not kept" [ "$(ls "$CACHE" | wc -l)" -eq "$n" ]
	# what an entry is of: the sections decoding reads, not the file: a sparse
	# tail of 16 GiB is neither read nor hashed (tests/tools/readbytes.py: rchar)
	cp b bsparse
	truncate -s +16G bsparse
	rm -rf "$CACHE"
	python3 "$TOP/tests/tools/readbytes.py" sp.cold "$EBS" addr2line -e "$PWD/bsparse" $addrs >bsp.cold 2>&1
	python3 "$TOP/tests/tools/readbytes.py" sp.warm "$EBS" addr2line -e "$PWD/bsparse" $addrs >bsp.warm 2>&1
	check "b. b with a sparse tail of 16 GiB: cold and warm read $(cat sp.cold) and $(cat sp.warm) bytes (under 16 MiB), b's answers, kept" \
		eval '[ "$(cat sp.cold)" -lt $((16 << 20)) ] && [ "$(cat sp.warm)" -lt $((16 << 20)) ] &&
		      cmp -s bsp.cold b.want && cmp -s bsp.warm b.want && [ -n "$(ls "$CACHE")" ]'
else
	skip "b" "cannot build b.c: $(head -n 1 cc.err)"
fi
# a program another user may write (nobody's): its DWARF is read from a copy
# of what was hashed (symbolize/digest.c), with the same answers
if [ -n "$SQLWORK" ] && [ "$(id -u)" -eq 0 ]; then
	mkdir -p theirs
	cp "$SQLWORK" theirs/sqlwork
	chown 65534:65534 theirs/sqlwork
	rm -rf "$CACHE"
	"$EBS" addr2line -e "$PWD/theirs/sqlwork" --no-cache <sq.addrs >th.want 2>&1
	"$EBS" addr2line -e "$PWD/theirs/sqlwork" <sq.addrs >th.cold 2>&1
	"$EBS" addr2line -e "$PWD/theirs/sqlwork" <sq.addrs >th.warm 2>&1
	check "b. nobody's copy of sqlwork, read from a copy of what was hashed: cold and warm as --no-cache, an entry kept" \
		eval 'cmp -s th.cold th.want && cmp -s th.warm th.want && grep -q "sqlite3\.c:" th.want &&
		      [ -f "$CACHE/$bid.v6.dwarf" ]'
fi

# ---- c. corrupt entries ----------------------------------------------------------
# one_more ERR: ERR holds at most one line more than the run without a cache, about the cache
one_more() {
	local extra
	extra=$(grep -vxFf c.want.err "$1")
	[ "$(printf '%s' "$extra" | grep -c .)" -le 1 ] && { [ -z "$extra" ] || grep -q 'cache' <<<"$extra"; }
}
# mutate MODE SEED FILE: flip, trunc, garbage, version, empty
mutate() {
	python3 - "$@" <<'EOF'
import os, random, sys
mode, seed, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
r = random.Random(seed)
b = bytearray(open(path, 'rb').read())
if mode == 'flip':
    # in the header and index often, anywhere else too
    for _ in range(r.choice([1, 1, 2, 8])):
        zone = r.random()
        if zone < 0.3:
            i = r.randrange(min(176, len(b)))  # the header
        elif zone < 0.6:
            i = r.randrange(max(0, len(b) - 4096), len(b))
        else:
            i = r.randrange(len(b))
        b[i] ^= 1 << r.randrange(8)
elif mode == 'trunc':
    b = b[:r.randrange(len(b))]
elif mode == 'garbage':
    b = bytearray(r.randbytes(len(b)))
elif mode == 'version':
    b[8] ^= 0x7f
elif mode == 'empty':
    b = bytearray()
open(path, 'wb').write(b)
EOF
}
if [ -n "$SQLWORK" ]; then
	cdata=sq.data
else
	cdata=ct.data
fi
"$EBS" report -i $cdata --sort line --no-cache >c.want 2>c.want.err
rm -rf "$CACHE"
"$EBS" report -i $cdata --sort line >/dev/null 2>&1	# the entries of this report, complete
cp -a "$CACHE" pristine
RANDOM=$SEED
modes=(flip flip flip trunc garbage version empty)
crash=0 changed=0 errs=0 stale=0 runs=0
for i in $(seq 1 "$MUTANTS"); do
	rm -rf "$CACHE"
	cp -a pristine "$CACHE"
	entries=("$CACHE"/*.dwarf)
	victim=${entries[$((RANDOM % ${#entries[@]}))]}
	mode=${modes[$((RANDOM % ${#modes[@]}))]}
	mutate "$mode" $((SEED * 1000 + i)) "$victim"
	cp "$victim" victim.bad
	timeout -s KILL 60 "$EBS" report -i $cdata --sort line >c.got 2>c.err
	rc=$?
	runs=$((runs + 1))
	if [ $rc -ne 0 ]; then
		crash=$((crash + 1)); echo "cache: mutant $i ($mode of $(basename "$victim")): status $rc: $(head -c 200 c.err)"
	elif ! cmp -s c.got c.want; then
		changed=$((changed + 1)); echo "cache: mutant $i ($mode of $(basename "$victim")): output changed"
	elif ! cmp -s c.err c.want.err; then
		errs=$((errs + 1)); echo "cache: mutant $i ($mode of $(basename "$victim")): stderr changed: $(head -c 200 c.err)"
	fi
	# an entry whose header or size no longer holds is written anew
	if [ "$mode" != flip ] && cmp -s "$victim" victim.bad; then
		stale=$((stale + 1)); echo "cache: mutant $i ($mode of $(basename "$victim")): not replaced"
	fi
done
echo "cache: $runs runs over corrupt entries: $crash failed, $changed changed output, $errs changed stderr, $stale not replaced"
check "c. corrupt entries: no failure, the same output and warnings, every broken entry replaced ($runs runs)" \
	[ $((crash + changed + errs + stale)) -eq 0 ]

# a symbolic link where an entry would be: not followed, nor written through
rm -rf "$CACHE"
cp -a pristine "$CACHE"
entries=("$CACHE"/*.dwarf)
mv "${entries[0]}" target.dwarf
ln -s "$PWD/target.dwarf" "${entries[0]}"
mutate flip 1 target.dwarf
cp target.dwarf target.before
"$EBS" report -i $cdata --sort line >c.got 2>c.err
check "c. a symbolic link as an entry: the same output" cmp -s c.got c.want
check "c. ... the link's target untouched, the link replaced by an entry" \
	eval 'cmp -s target.dwarf target.before && [ -f "${entries[0]}" ] && [ ! -L "${entries[0]}" ]'
# a directory where an entry would be
rm -rf "$CACHE"
cp -a pristine "$CACHE"
entries=("$CACHE"/*.dwarf)
rm -f "${entries[0]}"
mkdir "${entries[0]}"
"$EBS" report -i $cdata --sort line >c.got 2>c.err
check "c. a directory as an entry: the same output, one warning line, no temporary left" \
	eval 'cmp -s c.got c.want && one_more c.err && [ -z "$(ls -A "$CACHE" | grep "\.tmp\.")" ]'

# ---- d. two at once ---------------------------------------------------------------
bad=0
for i in 1 2 3; do
	rm -rf "$CACHE"
	"$EBS" report -i $cdata --sort line >d1.got 2>&1 &
	p1=$!
	"$EBS" report -i $cdata --sort line >d2.got 2>&1 &
	p2=$!
	wait $p1 || bad=$((bad + 1))
	wait $p2 || bad=$((bad + 1))
	cmp -s d1.got c.want || bad=$((bad + 1))
	cmp -s d2.got c.want || bad=$((bad + 1))
	"$EBS" report -i $cdata --sort line >d3.got 2>&1
	cmp -s d3.got c.want || bad=$((bad + 1))
	ls -A "$CACHE" | grep -q '\.tmp\.' && bad=$((bad + 1))
done
check "d. two reports at once, 3 times: both exit 0, same output; then warm the same; no temporary left" \
	[ $bad -eq 0 ]
# the entries they left are whole: every one read back by a warm run that
# writes nothing (no entry changes)
sums=$(cd "$CACHE" && md5sum *.dwarf)
"$EBS" report -i $cdata --sort line >d4.got 2>&1
check "d. the entries left are whole: a warm run uses them as they are" \
	eval '[ "$sums" = "$(cd "$CACHE" && md5sum *.dwarf)" ] && cmp -s d4.got c.want'

# ---- e. the size cap ----------------------------------------------------------------
rm -rf "$CACHE"
"$EBS" report -i $cdata --sort line >/dev/null 2>&1
n_all=$(ls "$CACHE"/*.dwarf | wc -l)
total=$(cat "$CACHE"/*.dwarf | wc -c)
oldest=$(ls -S "$CACHE"/*.dwarf | tail -n 1)	# the smallest: made the oldest here
touch -d '2 days ago' "$oldest"
# one entry more (b's), with room for all but one byte: the oldest goes
if [ -x b ]; then
	EBS_CACHE_MAX=$((total - 1)) "$EBS" addr2line -e "$PWD/b" $addrs >/dev/null 2>&1
	check "e. over the cap: the least recently used entry goes, the others stay" \
		eval '[ ! -e "$oldest" ] && [ "$(ls "$CACHE"/*.dwarf | wc -l)" -eq "$n_all" ]'
fi
# an entry larger than the cap: not kept, and nothing evicted for it (b's stays)
if [ -x b ]; then
	rm -rf "$CACHE"
	"$EBS" addr2line -e "$PWD/b" $addrs >/dev/null 2>&1
	small=$(ls "$CACHE")
	EBS_CACHE_MAX=$(( $(stat -c %s "$CACHE/$small") + 4096 )) "$EBS" report -i $cdata --sort line >e.got 2>e.err
	check "e. an entry larger than the cap: not kept, nothing evicted for it, the same output, no word" \
		eval '[ "$(ls "$CACHE")" = "$small" ] && cmp -s e.got c.want && cmp -s e.err c.want.err'
fi
rm -rf "$CACHE"
EBS_CACHE_MAX=1 "$EBS" report -i $cdata --sort line >e.got 2>e.err
check "e. EBS_CACHE_MAX=1: the same output, nothing kept" \
	eval 'cmp -s e.got c.want && [ -z "$(ls "$CACHE")" ]'
rm -rf "$CACHE"
EBS_CACHE_MAX=0 "$EBS" report -i $cdata --sort line >e.got 2>e.err
check "e. EBS_CACHE_MAX=0: the same output, no directory made" \
	eval 'cmp -s e.got c.want && [ ! -e "$CACHE" ]'
EBS_CACHE_MAX=lots "$EBS" report -i $cdata --sort line >e.got 2>e.err
check "e. EBS_CACHE_MAX=lots: the same output, one warning line naming it" \
	eval 'cmp -s e.got c.want && [ "$(grep -vxFf c.want.err e.err | wc -l)" -eq 1 ] && grep -q "EBS_CACHE_MAX=.lots." e.err'
check "e. sizes: 64M, 2G, 100k, 512MiB read; 12x, -1, M refused" \
	eval 'for v in 64M 2G 100k 512MiB 4096; do EBS_CACHE_MAX=$v "$EBS" report -i $cdata --sort line 2>&1 >/dev/null | grep -q EBS_CACHE_MAX && exit 1; done;
	      for v in 12x -1 M; do EBS_CACHE_MAX=$v "$EBS" report -i $cdata --sort line 2>&1 >/dev/null | grep -q EBS_CACHE_MAX || exit 1; done; true'

# ---- f. a directory that cannot be used ----------------------------------------------
rm -rf "$CACHE"
mkdir -p "$CACHE"
chmod 770 "$CACHE"
"$EBS" report -i $cdata --sort line >f.got 2>f.err
check "f. a group-writable directory: not used, the same output, one warning line" \
	eval 'cmp -s f.got c.want && one_more f.err && grep -q "others may write to it (mode 770)" f.err &&
	      grep -q "EBS_CACHE_MAX=0 goes without a word" f.err && [ -z "$(ls "$CACHE")" ]'
rm -rf "$CACHE"
mkdir -p "$XDG_CACHE_HOME"
ln -s "$TMP" "$CACHE"
"$EBS" report -i $cdata --sort line >f.got 2>f.err
check "f. the directory a symbolic link: not followed, the same output, one warning line" \
	eval 'cmp -s f.got c.want && one_more f.err'
rm -f "$CACHE"
env -u HOME -u XDG_CACHE_HOME "$EBS" report -i $cdata --sort line >f.got 2>f.err
check "f. no HOME: the same output, no word" eval 'cmp -s f.got c.want && cmp -s f.err c.want.err'
mkdir -p "$HOME"
env XDG_CACHE_HOME=relative "$EBS" report -i $cdata --sort line >f.got 2>f.err
check "f. XDG_CACHE_HOME relative: ignored for HOME's, the same output" \
	eval 'cmp -s f.got c.want && ls "$HOME"/.cache/ebs/*.dwarf >/dev/null'
if [ "$(id -u)" -eq 0 ]; then
	# as nobody, in a directory of root's
	mkdir -p rootdir
	chmod 755 rootdir
	chmod 755 "$TMP"
	# a recording of calltree's copy that nobody may read (for_nobody:
	# $cdata's programs may be in a checkout out of nobody's reach), so that
	# nobody's report decodes its DWARF and wants a cache entry
	if ! record nb.data -e cpu-clock -F 2000 "$(for_nobody "$WORKLOADS/calltree")" 0.2; then
		fail "f. record for nobody" "$(tail -n 1 nb.data.err)"
	fi
	chmod 644 nb.data
	nbebs=$(for_nobody "$EBS")
	# (nobody sees no kernel symbols: its own run without the cache is the reference)
	$NOBODY "$nbebs" report -i nb.data --sort line --no-cache >f.want 2>f.want.err
	$NOBODY env XDG_CACHE_HOME="$TMP/rootdir" "$nbebs" report -i nb.data --sort line >f.got 2>f.err
	check "f. as nobody, a cache in a directory of root's: the same output, one warning line" \
		eval 'cmp -s f.got f.want && [ "$(grep -vxFf f.want.err f.err | grep -c "cache .*cannot be made")" -eq 1 ] &&
		      [ "$(grep -vxFf f.want.err f.err | wc -l)" -eq 1 ]'
	# root (sudo) with another user's HOME: nothing of root's made in it
	mkdir -p nbhome
	chown 65534:65534 nbhome
	env -u XDG_CACHE_HOME HOME="$TMP/nbhome" "$EBS" report -i $cdata --sort line >f.got 2>f.err
	check "f. root with another user's HOME: the same output, one warning line, nothing made there" \
		eval 'cmp -s f.got c.want && one_more f.err && [ -z "$(ls -A nbhome)" ]'
	mkdir -p nbhome/.cache/ebs
	chown -R 65534:65534 nbhome
	env -u XDG_CACHE_HOME HOME="$TMP/nbhome" "$EBS" report -i $cdata --sort line >f.got 2>f.err
	check "f. ... and with the user's cache there: not used (not root's), one warning line" \
		eval 'cmp -s f.got c.want && one_more f.err && [ -z "$(ls -A nbhome/.cache/ebs)" ]'
	# read-only and full file systems
	mkdir -p ro full
	if mount -t tmpfs -o size=64k tmpfs full 2>/dev/null; then
		XDG_CACHE_HOME=$PWD/full "$EBS" report -i $cdata --sort line >f.got 2>f.err
		check "f. a full file system: the same output, at most one warning line, no temporary left" \
			eval 'cmp -s f.got c.want && one_more f.err && [ -z "$(ls -A full/ebs | grep "\.tmp\.")" ]'
		umount full
	else
		skip "f. full" "cannot mount a tmpfs here"
	fi
	if mount -t tmpfs -o ro tmpfs ro 2>/dev/null; then
		XDG_CACHE_HOME=$PWD/ro "$EBS" report -i $cdata --sort line >f.got 2>f.err
		check "f. a read-only file system: the same output, at most one warning line" \
			eval 'cmp -s f.got c.want && one_more f.err'
		umount ro
	else
		skip "f. read-only" "cannot mount a tmpfs here"
	fi
else
	skip "f. nobody, full, read-only" "needs root"
fi
