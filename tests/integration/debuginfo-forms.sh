#!/usr/bin/env bash
# debuginfo-forms.sh - debug information as distributions and compilers lay
# it out beyond a plain -g build: dwz's supplementary files
# (.gnu_debugaltlink, DW_FORM_GNU_ref_alt/strp_alt, and DWARF 5's
# .debug_sup), split DWARF (.dwo files and .dwp packages, gcc and clang),
# line-0 rows, and clang 14's DWARF 5 on a real program (stb_image.h from
# libstb-dev).  Held against the same source built plainly, and against
# eu-addr2line and llvm-symbolizer.  A tool that is absent is a SKIP.
. "$(dirname "$0")/../lib.sh"

A2L() { "$EBS" addr2line --no-cache "$@"; }
# addrs BIN FUNC...: every instruction address of the functions, one a line
addrs() {
	local bin=$1 f lo size
	shift
	for f in "$@"; do
		read -r lo size < <(nm -S "$bin" | awk -v f="$f" '$4 == f {print $1, $2}')
		[ -n "${size:-}" ] || continue
		objdump -d --no-show-raw-insn --start-address=0x$lo \
			--stop-address=$((0x$lo + 0x$size)) "$bin" | sed -n 's/^ *\([0-9a-f]*\):.*/\1/p'
	done
}
# innermost FILE: ebs addr2line's innermost frames' locations, one an address
innermost() { grep -v '^ (inlined by)' "$1" | sed 's/.* at //'; }
export -f innermost

if ! command -v eu-addr2line >/dev/null || ! command -v objdump >/dev/null; then
	skip "all" "eu-addr2line (elfutils) and objdump (binutils) are needed; scripts/deps.sh installs them"
	exit 0
fi

# ---- dwz ------------------------------------------------------------------
# Two programs sharing an always-inlined helper from a header: dwz -m moves
# the helper's abstract DIE (its name) into common.debug, and the inlined
# instances in a and b point there with DW_FORM_GNU_ref_alt.
cat >helper.h <<'H'
static inline __attribute__((always_inline)) unsigned mix(unsigned x, unsigned k)
{
	for (int i = 0; i < 8; i++)
		x = (x ^ k) * 2654435761u + (x >> 13);
	return x;
}
H
cat >a.c <<'C'
#include "helper.h"
#include <stdlib.h>
__attribute__((noinline)) unsigned work_a(unsigned n)
{
	unsigned s = 1;
	for (unsigned i = 0; i < n; i++)
		s = mix(s, i);
	return s;
}
int main(int argc, char **argv) { return (int)work_a(argc > 1 ? atoi(argv[1]) : 1000) & 1; }
C
sed 's/work_a/work_b/g' a.c >b.c
# moved_away TAG BIN SUP ID HOW: BIN (b or b.5) moved away from its
# supplementary file SUP: found as .build-id/xx/rest.debug (ID, which is
# HOW) under a --debug-dir, as the plain build; without it, one warning
# naming it, and the plain build's lines.
moved_away() {
	local tag=$1 bin=$2 sup=$3 id=$4 how=$5 d=moved-${2/./-}
	mkdir -p $d/bin $d/dbg/.build-id/${id:0:2}
	cp $bin $d/bin/b
	cp $sup $d/dbg/.build-id/${id:0:2}/${id:2}.debug
	A2L -e $d/bin/b --debug-dir "$TMP/$d/dbg" <b.addrs >$d/found.out 2>$d/found.err
	check "$tag: $sup found by $how under --debug-dir" \
		bash -c "[ -n '$id' ] && cmp -s bplain.out $d/found.out && [ ! -s $d/found.err ]"
	A2L -e $d/bin/b <b.addrs >$d/miss.out 2>$d/miss.err
	check "$tag: a missing $sup is one warning naming it, the lines kept ($(head -c 200 $d/miss.err))" \
		bash -c "[ \$(wc -l <$d/miss.err) -eq 1 ] && grep -q 'supplementary debug file (dwz) $sup is not found' $d/miss.err && diff <(innermost bplain.out) <(innermost $d/miss.out) >/dev/null"
}

