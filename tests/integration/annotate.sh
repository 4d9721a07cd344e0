#!/usr/bin/env bash
# annotate.sh - ebs annotate and the inline rules of ebs report on a real
# recording of the hotline workload (lines found by their /* HOT */ and
# /* INLINE-HOT */ markers, never by number): the HOT line has the most
# samples; inlined code counts at inl_helper's own line, marked as inlined
# into hot_loop, and --no-inline folds it into the call site; --asm lists
# the same instructions as objdump -d, with every sample on one of them,
# and --skid-adjust keeps the total; missing sources, missing debug
# information and unknown functions are said in one line; --html renders
# in headless Chromium with the hot line and its percentage.
. "$(dirname "$0")/../lib.sh"

SRC="$TOP/tests/workloads/hotline.c"
hot=$(grep -n '/\* HOT \*/' "$SRC" | cut -d: -f1)
inl=$(grep -n '/\* INLINE-HOT \*/' "$SRC" | cut -d: -f1)
call=$(grep -n 'y = inl_helper(y);' "$SRC" | cut -d: -f1)

# ~1000 samples: the HOT line's ~57% against the next line's ~25% is many
# standard deviations (~1.6 points each) apart.
record hl.data -e cpu-clock -F 2000 "$WORKLOADS/hotline" 0.5

# ---- ebs report: inline attribution ---------------------------------------
"$EBS" report -i hl.data --sort line --json >inl.json
check "report: inl_helper's row is at its own line $inl, inlined into hot_loop" \
	[ "$(json inl.json "[(r['line'], [c['function'] for c in r.get('inlined_into', [])]) for r in j['rows'] if r['function'] == 'inl_helper'][0] == ($inl, ['hot_loop'])")" = 1 ]
"$EBS" report -i hl.data >inl.txt
check "report text: 'inl_helper (inlined into hot_loop)'" grep -q 'inl_helper (inlined into hot_loop)' inl.txt
"$EBS" report -i hl.data --sort line --no-inline --json >noinl.json
check "report --no-inline: no inl_helper row" \
	[ "$(json noinl.json "any(r['function'] == 'inl_helper' for r in j['rows'])")" = 0 ]
# inl_helper's one division is about a quarter of hot_loop's time on any
# x86-64 CPU (see lines.sh); 10% of hot_loop's samples is far below
check "report --no-inline: the call site (line $call) holds >= 10% of hot_loop's samples" \
	[ "$(json noinl.json "sum(r['samples'] for r in j['rows'] if r['line'] == $call and r['function'] == 'hot_loop') >= 0.10 * sum(r['samples'] for r in j['rows'] if r['function'] == 'hot_loop')")" = 1 ]
check "report --no-inline: the totals agree" \
	[ "$(json noinl.json "j['samples']")" = "$(json inl.json "j['samples']")" ]
n_inl=$(json inl.json "sum(r['samples'] for r in j['rows'] if r['function'] == 'inl_helper')")
for sort in func dso "line --no-inline"; do
	"$EBS" report -i hl.data --func inl_helper -s $sort --json >f.json
	check "report --func inl_helper -s $sort: its $n_inl samples" [ "$(json f.json "j['samples']")" = "$n_inl" ]
done

# ---- annotate FUNC ----------------------------------------------------------
# counts (samples %func %total LINE source) of each line, as "LINE COUNT"
counts() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+  / { print $4, $1 }' "$1"; }
"$EBS" annotate -i hl.data hot_loop --color never >ann.txt
check "annotate hot_loop: exit 0, the header names it" grep -q '^# annotate: hot_loop (hotline, ' ann.txt
# HOT's three divisions against at most one on any other line (lines.sh)
n_hl=$(sed -n 's/^# event: cpu-clock: \([0-9]*\) samples in it.*/\1/p' ann.txt)
if enough "annotate hot_loop: the HOT line has the most samples" "${n_hl:-0}" 200; then
	check "annotate hot_loop: the HOT line ($hot) has the most samples" \
		[ "$(counts ann.txt | sort -k2,2nr | head -n 1 | cut -d' ' -f1)" = "$hot" ]
