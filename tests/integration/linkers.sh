#!/usr/bin/env bash
# linkers.sh - call chains of programs linked by each linker Debian ships:
# GNU ld (bfd), gold, lld and mold, PIE and not, each with -g (frame
# pointers) and --call-graph dwarf; and a rustc-built program (rustc links
# with rust-lld), when rustc is installed.
#
# The workload is calltree (tests/workloads/calltree.c) under a driver
# built here, compiled with gcc and linked by each linker at test time
# (and by lld from clang, which omits frame pointers at -O2):
#
#   main -> guarded -> calltree_main -> tree_a -> tree_left  -> tree_leaf  (2/3)
#                                              -> tree_right -> tree_leaf  (1/3)
#
# guarded has a cleanup (-fexceptions), so its CIE names a personality
# routine, which unwinders read through a GOT slot in a writable segment;
# tree_leaf is frameless (gcc builds no frame in a leaf even with
# -fno-omit-frame-pointer), so -g skips its caller, which ebs puts back
# from the leaf's CFI.  lld and mold put the code on the file page where
# the read-only data ends, so the code's mapping starts a page below the
# code segment's address: a load bias taken from the mapping's first byte
# is a page off, and no FDE is found.
#
# For each build, ebs record's chains against the known tree: of the
# samples in tree_leaf, >= 97% have all of the chain above it
# (tree_left or tree_right, tree_a, calltree_main, guarded, main, in that
# order; a frameless leaf's caller is put back from its CFI at any of its
# instructions, and every frame has CFI, so only the odd sample the
# kernel took elsewhere misses); tree_left holds 2/3 of them (5 sd + 0.02);
# no frame outside the process's mappings ([unknown]: a stack address, a
# word of text read as a return address).  And perf record on the same
# binary: every chain ebs script derives from perf's own perf.data equal to
# perf script's, frame for frame (tests/tools/perfchains.py).
. "$(dirname "$0")/../lib.sh"

WL="$TOP/tests/workloads"
cat >guard.c <<'C'
/* main -> guarded -> calltree's main: guarded's cleanup makes its CIE name a personality routine */
int calltree_main(int argc, char **argv);
static volatile int sunk;
static void done(int *p)
{
	sunk += *p;
}
__attribute__((noinline)) int guarded(int argc, char **argv)
{
	int x __attribute__((cleanup(done))) = 1;
	return calltree_main(argc, argv) + x - 1;
}
int main(int argc, char **argv)
{
	int r = guarded(argc, argv);

	sunk += r; /* after the call: no tail call, main stays on the stack */
	return r;
}
C

# chains.py EBS_SCRIPT KIND: the ground-truth checks on an ebs script
# output (-F ip,sym,dso), one line: "leaf L full F left T bad B" (samples
# in the leaf, those with the whole chain above it, those through the
# left caller, frames outside the mappings).  KIND: calltree; calltree-nostack,
# perf record -g's (no stack copy: a frameless leaf's caller cannot be put
# back, the leaf sits under tree_a, as in perf's chains; clang builds a
# frame in leaves too, and its leaf's caller stays); rust, the rustc
# program's, ebs_rs_leaf -> ebs_rs_left|ebs_rs_right -> ... -> main.
cat >chains.py <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests', 'tools'))
from perfchains import chains
leaf, mids, above = {
    'calltree': ('tree_leaf', ('tree_left', 'tree_right'), ['tree_a', 'calltree_main', 'guarded']),
    'calltree-nostack': ('tree_leaf', ('tree_left', 'tree_right', None), ['tree_a', 'calltree_main', 'guarded']),
    'rust': ('ebs_rs_leaf', ('ebs_rs_left', 'ebs_rs_right'), []),
}[sys.argv[2]]
n = full = left = bad = 0
for c in chains(sys.argv[1], False):
    names = [f[0] for f in c if f[1] != '[kernel]']
    # callers only: a sample's own user address may be in no mapping the
    # file has (perf's child samples before its exec; a sample in execve
    # after the new image's mappings replaced the old, whose return address
    # the user registers still hold), which no unwinder made
    user = [f for f in c if f[1] != '[kernel]']
    bad += sum(f[2] == '[unknown]' for f in user[1:])
    if not names or names[0] != leaf:
        continue
    n += 1
    rest = names[1:]
    if rest and rest[0] in mids:
        left += rest[0] == mids[0]
        rest = rest[1:]
    elif None not in mids:  # the leaf's caller is missing
        continue
    if rest[:len(above)] == above and 'main' in rest[len(above):]:
        full += 1
