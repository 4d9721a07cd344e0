#!/usr/bin/env bash
# makefile.sh - the Makefile on a machine that lacks a library.  Each library
# header the build needs is hidden in turn (an overlay mount with a
# whiteout, in a mount namespace of the test's own: nothing else sees it):
# `make` must stop before compiling anything, with one line naming the
# Debian package to install; goals that install first (deps) must not
# stop.  Without capstone's header ebs is built without it and `ebs
# annotate --asm` says so.  Needs root (mounts); skips, saying so, without.
# Before those: plain `make` builds ebs, and the packages each goal installs
# (scripts/deps.sh build or test) are those of its purpose.
. "$(dirname "$0")/../lib.sh"

# The scripts make runs (deps, check-deps, demo, format) are executable as
# git keeps them, so a clean clone runs them (an edit once dropped deps.sh's
# mode and make test stopped at once there).
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	notx=$(git -C "$TOP" ls-files -s scripts | awk '$1 != "100755" { print $4 }')
	check "scripts/*: executable in git (not: ${notx:-none})" [ -z "$notx" ]
else
	skip "scripts/*: executable in git" "$TOP is not a git checkout"
fi

# make in the tree, with this run's environment (CI=true) but not its make's
MAKE_HERE="env -u MAKEFLAGS -u MAKELEVEL -u SAN make -C $TOP --no-print-directory"

# Plain `make`, the first command a C user types, builds build/ebs (it said
# "Nothing to be done for 'build/.flags'": that empty rule came first).  In
# an empty build directory, as in a fresh clone, -n: what it would do,
# nothing built.
$MAKE_HERE -n BUILD="$TMP/plain" >plain.out 2>&1
check "plain make: its goal is ebs ($(grep -m1 'Nothing to be done' plain.out))" \
	eval 'grep -q -- "-o $TMP/plain/ebs " plain.out && ! grep -q "Nothing to be done" plain.out'

# What each goal installs (scripts/deps.sh PURPOSE): make deps and make demo
# what building and running ebs need, a handful of packages; make test
# those and the tests' own (make demo installed Chromium, Go, clang, LLVM,
# CMake, ninja...).  --list prints a purpose's packages and installs
# nothing (EBS_OFFLINE=1 all the same: the deps.sh before took no purpose
# and would have installed everything).
TEST_ONLY="chromium golang-go clang llvm libclang-rt-dev clang-format cmake ninja-build
python3-jsonschema tmux strace libstb-dev elfutils"
EBS_OFFLINE=1 "$TOP/scripts/deps.sh" build --list >deps-build.txt 2>&1
EBS_OFFLINE=1 "$TOP/scripts/deps.sh" test --list >deps-test.txt 2>&1
keep deps-build.txt
# all_in FILE PACKAGE...: each PACKAGE is a line of FILE; none_in: FILE
# lists packages, none of them a PACKAGE
all_in() {
	local f=$1 p
	shift
	for p in "$@"; do grep -qx -- "$p" "$f" || return 1; done
}
none_in() {
	local f=$1 p
	shift
	[ -s "$f" ] || return 1
	for p in "$@"; do not grep -qx -- "$p" "$f" || return 1; done
}
check "deps.sh build --list: the compiler and the libraries' headers ($(wc -l <deps-build.txt) packages: $(head -c 100 deps-build.txt | tr '\n' ' '))" \
	all_in deps-build.txt build-essential pkg-config libelf-dev libdwarf-dev libunwind-dev uthash-dev \
	zlib1g-dev libncurses-dev nettle-dev libdeflate-dev libzstd-dev
# shellcheck disable=SC2086 # TEST_ONLY is a list
check "deps.sh build --list: no package only the tests need ($(printf '%s\n' $TEST_ONLY | grep -xFf - deps-build.txt | tr '\n' ' '))" \
	none_in deps-build.txt $TEST_ONLY
# shellcheck disable=SC2046,SC2086 # the packages are lists
check "deps.sh test --list: build's packages and the tests' own" \
	all_in deps-test.txt $(cat deps-build.txt) $TEST_ONLY
EBS_OFFLINE=1 EBS_DEPS_EXTRA="extra-one extra-two" "$TOP/scripts/deps.sh" build --list >deps-extra.txt 2>&1
check "deps.sh build --list with EBS_DEPS_EXTRA: build's packages and the extra ones" \
	all_in deps-extra.txt extra-one extra-two libdwarf-dev