if ! command -v dwz >/dev/null; then
	skip "dwz" "dwz is not installed (Debian: dwz; scripts/deps.sh installs it)"
else
	for x in a b; do
		gcc -O2 -g -o $x.plain $x.c || fail "build $x" "gcc failed"
		cp $x.plain $x
		cp $x.plain $x.5
	done
	(dwz -m common.debug -M common.debug a b && dwz -5 -m sup.debug -M sup.debug a.5 b.5) >dwz.err 2>&1 ||
		fail "dwz" "$(head -n 1 dwz.err)"
	check "dwz made a .gnu_debugaltlink" bash -c "readelf -SW a | grep -q gnu_debugaltlink"
	check "dwz's a points into common.debug with DW_FORM_GNU_ref_alt" \
		bash -c "readelf --debug-dump=info a 2>/dev/null | grep -q '<alt 0x'"
	addrs a.plain work_a >a.addrs
	A2L -e a.plain <a.addrs >plain.out
	A2L -e a <a.addrs >dwz.out 2>dwz.err
	nmix=$(grep -c '^mix at' plain.out)
	check "dwz: inline chains and lines equal the plain build's ($nmix addresses in mix)" \
		bash -c "[ $nmix -gt 0 ] && cmp -s plain.out dwz.out"
	check "dwz: no warning ($(head -c 200 dwz.err))" [ ! -s dwz.err ]
	# elfutils, which reads dwz files, agrees on the innermost function
	eu-addr2line -f -i -e a $(sed 's/^/0x/' a.addrs) 2>/dev/null | awk 'NR % 2 == 1' >eu.names
	eun=$(grep -c '^mix\( \|$\)' eu.names)
	check "dwz: eu-addr2line -i names mix too ($eun frames)" [ "$eun" -ge "$nmix" ]
	addrs b.plain work_b >b.addrs
	A2L -e b.plain <b.addrs >bplain.out
	moved_away dwz b common.debug "$(readelf -n common.debug | sed -n 's/.*Build ID: //p')" build-id
	# dwz -5: DWARF 5's .debug_sup names sup.debug and its checksum (sup.debug
	# has no build-id note: its own .debug_sup holds the checksum), and
	# DW_FORM_ref_sup4 / DW_FORM_strp_sup point into it.  libdwarf (20210528
	# to 2.x) reads no DW_FORM_ref_sup value; ebs reads it from .debug_info.
	check "dwz -5 made a .debug_sup, DW_FORM_ref_sup4 and DW_FORM_strp_sup" \
		bash -c "readelf -SW a.5 | grep -q '\.debug_sup' && readelf --debug-dump=abbrev a.5 | grep -q DW_FORM_ref_sup4 && readelf --debug-dump=abbrev a.5 | grep -q DW_FORM_strp_sup"
	A2L -e a.5 <a.addrs >d5.out 2>d5.err
	check "dwz -5: inline chains and lines equal the plain build's ($nmix addresses in mix)" \
		bash -c "[ $nmix -gt 0 ] && cmp -s plain.out d5.out"
	check "dwz -5: no warning ($(head -c 200 d5.err))" [ ! -s d5.err ]
	# through the cache (the suite's own), cold then warm: entries of an ebs
	# that did not follow DW_FORM_ref_sup are of another version (v5)
	"$EBS" addr2line -e a.5 <a.addrs >d5cold.out 2>d5c.err
	"$EBS" addr2line -e a.5 <a.addrs >d5warm.out 2>>d5c.err
	check "dwz -5 through the cache, cold and warm: the plain build's output, no warning" \
		bash -c "cmp -s plain.out d5cold.out && cmp -s plain.out d5warm.out && [ ! -s d5c.err ]"
	# elfutils 0.188 does not follow .debug_sup (it names a.5's mix work_a):
	# the frames' names it gives the plain build, innermost first
	eu-addr2line -f -i -e a.plain $(sed 's/^/0x/' a.addrs) 2>/dev/null |
		awk 'NR % 2 == 1' | sed 's/ inlined at .*//' >eu5.names
	sed 's/^ (inlined by) //; s/ at .*//' d5.out >d5.names
	check "dwz -5: every frame named as eu-addr2line -i names the plain build's ($(grep -c '^mix$' d5.names) mix)" \
		bash -c "grep -q '^mix$' d5.names && cmp -s eu5.names d5.names"
	# sup.debug's .debug_sup: version 5, is_supplementary 1, no name, 20, the checksum
	objcopy --dump-section .debug_sup=sup.sec sup.debug sup.tmp
	sum=$(od -An -tx1 -v sup.sec | tr -d ' \n' | sed -n 's/^0500010014\([0-9a-f]\{40\}\)$/\1/p')
	[ -n "$sum" ] || fail "dwz -5" "sup.debug's .debug_sup is not as expected: $(od -An -tx1 sup.sec | head -n 1)"
	A2L -e b.5 <b.addrs >b5.out 2>b5.err
	check "dwz -5: b.5 as the plain build, no warning" bash -c "cmp -s bplain.out b5.out && [ ! -s b5.err ]"
	moved_away "dwz -5" b.5 sup.debug "$sum" "its .debug_sup checksum"
	# Corrupt copies of a.5: a .debug_sup of another version (4: none
	# known), every DW_FORM_ref_sup4 past sup.debug's .debug_info, and one
	# past each DIE's start.  Each: no crash, one warning, the lines kept.
	python3 - a.5 >sup4.offs <<'PY'
