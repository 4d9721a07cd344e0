#!/usr/bin/env bash
# hostile-elf.sh - a profiled program replaced, after recording, by a
# corrupted copy of itself: ebs report, report --sort line, annotate and
# addr2line must survive every copy.  Small programs are built here (gcc
# DWARF 5 with .debug_rnglists, gcc DWARF 4 with .debug_ranges, gcc DWARF 5
# compressed (-gz), clang DWARF 5 when installed, one whose only -g unit
# holds data, and g++'s of tests/symbolize/fix_cpp.cpp), one is recorded,
# then seeded mutants of each (byte runs, bit flips, truncation, edited
# section headers, targeted edits of .debug_rnglists, .debug_loclists,
# .debug_info, .debug_line, .debug_abbrev, .symtab, .strtab and others, a
# DIE's DW_AT_sibling pointed elsewhere) are put back at the recorded path
# and read under timeout.  Before them, the files a recording names replaced
# or planted: another program, a FIFO, a perf-PID.map of another user or
# linked to /dev/zero, endless or zeroed kallsyms; and DW_AT_sibling links
# leading back, to their own DIE, to 0 and past their unit, in the C++
# program and in the SQLite driver, recorded.
#
# Pass: no death by a signal (status >= 128: an abort, a crash, a hang ended
# by timeout), no sanitizer report (under a SAN=address,undefined build),
# every line on stderr one of ebs's own ("ebs CMD: ..."), and a failing run
# ends with exactly one line that is not a warning.  The tallies are
# printed.  SEED and MUTANTS override the defaults (seed 11, 400 mutants).
. "$(dirname "$0")/../lib.sh"
# What a report makes of the file at the recorded path: the build-id cache
# (docs/symbolize.md), which record fills, would answer for it instead.
export EBS_BUILDID_CACHE_MAX=0

SEED=${SEED:-11}
MUTANTS=${MUTANTS:-400}

# Several functions, one cold and one inlined, main in .text.startup: with
# -O2 the unit's code is in several ranges, so DWARF 5 gives it a
# DW_AT_ranges in .debug_rnglists (DWARF 4: .debug_ranges).
cat >prog.c <<'EOF'
#include <stdlib.h>

static volatile unsigned long sink;

static inline unsigned long step(unsigned long x)
{
	return x * 2654435761u + 1;
}

__attribute__((noinline)) static unsigned long mix(unsigned long x)
{
	return (x >> 7) ^ (x << 3) ^ 0x9e3779b9;
}

__attribute__((noinline)) unsigned long hot(unsigned long n)
{
	unsigned long a = 0, i;

	for (i = 0; i < n; i++)
		a = step(a) ^ mix(i);
	return a;
}

__attribute__((noinline, cold)) void rare(const char *s)
{
	while (*s)
		sink += (unsigned char)*s++;
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 30000000;

	if (n == 1)
		rare(argv[0]);
	sink = hot(n);
	return 0;
}
EOF
# A -g unit with data only, linked into a program built without -g: no unit has code.
cat >data.c <<'EOF'
const int table[4] = {1, 2, 3, 4};
int counter;
EOF
cat >datamain.c <<'EOF'
extern const int table[4];
extern int counter;
int main(void)
{
	return table[counter & 3] - 1;
}
EOF

bases=()
build() {	# NAME COMMAND...: build NAME, or say why not
	if "${@:2}" 2>"$1.err"; then bases+=("$1"); else fail "build $1" "$(head -n 1 "$1.err")"; fi
}
build d5 gcc -O2 -g -o d5 prog.c
build d4 gcc -O2 -gdwarf-4 -o d4 prog.c
# compressed sections: libdwarf inflates them, and ebs makes its inflated copy (libelf)
build dz gcc -O2 -g -gz -o dz prog.c
if command -v clang >/dev/null; then
	build clang clang -O2 -g -o clang prog.c
else
	skip "clang" "clang is not installed: gcc's DWARF only"
fi
build dataonly bash -c 'gcc -O2 -g -c data.c && gcc -O2 -o dataonly datamain.c data.o'
# C++: g++ gives every DIE with children but the last of its list a DW_AT_sibling
if command -v g++ >/dev/null; then
	build cpp g++ -O2 -g -o cpp "$TOP/tests/symbolize/fix_cpp.cpp"
else
	skip "cpp" "g++ is not installed: no C++ program"