print('leaf %d full %d left %d bad %d' % (n, full, left, bad))
PY

# truth WHAT SCRIPT KIND: the ground-truth checks on one ebs script output
truth() {
	local what=$1 n full left bad
	python3 chains.py "$2" "$3" >"$2.truth" 2>&1
	read -r _ n _ full _ left _ bad <"$2.truth"
	if [ -z "$bad" ]; then
		fail "$what" "chains.py: $(head -n 1 "$2.truth")"
		return
	fi
	[ "$bad" -eq 0 ] || keep "$2"
	check "$what: no caller outside the mappings ($bad)" [ "$bad" -eq 0 ]
	enough "$what" "$n" 200 || return 0
	check "$what: the whole chain above the leaf in >= 97% of its samples ($full of $n)" \
		[ $((full * 100)) -ge $((n * 97)) ]
	[ "$3" = calltree ] || return 0
	near "$what: the leaf's chains through tree_left are 2/3 ($left of $n)" "$left" "$n" 0.6667 0.02
}

HAVE_PERF=
if ! command -v perf >/dev/null 2>&1; then
	skip "perf" "perf is not installed (apt-get install linux-perf): no oracle for the chains"
elif ! perf_rec probe.perf -e cpu-clock -F 1000 true; then
	skip "perf" "perf record fails here: $(head -n 1 probe.perf.err)"
else
	HAVE_PERF=1
fi

# perfchains.py itself: a chain whose leaf perf prints in no mapping (the
# sampled ip itself, which ebs keeps as [unknown]) ends at its sample, not
# with every chain after it dropped (a SAN run: "chains perf 8 ebs 804")
printf '\t    7f0000001000 [unknown] ([unknown])\n\t    55550000114e main+0x1e (/x/prog)\n\n\t    555500001130 leaf+0x0 (/x/prog)\n\t    55550000114e main+0x1e (/x/prog)\n\n' >pc.perf.txt
printf '\t    7f0000001000 [unknown] ([unknown])\n\t    55550000114e main (/x/prog)\n\n\t    555500001130 leaf (/x/prog)\n\t    55550000114e main (/x/prog)\n\n' >pc.ebs.txt
python3 "$TOP/tests/tools/perfchains.py" pc.perf.txt pc.ebs.txt >pc.cmp 2>&1
check "perfchains.py: a leaf in no mapping ends its own chain only ($(tr '\n' ' ' <pc.cmp | head -c 120))" \
	sh -c 'head -n 1 pc.cmp | grep -qx "chains perf 2 ebs 2" && grep -qx "chains differ 0" pc.cmp'
# ...and a PLT entry perf names by the symbol before it (_init+0x50) is
# ebs's NAME@plt, but no other name of ebs's
printf '\t    555500001050 _init+0x50 (/x/prog)\n\t    55550000114e main+0x1e (/x/prog)\n\n' >plt.perf.txt
printf '\t    555500001050 clock_gettime@plt (/x/prog)\n\t    55550000114e main (/x/prog)\n\n' >plt.ebs.txt
sed 's/clock_gettime@plt/leaf/' plt.ebs.txt >plt.other.txt
python3 "$TOP/tests/tools/perfchains.py" plt.perf.txt plt.ebs.txt >plt.cmp 2>&1
python3 "$TOP/tests/tools/perfchains.py" plt.perf.txt plt.other.txt >plt-other.cmp 2>&1
check "perfchains.py: perf's _init+0x50 is ebs's clock_gettime@plt, not its leaf ($(sed -n 3p plt.cmp), then $(sed -n 3p plt-other.cmp))" \
	sh -c 'grep -qx "chains differ 0" plt.cmp && grep -qx "chains differ 1" plt-other.cmp'