import re, subprocess, sys
# the file offsets of the DW_FORM_ref_sup4 values in sys.argv[1] (one abbrev table)
f = sys.argv[1]
def out(*a):
    return subprocess.run(["readelf", *a, f], capture_output=True, text=True).stdout.splitlines()
forms, cur = {}, None
for l in out("--debug-dump=abbrev"):
    m = re.match(r"\s+(\d+)\s+DW_TAG_", l)
    if m:
        cur = forms.setdefault(int(m.group(1)), [])
    m = re.match(r"\s+DW_AT_\w+\s+(DW_FORM_\w+)", l)
    if m and cur is not None:
        cur.append(m.group(1))
sec = [l.split() for l in out("-SW") if " .debug_info " in l][0]
base = int(sec[sec.index(".debug_info") + 3], 16)
abbrev, k, n = None, 0, 0
for l in out("--debug-dump=info"):
    n += l.startswith("Contents of the .debug_info section")
    if n > 1:
        break  # readelf goes on with the supplementary file's
    m = re.match(r"\s*<\d+><[0-9a-f]+>: Abbrev Number: (\d+)", l)
    if m:
        abbrev, k = int(m.group(1)), 0
    m = re.match(r"\s*<([0-9a-f]+)>\s+DW_AT_", l)
    if m and abbrev in forms:
        if k < len(forms[abbrev]) and forms[abbrev][k] == "DW_FORM_ref_sup4":
            print(base + int(m.group(1), 16))
        k += 1
PY
	# poke FILE OFFSET HEX...: write the bytes at OFFSET
	poke() {
		local f=$1 o=$2
		shift 2
		printf "$(printf '\\x%s' "$@")" | dd of="$f" bs=1 seek="$o" conv=notrunc status=none
	}
	supat=$((0x$(readelf -SW a.5 | awk '$2 == ".debug_sup" {print $5}')))
	cp a.5 sup-v4
	poke sup-v4 $supat 04 00
	cp a.5 sup-past
	cp a.5 sup-mid
	while read -r o; do
		poke sup-past "$o" f0 ff ff ff
		v=$(od -An -tu4 -j "$o" -N4 a.5)
		poke sup-mid "$o" $(printf '%08x' $((v + 1)) | sed 's/\(..\)\(..\)\(..\)\(..\)/\4 \3 \2 \1/')
	done <sup4.offs
	for h in sup-v4 sup-past sup-mid; do
		A2L -e $h <a.addrs >$h.out 2>$h.err
		rc=$?
		check "dwz -5, $h ($(wc -l <sup4.offs) DW_FORM_ref_sup4): exit 0, one warning, the plain build's lines ($(head -c 250 $h.err))" \
			bash -c "[ $rc -eq 0 ] && [ \$(wc -l <$h.err) -eq 1 ] && grep -q 'warning: $h: ' $h.err && diff <(innermost plain.out) <(innermost $h.out) >/dev/null"
	done