fi
if [ ${#bases[@]} -eq 0 ]; then
	exit 0
fi
check "d5 has .debug_rnglists (DWARF 5 range lists)" bash -c "readelf -SW d5 | grep -q '\.debug_rnglists'"

# The valid programs first: each answers its functions, exit 0, no warning.
for b in "${bases[@]}"; do
	nm "$b" | awk '$2 ~ /^[tT]$/ {print $1}' >"$b.addrs"
	"$EBS" addr2line -e "$b" <"$b.addrs" >"$b.a2l" 2>"$b.a2l.err"
	rc=$?
	check "$b (valid): addr2line exits 0 (got $rc) without a word on stderr ($(head -c 200 "$b.a2l.err"))" \
		[ $rc -eq 0 -a ! -s "$b.a2l.err" ]
done
check "dataonly: no unit with code answers '?? at ??:0' for main" grep -q '^main at ??:0$' dataonly.a2l

# Kernel samples resolve through a one-line kallsyms (k.kallsyms): reading
# the machine's costs more than the rest of a report.
MKDATA=$(dirname "$EBS")/tests/tools/mkdata
SAN_BUILD=
nm "$EBS" 2>/dev/null | grep -q __asan_init && SAN_BUILD=1
echo "ffffffff81000000 T _stext" >k.kallsyms

# warned NAME FILE PATTERN: FILE (stderr) is exactly one line, a warning
# matching PATTERN (an extended regex)
warned() {
	check "$1: one warning line matching '$3' (got '$(head -c 300 "$2")')" \
		bash -c '[ "$(wc -l <"$1")" -eq 1 ] && grep -qE -e "$2" "$1"' sh "$2" "$3"
}

# One recording of d5, run as "run", the path every mutant is put back at.
cp d5 run
recorded=
if record run.data -e cpu-clock -F 2000 ./run && [ -s run.data ]; then
	recorded=1
	"$EBS" report -i run.data --sort func --json >run.json 2>run.json.err
	check "the recording resolves hot in run" jtrue run.json "any(r.get('function') == 'hot' for r in j['rows'])"
else
	skip "report, annotate" "ebs record failed: $(head -n 1 run.data.err)"
fi

# The two crafted files the issue found (libdwarf 20210528 double-frees
# on both, status 134): .debug_rnglists' offset set to another section's,
# and its first 20 bytes zeroed.  Each must be read without its range
# lists, saying so, by addr2line and (put back at the recorded path) by
# report, report --sort line and annotate.
python3 - d5 <<'PY'
import struct, sys
b = bytes(open(sys.argv[1], 'rb').read())
shoff = struct.unpack_from('<Q', b, 0x28)[0]
shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)
hdr = lambda i: struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)
stroff = hdr(shstrndx)[4]
sec = {}
for i in range(shnum):
    h = hdr(i)
    sec[b[stroff + h[0]:b.index(0, stroff + h[0])].decode()] = (i, h[4])
i, off = sec['.debug_rnglists']
m = bytearray(b)
struct.pack_into('<Q', m, shoff + 64 * i + 24, sec['.debug_info'][1])
open('rng-offset', 'wb').write(m)
m = bytearray(b)
m[off:off + 20] = bytes(20)
open('rng-zero20', 'wb').write(m)
PY
hot=$(nm d5 | awk '$3 == "hot" {print $1}')
for f in rng-offset rng-zero20; do
	"$EBS" addr2line -e $f "$hot" >$f.out 2>$f.err
	rc=$?
	check "$f: addr2line exits 0 (got $rc; 134: libdwarf's double free), hot named" \
		bash -c '[ "$1" -eq 0 ] && grep -q "^hot at" "$2.out"' sh $rc $f
	warned "$f: addr2line" $f.err "warning: $f: the table at .debug_rnglists offset [0-9a-fx]+ is corrupt: DWARF 5 range lists not read"
	[ -n "$recorded" ] || continue
	cp $f run
	for how in "report" "report --sort line" "annotate hot"; do
		"$EBS" $how -i run.data --kallsyms k.kallsyms --no-pager >/dev/null 2>$f.rerr
		rc=$?
		check "$f: ebs $how exits 0 (got $rc; 134: libdwarf's double free), messages ebs's own" \
			bash -c '[ "$1" -eq 0 ] && ! grep -qv "^ebs ${2%% *}: warning: " "$3"' sh $rc "$how" $f.rerr
	done
	cp d5 run
done