fi
check "annotate hot_loop: the call site ($call) shows what inl_helper inlined there" \
	grep -qE "^ {29,}$call  .*<- [0-9]+ samples \([0-9.]+%\) of inl_helper inlined here" ann.txt
check "annotate hot_loop: INLINE-HOT ($inl) under 'inlined code', marked [inl_helper]" \
	sh -c "grep -A3 '^# inlined code, $SRC:' ann.txt | grep -qE '^ +[0-9]+ .* $inl  .*\[inl_helper\]'"
# one pass resolves FUNC and collects its samples as if FUNC were the exact
# name; a part of a name has the pass collect again, resolved: one listing
"$EBS" annotate -i hl.data hot_lo --color never >ann-part.txt
check "annotate hot_lo (a part of hot_loop's name): hot_loop's very listing" cmp -s ann.txt ann-part.txt
fn_samples=$(sed -n 's/^# event: cpu-clock: \([0-9]*\) samples in it.*/\1/p' ann.txt)
check "annotate hot_loop: line counts add up to the function's $fn_samples samples" \
	[ "$(counts ann.txt | awk '{ s += $2 } END { print s }')" = "$fn_samples" ]
"$EBS" annotate -i hl.data hot_loop --no-inline --color never >ann-noinl.txt
check "annotate --no-inline: inl_helper's samples at the call site, no inlined group" \
	sh -c "! grep -q 'inlined code' ann-noinl.txt && awk '\$4 == $call && \$1 > 0' ann-noinl.txt | grep -q ."
"$EBS" annotate -i hl.data inl_helper --color never >ann-inl.txt
check "annotate of a function that exists only inlined: its $n_inl samples at INLINE-HOT ($inl)" \
	sh -c "head -n 1 ann-inl.txt | grep -q '^# annotate: inl_helper (inlined' && [ \"\$(awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9]+  / { print \$4, \$1 }' ann-inl.txt)\" = '$inl $n_inl' ]"
"$EBS" annotate -i hl.data --color never >ann-top.txt
check "annotate (no function): hot_loop first, with its HOT line" \
	sh -c "head -n 1 ann-top.txt | grep -q '^# annotate: hot_loop ' && grep -qE '^ +[0-9]+ .* $hot  .*/\* HOT \*/' ann-top.txt"
"$EBS" annotate -i hl.data "hotline.c:$hot" -C 0 --color never >ann-line.txt
check "annotate FILE:LINE: just that line, with samples" \
	[ "$(counts ann-line.txt | cut -d' ' -f1)" = "$hot" ]

# ---- --asm against objdump ----------------------------------------------------
"$EBS" annotate -i hl.data hot_loop --asm --color never >asm.txt
awk '/^ .*  [0-9a-f]+:  / { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:$/) { sub(":", "", $i); print $i; break } }' asm.txt >asm.addrs
objdump -d --no-show-raw-insn --disassemble=hot_loop "$WORKLOADS/hotline" |
	awk '/^ +[0-9a-f]+:/ { sub(":", "", $1); print $1 }' >objdump.addrs
acheck "--asm: the same $(wc -l <objdump.addrs) instruction addresses as objdump -d" \
	sh -c '[ -s objdump.addrs ] && diff -q asm.addrs objdump.addrs'
acheck "--asm: divsd instructions listed" grep -qE '  [0-9a-f]+:  divsd ' asm.txt
# calls and jumps name their targets as objdump does: <fn> or <fn+0xoff>
# (objdump's "# ADDR <sym>" comments on RIP-relative data are not branches)
objdump -d --no-show-raw-insn --disassemble=hot_loop "$WORKLOADS/hotline" | grep -v '#' |
	sed -n 's/^ *\([0-9a-f]*\):.*[0-9a-f] \(<[^>]*>\)$/\1 \2/p' >objdump.targets
sed -n 's/^.*  \([0-9a-f]*\):  .* 0x[0-9a-f]* \(<[^>]*>\)$/\1 \2/p' asm.txt >asm.targets
acheck "--asm: the $(wc -l <objdump.targets) branch and call targets objdump names, named alike" \
	sh -c '[ -s objdump.targets ] && diff -q asm.targets objdump.targets'
