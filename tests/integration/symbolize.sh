#!/usr/bin/env bash
# symbolize.sh - ebs's symbolizer over every instruction address of fixtures
# compiled here, held against the line program (decoded from readelf's raw
# dump) and elfutils, binutils and llvm-symbolizer, whose known mistakes
# golden.py lists: gcc DWARF 5 and 4, PIE and not, compressed debug
# sections, clang, C++, a shared library, stb_image.h; separate debug files
# found by .gnu_debuglink and by build-id; no debug info at all; and corrupt
# ELF and DWARF input.
. "$(dirname "$0")/../lib.sh"

S="$TOP/tests/symbolize"
G() {	# NAME BIN [golden.py options]
	local name=$1
	shift
	python3 "$S/golden.py" "$T: $name" "$@" --ebs "$EBS"
}

if ! command -v eu-addr2line >/dev/null || ! command -v addr2line >/dev/null; then
	skip "all" "eu-addr2line (elfutils) and addr2line (binutils) are needed; scripts/deps.sh installs them"
	exit 0
fi

CFLAGS="-O2 -I$S"
gcc $CFLAGS -g -fPIC -shared -o libfix.so "$S/fix_lib.c" || fail "build libfix.so" "gcc failed"
# build NAME COMPILER FLAGS...: the fixture program, linked with libfix.so
build() {
	local name=$1 cc=$2
	shift 2
	$cc $CFLAGS "$@" -o "$name" "$S/fix_main.c" "$S/fix_util.c" -L. -lfix -Wl,-rpath,'$ORIGIN' ||
		fail "build $name" "$cc $* failed"
}
build d5 gcc -g
build d4-nopie gcc -gdwarf-4 -fno-pie -no-pie
build gz gcc -g -gz=zlib
build gz-gnu gcc -g -gz=zlib-gnu
build nodebug gcc
check "gz has compressed debug sections" bash -c "readelf -SW gz | grep -E ' \.debug_info .* [A-Z]*C[A-Z]* ' >/dev/null"

for b in d5 d4-nopie gz gz-gnu libfix.so; do
	G "$b" "$b"
done
G "no debug info (names, no lines)" nodebug
if command -v clang >/dev/null; then
	build clang clang -g
	G "clang" clang
	clang $CFLAGS -gdwarf-4 -o clang4 "$S/fix_main.c" "$S/fix_util.c" -L. -lfix -Wl,-rpath,'$ORIGIN'
	G "clang DWARF 4" clang4
else
	skip "clang" "clang is not installed"
fi
if command -v g++ >/dev/null; then
	g++ -O2 -g -o cpp "$S/fix_cpp.cpp" || fail "build cpp" "g++ failed"
	G "C++" cpp
	g++ -O2 -g -gdwarf-4 -fno-pie -no-pie -o cpp4 "$S/fix_cpp.cpp"
	G "C++ DWARF 4 non-PIE" cpp4
else
	skip "C++" "g++ is not installed"
fi

# Code no one here wrote, whose first function comes from a header: see
# fix_stb.c.  Every line of stbi__zhuffman_decode is in stb_image.h.
STB=/usr/include/stb/stb_image.h
if [ ! -r "$STB" ]; then
	skip "stb_image.h" "$STB is not installed (Debian: libstb-dev; scripts/deps.sh installs it)"
elif ! gcc -O2 -g -DSTBI_ONLY_PNG -I"${STB%/*}" -o stb "$S/fix_stb.c" -lm; then
	fail "build stb" "gcc -O2 -g $S/fix_stb.c with $STB failed"
