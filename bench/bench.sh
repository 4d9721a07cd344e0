#!/usr/bin/env bash
# bench/bench.sh - what `make bench` runs: ebs against perf on the same work,
# every row of issue 14's table, into bench/results.json, printed as a
# Markdown table (bench/table.py), which also replaces the table in
# README.md's "Performance" section.  Not part of `make test`: no timing is
# ever asserted.  About 10 minutes here; docs/bench.md says what each row
# measures and how.
#
# This prepares the two programs and runs bench/bench.py, which measures:
#   - the generated 2,000-function program (bench/gen.py, gcc -O2 -g);
#   - SQLite (tests/real/build-sqlite.sh: the amalgamation from npm's
#     better-sqlite3, -g -O2, under the tests/real/sqlwork.c driver),
#     recorded by both tools until each file holds MIN_SAMPLES (500,000);
# then bench/cache.py, which prints what the DWARF cache's digest costs
# against what the cache saves (ebs alone, on SQLite).
#
# Environment: BUILD (the build directory, default build; scratch files go to
# BUILD/bench), RUNS (default 5), RESULTS (default bench/results.json; given
# another, README.md is left alone), and bench.py's knobs (LARGE_ITERS,
# MIN_SAMPLES, SAMPLES_BOUND, SQL_ROWS, DRAIN_HZ, DRAIN_WORK, SRCLINE_TIMEOUT,
# MERGE_N, ONLY: see its head; ONLY=merge measures the merge row alone,
# ONLY=view the ebs view rows, ONLY=ovh issue 34's overhead rows (or one of pin,
# stat_100, monitor_cpu, libebs_read; slow: the two-core rows), ONLY=cg its
# call-graph and perf.data rows, ONLY=size_cg its -g file size rows
# (size_fp, size_dwarf), ONLY=warm the three warm-cache rows, ONLY=report
# the first and warm reports and annotate (rows 1-4, 6, 7, 16), into RESULTS;
# with REUSE=1, ONLY=warm and ONLY=view take the recordings an earlier run
# left in BUILD/bench).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOP/$BUILD ;; esac
EBS=$BUILD/ebs
OUT=$BUILD/bench
RESULTS=${RESULTS:-$TOP/bench/results.json}

if ! command -v perf >/dev/null; then
	echo "bench: perf is not installed (Debian: linux-perf); nothing to compare with" >&2
	exit 1
fi
[ -x "$EBS" ] || { echo "bench: $EBS is not built (make all)" >&2; exit 1; }
mkdir -p "$OUT" || exit 1

BIG=$OUT/big
if [ ! -x "$BIG" ] || [ "$TOP/bench/gen.py" -nt "$BIG" ]; then
	echo "bench: generating and compiling the 2,000-function program (about 10 s)"
	python3 "$TOP/bench/gen.py" 2000 "$OUT/big.c" && gcc -O2 -g -o "$BIG" "$OUT/big.c" || exit 1
fi

echo "bench: building the SQLite driver (tests/real/build-sqlite.sh; cached)"
SQLITE_WHY=
if ! SQLWORK=$("$TOP/tests/real/build-sqlite.sh" 2>"$OUT/sqlite-build.err"); then
	SQLWORK=
	SQLITE_WHY="not built ($(tail -n 1 "$OUT/sqlite-build.err"))"
	echo "bench: SQLite $SQLITE_WHY: its rows are skipped" >&2
fi

# issue 34, the call-graph rows: SQLite as above, but with frame pointers
# (-fno-omit-frame-pointer), so that -g (fp) chains go past the leaf; the
# default -O2 build omits them.  Built into OUT/fp/sqlwork (the same name, so
# the same comm), once: rebuilt when the driver or the sources are newer.
SQLWORK_FP=
if [ -n "$SQLWORK" ]; then
	src=$(dirname "$SQLWORK")/sqlite-src
	fp=$OUT/fp/sqlwork
	if [ ! -x "$fp" ] || [ "$src/sqlite3.c" -nt "$fp" ] || [ "$TOP/tests/real/sqlwork.c" -nt "$fp" ]; then
		echo "bench: building SQLite with frame pointers for the call-graph rows (about a minute, once)"
		mkdir -p "$OUT/fp" &&
			gcc -O2 -g -fPIE -fno-omit-frame-pointer -DSQLITE_THREADSAFE=0 \
				-DSQLITE_OMIT_LOAD_EXTENSION -c -o "$OUT/fp/sqlite3.o" "$src/sqlite3.c" &&
			gcc -std=gnu11 -O2 -g -fPIE -pie -fno-omit-frame-pointer -I"$src" -o "$fp.tmp" \
				"$TOP/tests/real/sqlwork.c" "$OUT/fp/sqlite3.o" -lm &&
			mv -f "$fp.tmp" "$fp" || fp=
	fi
	SQLWORK_FP=$fp
fi

export TOP EBS OUT BIG SQLWORK SQLWORK_FP SQLITE_WHY RESULTS
python3 "$TOP/bench/bench.py" || exit 1
echo
python3 "$TOP/bench/table.py" "$RESULTS" || exit 1
if [ "$RESULTS" = "$TOP/bench/results.json" ]; then
	python3 "$TOP/bench/table.py" --update "$TOP/README.md" "$RESULTS" || exit 1
	echo "bench: wrote $RESULTS and README.md's table"
fi
# the DWARF cache's digest against the cache's saving (printed, not in the table)
[ -z "${ONLY:-}" ] || exit 0 # ONLY=merge: that row alone
echo
BUILD=$BUILD python3 "$TOP/bench/cache.py" || exit 1
