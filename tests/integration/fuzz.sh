#!/usr/bin/env bash
# fuzz.sh - the fuzz harnesses' smoke run (docs/fuzzing.md): build them with
# clang, ASan and UBSan (into $BUILD/fuzz, `make fuzz-bins`), replay every
# saved regression input (tests/fuzz/regress/HARNESS/), then run each
# harness for FUZZ_SMOKE seconds (default 10) on seeds made now from real
# files (tests/fuzz/seeds.sh).  A crash, a sanitizer report or a broken
# promise is a FAIL naming the input, which is kept in the artefacts.
# `make fuzz` is the long run (FUZZ_SECONDS per harness).
. "$(dirname "$0")/../lib.sh"

SMOKE=${FUZZ_SMOKE:-10}
FUZZ_BIN=$TOP/$BUILD/fuzz/tests/fuzz
ART=$ARTEFACTS/fuzz
rm -rf "$ART"
mkdir -p "$ART"
# reports on the harness's stderr, read here (not run.sh's report files)
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# clang and its libFuzzer runtime (Debian: libclang-rt-14-dev)
# The harnesses are one build whatever the half: clang's, with ASan and
# UBSan (make fuzz-bins), so the sanitizer half (SAN=) would build and run
# the very same binaries again on the same seeds.  The plain half runs them.
if [ -n "${SAN:-}" ]; then
	skip "harnesses" "the sanitizer half: the harnesses are the same ASan+UBSan build in both halves, and the plain half runs them"
	exit 0
fi
if ! command -v clang >/dev/null; then
	skip "harnesses" "no clang (scripts/deps.sh installs it)"
	exit 0
fi
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return !d && n; }' >probe.c
if ! clang -fsanitize=fuzzer,address,undefined -o probe probe.c 2>probe.err; then
	skip "harnesses" "clang cannot link a libFuzzer harness ($(head -n 1 probe.err)); install libclang-rt-14-dev"
	exit 0
fi

# the build: the modules the harnesses test, instrumented, in their own directory
if ! env -u MAKEFLAGS -u MAKELEVEL make -C "$TOP" -j2 BUILD="$BUILD" fuzz-bins >build.log 2>&1; then
	keep build.log
	fail "build the harnesses" "$(grep -m 1 -E 'error|Error' build.log)"
	exit 0
fi
pass "build the harnesses"
names=""
for b in "$FUZZ_BIN"/fuzz-*; do
	case $b in *.o | *.d) ;; *) [ -x "$b" ] && names="$names ${b##*/fuzz-}" ;; esac
done
"$TOP/tests/fuzz/seeds.sh" seeds $names 2>seeds.log
cp seeds.log "$ART/"

# every saved regression input, one process each: all must pass
for n in $names; do
	for r in "$TOP/tests/fuzz/regress/$n"/*; do
		[ -f "$r" ] || continue
		if timeout 60 "$FUZZ_BIN/fuzz-$n" -runs=1 "$r" >replay.log 2>&1; then
			pass "$n: regression input $(basename "$r")"
		else
			cp replay.log "$ART/regress-$n-$(basename "$r").log"
			fail "$n: regression input $(basename "$r")" \
				"$(grep -m 1 -E 'ERROR|runtime error|broken promise' replay.log)"
		fi
	done
done

# smoke runs, two at a time; each must end with no finding
smoke() {	# name
	local n=$1
	mkdir -p "corpus/$n" "$ART/$n"
	"$FUZZ_BIN/fuzz-$n" -max_total_time="$SMOKE" -timeout=20 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$ART/$n/" "corpus/$n" "seeds/$n" >"$n.log" 2>&1
	echo $? >"$n.rc"
}
set -- $names
while [ $# -gt 0 ]; do
	smoke "$1" &
	[ $# -gt 1 ] && smoke "$2" &
	wait
	shift
	[ $# -gt 0 ] && shift
done
for n in $names; do
	last=$(grep -E '^#[0-9]+[[:space:]].*cov: [0-9]+ ft: [0-9]+' "$n.log" | tail -n 1)
	runs=$(sed -nE 's/^#([0-9]+).*/\1/p' <<<"$last")
	cov=$(sed -nE 's/.*cov: ([0-9]+) ft: ([0-9]+).*/cov \1, ft \2/p' <<<"$last")
	if [ "$(cat "$n.rc")" = 0 ] && [ -z "$(ls "$ART/$n")" ] && [ -n "$runs" ]; then
		pass "$n: ${SMOKE} s, $runs executions, $cov, no finding"
		rm -rf "${ART:?}/$n"
	elif [ -z "$(ls "$ART/$n")" ] && [ -z "$runs" ]; then
		cp "$n.log" "$ART/$n.log"
		fail "$n: ${SMOKE} s smoke run" "no final statistics (status $(cat "$n.rc")): see $ART/$n.log"
	else
		cp "$n.log" "$ART/$n.log"
		fail "$n: ${SMOKE} s smoke run" \
			"$(grep -m 1 -E 'ERROR|runtime error|broken promise' "$n.log"); input kept in $ART/$n/"
	fi
done