# against_perf WHAT MODE BIN: perf record of BIN, perf script's chains against
# ebs script's of perf's file
against_perf() {
	local what=$1 mode=$2 bin=$3 g=-g
	[ -n "$HAVE_PERF" ] || return 0
	[ "$mode" = dwarf ] && g="--call-graph dwarf"
	# shellcheck disable=SC2086
	if ! perf_rec "$bin.$mode.perf" -e cpu-clock -F 2000 $g "./$bin" 0.4; then
		skip "$what: perf record" "perf record failed 3 times: $(head -n 1 "$bin.$mode.perf.err")"
		return
	fi
	perf script --no-inline -i "$bin.$mode.perf" -F ip,sym,symoff,dso >"$bin.$mode.perf.txt" 2>/dev/null
	"$EBS" script -i "$bin.$mode.perf" -F ip,sym,dso >"$bin.$mode.ebs.txt" 2>"$bin.$mode.ebs.err"
	python3 "$TOP/tests/tools/perfchains.py" "$bin.$mode.perf.txt" "$bin.$mode.ebs.txt" \
		>"$bin.$mode.cmp" 2>&1
	keep "$bin.$mode.cmp"
	check "$what, perf's recording: as many chains as perf script ($(head -n 1 "$bin.$mode.cmp"))" \
		awk 'NR == 1 { exit !($3 == $5 && $3 > 0) }' "$bin.$mode.cmp"
	check "$what, perf's recording: every chain perf's, frame for frame ($(sed -n 3p "$bin.$mode.cmp"))" \
		grep -qx 'chains differ 0' "$bin.$mode.cmp"
	local kind=calltree
	[ "$mode" = fp ] && kind=calltree-nostack
	truth "$what, perf's recording" "$bin.$mode.ebs.txt" $kind
}

# one WHAT MODE BIN: ebs record of BIN, its chains against the truth, then perf's
one() {
	local what=$1 mode=$2 bin=$3 g=-g
	[ "$mode" = dwarf ] && g="--call-graph dwarf"
	# shellcheck disable=SC2086
	if ! "$EBS" record -q -e cpu-clock -F 2000 $g -o "$bin.$mode.data" "./$bin" 0.4 \
		>/dev/null 2>"$bin.$mode.err"; then
		fail "$what: ebs record" "$(head -n 1 "$bin.$mode.err")"
		return
	fi
	"$EBS" script -i "$bin.$mode.data" -F ip,sym,dso >"$bin.$mode.txt" 2>&1
	keep "$bin.$mode.txt"
	truth "$what" "$bin.$mode.txt" calltree
	against_perf "$what" "$mode" "$bin"
}

# build NAME CC FLAGS...: calltree and the driver compiled by CC, linked
# with FLAGS (-fuse-ld, -pie); false, saying why, when that fails
build() {
	local name=$1 cc=$2
	shift 2
	# shellcheck disable=SC2068
	"$cc" -std=gnu11 -D_GNU_SOURCE -O2 -g $FP "$@" -I"$WL" -Dmain=calltree_main \
		-c "$WL/calltree.c" -o "$name-ct.o" 2>"$name.err" &&
		"$cc" -O2 -g $FP -fexceptions "$@" -c guard.c -o "$name-guard.o" 2>>"$name.err" &&
		"$cc" "$@" -o "$name" "$name-ct.o" "$name-guard.o" 2>>"$name.err"
}

# which linker wrote BIN, from its .comment (lld, mold) or its notes (gold)
linked_by() {
	readelf -p .comment "$1" 2>/dev/null | grep -qi "$2" ||
		readelf -n "$1" 2>/dev/null | grep -qi "$2"
}