fi

# ---- split DWARF ----------------------------------------------------------
S="$TOP/tests/symbolize"
STB=/usr/include/stb/stb_image.h
if [ ! -r "$STB" ]; then
	skip "split DWARF, line 0, clang" "$STB is not installed (Debian: libstb-dev; scripts/deps.sh installs it)"
	exit 0
fi
STBF="-O2 -g -DSTBI_ONLY_PNG -I${STB%/*}"
for cc in gcc clang; do
	if ! command -v $cc >/dev/null; then
		skip "split DWARF $cc" "$cc is not installed"
		continue
	fi
	mkdir -p split-$cc
	(cd split-$cc && $cc $STBF -gsplit-dwarf -o stb "$S/fix_stb.c" -lm && $cc $STBF -o stb.plain "$S/fix_stb.c" -lm) ||
		{ fail "split DWARF $cc" "$cc -gsplit-dwarf failed"; continue; }
	b=split-$cc/stb
	dwo=$(cd split-$cc && ls ./*.dwo | head -n 1)
	addrs $b.plain stbi__zhuffman_decode stbi__parse_png_file stbi__create_png_image_raw >sp.addrs
	A2L -e $b.plain <sp.addrs >sp.plain
	A2L -e $b <sp.addrs >sp.split 2>sp.err
	n=$(wc -l <sp.addrs)
	check "split DWARF $cc: lines at $n addresses equal the plain build's innermost" \
		bash -c "[ $n -gt 0 ] && diff <(innermost sp.plain) <(innermost sp.split) >/dev/null"
	check "split DWARF $cc: one warning naming the .dwo ($(head -c 250 sp.err))" \
		bash -c "[ \$(wc -l <sp.err) -eq 1 ] && grep -qF 'inlined functions are in $TMP/split-$cc/${dwo#./}' sp.err"
	mv split-$cc/$dwo split-$cc/$dwo.away
	A2L -e $b <sp.addrs >/dev/null 2>sp.err
	check "split DWARF $cc: a missing .dwo is one warning naming it ($(head -c 250 sp.err))" \
		bash -c "[ \$(wc -l <sp.err) -eq 1 ] && grep -qF '$TMP/split-$cc/${dwo#./} is missing' sp.err"
	mv split-$cc/$dwo.away split-$cc/$dwo
	# binutils 2.40's dwp crashes on DWARF 5 .dwo files: llvm-dwp for both
	dwptool=llvm-dwp-14
	if ! command -v $dwptool >/dev/null; then
		skip "split DWARF $cc .dwp" "llvm-dwp-14 is not installed (Debian: llvm)"
		continue
	fi
	if (cd split-$cc && $dwptool -e stb -o stb.dwp) 2>dwp.err; then
		mv split-$cc/$dwo split-$cc/$dwo.away
		A2L -e $b <sp.addrs >sp.dwp 2>sp.err
		check "split DWARF $cc .dwp ($dwptool): lines, and one warning naming the .dwp ($(head -c 250 sp.err))" \
			bash -c "diff <(innermost sp.plain) <(innermost sp.dwp) >/dev/null && [ \$(wc -l <sp.err) -eq 1 ] && grep -qF 'split-$cc/stb.dwp' sp.err"
	else
		fail "split DWARF $cc .dwp" "$dwptool failed: $(head -n 1 dwp.err)"
	fi
done

# ---- clang: DWARF 5 forms, line 0 -----------------------------------------
if ! command -v clang >/dev/null || ! command -v llvm-dwarfdump-14 >/dev/null; then
	skip "line 0, clang" "clang and llvm-dwarfdump-14 are needed (Debian: clang, llvm)"
	exit 0
fi
clang $STBF -o stbc "$S/fix_stb.c" -lm || fail "build stbc" "clang failed"
check "clang's unit uses DWARF 5 forms (strx, addrx, MD5)" \
	bash -c "llvm-dwarfdump-14 --debug-info --debug-line stbc | grep -q DW_AT_str_offsets_base && llvm-dwarfdump-14 --debug-info stbc | grep -q DW_AT_addr_base && llvm-dwarfdump-14 --debug-line stbc | grep -q md5_checksum"
# Line 0: rows the compiler made up; clang -O2 leaves hundreds in stb_image.
llvm-dwarfdump-14 --debug-line stbc | awk '$1 ~ /^0x0/ && $2 == 0 && !/end_sequence/ {print $1}' |
	sort -u >l0.all
# an address's row is line 0 when no later row shares its address
llvm-dwarfdump-14 --debug-line stbc | awk '$1 ~ /^0x0/ {a[$1] = $2} END {for (k in a) if (a[k] == 0) print k}' |
	sort >l0.addrs
n0=$(wc -l <l0.addrs)
if [ "$n0" -eq 0 ]; then
	skip "line 0" "clang made no line-0 rows here"
else
	A2L -e stbc <l0.addrs | grep -v '^ (inlined by)' | sed 's/.* at //' >l0.ebs
	eu-addr2line -e stbc $(cat l0.addrs) 2>/dev/null >l0.eu
	bad=$(paste -d'|' l0.ebs l0.eu | awk -F'|' '{e = $2; sub(/:0:[0-9]+$/, ":0", e); g = $1; sub(/:0:[0-9]+$/, ":0", g); if (g != e && e != "??:0") print}' | head -n 3)
	nfile=$(grep -c '^/.*:0\(:[0-9]*\)\?$' l0.ebs)
	check "line 0: $nfile of $n0 line-0 addresses shown as FILE:0, as eu-addr2line has them${bad:+ (not: $bad)}" \
		[ "$nfile" -gt 0 -a -z "$bad" ]
fi
# report --sort line: samples at line-0 addresses are a FILE:0 row.  stbc
# decodes a 2000x2000 PNG (0.3 s) made here; about 2.5% of its samples land
# on line-0 rows (8 to 10 of 350 in trials), so 600 give ~15: none at all
# has a chance below 1e-6.
python3 - <<'PY'
import random, struct, zlib
random.seed(1)
w = h = 2000
raw = b"".join(b"\x01" + bytes(random.getrandbits(8) if random.random() < 0.3 else 7
                               for _ in range(w * 3)) for _ in range(h))
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
open("t.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
                          chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))
PY
if record l0.data -e cpu-clock -F 4000 -- ./stbc t.png >/dev/null; then
	"$EBS" report -i l0.data --sort line --json >l0.json
	l0=$(json l0.json "sum(r['samples'] for r in j['rows'] if r.get('line') == 0 and (r.get('file') or '').endswith('stb_image.h'))")
	l0none=$(json l0.json "sum(r['samples'] for r in j['rows'] if r.get('dso') == 'stbc' and r.get('file') is None)")
	"$EBS" report -i l0.data --sort line 2>/dev/null | grep -F 'stb_image.h:0 ' >l0.txt
	check "report --sort line: $l0 samples at stb_image.h:0 (line 0, its file kept; $l0none of stbc's without a file: PLT stubs)" \
		[ "$l0" -gt 0 -a -s l0.txt ]
else
	fail "record stbc" "$(head -n 1 l0.data.err)"
fi
# clang's functions, inline chains and file:line:column against the line
# program and the oracles (golden.py: llvm-symbolizer must agree at every
# address; elfutils 0.188 and binutils 2.40 have known mistakes there).
# Rows before a sequence's first DW_LNS_set_file are at the default file
# register, 1: clang relies on it when the unit's first function is a
# header's, and libdwarf 20210528 calls them file 0 (the .c file).
python3 "$S/golden.py" "$T: stb_image.h, clang 14 DWARF 5 (strx, addrx, rnglistx, MD5)" stbc --ebs "$EBS"