# capstone and Zydis are loaded at the first decode, not linked
# (util/dynlib.h): other commands start without their 77,000 relocations.
# One that cannot be loaded (a libcapstone with none of its functions,
# found first on LD_LIBRARY_PATH) is one line naming it.
check "ebs links neither capstone nor Zydis" not sh -c "ldd '$EBS' | grep -qE 'libcapstone|libZydis'"
if [ -z "$NOASM" ]; then
	cso=$(strings "$EBS" | grep -m 1 '^libcapstone\.so')
	mkdir -p fakelib
	gcc -shared -fPIC -o "fakelib/${cso:-libcapstone.so}" -x c /dev/null
	LD_LIBRARY_PATH=$PWD/fakelib expect "--asm where ${cso:-libcapstone} has no cs_open: one line naming it" 2 \
		"^ebs annotate: --asm: this ebs cannot load its disassembler: ${cso:-libcapstone}[.0-9]* has no cs_open\$" \
		"$EBS" annotate -i hl.data hot_loop --asm
else
	skip "--asm where libcapstone cannot be loaded" "$NOASM"
fi
acheck "--asm: a call out of the function is named (hot_loop calls another function)" \
	grep -qE '  call[q]? 0x[0-9a-f]+ <[a-z_]+[^+]*>$' asm.txt
# source rows carry their line's total, as in the source view
hot_total=$(awk -v l="$hot" '$4 == l { print $1; exit }' ann.txt)
acheck "--asm: the HOT line's source row carries its total ($hot_total)" \
	grep -qE "^ +$hot_total +[0-9.]+ +[0-9.]+ +$hot  " asm.txt
asum() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9a-f]+:  / { s += $1 } END { print s + 0 }' "$1"; }
acheck "--asm: instruction counts add up to the function's $fn_samples samples" [ "$(asum asm.txt)" = "$fn_samples" ]
acheck "--asm: the header notes the skid" grep -q '^# skid: the sampled IP is usually the instruction after' asm.txt
"$EBS" annotate -i hl.data hot_loop --asm --skid-adjust --color never >skid.txt
acheck "--asm --skid-adjust: the same total" [ "$(asum skid.txt)" = "$fn_samples" ]
acheck "--asm --skid-adjust: a different distribution (samples moved back)" not cmp -s asm.txt skid.txt
# after the shift, the divisions hold most of the samples: the four
# dependent divsd are where the time goes on any x86-64 CPU (which one of
# them a sample lands after depends on the CPU and the hypervisor; that
# they together have most does not)
acheck "--asm --skid-adjust: the divsd instructions hold most of the samples" \
	awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9a-f]+:  / { all += $1; if ($5 == "divsd") d += $1 } END { exit !(all > 0 && d > all / 2) }' skid.txt

# ---- sources and debug information missing ------------------------------------
mkdir src
cp "$SRC" "$TOP/tests/workloads/workload.h" src/
gcc -std=gnu11 -D_GNU_SOURCE -O2 -g -fno-omit-frame-pointer -o hl-copy src/hotline.c
record copy.data -e cpu-clock -F 1000 ./hl-copy 0.2
rm src/hotline.c
"$EBS" annotate -i copy.data hot_loop >nosrc.txt 2>nosrc.err
acheck "missing source: exit 0, one note naming the file and --source-dir" \
	sh -c "grep -c '^# note: $TMP/src/hotline.c is not there to read (give --source-dir); its instructions instead' nosrc.txt | grep -qx 1"
# no page of placeholders: the instructions, each with its samples, the
# line numbers beside them
copy_samples=$(sed -n 's/^# event: cpu-clock: \([0-9]*\) samples in it.*/\1/p' nosrc.txt)
acheck "missing source: no placeholder lines" not grep -q 'source not found' nosrc.txt
acheck "missing source: the instructions' samples add up to the function's $copy_samples" \
	[ "$(awk '/  [0-9a-f]+:  / { if ($1 ~ /^[0-9]+$/ && $2 ~ /\./) s += $1 } END { print s + 0 }' nosrc.txt)" = "$copy_samples" ]
acheck "missing source: the HOT line's number beside its first instruction" \
	grep -qE "^( +[0-9]+ +[0-9.]+ +[0-9.]+)? +$hot +[0-9a-f]+:  " nosrc.txt
