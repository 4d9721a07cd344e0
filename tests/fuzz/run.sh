#!/usr/bin/env bash
# tests/fuzz/run.sh - `make fuzz`: run every libFuzzer harness for FUZZ_SECONDS
# on seed corpora made now (tests/fuzz/seeds.sh), and print per harness the
# executions, executions per second, coverage (libFuzzer's cov: and ft:,
# its final figures) and findings.  docs/fuzzing.md says more.
#
# Environment (the Makefile sets them):
#   FUZZ_BIN       the harness binaries (FUZZ_BUILD/tests/fuzz)
#   FUZZ_SECONDS   per harness (default 600)
#   FUZZ_DIR       where corpora and findings are kept (default FUZZ_BIN/../..):
#                  corpus/NAME grows from run to run, findings/NAME holds
#                  the inputs of crashes, leaks, timeouts and OOMs
#   FUZZ_HARNESSES names to run (default: every one built), e.g. "reader elf"
#   FUZZ_FORK      1 (default): libFuzzer's fork mode with one worker, which
#                  goes on after a finding (saved, counted, and triaged
#                  below); 0: stop at the first finding
#   EBS, BUILD     for the seed corpora (recordings, mkdata)
# Exit status 1 when any harness had a finding or a regression input fails.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
: "${FUZZ_BIN:?set FUZZ_BIN (make fuzz does)}"
FUZZ_BIN=$(cd "$FUZZ_BIN" && pwd)
FUZZ_SECONDS=${FUZZ_SECONDS:-600}
FUZZ_DIR=${FUZZ_DIR:-$(cd "$FUZZ_BIN/../.." && pwd)}
FUZZ_FORK=${FUZZ_FORK:-1}
export WORKLOADS=${WORKLOADS:-$TOP/${BUILD:-build}/tests/workloads}
# reports on stderr, where this script reads them (not tests/run.sh's files)
export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

names=${FUZZ_HARNESSES:-}
if [ -z "$names" ]; then
	for b in "$FUZZ_BIN"/fuzz-*; do
		case $b in *.o | *.d) ;; *) [ -x "$b" ] && names="$names ${b##*/fuzz-}" ;; esac
	done
fi
[ -n "$names" ] || { echo "run.sh: no harness in $FUZZ_BIN" >&2; exit 2; }

seeds=$FUZZ_DIR/seeds
rm -rf "$seeds"
"$TOP/tests/fuzz/seeds.sh" "$seeds" $names

# signature FILE HARNESS: the kind of a finding and where, from a replay:
# "heap-use-after-free data/reader.c:123" (the first frame in ebs's sources).
signature() {
	local out kind where lib rc
	out=$(timeout 60 "$2" -runs=1 "$1" 2>&1)
	rc=$?
	if [ $rc -eq 124 ]; then
		echo "still runs after 60 s (a hang, or work the input does not bound)"
		return
	fi
	kind=$(grep -m 1 -oE 'ERROR: (AddressSanitizer|LeakSanitizer): [a-zA-Z -]+|runtime error: [^,]{0,60}|broken promise: [^:]+|ERROR: libFuzzer: [a-z-]+' <<<"$out" |
		sed -E 's/ +$//; s/ (on|in|of)( address| thread)?$//')
	where=$(grep -oE '(/[^ ]*/)?(data|symbolize|sampler|util|report|kmod|tests/fuzz)/[a-z_0-9-]+\.[ch]:[0-9]+' <<<"$out" |
		sed "s|^$TOP/||" | grep -v '^tests/fuzz/fuzz\.h' | head -n 1)
	# inside a library ebs uses (libdwarf, libelf...)? name the function too
	lib=$(grep -m 1 -oE ' in [A-Za-z_0-9]+ \(/[^ )]*/lib(dwarf|elf|z|stdc\+\+|capstone)\.so' <<<"$out" |
		sed -E 's|^ in ([A-Za-z_0-9]+) \(.*/(lib[a-z+]+)\.so$|\1 (\2), called|')
	echo "${kind:-no longer reproduces} ${lib:+in $lib }at ${where:-?}"
}

status=0
printf '%-10s %8s %14s %9s %7s %7s %9s\n' harness seconds executions exec/s cov ft findings
for n in $names; do
	bin=$FUZZ_BIN/fuzz-$n
	[ -x "$bin" ] || { echo "run.sh: no $bin" >&2; status=1; continue; }
	corpus=$FUZZ_DIR/corpus/$n found=$FUZZ_DIR/findings/$n log=$FUZZ_DIR/logs/$n.log
	mkdir -p "$corpus" "$found" "$FUZZ_DIR/logs" "$seeds/$n"
	before=$(ls "$found" | wc -l)
	# the saved regression inputs first: each must pass
	for r in "$TOP/tests/fuzz/regress/$n"/*; do
		[ -f "$r" ] || continue
		if ! timeout 60 "$bin" -runs=1 "$r" >"$FUZZ_DIR/logs/$n.regress.log" 2>&1; then
			echo "  $n: regression input ${r#"$TOP"/} fails: $(signature "$r" "$bin")"
			status=1
		fi
	done
	mode=()
	[ "$FUZZ_FORK" = 1 ] && mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
	start=$(date +%s)
	"$bin" "${mode[@]}" -max_total_time="$FUZZ_SECONDS" -timeout=25 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$found/" "$corpus" "$seeds/$n" >"$log" 2>&1
	secs=$(($(date +%s) - start))
	# the last status line: "#N ... cov: C ft: F" (fork mode: "#N: cov: C ft: F ...")
	last=$(grep -E '^#[0-9]+:?[[:space:]].*cov: [0-9]+ ft: [0-9]+' "$log" | tail -n 1)
	execs=$(sed -E 's/^#([0-9]+).*/\1/' <<<"$last")
	cov=$(sed -E 's/.*cov: ([0-9]+).*/\1/' <<<"$last")
	ft=$(sed -E 's/.*ft: ([0-9]+).*/\1/' <<<"$last")
	[ -n "$execs" ] || execs=0
	new=$(($(ls "$found" | wc -l) - before))
	printf '%-10s %8d %14d %9d %7s %7s %9d\n' "$n" "$secs" "$execs" \
		$((execs / (secs > 0 ? secs : 1))) "${cov:--}" "${ft:--}" "$new"
	if [ "$new" -gt 0 ]; then
		status=1
		# one line per kind of finding, with how many inputs and one of them
		[ "$new" -gt 40 ] && echo "    (the newest 40 of $new replayed)"
		ls -t "$found" | head -n "$new" | head -n 40 | while read -r f; do
			printf '%s\t%s\n' "$(signature "$found/$f" "$bin")" "$found/$f"
		done | sort | awk -F '\t' '{ n[$1]++; if (!($1 in ex)) ex[$1] = $2 }
			END { for (k in n) printf "    %d x %s  (e.g. %s)\n", n[k], k, ex[k] }'
	fi
done
exit "$status"
