#!/usr/bin/env bash
# tests/run.sh - run the unit test programs and integration scripts, count
# their PASS/FAIL/SKIP lines and end with "N passed, N failed, N skipped".
#
#   tests/run.sh [-j N] [TEST...]
#
# TEST: unit/test-NAME (a unit suite), unit/test-NAME:CASE[,CASE...] (those
# of its cases: `build/tests/unit/test-NAME --list` lists them),
# integration/NAME, or a pattern matched against the tests' file names;
# none: every test.  -j N runs N tests at a time (default $JOBS, else 1).
#
# Environment: BUILD (build dir), EBS (path of the ebs binary), JOBS,
# TESTS="pattern" (as a TEST argument), EBS_OFFLINE=1 (make check): tests
# install nothing and download nothing; those that would have to skip,
# saying so.
#
# Each test's whole output is in $BUILD/test-logs/NAME.log (NAME: the unit
# program's or the script's name); a table of the tests' times, slowest
# first, ends the run, then the logs of the tests that failed.
#
# Each test has 600 s; a script that needs longer says so in its first
# lines: "# timeout: SECONDS".  A script that must have the machine to
# itself says "# serial" there: such tests run first, one at a time,
# alone.  The others run longest first (the last run's times,
# $BUILD/test-logs/times, else tests/times: "SECONDS NAME" lines), so that
# the longest do not start last.  One run at a time in a build directory.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
EBS=${EBS:-$PWD/$BUILD/ebs}
export BUILD EBS
export WORKLOADS="$PWD/$BUILD/tests/workloads"
export TOP="$PWD"
export ARTEFACTS="$PWD/$BUILD/test-artefacts"
mkdir -p "$ARTEFACTS"

jobs=${JOBS:-1}
args=()
while [ $# -gt 0 ]; do
	case "$1" in
	-j) jobs=${2:-}; shift 2 || { echo "run.sh: -j wants a number" >&2; exit 2; } ;;
	-j*) jobs=${1#-j}; shift ;;
	-h | --help) sed -n '2,/^set -u/{/^set -u/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	*) args+=("$1"); shift ;;
	esac
done
case "$jobs" in
'' | *[!0-9]* | 0) echo "run.sh: -j wants a whole number above 0, not '$jobs'" >&2; exit 2 ;;
esac
[ -n "${TESTS:-}" ] && args+=("$TESTS")