"$EBS" annotate -i copy.data hot_loop --html nosrc.html
acheck "missing source, --html: the page says so too" grep -q 'hotline.c is not there to read (give --source-dir); its instructions instead' nosrc.html
# with no function named: its hot instructions with --context (1) around them
"$EBS" annotate -i copy.data -n 1 -C 1 --color never >nosrc-top.txt
ninsn() { grep -cE '  [0-9a-f]+:  ' "$1"; }
acheck "missing source, hottest functions: hot instructions and context ($(ninsn nosrc-top.txt) of $(ninsn nosrc.txt)), gaps marked" \
	sh -c "[ $(ninsn nosrc-top.txt) -lt $(ninsn nosrc.txt) ] && grep -qE '^ +\.\.\.$' nosrc-top.txt"
"$EBS" annotate -i copy.data hot_loop --source-dir "$TMP/src=$TOP/tests/workloads" >srcmap.txt
check "--source-dir OLD=NEW: read from the new place" \
	grep -q "^# source: $TMP/src/hotline.c (read from $TOP/tests/workloads/hotline.c)" srcmap.txt
"$EBS" annotate -i copy.data hot_loop --source-dir "$TOP/tests/workloads" >srcdir.txt
check "--source-dir DIR: found by file name" grep -qE '^ +[0-9]+ .*/\* HOT \*/' srcdir.txt
# Untrusted sources (docs/security.md): a FIFO at the source's path must not
# hang annotate, a link to /dev/zero must not fill its memory (timeout 60:
# a hang guard only), and a source's escape sequences reach no terminal.
mkfifo src/hotline.c
timeout 60 "$EBS" annotate -i copy.data hot_loop >fifo.txt 2>fifo.err
rc=$?
acheck "a FIFO as the source: exit 0 ($rc), one warning naming it, its instructions instead" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l <fifo.err) -eq 1 ] && grep -qx 'ebs annotate: warning: $TMP/src/hotline.c: is a FIFO, not a regular file: its source lines are not shown' fifo.err && grep -qE '  [0-9a-f]+:  divsd ' fifo.txt"
rm src/hotline.c
ln -s /dev/zero src/hotline.c
timeout 60 "$EBS" annotate -i copy.data hot_loop >zero.txt 2>zero.err
rc=$?
check "/dev/zero as the source: exit 0 ($rc), one warning" \
	sh -c "[ $rc -eq 0 ] && grep -qx 'ebs annotate: warning: $TMP/src/hotline.c: is a character device, not a regular file: its source lines are not shown' zero.err"
rm src/hotline.c
# the workload's source, its HOT line's comment holding control characters:
# ESC, BEL, a raw C1 CSI byte and one as UTF-8 (U+009B); tabs stay
sed "s|/\* HOT \*/|/* HOT $(printf '\033[31mred\033]0;title\007 \302\233 \233 end\tof') */|" "$SRC" >src/hotline.c
"$EBS" annotate -i copy.data hot_loop --color never >esc.txt 2>&1
check "a source's control characters are shown as '?'" \
	grep -qF '/* HOT ?[31mred?]0;title? ?? ? end	of */' esc.txt
check "no control character but tab and newline reaches the output" \
	not env LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]' esc.txt
strip --strip-debug hl-copy
"$EBS" annotate -i copy.data hot_loop >nodebug.txt 2>nodebug.err
acheck "missing debug information: exit 0 and says so" \
	grep -q '^# note: no line information for hot_loop (no DWARF for hl-copy: see ebs report --stats); its instructions instead' nodebug.txt
acheck "missing debug information: its instructions listed all the same" grep -qE '  [0-9a-f]+:  divsd ' nodebug.txt
"$EBS" annotate -i copy.data hot_loop --asm >nodebug-asm.txt 2>&1
acheck "missing debug information: --asm still lists the instructions" grep -qE '  [0-9a-f]+:  divsd ' nodebug-asm.txt
"$EBS" annotate -i hl.data no_such_function >nofn.out 2>nofn.err
rc=$?
check "unknown function: exit status 2" [ $rc -eq 2 ]
check "unknown function: one line naming it and the hottest" \
	sh -c "one_line() { [ \$(wc -l <\"\$1\") -eq 1 ]; }; one_line nofn.err && grep -q \"hl.data: no function 'no_such_function' with samples (the hottest: hot_loop\" nofn.err && [ ! -s nofn.out ]"