# ---- files the recording names, replaced or planted after it -------------
# Another program put where the recorded one was: the same code under other
# names (other_hot...), so that its symbols cover the recorded addresses;
# without a build-id, with another one, and (a recording without build-ids)
# at another inode.  None of its names may appear (before: hot's samples
# went to other_hot); each says which file does not match, and how many
# samples that leaves unresolved.
OTHER="-O2 -Dhot=other_hot -Dmix=other_mix -Drare=other_rare"
replaced() {	# NAME DATA WHY: report DATA with run replaced; the checks
	local name=$1 data=$2 n
	"$EBS" report -i "$data" --json --kallsyms k.kallsyms >"$name.json" 2>"$name.err"
	check "$name: no function of the other program named" \
		jtrue "$name.json" "not any('other_' in (r.get('function') or '') for r in j['rows'])"
	n=$(json "$name.json" "sum(r['samples'] for r in j['rows'] if r['dso'] == 'run')")
	check "$name: says run is not the file recorded, and that its $n samples are left unresolved ($(tr '\n' '|' <"$name.err" | head -c 400))" \
		bash -c 'grep -qE "warning: .*/run: not the file recorded \($2\)" "$1" &&
			 grep -qE "warning: .*/run: $3 samples? left unresolved: not the file recorded" "$1"' \
		sh "$name.err" "$3" "$n"
	check "$name: those $n samples are [unknown] rows of run" \
		jtrue "$name.json" "$n > 0 and all(r['function'].startswith('[unknown]') for r in j['rows'] if r['dso'] == 'run')"
}
if [ -n "$recorded" ] && gcc $OTHER -Wl,--build-id=none -o other-noid prog.c && gcc $OTHER -o other-id prog.c; then
	bid=$(readelf -n d5 | sed -n 's/.*Build ID: //p')
	ino=$(stat -c %i run)
	# nobid.data: the recording as a kernel without build-ids writes it, the
	# inode in their place; prints 1 when run.data has run's build-id
	recorded_bid=$(python3 - run.data nobid.data "$TMP/run" "$ino" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
path, ino = sys.argv[3].encode(), int(sys.argv[4])
off, had = struct.unpack_from('<Q', b, 24)[0], 0
while off + 8 <= len(b):
    typ, misc, size = struct.unpack_from('<HHI', b, off)
    if size < 8:
        break
    # struct ebs_rec_mmap: misc at 2, ino at 56, build_id_size at 80, build_id
    # at 84, filename at 104
    if typ == 17 and bytes(b[off + 104:off + 104 + len(path) + 1]) == path + b'\0':
        had |= (misc >> 4) & 1
        struct.pack_into('<H', b, off + 2, misc & ~(1 << 4))	# EBS_MMAP_BUILD_ID
        struct.pack_into('<Q', b, off + 56, ino)
        b[off + 80:off + 104] = bytes(24)
    off += size
open(sys.argv[2], 'wb').write(b)
print(had)
PY
)
	if [ "$recorded_bid" = 1 ]; then
		mv run run.orig
		cp other-noid run
		replaced "replaced by a file without a build-id" run.data "no build-id, the recorded file had $bid"
		cp other-id run
		replaced "replaced by a file with another build-id" run.data \
			"build-id [0-9a-f]+ differs from the recorded $bid"
		mv run.orig run
	else
		skip "replaced binary, build-id" "this kernel records no build-ids (before 5.12)"
	fi
	mv run run.orig
	cp other-noid run
	replaced "no build-id recorded, replaced at another inode" nobid.data \
		"inode [0-9]+ differs from the recorded $ino"
	mv run.orig run
	"$EBS" report -i nobid.data --json --kallsyms k.kallsyms >nobid.json 2>nobid.err
	check "no build-id recorded, the recorded inode: hot named, no warning ($(head -c 200 nobid.err))" \
		bash -c '[ ! -s nobid.err ] && python3 -c "import json, sys; sys.exit(not any(r.get(\"function\") == \"hot\" for r in json.load(open(\"nobid.json\"))[\"rows\"]))"'
fi

# A FIFO where the recorded file was, and where a JIT's perf-PID.map would
# be: opened without blocking, refused as not regular (before: a hang).
if [ -n "$recorded" ]; then
	mv run run.orig
	mkfifo run
	EBS_ERROR_CODES=1 timeout -s KILL 20 "$EBS" report -i run.data --kallsyms k.kallsyms >fifo.out 2>fifo.err
	rc=$?
	check "a FIFO at the recorded path: report exits 0 (got $rc; 137: it hung)" [ $rc -eq 0 ]
	warned "a FIFO at the recorded path" fifo.err "warning: .*/run: is a FIFO, not a regular file"
	coded "a FIFO at the recorded path" fifo.err EBS_E_NOT_REGULAR
	rm -f run
	mv run.orig run