# run_one NAME LOG COMMAND...: run a test, its output into LOG; print its
# FAIL and SKIP lines (and why a failure failed) and a line of counts, and
# write "passed failed skipped seconds" into LOG.res.
run_one() {
	local name=$1 out=$2
	shift 2
	local rc t0=$SECONDS san=$SANLOGS/${name//\//-}
	mkdir -m 1777 "$san" && chmod 1777 "$san"
	ASAN_OPTIONS="log_path=$san/report:detect_leaks=1" \
		UBSAN_OPTIONS="log_path=$san/report:print_stacktrace=1:halt_on_error=1" \
		timeout "${LIMIT:-600}" "$@" >"$out" 2>&1 </dev/null
	rc=$?
	local p f s
	p=$(grep -c '^PASS: ' "$out")
	f=$(grep -c '^FAIL: ' "$out")
	s=$(grep -c '^SKIP: ' "$out")
	grep -E '^(FAIL|SKIP): ' "$out"
	if [ "$rc" -ge 124 ]; then
		echo "FAIL: $name: killed or timed out (status $rc)"
		tail -n 15 "$out" | sed 's/^/    /'
		f=$((f + 1))
	elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: $name: exited with status $rc and no FAIL line (crash?)"
		tail -n 15 "$out" | sed 's/^/    /'
		f=1
	elif [ "$f" -gt 0 ]; then
		grep -v -E '^(PASS|SKIP): ' "$out" | tail -n 25 | sed 's/^/    /'
	fi
	# a sanitizer report fails the test that wrote it
	local r
	for r in "$san"/report.*; do
		[ -e "$r" ] || continue
		local kept="$SANKEEP/${name//\//-}.${r##*/}"
		mv "$r" "$kept"
		echo "FAIL: $name: sanitizer report $kept:"
		head -n 20 "$kept" | sed 's/^/    /'
		f=$((f + 1))
	done
	rm -rf "$san"
	if [ $((p + f + s)) -eq 0 ]; then
		echo "FAIL: $name: ran no check"
		f=1
	fi
	printf '  %-40s %3d passed, %d failed, %d skipped, %4ds\n' "$name" "$p" "$f" "$s" $((SECONDS - t0))
	echo "$p $f $s $((SECONDS - t0))" >"$out.res"
}

# ---- which tests -----------------------------------------------------------
# names[i], cmds[i] (the command, words separated by newlines), serial[i]
names=() cmds=() serial=() limits=()
wanted() {	# NAME FILE: whether args select the test (and CASES for a unit suite)
	local a
	cases=
	[ ${#args[@]} -eq 0 ] && return 0
	for a in "${args[@]}"; do
		case "$a" in
		"$1") return 0 ;;
		"$1":*) cases="$cases ${a#*:}" ; continue ;;
		unit/* | integration/*) continue ;;
		esac
		[[ "$2" == *${a}* ]] && return 0
	done
	[ -n "$cases" ]
}
for t in "$BUILD"/tests/unit/test-*; do
	[ -x "$t" ] || continue
	case "$t" in *.d | *.o) continue ;; esac
	n=unit/$(basename "$t")
	wanted "$n" "$t" || continue
	for c in ${cases//,/ }; do
		"$t" --list | grep -qxF -e "$c" ||
			{ echo "run.sh: $n has no case '$c' (it has: $("$t" --list | tr '\n' ' '))" >&2; exit 2; }
	done
	names+=("$n") serial+=("") limits+=("")
	cmds+=("$t${cases:+$(printf '\n%s' ${cases//,/ })}")
done
for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	n=integration/$(basename "$t" .sh)
	wanted "$n" "$t" || continue
	names+=("$n") cmds+=("bash
$t")
	serial+=("$(sed -n '1,5{/^# serial\b/p}' "$t")")
	limits+=("$(sed -n '1,5s/^# timeout: \([0-9][0-9]*\)$/\1/p' "$t")")
done
for a in "${args[@]}"; do
	found=
	for n in "${names[@]}"; do
		case "$a" in "$n" | "$n":*) found=1 ;; unit/* | integration/*) ;; *) found=1 ;; esac
	done
	[ -n "$found" ] || { echo "run.sh: no test $a" >&2; exit 2; }
done

# The cache of decoded DWARF (docs/symbolize.md): the suite's own, fresh each
# run, never the user's; every test then runs with it, cold and warm.  Tests
# running at once share it: its entries are written to a temporary file and
# renamed into place, so a reader sees a whole entry or none.
export XDG_CACHE_HOME="$ARTEFACTS/xdg-cache"
rm -rf "$XDG_CACHE_HOME"
unset EBS_CACHE_MAX
# No debuginfod server the user's environment names (Debian's profile sets
# one): reports would ask it, and differ from the expected listings;
# debuginfod.sh names its own servers.
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH EBS_DEBUGINFOD_TIMEOUT

LOGS="$PWD/$BUILD/test-logs"
export TEST_LOGS=$LOGS
# one run at a time in a build directory: each starts its logs afresh
exec 8>"$PWD/$BUILD/.test-run.lock"
flock -n 8 || { echo "run.sh: another run.sh is running in $BUILD (its logs would be removed)" >&2; exit 2; }
times_before=
[ -s "$LOGS/times" ] && times_before=$(cat "$LOGS/times")
rm -rf "$LOGS"
mkdir -p "$LOGS"
log="$ARTEFACTS/test.log"
: >"$log"

# Sanitizer reports go to files, wherever the program's stderr went (tests
# often capture it): any report at all fails the test that wrote it (run_one).
# They are written into a directory anyone may write, in /tmp, one for each
# test: some tests run ebs as nobody, who may not reach the checkout (a
# clone under /root, a 0700 home); run_one keeps them in
# $ARTEFACTS/sanitizer.
SANKEEP="$ARTEFACTS/sanitizer"
rm -rf "$SANKEEP"
mkdir -p "$SANKEEP"
SANLOGS=$(mktemp -d /tmp/ebs-sanlogs.XXXXXX) && chmod 1777 "$SANLOGS" || exit 1
trap 'rm -rf "$SANLOGS"' EXIT

# Longest first: the last run's times, else tests/times (a run's, committed);
# one at a time, in the order above.
order=$(for i in "${!names[@]}"; do
	[ "$jobs" -eq 1 ] && { echo "0 $i"; continue; }
	sec=$(awk -v n="${names[i]}" '$2 == n { print $1; exit }' <<<"${times_before:-$(cat tests/times 2>/dev/null)}")
	echo "${sec:-0} $i"
done | sort -k1,1nr -k2,2n | awk '{ print $2 }')

# ---- running them ----------------------------------------------------------
pass=0 fail=0 skip=0
declare -A running=()	# pid -> index
failed_logs=()
logname() { local b=${1#*/}; echo "$LOGS/$b.log"; }
reap() {	# wait for one test to end and count it
	local pid i p f s sec
	wait -n -p pid "${!running[@]}"
	i=${running[$pid]}
	unset "running[$pid]"
	cat "$LOGS/.${i}.out"
	rm -f "$LOGS/.${i}.out"
	read -r p f s sec <"$(logname "${names[i]}").res" && [ -n "$sec" ] || p=0 f=1 s=0 sec=0
	rm -f "$(logname "${names[i]}").res"
	{ echo "==> ${names[i]}"; cat "$(logname "${names[i]}")"; } >>"$log"
	[ "$f" -gt 0 ] && failed_logs+=("$(logname "${names[i]}")")
	echo "$sec ${names[i]}" >>"$LOGS/times.new"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}