# ---- HTML in headless Chromium -------------------------------------------------
"$EBS" annotate -i hl.data hot_loop --html hl.html
check "--html: exit 0, one file, no temporary left" sh -c '[ -s hl.html ] && [ -z "$(ls -A | grep '"'"'^\.hl\.html\.'"'"')" ]'
check "--html: self-contained (no URL to fetch)" not grep -qiE '(src|href)="(https?:)?//' hl.html
"$EBS" annotate -i hl.data hot_loop --asm --html hl-asm.html
python3 - hl-asm.html >links.txt <<'PY'
import re, sys
page = open(sys.argv[1]).read()
ids = set(re.findall(r'id="([^"]+)"', page))
hrefs = re.findall(r'href="#([^"]+)"', page)
jumps = [h for h in hrefs if re.match(r'f\d+-a[0-9a-f]+$', h)]
print(len(jumps), len([h for h in hrefs if h not in ids]))
PY
read -r njumps nbroken <links.txt
acheck "--asm --html: local jump targets are links ($njumps), every link has its anchor" \
	[ "$njumps" -ge 1 -a "$nbroken" = 0 ]
acheck "--asm --html: addresses in a monospace column" \
	sh -c "grep -q 'td.addr {[^}]*font-family: monospace' hl-asm.html && grep -q '<td class=\"addr\">' hl-asm.html"
pct=$(awk -v l="$hot" '$4 == l { print $3; exit }' ann.txt)	# %total of the HOT line
if ! command -v chromium >/dev/null; then
	EBS_DEPS_EXTRA=chromium "$TOP/scripts/deps.sh" build >deps.out 2>&1
fi
if ! command -v chromium >/dev/null; then
	skip "--html rendered in Chromium" "chromium is not installed and could not be ($(tail -n 1 deps.out))"
elif ! python3 "$TOP/tests/tools/render.py" hl.html hl.png >rendered.txt 2>render.err; then
	fail "--html rendered in Chromium" "$(head -n 1 render.err)"
else
	keep hl.png
	check "--html in Chromium: the hottest-lines list starts with hotline.c:$hot at $pct%" \
		sh -c "grep -A1 '^Hottest lines' rendered.txt | tail -n 1 | grep -qF 'hotline.c:$hot in hot_loop: $pct%'"
	check "--html in Chromium: the HOT line's row shows line $hot and $pct%" \
		grep -qP "^\d+\t[\d.]+\t\Q$pct\E\t$hot\t.*/\* HOT \*/" rendered.txt
	check "--html in Chromium: a screenshot was taken" sh -c '[ "$(head -c 4 hl.png | tail -c 3)" = PNG ]'
fi

# ---- kernel functions ----------------------------------------------------------
# A kernel function is annotated from its instructions in the kernel's memory
# (/proc/kcore: root only, and only in kernels built with it), never with
# "no function".  First deterministically, with a made-up kernel: code
# assembled here, laid out at 0xffffffff81000000 in an ELF core file (--kcore)
# with its kallsyms (--kallsyms), and samples written by mkdata.  Its
# addresses are shown from _stext (where KASLR put the kernel is no
# listing's business), so objdump's of the bytes at _stext's offset 0.
MKDATA=$(dirname "$EBS")/tests/tools/mkdata
KBASE=ffffffff81000000
cat >k.s <<'EOF2'
	.text
_stext:	.skip 16, 0x90
	.globl kfunc_a
kfunc_a:
	xorl	%eax, %eax
1:	addl	$1, %eax
	cmpl	$100, %eax
	jne	1b
	call	kfunc_b
	ret
kfunc_b:			# local: the call is resolved here, not relocated
	ret
	.globl kfunc_end
kfunc_end:
	.skip 16, 0xcc
EOF2
as --64 -o k.o k.s && objcopy -O binary -j .text k.o k.bin
nm k.o | python3 -c 'import sys
for l in sys.stdin:
    a, t, n = l.split()
    print("%x T %s" % (0xffffffff81000000 + int(a, 16), n))' >k.kallsyms
