#!/usr/bin/env bash
# tests/run.sh - run every unit test program and integration script, count
# their PASS/FAIL/SKIP lines and end with "N passed, N failed, N skipped".
#
# Environment: BUILD (build dir), EBS (path of the ebs binary),
# TESTS="pattern" runs only the tests whose file name matches,
# EBS_OFFLINE=1 (make check): tests install nothing and download nothing;
# those that would have to skip, saying so.
#
# Each test has 600 s; a script that needs longer says so in its first
# lines: "# timeout: SECONDS".
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
EBS=${EBS:-$PWD/$BUILD/ebs}
export BUILD EBS
export WORKLOADS="$PWD/$BUILD/tests/workloads"
export TOP="$PWD"
export ARTEFACTS="$PWD/$BUILD/test-artefacts"
mkdir -p "$ARTEFACTS"
# The cache of decoded DWARF (docs/symbolize.md): the suite's own, fresh each
# run, never the user's; every test then runs with it, cold and warm.
export XDG_CACHE_HOME="$ARTEFACTS/xdg-cache"
rm -rf "$XDG_CACHE_HOME"
unset EBS_CACHE_MAX

pass=0 fail=0 skip=0
log="$ARTEFACTS/test.log"
: >"$log"

# Sanitizer reports go to files, wherever the program's stderr went (tests
# often capture it): any report at all fails the test that wrote it (run_one).
# They are written into a directory anyone may write, in /tmp: some tests
# run ebs as nobody, who may not reach the checkout (a clone under /root, a
# 0700 home); run_one keeps them in $ARTEFACTS/sanitizer.
SANKEEP="$ARTEFACTS/sanitizer"
rm -rf "$SANKEEP"
mkdir -p "$SANKEEP"
SANLOGS=$(mktemp -d /tmp/ebs-sanlogs.XXXXXX) && chmod 1777 "$SANLOGS" || exit 1
trap 'rm -rf "$SANLOGS"' EXIT
export ASAN_OPTIONS="log_path=$SANLOGS/report:detect_leaks=1"
export UBSAN_OPTIONS="log_path=$SANLOGS/report:print_stacktrace=1:halt_on_error=1"

run_one() {	# name, command...
	local name=$1
	shift
	local out rc t0=$SECONDS
	out=$(timeout "${LIMIT:-600}" "$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >>"$log"
	local p f s
	p=$(grep -c '^PASS: ' <<<"$out")
	f=$(grep -c '^FAIL: ' <<<"$out")
	s=$(grep -c '^SKIP: ' <<<"$out")
	grep -E '^(FAIL|SKIP): ' <<<"$out"
	if [ "$rc" -ge 124 ]; then
		echo "FAIL: $name: killed or timed out (status $rc)"
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/    /'
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited with status $rc and no FAIL line (crash?)"
		printf '%s\n' "$out" | tail -n 15 | sed 's/^/    /'
		f=1
	elif [ "$f" -gt 0 ]; then
		printf '%s\n' "$out" | grep -v -E '^(PASS|SKIP): ' | tail -n 25 | sed 's/^/    /'
	fi
	# a sanitizer report fails the test that wrote it
	local r
	for r in "$SANLOGS"/report.*; do
		[ -e "$r" ] || continue
		local kept="$SANKEEP/${name//\//-}.${r##*/}"
		mv "$r" "$kept"
		echo "FAIL: $name: sanitizer report $kept:"
		head -n 20 "$kept" | sed 's/^/    /'
		f=$((f + 1))
	done
	if [ $((p + f + s)) -eq 0 ]; then
		echo "FAIL: $name: ran no check"
		f=1
	fi
	printf '  %-40s %3d passed, %d failed, %d skipped, %4ds\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

for t in "$BUILD"/tests/unit/test-*; do
	[ -x "$t" ] || continue
	case "$t" in *.d|*.o) continue ;; esac
	[ -n "${TESTS:-}" ] && [[ "$t" != *${TESTS}* ]] && continue
	run_one "unit/$(basename "$t")" "$t"
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	[ -n "${TESTS:-}" ] && [[ "$t" != *${TESTS}* ]] && continue
	LIMIT=$(sed -n '1,5s/^# timeout: \([0-9][0-9]*\)$/\1/p' "$t") \
		run_one "integration/$(basename "$t" .sh)" bash "$t"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