fi
# A JIT's samples (mkdata: pid $jp, anonymous memory), its map in /tmp, and
# one kernel sample.
jp=$((5000000 + $$))	# above any pid: no real process's map
jmap=/tmp/perf-$jp.map
cat >jit.script <<EOF
event cpu-clock cpu-clock 100000
comm $jp $jp jitty
mmap $jp 7f0000000000 10000 0 //anon
sample 0 $jp $jp 7f0000000010 10
sample 0 $jp $jp ffffffff81001000 5 k
EOF
# jit_report NAME [report options]: report jit.data into NAME.json and
# NAME.err (warnings with their codes: EBS_ERROR_CODES=1), killed after 20 s,
# in 1 GB of address space (ASan needs more)
jit_report() {
	local name=$1
	shift
	(ulimit -v "$([ -n "$SAN_BUILD" ] && echo unlimited || echo 1000000)"
	 EBS_ERROR_CODES=1 timeout -s KILL 20 "$EBS" report -i jit.data --json "$@" >"$name.json" 2>"$name.err")
}
if "$MKDATA" jit.data <jit.script; then
	rm -f "$jmap"
	echo "7f0000000000 100 jit_fn" >"$jmap"
	jit_report jitok --kallsyms k.kallsyms
	check "perf-PID.map of ours: jit_fn named" jtrue jitok.json "j['rows'][0]['function'] == 'jit_fn'"
	chown 65534 "$jmap"
	jit_report jitother --kallsyms k.kallsyms
	check "perf-PID.map of another user in /tmp: not trusted, jit_fn not named" \
		jtrue jitother.json "not any(r['function'] == 'jit_fn' for r in j['rows'])"
	coded "perf-PID.map of another user in /tmp" jitother.err EBS_E_UNTRUSTED
	rm -f "$jmap"
	mkfifo "$jmap"
	jit_report jitfifo --kallsyms k.kallsyms
	check "perf-PID.map a FIFO: report ends (before: a hang)" [ -s jitfifo.json ]
	coded "perf-PID.map a FIFO" jitfifo.err EBS_E_NOT_REGULAR
	rm -f "$jmap"
	ln -s /dev/zero "$jmap"
	jit_report jitzero --kallsyms k.kallsyms
	check "perf-PID.map a link to /dev/zero: report ends" [ -s jitzero.json ]
	warned "perf-PID.map a link to /dev/zero" jitzero.err \
		"perf-$jp.map: is a symbolic link in a directory others can write: not followed"
	rm -f "$jmap"
	python3 -c "print('7f0000000000 100 ' + 'j' * 70000)" >"$jmap"
	jit_report jitlong --kallsyms k.kallsyms
	coded "perf-PID.map with a 70,000-byte line" jitlong.err EBS_E_LINE_TOO_LONG
	rm -f "$jmap"
	# kallsyms: endless, and hidden addresses
	jit_report kzero --kallsyms /dev/zero
	check "--kallsyms /dev/zero: report ends" [ -s kzero.json ]
	coded "--kallsyms /dev/zero" kzero.err EBS_E_LINE_TOO_LONG
	printf '%s\n' "0000000000000000 T _stext" "0000000000000000 T do_work" \
		"0000000000000000 t helper" "ffffffffc0001000 t mod_fn	[mymod]" >zeros.kallsyms
	jit_report kzeros --kallsyms zeros.kallsyms
	check "kallsyms of zeros (and one module symbol): the kernel sample gets no name" \
		jtrue kzeros.json "all(r['function'].startswith('[unknown]') for r in j['rows'] if r['dso'].startswith('['))"
	coded "kallsyms of zeros" kzeros.err EBS_E_ADDRESSES_HIDDEN
	if [ "$($NOBODY awk '$3 == "_stext" {print $1}' /proc/kallsyms)" = 0000000000000000 ]; then
		chmod 644 jit.data
		(cd / && nobody_ebs report -i "$TMP/jit.data" --json >"$TMP/knobody.json" 2>"$TMP/knobody.err")
		warned "unprivileged, /proc/kallsyms of zeros" knobody.err \
			"/proc/kallsyms: addresses are hidden from this user"
	else
		skip "unprivileged, /proc/kallsyms of zeros" "this kernel shows nobody kernel addresses (kptr_restrict 0, perf_event_paranoid <= 1)"
	fi
else
	fail "mkdata" "cannot write jit.data"
fi
rm -f "$jmap"

# ---- DW_AT_sibling: at its own DIE, back, at 0, past its unit --------------
# libdwarf's dwarf_siblingof_b follows a DIE's DW_AT_sibling; asked for the
# sibling of a DIE that has children and no DW_AT_sibling of its own, it
# passes through them, following theirs, and Debian 12's libdwarf
# (20210528) goes round for ever on one that points at its own DIE: a
# one-to-four-byte change hung report, annotate, addr2line and cached
# reports (issue 28: 3 of 530 mutated C++ binaries).  Here, for a DIE
# libdwarf passes through so (its parent has no DW_AT_sibling; inside a
# function with code, which every reader walks), found by
# tests/tools/dwsiblings.py in the C++ program and in the SQLite driver,
# the link is set at the DIE itself, at its parent, at 0 (its unit's
# header) and past its unit.  Each command must end within the hang guard,
# exit 0, warn once naming the file, the unit and the DIE, and answer as
# for the intact program wherever the DIEs it skips are not: the C++
# program's addr2line everywhere outside the function the DIE is in (and
# there, the function compiled); for the SQLite driver, a DIE after which
# its enclosing DIEs hold no function or inlined instance, so that report,
# annotate and addr2line (decoding afresh) and a second report (from the
# cache) print exactly what they print for the intact program.
SIBS="python3 $TOP/tests/tools/dwsiblings.py"