python3 - k.bin k.core <<'PY'
import struct, sys
code = open(sys.argv[1], 'rb').read()
eh = b'\x7fELF\x02\x01\x01' + bytes(9) + struct.pack('<HHIQQQIHHHHHH', 4, 62, 1, 0, 64, 0, 0, 64, 56, 1, 64, 0, 0)
ph = struct.pack('<IIQQQQQQ', 1, 5, 0x1000, 0xffffffff81000000, 0, len(code), len(code), 0x1000)
open(sys.argv[2], 'wb').write((eh + ph).ljust(0x1000, b'\0') + code)
PY
ka=$(awk '$3 == "kfunc_a" { print $1 }' k.kallsyms)
kb=$(awk '$3 == "kfunc_b" { print $1 }' k.kallsyms)
kdata() {	# OUT STEXT: 40 samples in kfunc_a's loop, 10 on its call, 5 in kfunc_b
	{
		echo "meta 3 x86_64"
		echo "meta 11 $2"
		echo "event cpu-clock cpu-clock 1000000"
		echo "comm 1 1 init"
		echo "sample 0 1 1 $(printf %x $((0x$ka + 2))) 40 k"
		echo "sample 0 1 1 $(printf %x $((0x$ka + 10))) 10 k"
		echo "sample 0 1 1 $kb 5 k"
	} | "$MKDATA" "$1"
}
kdata k.data $KBASE
"$EBS" annotate -i k.data kfunc_a --kallsyms k.kallsyms --kcore k.core --color never >ka.txt 2>ka.err
acheck "kernel function: exit 0, a kernel function's header" \
	sh -c "grep -q '^# annotate: kfunc_a (\[kernel\], k.kallsyms)' ka.txt && [ ! -s ka.err ]"
acheck "kernel function: the note names what source lines need, and where the instructions are from" \
	grep -q "^# note: kernel code: its source lines need the kernel's debug information (a vmlinux with DWARF.*; its instructions are from k.core, the kernel's memory$" ka.txt
awk '/  [0-9a-f]+:  / { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:$/) { sub(":", "", $i); print $i; break } }' ka.txt >ka.addrs
objdump -D -b binary -m i386:x86-64 --start-address=$((0x$ka - 0x$KBASE)) --stop-address=$((0x$kb - 0x$KBASE)) k.bin |
	awk '/^ *[0-9a-f]+:\t/ { sub(":", "", $1); print $1 }' >ka.objdump
acheck "kernel function: the same $(wc -l <ka.objdump) instructions as objdump of the kernel's bytes" \
	sh -c '[ -s ka.objdump ] && diff -q ka.addrs ka.objdump'
acheck "kernel function: its samples (50) on its instructions" \
	[ "$(awk '/  [0-9a-f]+:  / { if ($1 ~ /^[0-9]+$/ && $2 ~ /\./) s += $1 } END { print s + 0 }' ka.txt)" = 50 ]
acheck "kernel function: the call names kfunc_b, the loop's jump its own place" \
	sh -c "grep -qE 'call[q]? 0x$(printf %x $((0x$kb - 0x$KBASE))) <kfunc_b>$' ka.txt && grep -qE 'jne 0x[0-9a-f]+ <kfunc_a\+0x2>$' ka.txt"
acheck "kernel function: no address of the kernel's, only offsets from _stext" \
	not grep -qiE 'ffffffff8' ka.txt
# ... and the listing says so, in its header and its column's title
check "kernel function: the header says its addresses are offsets from _stext" \
	grep -qxF "# note: kernel addresses are shown as offsets from _stext (not the running kernel's addresses)" ka.txt
check "kernel function: the address column's title says so" \
	grep -qE '^#   samples  %func %total    line      _stext\+offset:  instruction$' ka.txt
"$EBS" annotate -i k.data kfunc_a --kallsyms k.kallsyms --kcore k.core --html ka.html 2>/dev/null
check "kernel function: --html: the page says so, and the column's title" \
	eval 'grep -qF "Kernel addresses are shown as offsets from _stext (not the running kernel&#39;s addresses)" ka.html &&
	      grep -qF "<th>_stext+offset</th>" ka.html && not grep -qiE "ffffffff8" ka.html'