expect "deps.sh with an unknown purpose: exit 2, usage" 2 "^usage: scripts/deps.sh \[build\|test\]" \
	env EBS_OFFLINE=1 "$TOP/scripts/deps.sh" everything --list
# which purpose each goal installs for: make -n runs sub-makes (-n too),
# in a build directory of the test's own
for goal in deps:build demo:build test:test fuzz:test check-libdwarf2:test test-kmod:test; do
	$MAKE_HERE -n BUILD="$TMP/goals" "${goal%%:*}" >"goal-${goal%%:*}.out" 2>&1 </dev/null
	check "make ${goal%%:*} installs for the purpose ${goal#*:} ($(grep -m 1 'deps\.sh' "goal-${goal%%:*}.out"))" \
		eval '[ "$(grep -c "scripts/deps\.sh" "goal-${goal%%:*}.out")" -eq 1 ] &&
		      grep -qx "scripts/deps\.sh ${goal#*:}" "goal-${goal%%:*}.out"'
done

if ! unshare -m --propagation private true 2>/dev/null; then
	skip "without a library's header" "cannot make a mount namespace here (root is needed: unshare -m)"
	exit 0
fi

# where the compiler finds HEADER with FLAGS ("" when it does not)
header_path() {	# HEADER FLAGS...
	local h=$1
	shift
	printf '#include <%s>\n' "$h" | cc "$@" -M -E -x c - 2>/dev/null |
		tr ' \\' '\n\n' | grep -m 1 -E "/${h//./\\.}\$"
}

# hidden FILE CMD...: run CMD where FILE does not exist (an overlay over its
# directory with a whiteout for it), in a mount namespace of its own
hidden() {
	local f=$1 ovl
	shift
	ovl=$(mktemp -d "$TMP/ovl.XXXXXX")
	unshare -m --propagation private sh -c '
		o=$1 f=$2 d=$(dirname "$2")
		shift 2
		mkdir "$o/up" "$o/work" &&
		mknod "$o/up/$(basename "$f")" c 0 0 &&
		mount -t overlay overlay -o "lowerdir=$d,upperdir=$o/up,workdir=$o/work" "$d" ||
			{ echo "hidden: cannot hide $f" >&2; exit 99; }
		exec "$@"' sh "$ovl" "$f" "$@"
}

# make kmod with a newer kernel's headers installed beside Debian's default
# (6.12 from backports beside 6.1): it takes the default, which
# linux-headers-amd64 depends on, not the newest (which once failed to
# build where 6.1 builds); the newest only without the meta-package.  A
# fake 6.12 directory is laid over /usr/src in a namespace of the test's.
kdep=$(dpkg-query -W -f '${Depends}' linux-headers-amd64 2>/dev/null | sed -n 's/^\(linux-headers-[^ ,]*\).*/\1/p')
if [ -d "/lib/modules/$(uname -r)/build" ]; then
	skip "make kmod: Debian's default headers, not the newest" "the running kernel's headers are installed, and taken first"
elif [ -z "$kdep" ] || [ ! -d "/usr/src/$kdep" ]; then
	skip "make kmod: Debian's default headers, not the newest" "linux-headers-amd64 is not installed"
else
	ovl=$(mktemp -d "$TMP/ksrc.XXXXXX")
	mkdir -p "$ovl/up/linux-headers-99.12.0-1-amd64" "$ovl/work"
	unshare -m --propagation private sh -c '
		mount -t overlay overlay -o "lowerdir=/usr/src,upperdir=$1/up,workdir=$1/work" /usr/src ||
			{ echo "cannot lay a directory over /usr/src" >&2; exit 99; }
		shift
		exec "$@"' sh "$ovl" $MAKE_HERE -n kmod >kdir.out 2>&1 </dev/null
	if [ $? -eq 99 ]; then
		skip "make kmod: Debian's default headers, not the newest" "$(tail -n 1 kdir.out)"
	else
		keep kdir.out
		check "make kmod: Debian's default headers ($kdep), not the newest (99.12), and says why" \
			eval 'grep -q "^make -C kmod KDIR=/usr/src/$kdep\$" kdir.out &&
			      grep -q "^echo \"kmod: KDIR=/usr/src/$kdep: Debian.s default headers" kdir.out'
	fi
fi