# sib_cases: "CASE TARGET WHY" for the DIE picked ($die, $parent, $unit, $end)
sib_cases() {
	echo "self $die points at the DIE itself"
	echo "parent $parent points back, to $(printf '%#x' "$parent")"
	echo "zero $unit points back, to $(printf '%#x' "$unit")"
	echo "past $((end + 16)) points past the unit"
}

# sib_run NAME FILE WHY INTACT CMD...: CMD (an ebs command reading FILE, the
# mutant) ends within 60 s, exit 0, its stdout INTACT's (none: not
# compared) and its stderr one warning naming FILE, the unit, the DIE and WHY
sib_run() {
	local name=$1 file=$2 why=$3 intact=$4 sub=$6 rc
	shift 4
	timeout -s KILL 60 "$@" >sib.out 2>sib.err
	rc=$?
	check "$name: ends, exit 0 (got $rc; 137: it hung)" [ $rc -eq 0 ]
	[ -z "$intact" ] || check "$name: prints what it prints for the intact program" cmp -s "$intact" sib.out
	warned "$name" sib.err "^ebs $sub: warning: (.*/)?$file: the unit at \.debug_info offset $(printf '%#x' "$unit"): the DW_AT_sibling of the DIE at $(printf '%#x' "$die") $why: DIEs after it skipped \(lines may be missing\)$"
}

# The C++ program, by addr2line of every function (cpp.addrs, answered by
# the intact program in cpp.a2l).
if [ ! -x cpp ]; then
	skip "sibling: C++" "no C++ program (above)"
elif ! pick=$($SIBS pick cpp); then
	fail "sibling: C++" "g++ gave no DIE whose parent has no DW_AT_sibling in a function"
else
	read -r die parent unit end lo hi <<<"$pick"
	while read -r case target why; do
		$SIBS set cpp "sib-$case" "$die" "$target"
		sib_run "C++, DW_AT_sibling of $(printf '%#x' "$die") $why: addr2line" "sib-$case" "$why" "" \
			"$EBS" addr2line --no-cache -e "sib-$case" <cpp.addrs
		# each address's answer (a line and its "(inlined by)" lines)
		check "C++, DW_AT_sibling of $(printf '%#x' "$die") $why: addr2line answers as for the intact program but in [$(printf '%#x' "$lo"), $(printf '%#x' "$hi")), where the function compiled is the same" \
			python3 - cpp.addrs cpp.a2l sib.out "$lo" "$hi" <<'PY'
import sys
addrs = [int(a, 16) for a in open(sys.argv[1]).read().split()]
def answers(path):
    out = []
    for line in open(path):
        if line.startswith(' (inlined by) '):
            out[-1].append(line)
        else:
            out.append([line])
    return out
def compiled(answer):  # the last frame's function
    return answer[-1].removeprefix(' (inlined by) ').rsplit(' at ', 1)[0]
want, got = answers(sys.argv[2]), answers(sys.argv[3])
lo, hi = int(sys.argv[4]), int(sys.argv[5])
sys.exit(len(want) != len(addrs) or len(got) != len(addrs) or any(
    w != g if not lo <= a < hi else compiled(w) != compiled(g)
    for a, w, g in zip(addrs, want, got)))
PY
	done < <(sib_cases)
fi

# The SQLite driver, recorded: a DIE of SQLite's own unit (the amalgamation,
# 1.4 MB of .debug_info, where the samples are) that libdwarf passes through,
# and after which its enclosing DIEs hold no function or inlined instance.
if ! sqlite_build "sibling: SQLite"; then
	:
elif ! cp "$SQLWORK" sqrun || ! record sq.data -e cpu-clock -F 2000 ./sqrun 100000; then
	fail "sibling: SQLite" "ebs record of sqlwork failed: $(head -n 1 sq.data.err)"
elif ! pick=$($SIBS pick sqrun 'd["after"] == 0 and d["unit_end"] - d["unit"] > 100000 and d["tag"] in ("DW_TAG_inlined_subroutine", "DW_TAG_lexical_block")'); then
	fail "sibling: SQLite" "no DIE of SQLite's unit whose parent has no DW_AT_sibling, nothing after it"