# without _stext in kallsyms: offsets from the function's own start, said so
grep -v ' _stext$' k.kallsyms >k-nostext.kallsyms
"$EBS" annotate -i k.data kfunc_a --kallsyms k-nostext.kallsyms --kcore k.core >kns.txt 2>&1
check "kernel function, no _stext known: its addresses are offsets from its start, said so" \
	eval 'grep -qxF "# note: kernel addresses are shown as offsets from kfunc_a (not the running kernel'"'"'s addresses)" kns.txt &&
	      grep -qF "kfunc_a+offset:  instruction" kns.txt && not grep -qiE "ffffffff8" kns.txt'
kdata k-other.data ffffffff82000000
"$EBS" annotate -i k-other.data kfunc_a --kallsyms k.kallsyms --kcore k.core >ko.txt 2>&1
acheck "kernel function of another boot (_stext elsewhere): no instructions, said why" \
	grep -q "no instructions: recorded on a kernel laid out otherwise (_stext has moved: another boot or machine)" ko.txt
# As in real kernels, _text at _stext's address: the alias kept is _text,
# and _stext must still be found.
{ echo "$KBASE T _text"; cat k.kallsyms; } >k-text.kallsyms
"$EBS" annotate -i k-other.data kfunc_a --kallsyms k-text.kallsyms --kcore k.core >kt.txt 2>&1
acheck "kernel function of another boot, _text aliasing _stext: no instructions, said why" \
	grep -q "no instructions: recorded on a kernel laid out otherwise (_stext has moved" kt.txt
"$EBS" annotate -i k.data kfunc_a --kallsyms k.kallsyms --kcore k.nonexistent >kn.txt 2>&1
acheck "kernel function, --kcore missing: exit 0, no instructions, said why" \
	grep -q "no instructions: k.nonexistent is not there (no such file)" kn.txt
chmod 600 k.core
chmod 644 k.data # a recording is 0600, root's: nobody may read this one, not the kcore
nobody_ebs annotate -i k.data kfunc_a --kallsyms k.kallsyms --kcore k.core >knb.txt 2>&1
rc=$?
acheck "kernel function, kcore unreadable (as nobody): exit 0 ($rc), says it cannot be read" \
	sh -c "[ $rc -eq 0 ] && grep -q 'no instructions: k.core: Permission denied' knb.txt"
"$EBS" annotate -i k.data --kallsyms k.kallsyms --kcore k.core --color never >ktop.txt 2>&1
check "no target: kernel functions with instructions are among the hottest" grep -q '^# annotate: kfunc_a ' ktop.txt