else
	G "stb_image.h PNG decoder (gcc -O2 -g)" stb
	read -r zlo zsize < <(nm -S stb | awk '$4 == "stbi__zhuffman_decode" {print $1, $2}')
	if [ -z "${zsize:-}" ]; then
		fail "stbi__zhuffman_decode" "no such function symbol in stb"
	else
		objdump -d --no-show-raw-insn --start-address=0x$zlo \
			--stop-address=$((0x$zlo + 0x$zsize)) stb | sed -n 's/^ *\([0-9a-f]*\):.*/\1/p' >zh.addrs
		"$EBS" addr2line -e stb <zh.addrs >zh.out
		zn=$(grep -c ' at ' zh.out) zstb=$(grep -cF " at $STB:" zh.out)
		zother=$(grep ' at ' zh.out | grep -vF -e " at $STB:" -e ' at ??:0' | head -n 1)
		check "stbi__zhuffman_decode: $zstb of $zn frames at stb_image.h lines, none elsewhere${zother:+ (not $zother)}" \
			[ "$zstb" -gt 0 -a -z "$zother" ]
		# binutils' habits, -f -i -C, are taken: the same output
		"$EBS" addr2line -f -i -C -e stb <zh.addrs >zh-fic.out 2>zh-fic.err
		check "addr2line -f -i -C (binutils' habits): taken, the same output" cmp zh.out zh-fic.out
	fi
fi

# Separate debug files: stripped copies resolve exactly like d5.
debug_copy() {	# NAME: NAME stripped, NAME.debug its debug info
	cp d5 "$1"
	objcopy --only-keep-debug "$1" "$1.debug"
	strip --strip-all "$1"
}
debug_copy link
objcopy --add-gnu-debuglink=link.debug link
G "stripped + debuglink beside it = unstripped" link --oracle ebs --ref d5 --symbols d5
mkdir -p sub/.debug
debug_copy sub/dot
objcopy --add-gnu-debuglink=sub/dot.debug sub/dot
mv sub/dot.debug sub/.debug/
G "stripped + debuglink in .debug/ = unstripped" sub/dot --oracle ebs --ref d5 --symbols d5
debug_copy bid
bid=$(readelf -n bid | sed -n 's/.*Build ID: //p')
mkdir -p dbg/.build-id/${bid:0:2}
mv bid.debug "dbg/.build-id/${bid:0:2}/${bid:2}.debug"
G "stripped + build-id dir (--debug-dir) = unstripped" bid --oracle ebs --ref d5 --symbols d5 --debug-dir "$TMP/dbg"
debug_copy under
objcopy --add-gnu-debuglink=under.debug under
mkdir -p "dbg2$TMP"
mv under.debug "dbg2$TMP/"	# DIR/FILEDIR/LINK, the file named by a relative path
G "stripped + debuglink under --debug-dir/its own dir = unstripped" under --oracle ebs --ref d5 --symbols d5 --debug-dir "$TMP/dbg2"
debug_copy zlink
objcopy --compress-debug-sections=zlib zlink.debug
objcopy --add-gnu-debuglink=zlink.debug zlink
G "stripped + compressed debug file = unstripped" zlink --oracle ebs --ref d5 --symbols d5
debug_copy wrong
objcopy --add-gnu-debuglink=wrong.debug wrong
cp nodebug wrong.debug	# same name, wrong file: refused by CRC/build-id
"$EBS" addr2line -e wrong "$(nm d5 | awk '$3 == "main" {print $1}')" >wrong.out 2>wrong.err
check "a debug file that does not match is refused" grep -q '^?? at ??:0$' wrong.out

# A real system library with its separate (compressed) debug file, when the
# distribution's is installed (Debian: libc6-dbg): the dynamic loader.
LD=/lib64/ld-linux-x86-64.so.2
ldbid=$(readelf -n "$LD" 2>/dev/null | sed -n 's/.*Build ID: //p')
lddbg=/usr/lib/debug/.build-id/${ldbid:0:2}/${ldbid:2}.debug
if [ -n "$ldbid" ] && [ -r "$lddbg" ]; then
	G "the system's ld.so with its debug file" "$LD" --symbols "$lddbg"
else
	skip "the system's ld.so" "its debug file $lddbg is not installed (Debian: libc6-dbg)"