start() {	# index
	local i=$1 cmd
	mapfile -t cmd <<<"${cmds[i]}"
	LIMIT=${limits[i]} run_one "${names[i]}" "$(logname "${names[i]}")" "${cmd[@]}" \
		>"$LOGS/.$i.out" 2>&1 8>&- &
	running[$!]=$i
}
t0=$SECONDS
# the serial tests first, one after another, alone; then the rest
for i in $order; do
	[ -n "${serial[i]}" ] || continue
	start "$i"
	reap
done
for i in $order; do
	[ -z "${serial[i]}" ] || continue
	while [ ${#running[@]} -ge "$jobs" ]; do reap; done
	start "$i"
done
while [ ${#running[@]} -gt 0 ]; do reap; done

if [ -s "$LOGS/times.new" ]; then
	echo "Times (slowest first; ${jobs} at a time, $((SECONDS - t0)) s in all):"
	sort -k1,1nr "$LOGS/times.new" | awk '{ printf "  %5d s  %s\n", $1, $2 }'
	# kept for the next run's order, with the times of tests not run now
	{ cat "$LOGS/times.new"; awk 'NR == FNR { seen[$2] = 1; next } NF && !($2 in seen)' \
		"$LOGS/times.new" - <<<"$times_before"; } | sort -k1,1nr >"$LOGS/times"
	rm -f "$LOGS/times.new"
fi
for l in ${failed_logs[@]+"${failed_logs[@]}"}; do
	echo "failed: ${l#"$PWD"/}"
	# its FAIL lines too: CI keeps only the end of the output
	grep -a '^FAIL: ' "$l" | head -n 10 | cut -c1-400 | sed 's/^/  /'
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