# Then this machine's kernel, as it is: with /proc/kcore readable (root, a
# kernel with CONFIG_PROC_KCORE) its instructions, else a note saying what
# is missing; never "no function".
record sys.data -e cpu-clock -F 2000 "$WORKLOADS/sysloop" 0.3
kf=$("$EBS" report -i sys.data --dso '[kernel]' --json | python3 -c 'import json, sys
rows = [r for r in json.load(sys.stdin)["rows"] if not r["function"].startswith("[unknown]")]
print(rows[0]["function"] if rows else "")')
if [ -z "$kf" ]; then
	skip "this kernel's functions" "no named kernel function in the recording (kallsyms hidden?)"
else
	"$EBS" annotate -i sys.data "$kf" --color never >kf.txt 2>kf.err
	rc=$?
	check "annotate $kf (this kernel): exit 0 ($rc), the kernel's header and note" \
		sh -c "[ $rc -eq 0 ] && grep -q '^# annotate: $kf (\[kernel\]' kf.txt && grep -q '^# note: kernel code: ' kf.txt"
	if head -c 1 /proc/kcore >/dev/null 2>&1; then
		acheck "annotate $kf: /proc/kcore readable here: its instructions listed" \
			grep -qE '^ .* [0-9a-f]+:  ' kf.txt
	else
		acheck "annotate $kf: /proc/kcore not readable here: the note says why" \
			grep -qE 'no instructions: /proc/kcore is (not there|readable by root only)' kf.txt
		check "annotate $kf: the sampled addresses listed instead, as $kf+0xOFFSET" \
			grep -qE "^ +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9a-f]+:  $kf\+0x[0-9a-f]+ \(not read\)$" kf.txt
	fi
	check "annotate $kf: no address of the kernel's, only offsets from _stext" \
		not grep -qE 'ffff[89a-f][0-9a-f]{11}' kf.txt
fi

# A FUNC inlined with code inlined into it in turn: annotate counts every
# sample whose inline chain holds it, at any depth, as report --func does
# (mid is never the innermost frame where leafy's division is, yet those
# samples are mid's: the line that calls leafy).
cat >nest.c <<'SRC'
#include <time.h>
static volatile double sink;
static inline __attribute__((always_inline)) double leafy(double y) { return y / 1.0007 + 0.5; }
static inline __attribute__((always_inline)) double mid(double y)
{
	for (int i = 0; i < 5000; i++)
		y = leafy(y); /* MID-CALL */
	return y;
}
__attribute__((noinline)) double outer(double y)
{
	while (clock() < CLOCKS_PER_SEC / 4)
		y = mid(y);
	return y;
}
int main(void) { sink = outer(1.0); return 0; }
SRC
if ! gcc -O2 -g -o nest nest.c 2>nest.err; then
	skip "nested inline" "gcc -O2 -g nest.c failed: $(head -n 1 nest.err)"
else
	record nest.data -e cpu-clock -F 2000 ./nest
	"$EBS" report -i nest.data --func mid --json >nest.json 2>/dev/null
	"$EBS" annotate -i nest.data mid --color never >nest.txt 2>nest.err
	n=$(sed -n 's/^# event: .*: \([0-9]*\) samples in it.*/\1/p' nest.txt)
	check "annotate mid (inlined, leafy inlined into it): ${n:-no} samples in it, report --func mid's ($(json nest.json "j['samples']")), at least 300" \
		jtrue nest.json "'$n' != '' and int('$n') == j['samples'] and j['samples'] >= 300"
	check "annotate mid: the line calling leafy holds most of them" \
		grep -qE '^ +[0-9]+ +([5-9][0-9]|100)\.[0-9] .*MID-CALL' nest.txt
fi

# A stripped binary (no symbols, no DWARF): most samples are in code no
# symbol names, which ebs report lists as [unknown] DSO+0xADDR.  annotate of
# a name it does not have says so, and the report's [unknown] row as FUNC is
# refused saying annotate lists functions by name (it was taken for a file).
# A sample or two may land in ld.so's dl_main or rtld_setup_main_map, of
# which "main" is a part: annotated then (one) or ambiguous (two), and said
# the same way, in a note or in the error.
record strip.data -e cpu-clock -F 2000 "$WORKLOADS/calltree-stripped" 0.4
hint="; [0-9.]+% of the samples are in code without symbols \(stripped\?\), which ebs report lists as \[unknown\] DSO\+0xADDR"
"$EBS" annotate -i strip.data main >strip.out 2>strip.err
case $?,$(grep -c . strip.err) in
2,1) expect "annotate main of a stripped binary: one line saying most samples are in code without symbols" 2 \
	"no function 'main' with samples.*$hint" "$EBS" annotate -i strip.data main ;;
2,*) check "annotate main of a stripped binary, 'main' a part of two names: the error says most samples are in code without symbols" \
	grep -qE "^ebs annotate: strip.data: 'main' names [0-9]+ functions.*$hint\$" strip.err ;;
*) check "annotate main of a stripped binary, 'main' a part of one name: a note says so and that most samples are in code without symbols" \
	grep -qE "^# note: no function is named 'main', it is a part of this one's name$hint\$" strip.out ;;
esac
unk=$("$EBS" report -i strip.data --json 2>/dev/null | python3 -c 'import json, sys
print(next(r["function"] for r in json.load(sys.stdin)["rows"] if r["function"].startswith("[unknown]")))' 2>/dev/null)
expect "annotate '${unk:-[unknown] row}' (a report row without a symbol): refused, saying annotate lists functions by name" 2 \
	"is code without a symbol: annotate lists a function by its name" \
	"$EBS" annotate -i strip.data "${unk:-[unknown] calltree-stripped+0x0}"