fi

# An entry point that no symbol names is "_start", ending where its FDE
# ends, else where the next FDE (or symbol) begins.  entry.s: a shared
# object entered at a hidden label, stripped to its .dynsym; @CFI@ gives the
# entry code an FDE or not.
cat >entry.s <<'EOF'
	.text
	.p2align 4
	.type	before, @function
before:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	before, .-before
	.p2align 4
	.globl	entry
	.hidden	entry
entry:
	@CFI@.cfi_startproc
	xor	%ebp, %ebp
	call	before
	mov	$60, %eax
	syscall
	@CFI@.cfi_endproc
after_fde:
	ud2
	.p2align 4
	.type	unnamed, @function
unnamed:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	unnamed, .-unnamed
	.p2align 4
	.globl	exported
	.type	exported, @function
exported:
	.cfi_startproc
	ret
	.cfi_endproc
	.size	exported, .-exported
EOF
# entry_names NAME: ebs's names in NAME.so at before, entry, after_fde, unnamed, exported
entry_names() {
	local a
	for a in before entry after_fde unnamed exported; do
		nm "$1.full" | awk -v s=$a '$3 == s {print $1}'
	done | "$EBS" addr2line -e "$1.so" | sed 's/ at .*//' | tr '\n' ' '
}
for cfi in yes no; do
	sed "s/@CFI@/$([ $cfi = yes ] || echo '# ')/" entry.s >entry-$cfi.s
	if gcc -nostdlib -shared -Wl,-e,entry -o entry-$cfi.full entry-$cfi.s 2>entry.err; then
		strip --strip-all -o entry-$cfi.so entry-$cfi.full
		got=$(entry_names entry-$cfi)
		if [ $cfi = yes ]; then want="?? _start ?? ?? exported "; else want="?? _start _start ?? exported "; fi
		check "entry point without a symbol, FDE $cfi: '$want' (got '$got')" [ "$got" = "$want" ]
	else
		fail "build entry-$cfi.so" "$(head -n 1 entry.err)"
	fi
done
# Debian's ld.so has only .dynsym, none of it at its entry point; perf names
# it _start from the debug file's .symtab (libc6-dbg).  So does ebs, with
# the debug file and without: a copy whose build-id no debug file has.
ldentry=$(readelf -h "$LD" 2>/dev/null | awk '/Entry point/ {print $4}')
if [ -z "$ldentry" ] || readelf -sW "$LD" | python3 -c '
import sys
e = int(sys.argv[1], 16)
for f in (l.split() for l in sys.stdin):
    if len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND" and \
            int(f[1], 16) <= e < int(f[1], 16) + int(f[2], 0):
        sys.exit(0)
sys.exit(1)' "$ldentry"; then
	skip "ld.so's entry point" "$LD has none, or a symbol of its own names it"
else
	cp "$LD" ldcopy
	python3 - ldcopy "$ldbid" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
bid = bytes.fromhex(sys.argv[2])
i = b.find(bid) if bid else -1
if i > 0:
    b[i:i + len(bid)] = bytes(x ^ 0xff for x in bid)
open(sys.argv[1], 'wb').write(b)
EOF
	got=$("$EBS" addr2line -e ldcopy "$ldentry" 2>&1)
	check "ld.so's entry point $ldentry without a debug file: _start (got '$got')" [ "$got" = "_start at ??:0" ]
	if [ -r "$lddbg" ]; then
		got=$("$EBS" addr2line -e "$LD" "$ldentry" 2>&1)
		check "ld.so's entry point $ldentry with its debug file: _start (got '$got')" [ "$got" = "_start at ??:0" ]
	else
		skip "ld.so's entry point with its debug file" "$lddbg is not installed (Debian: libc6-dbg)"
	fi
fi