LIBDWARF_I=$(pkg-config --cflags libdwarf 2>/dev/null || echo -I/usr/include/libdwarf)
# header, the flags that find it, the package the message must name
while read -r h pkg flags; do
	# shellcheck disable=SC2086 # flags is a list
	path=$(header_path "$h" $flags)
	if [ -z "$path" ]; then
		fail "without $h" "the compiler does not find $h here, so it cannot be hidden"
		continue
	fi
	hidden "$path" $MAKE_HERE BUILD="$TMP/b-$pkg" all >"$pkg.out" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 99 ]; then
		skip "without $h" "cannot hide $path (no overlay mounts here?): $(head -n 1 "$pkg.out")"
		continue
	fi
	keep "$pkg.out"
	check "without $h ($path): make fails" [ $rc -ne 0 ]
	check "without $h: one line, naming the package $pkg" \
		bash -c "[ \$(wc -l <'$pkg.out') -eq 1 ] && grep -q \"not found; install Debian's.* $pkg \" '$pkg.out'"
	check "without $h: no compiler error, nothing compiled" \
		bash -c "! grep -q 'error:' '$pkg.out' && [ -z \"\$(find '$TMP/b-$pkg' -name '*.o' 2>/dev/null)\" ]"
	hidden "$path" $MAKE_HERE -n deps >"$pkg-deps.out" 2>&1 </dev/null
	check "without $h: make deps is not stopped (it installs $pkg)" \
		grep -q 'scripts/deps.sh' "$pkg-deps.out"
done <<EOF
uthash.h uthash-dev
gelf.h libelf-dev
zlib.h zlib1g-dev
curses.h libncurses-dev
nettle/sha2.h nettle-dev
libdwarf.h libdwarf-dev $LIBDWARF_I
EOF

# No capstone: ebs without a disassembler.  -O0: only whether it builds,
# what --asm says, and that the annotate and report tests hold on it (their
# instruction checks skip, saying why) matter here.
cs=$(header_path capstone/capstone.h)
if [ -z "$cs" ]; then
	skip "without capstone" "capstone's header is not installed (libcapstone-dev): make test builds without it anyway"
	exit 0
fi
hidden "$cs" $MAKE_HERE -j2 BUILD="$TMP/nocap" CFLAGS="-O0 -g" all "$TMP/nocap/tests/tools/mkdata" \
	>nocap.out 2>&1 </dev/null
rc=$?
built=$rc
keep nocap.out
if [ $rc -eq 0 ]; then
	pass "without capstone: ebs builds"
else
	fail "without capstone: ebs builds" "$(grep -m 1 -E 'error|Error' nocap.out)"
fi
check "without capstone: built with EBS_HAVE_CAPSTONE=0" grep -q -- '-DEBS_HAVE_CAPSTONE=0' "$TMP/nocap/.flags"
# Zydis decodes only after capstone (report/annotate/decode.c): not without it
check "without capstone: nor Zydis (EBS_HAVE_ZYDIS=0)" grep -q -- '-DEBS_HAVE_ZYDIS=0' "$TMP/nocap/.flags"
if [ $rc -eq 0 ]; then
	check "without capstone: ebs names no libcapstone to load" not bash -c "strings '$TMP/nocap/ebs' | grep -q '^libcapstone'"
	check "without capstone: ebs names no libZydis to load" not bash -c "strings '$TMP/nocap/ebs' | grep -q '^libZydis'"
	record asm.data -e cpu-clock -F 1000 "$WORKLOADS/hotline" 0.2
	"$TMP/nocap/ebs" annotate -i asm.data hot_loop --asm --color never >asm.out 2>asm.err
	rc=$?
	check "without capstone: annotate --asm fails, saying ebs was built without a disassembler" \
		bash -c "[ $rc -ne 0 ] && [ \$(wc -l <asm.err) -eq 1 ] && grep -q 'without a disassembler' asm.err"
fi
if [ "$built" -eq 0 ]; then
	# the listing tests on this ebs: their lines are counted here, not by run.sh
	for t in annotate report; do
		EBS=$TMP/nocap/ebs bash "$TOP/tests/integration/$t.sh" >"nocap-$t.out" 2>&1
		keep "nocap-$t.out"
		nf=$(grep -c '^FAIL: ' "nocap-$t.out")
		np=$(grep -c '^PASS: ' "nocap-$t.out")
		ns=$(grep -c '^SKIP: .*without a disassembler' "nocap-$t.out")
		check "without capstone: $t.sh holds ($np passed, $nf failed, $ns instruction checks skipped)" \
			bash -c "[ $nf -eq 0 ] && [ $np -gt 20 ] && [ $ns -gt 0 ]"
	done
fi