for ld in bfd gold lld mold; do
	case $ld in
	bfd) prog=ld.bfd ;;
	gold) prog=ld.gold ;;
	lld) prog=ld.lld ;;
	mold) prog=mold ;;
	esac
	if ! command -v $prog >/dev/null 2>&1; then
		skip "$ld" "$prog is not installed (apt-get install $([ $ld = lld ] && echo lld || ([ $ld = mold ] && echo mold || echo binutils)))"
		continue
	fi
	for pie in pie nopie; do
		pf="-fPIE -pie"
		[ $pie = nopie ] && pf="-fno-pie -no-pie"
		for mode in fp dwarf; do
			FP=-fno-omit-frame-pointer
			[ $mode = dwarf ] && FP=-fomit-frame-pointer
			bin=ct-$ld-$pie-$mode
			# shellcheck disable=SC2086
			if ! build $bin gcc -fuse-ld=$ld $pf; then
				fail "$ld $pie $mode: build" "$(head -n 1 $bin.err)"
				continue
			fi
			# the linker asked for is the one used (gcc falls back to none silently)
			case $ld in
			lld | mold) check "$ld $pie: linked by $ld" linked_by $bin "$ld" ;;
			gold) check "$ld $pie: linked by gold" linked_by $bin gold ;;
			esac
			one "$ld $pie $mode" $mode $bin
		done
	done
done

# clang with lld: frame pointers omitted at -O2, clang's own CFI
if ! command -v clang >/dev/null 2>&1 || ! command -v ld.lld >/dev/null 2>&1; then
	skip "clang lld" "clang or ld.lld is not installed (apt-get install clang lld)"
else
	for mode in fp dwarf; do
		FP=-fno-omit-frame-pointer
		[ $mode = dwarf ] && FP=-fomit-frame-pointer
		if build ct-clang-lld-$mode clang -fuse-ld=lld; then
			one "clang lld $mode" $mode ct-clang-lld-$mode
		else
			fail "clang lld $mode: build" "$(head -n 1 ct-clang-lld-$mode.err)"
		fi
	done
fi

# rustc's default linker (rust-lld, or cc): its chains, dwarf (Rust code
# has no frame pointers), through std's frames (catch_unwind's personality)
RUSTC=$(command -v rustc || echo /root/.cargo/bin/rustc)
if [ ! -x "$RUSTC" ] || ! "$RUSTC" --version >/dev/null 2>&1; then
	skip "rustc" "rustc is not installed (rustup, or apt-get install rustc)"
else
	cat >rs.rs <<'RS'
use std::hint::black_box;
#[no_mangle]
#[inline(never)]
pub extern "C" fn ebs_rs_leaf(n: u64) -> u64 {
    let mut s = 0u64;
    for i in 0..n {
        s = black_box(s.wrapping_mul(31).wrapping_add(i));
    }
    s
}
#[no_mangle]
#[inline(never)]
pub extern "C" fn ebs_rs_left(n: u64) -> u64 { ebs_rs_leaf(2 * n) + 1 }
#[no_mangle]
#[inline(never)]
pub extern "C" fn ebs_rs_right(n: u64) -> u64 { ebs_rs_leaf(n) + 1 }
#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}
extern "C" {
    fn clock_gettime(clock: i32, t: *mut Timespec) -> i32;
}
/* the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): the same work on a loaded machine */
fn cpu() -> f64 {
    let mut t = Timespec { sec: 0, nsec: 0 };
    unsafe { clock_gettime(3, &mut t) };
    t.sec as f64 + t.nsec as f64 * 1e-9
}
fn main() {
    let secs: f64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(0.4);
    let end = cpu() + secs;
    let mut s = 0;
    while cpu() < end {
        s += ebs_rs_left(100000) + ebs_rs_right(100000);
    }
    black_box(s);
}
RS
	if ! "$RUSTC" -O -g -o rs rs.rs 2>rs.err; then
		fail "rustc: build" "$(head -n 1 rs.err)"
	elif ! "$EBS" record -q -e cpu-clock -F 2000 --call-graph dwarf -o rs.data ./rs 0.4 2>rs.rec.err; then
		fail "rustc: ebs record" "$(head -n 1 rs.rec.err)"
	else
		echo "# rustc: $("$RUSTC" --version), $(readelf -p .comment rs | grep -io 'linker: [^(]*' | head -n 1)"
		"$EBS" script -i rs.data -F ip,sym,dso >rs.txt 2>&1
		keep rs.txt
		truth "rustc dwarf" rs.txt rust
	fi
fi