# Missing debug info: names from the symbol table, lines reported missing.
strip --strip-debug -o nolines d5
main=$(nm d5 | awk '$3 == "static_fn" {print $1}')
"$EBS" addr2line -e nolines "$main" >nolines.out 2>nolines.err
check "no debug info: the symbol table's name, no line" grep -qx 'static_fn at ??:0' nolines.out

# Corrupt input: one warning naming the file, no crash, exit 0.
corrupt() {	# NAME: run ebs addr2line on NAME, expect a warning and an answer
	"$EBS" addr2line -e "$1" "$main" >"$1.out" 2>"$1.err"
	local rc=$?
	check "corrupt $1: exit 0 (got $rc), one answer" [ "$rc" -eq 0 -a "$(wc -l <"$1.out")" -ge 1 ]
	check "corrupt $1: a warning naming the file" grep -q "warning: .*$1" "$1.err"
}
head -c 3000 d5 >truncated
corrupt truncated
python3 - d5 <<'PY'
import struct, sys, random
b = bytearray(open(sys.argv[1], 'rb').read())
shoff = struct.unpack_from('<Q', b, 0x28)[0]
rnd = random.Random(7)
for i in range(shoff, len(b)):
    b[i] = rnd.randrange(256)
open('badshdr', 'wb').write(b)
# .debug_line's first unit claims to run far past its section
b = bytearray(open(sys.argv[1], 'rb').read())
shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)
def sh(i):
    return struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)
stroff = sh(shstrndx)[4]
for i in range(shnum):
    s = sh(i)
    name = b[stroff + s[0]:b.index(0, stroff + s[0])].decode()
    if name == '.debug_line':
        struct.pack_into('<I', b, s[4], 0x7ffffff0)
    if name == '.debug_info':
        struct.pack_into('<I', b, s[4] + 64, 0xdeadbeef)	# garbage inside the first unit
open('badline', 'wb').write(b)
PY
"$EBS" addr2line -e badshdr "$main" >badshdr.out 2>badshdr.err
check "corrupt section headers: exit 0, an answer" [ $? -eq 0 -a -s badshdr.out ]
corrupt badline
check "corrupt DWARF: the symbol table still names the function" grep -q '^static_fn at' badline.out

# Standard input: one answer a line, however long the line (before: read in
# 255-byte pieces, each answered).  A file that is missing or not ELF is
# one error line and status 2 (before: "??" for each address and status 0).
long=$(python3 -c "import sys; print('0' * (300 - len(sys.argv[1])) + sys.argv[1])" "$main")
printf '%s\n' "$main" "$long" "$main" | "$EBS" addr2line -e d5 >stdin.out 2>stdin.err
check "stdin: a 300-character line is one address, answered once ($(wc -l <stdin.out) answers for 3 lines)" \
	bash -c '[ "$(wc -l <stdin.out)" -eq 3 ] && [ "$(sed -n 1p stdin.out)" = "$(sed -n 2p stdin.out)" ] && [ ! -s stdin.err ]'
bad_exe() {	# NAME FILE PATTERN: addr2line -e FILE fails with one line matching PATTERN, status 2
	"$EBS" addr2line -e "$2" "$main" >bad.out 2>bad.err
	local rc=$?
	check "$1: status 2 (got $rc), one line on stderr matching '$3', nothing on stdout ($(head -c 200 bad.err))" \
		bash -c '[ "$1" -eq 2 ] && [ ! -s bad.out ] && [ "$(wc -l <bad.err)" -eq 1 ] && grep -qE -e "$2" bad.err' \
		sh "$rc" "$3"
}
bad_exe "-e of a missing file" nosuch "^ebs addr2line: nosuch: No such file or directory$"
bad_exe "-e of a source file" "$S/fix_main.c" "^ebs addr2line: .*fix_main.c: not an ELF file$"
bad_exe "-e of a directory" "$TMP" "^ebs addr2line: .*: is a directory, not a regular file$"
: >empty
bad_exe "-e of an empty file" empty "^ebs addr2line: empty: empty file$"