else
	read -r die parent unit end lo hi <<<"$pick"
	cp sqrun sqrun.intact
	nm sqrun | awk '$2 ~ /^[tT]$/ {print $1}' >sq.addrs
	VIEW=(-i sq.data --kallsyms k.kallsyms --no-pager)
	"$EBS" report "${VIEW[@]}" --json >sq.report 2>sq.err
	# sqrun's hottest function: under load a kernel row can lead the report
	hot=$(json sq.report "[r['function'] for r in j['rows'] if r['dso'].rsplit('/', 1)[-1] == 'sqrun'][0]")
	"$EBS" annotate "${VIEW[@]}" "$hot" >sq.annotate 2>>sq.err
	"$EBS" addr2line -e sqrun <sq.addrs >sq.a2l 2>>sq.err
	check "SQLite intact: report, annotate $hot and addr2line without a word on stderr ($(head -c 200 sq.err))" \
		[ ! -s sq.err ]
	while read -r case target why; do
		$SIBS set sqrun.intact sqrun "$die" "$target"
		what="SQLite, DW_AT_sibling of $(printf '%#x' "$die") $why"
		sib_run "$what: report" sqrun "$why" sq.report "$EBS" report "${VIEW[@]}" --json
		sib_run "$what: annotate $hot" sqrun "$why" sq.annotate \
			"$EBS" annotate "${VIEW[@]}" --no-cache "$hot"
		sib_run "$what: addr2line" sqrun "$why" sq.a2l \
			"$EBS" addr2line --no-cache -e sqrun <sq.addrs
		sib_run "$what: report again, from the cache" sqrun "$why" sq.report \
			"$EBS" report "${VIEW[@]}" --json
	done < <(sib_cases)
	cp sqrun.intact sqrun
fi

mkdir -p mut san
python3 - "$SEED" "$MUTANTS" "${bases[@]}" <<'PY' >mutants.list
# Write mutants into mut/NNNN and list "NNNN BASE KIND" on stdout.
import os, random, struct, sys

seed, count, bases = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rnd = random.Random(seed)

def sections(b):
    """(name, shdr offset, sh_type, sh_offset, sh_size) of each section."""
    shoff = struct.unpack_from('<Q', b, 0x28)[0]
    shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)
    hdr = lambda i: struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)
    stroff = hdr(shstrndx)[4]
    out = []
    for i in range(shnum):
        h = hdr(i)
        end = b.index(0, stroff + h[0])
        out.append((b[stroff + h[0]:end].decode(), shoff + 64 * i, h[1], h[4], h[5]))
    return out

orig = {n: bytes(open(n, 'rb').read()) for n in bases}
secs = {n: sections(bytearray(orig[n])) for n in bases}
# the build-id note stays intact where a mutation picks its bytes at
# random, so that report still takes most mutants for the recorded file
keep = {n: [(s[3], s[3] + s[4]) for s in secs[n] if s[0] == '.note.gnu.build-id'] for n in bases}
TARGETS = ['.debug_rnglists', '.debug_loclists', '.debug_ranges', '.debug_info', '.debug_line', '.debug_abbrev',
           '.debug_str', '.debug_line_str', '.debug_addr', '.symtab', '.strtab']

def free_offset(n, size, lo=0):
    while True:
        off = rnd.randrange(lo, max(lo + 1, size))
        if not any(a <= off < b for a, b in keep[n]):
            return off

def byte_run(n, b):
    off = free_offset(n, len(b))
    ln = rnd.choice([1, 2, 4, 8, 20, 64, 256])
    fill = rnd.choice(['zero', 'ff', 'random'])
    for i in range(off, min(off + ln, len(b))):
        b[i] = 0 if fill == 'zero' else 0xff if fill == 'ff' else rnd.randrange(256)
    return 'byte-run'

def bit_flips(n, b):
    for _ in range(rnd.choice([1, 2, 4, 16, 64])):
        off = free_offset(n, len(b))
        b[off] ^= 1 << rnd.randrange(8)
    return 'bit-flips'

def truncate(n, b):
    del b[rnd.randrange(64, len(b)):]
    return 'truncation'

def shdr_edit(n, b):
    s = rnd.choice(secs[n][1:])
    field, width = rnd.choice([(0, 4), (4, 4), (8, 8), (24, 8), (32, 8), (40, 4), (44, 4), (56, 8)])
    val = rnd.choice([0, 1, 0xffffffff, len(b), len(b) - 1, rnd.randrange(len(b)),
                      rnd.randrange(1 << (8 * width))]) & ((1 << (8 * width)) - 1)
    struct.pack_into('<Q' if width == 8 else '<I', b, s[1] + field, val)
    return 'shdr-edit'

def ehdr_edit(n, b):
    field, fmt = rnd.choice([(0x20, '<Q'), (0x28, '<Q'), (0x36, '<H'), (0x38, '<H'),
                             (0x3a, '<H'), (0x3c, '<H'), (0x3e, '<H')])
    width = struct.calcsize(fmt)
    struct.pack_into(fmt, b, field, rnd.choice([0, 1, 0xffff, rnd.randrange(1 << (8 * width))]))
    return 'ehdr-edit'

def targeted(n, b):
    have = [s for s in secs[n] if s[0] in TARGETS and s[4] > 0 and s[2] != 8]
    if not have:
        return byte_run(n, b)
    # .debug_rnglists twice as often: it is where libdwarf 20210528 breaks
    s = rnd.choice(have + [x for x in have if x[0] == '.debug_rnglists'])
    name, hoff, _, off, size = s
    how = rnd.choice(['zero20', 'zero-head', 'random-run', 'bits', 'offset', 'size', 'length'])
    if how == 'zero20':
        at = off + rnd.randrange(size)
        b[at:at + 20] = bytes(len(b[at:at + 20]))
    elif how == 'zero-head':
        b[off:off + min(size, 12)] = bytes(min(size, 12))
    elif how == 'random-run':
        at = off + rnd.randrange(size)
        ln = min(rnd.choice([4, 16, 64]), off + size - at)
        b[at:at + ln] = bytes(rnd.randrange(256) for _ in range(ln))
    elif how == 'bits':
        for _ in range(rnd.choice([1, 4, 16])):
            b[off + rnd.randrange(size)] ^= 1 << rnd.randrange(8)
    elif how == 'offset':	# the section's data taken from elsewhere in the file
        struct.pack_into('<Q', b, hoff + 24, rnd.choice(
            [t[3] for t in secs[n] if t[3]] + [rnd.randrange(len(b)), len(b) - size // 2]))
    elif how == 'size':
        struct.pack_into('<Q', b, hoff + 32, rnd.choice([0, 1, size - 1, size + 1, size * 2,
                                                         len(b), 1 << 32]))
    else:			# the first unit's length field
        struct.pack_into('<I', b, off, rnd.choice([0, 1, 0xfffffff0, 0xffffffff, size, size + 4]))
    return 'target:%s:%s' % (name, how)

# DW_AT_sibling links (tests/tools/dwsiblings.py), three in four where
# libdwarf passes through on its way past the DIE's parent (of these
# programs, only the C++ one has such DIEs), a quarter at the DIE itself
sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests', 'tools'))
import dwsiblings
sibs = {n: dwsiblings.dies(n) for n in bases}
info_at = {n: dwsiblings.section(n, '.debug_info')[0] for n in bases if sibs[n]}

def sibling(n, b):
    if not sibs[n]:
        return byte_run(n, b)
    passed = [d for d in sibs[n] if not d['parent_sibling'] and d['depth'] > 1]
    d = rnd.choice(passed if passed and rnd.randrange(4) else sibs[n])
    how = rnd.choice(['self', 'self', 'parent', 'zero', 'past', 'back', 'forward', 'random'])
    target = {'self': d['die'], 'parent': d['parent'], 'zero': d['unit'],
              'past': d['unit_end'] + rnd.randrange(64),
              'back': rnd.randrange(d['unit'], d['die'] + 1),
              'forward': rnd.randrange(d['die'], d['unit_end'] + 1),
              'random': rnd.randrange(1 << 32)}[how]
    raw = dwsiblings.encode(d, target)
    if raw is None:	# more than the form holds: its bytes at random
        raw = bytes(rnd.randrange(256) for _ in range(d['size']))
    at = info_at[n] + d['at']
    b[at:at + len(raw)] = raw
    return 'sibling:%s' % how

kinds = [byte_run, bit_flips, truncate, shdr_edit, ehdr_edit, targeted, targeted, targeted, sibling,
         sibling]
for i in range(count):
    n = bases[i % len(bases)]
    b = bytearray(orig[n])
    kind = rnd.choice(kinds)(n, b)
    name = 'mut/%04d' % i
    open(name, 'wb').write(b)
    print('%04d %s %s' % (i, n, kind))
PY
[ -s mutants.list ] || { fail "mutants" "the mutator wrote none"; exit 0; }

# Run every mutant: addr2line on all (two at a time), and for the mutants
# of the recorded program, put back at its path, one of report, report
# --sort line and annotate in turn.
python3 - "$EBS" "${recorded:-}" <<'PY'
import concurrent.futures, os, re, shutil, subprocess, sys, time
from collections import Counter

ebs, recorded = sys.argv[1], sys.argv[2]
san = os.path.abspath('san')
REPORTS = [['report', '-i', 'run.data', '--kallsyms', 'k.kallsyms', '--no-pager'],
           ['report', '-i', 'run.data', '--kallsyms', 'k.kallsyms', '--sort', 'line', '--no-pager'],
           ['annotate', '-i', 'run.data', '--kallsyms', 'k.kallsyms', '--no-pager', 'hot']]
tally, kinds, sankinds, bad = Counter(), Counter(), Counter(), []
started = time.monotonic()

def run(tag, argv, stdin_path):
    """Run ebs argv; classify the outcome; sanitizer logs go to san/TAG.*."""
    env = dict(os.environ)
    env['ASAN_OPTIONS'] = 'log_path=%s/%s:detect_leaks=1' % (san, tag)
    env['UBSAN_OPTIONS'] = 'log_path=%s/%s:print_stacktrace=1:halt_on_error=1' % (san, tag)
    stdin = open(stdin_path) if stdin_path else subprocess.DEVNULL
    try:
        p = subprocess.run([ebs] + argv, stdin=stdin, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=20, env=env)
        rc, err = p.returncode, p.stderr.decode(errors='replace')
    except subprocess.TimeoutExpired:
        rc, err = 'timeout', ''
    if stdin_path:
        stdin.close()
    logs = sorted(f for f in os.listdir(san) if f.startswith(tag + '.'))
    # lines as a terminal shows them: a control character (a crafted
    # symbol's name, say) could start a new one or an escape sequence
    lines = [l for l in err.split('\n') if l]
    controls = [l for l in lines if re.search('[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]', l)]
    cmd = argv[0]
    foreign = [l for l in lines if not l.startswith('ebs %s: ' % cmd)]
    errors = [l for l in lines if not l.startswith('ebs %s: warning: ' % cmd)]
    what = '%s: ebs %s' % (tag, ' '.join(argv))
    if rc == 'timeout' or rc < 0 or rc >= 128:
        status = rc if rc == 'timeout' else (rc if rc >= 0 else 128 - rc)
        return 'signal death or hang', '%s: status %s: %s' % (what, status, (lines or [''])[-1][:160])
    sanitized = [l for l in lines if 'runtime error:' in l or 'Sanitizer' in l]
    if logs or sanitized:
        text = open(os.path.join(san, logs[0]), errors='replace').read().splitlines() if logs else lines
        head = [l for l in text if 'ERROR' in l or 'runtime error' in l] or text or ['']
        # its kind: the message without addresses, pids and columns
        sankinds[re.sub(r'(==\d+==|0x[0-9a-f]+|:\d+:\d+:| on unknown address.*| in thread.*)', '',
                        head[0]).strip()[:90]] += 1
        return 'sanitizer report', '%s: %s' % (what, head[0][:200])
    if foreign or controls or (rc != 0 and len(errors) != 1):
        return 'not one line', '%s: status %d, stderr: %r' % (what, rc, err[:300])
    return 'exit %d%s' % (rc, ' (warned)' if rc == 0 and lines else ''), None

mutants = [l.split() for l in open('mutants.list')]
for i, base, kind in mutants:
    kinds[kind.split(':')[0]] += 1

def count(res):
    key, msg = res
    tally[key] += 1
    if msg:
        bad.append(msg)

with concurrent.futures.ThreadPoolExecutor(2) as pool:
    for res in pool.map(lambda m: run('%s-%s-%s' % (m[0], m[1], m[2].replace(':', '-')),
                                      ['addr2line', '-e', 'mut/' + m[0]], m[1] + '.addrs'),
                        mutants):
        count(res)
nrep = 0
for i, base, kind in mutants:
    if recorded and base == 'd5':
        shutil.copyfile('mut/' + i, 'run')
        count(run('%s-%s-%s-report' % (i, base, kind.replace(':', '-')), REPORTS[nrep % 3], None))
        nrep += 1
shutil.copyfile('d5', 'run')

n, runs = len(mutants), sum(tally.values())
print('hostile-elf: %d mutants (%s), %d runs in %.0f s: %s' % (
    n, ', '.join('%s %d' % kv for kv in sorted(kinds.items())), runs,
    time.monotonic() - started, ', '.join('%s %d' % kv for kv in sorted(tally.items()))))
for k, v in sankinds.most_common():
    print('    sanitizer: %d x %s' % (v, k))
for b in bad[:15]:
    print('    ' + b)
for key, name in (('signal death or hang', 'no death by a signal, no hang'),
                  ('sanitizer report', 'no sanitizer report'),
                  ('not one line', "every message one line of ebs's, a failure one error line")):
    print('%s: hostile-elf: %s in %d runs of %d mutants%s' % (
        'FAIL' if tally[key] else 'PASS', name, runs, n, ': %d not' % tally[key] if tally[key] else ''))
PY
for f in san/*; do
	if [ -e "$f" ]; then keep "$f"; fi
done
