#!/usr/bin/env bash
# bench/bench.sh - what `make bench` runs: ebs and perf on the same work, in
# one run, with ratios.  Not part of `make test` (timings are never asserted).
#
#   1. recording overhead: a fixed amount of work alone, under
#      `ebs record` and under `perf record`, both cpu-clock at the same rate
#   2. reporting a small (~5,000 samples) and a large (~200,000 samples)
#      profile of a 2,000-function program: by function and by source line,
#      ebs against perf
#   3. annotating the small profile's hottest function, as source and as
#      instructions (ebs decodes with capstone, perf runs objdump), and
#      every function with samples (perf: once, it takes a minute)
#   4. a real program, SQLite: annotating its three hottest functions
#      (times and listing lengths), and its reports by function and line
#   5. call graphs on SQLite: -g fp and dwarf, recording (the program's wall
#      time), bytes per sample, report --children per 100,000 samples
#
# Every time is the best of RUNS runs (default 3), except perf's per-line
# report, which runs once (it takes minutes).  BUILD names the build dir.
set -u
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
EBS="$PWD/$BUILD/ebs"
OUT="$PWD/$BUILD/bench"
mkdir -p "$OUT"
cd "$OUT" || exit 1

if ! command -v perf >/dev/null; then
	echo "bench: perf is not installed (Debian: linux-perf); nothing to compare with" >&2
	exit 1
fi
if [ ! -x big ] || [ "$(dirname "$0")/gen.py" -nt big ]; then
	echo "bench: generating and compiling a 2,000-function program (about 15 s)"
	python3 "$OLDPWD/bench/gen.py" 2000 big.c && gcc -O2 -g -o big big.c || exit 1
fi

# best CMD...: the shortest wall time of RUNS runs, in seconds
best() {
	local i t0 t min=""
	for i in $(seq "$RUNS"); do
		t0=$(date +%s%N)
		"$@" >/dev/null 2>&1
		t=$(( $(date +%s%N) - t0 ))
		if [ -z "$min" ] || [ "$t" -lt "$min" ]; then min=$t; fi
	done
	python3 -c "print('%.3f' % ($min / 1e9))"
}
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }

ROUNDS=6000	# about 2.5 s of work here
echo
echo "== recording overhead: ./big $ROUNDS, cpu-clock at 4000 Hz"
alone=$(best ./big $ROUNDS)
ebs_rec=$(best "$EBS" record -q -e cpu-clock -F 4000 -o rec.data ./big $ROUNDS)
perf_rec=$(best perf record -q -e cpu-clock -F 4000 -o rec.perf ./big $ROUNDS)
printf '  %-28s %8s s\n' "alone" "$alone"
printf '  %-28s %8s s  (%s x alone)\n' "ebs record" "$ebs_rec" "$(ratio "$ebs_rec" "$alone")"
printf '  %-28s %8s s  (%s x alone)\n' "perf record" "$perf_rec" "$(ratio "$perf_rec" "$alone")"
printf '  ebs record / perf record: %s\n' "$(ratio "$ebs_rec" "$perf_rec")"

# report NAME EBSDATA PERFDATA: the four reports of one profile, and ratios
report() {
	local name=$1 ed=$2 pd=$3 ebs_func ebs_line perf_sym perf_line rc t0
	echo
	echo "== reporting $name: ebs $("$EBS" report -i "$ed" --top 1 | sed -n 's/^# samples: \([0-9]*\).*/\1/p') samples," \
		"perf $(perf report -i "$pd" --stdio 2>/dev/null | sed -n 's/^# Samples: \(.*\) of event.*/\1/p') samples"
	ebs_func=$(best "$EBS" report -i "$ed" --sort func)
	ebs_line=$(best "$EBS" report -i "$ed" --sort line)
	perf_sym=$(best perf report -i "$pd" --stdio --sort sym)
	t0=$(date +%s%N)
	timeout 900 perf report -i "$pd" --stdio --sort srcline >/dev/null 2>&1
	rc=$?
	perf_line=$(python3 -c "print('%.3f' % (($(date +%s%N) - $t0) / 1e9))")
	printf '  %-34s %8s s\n' "ebs report --sort func" "$ebs_func"
	printf '  %-34s %8s s\n' "ebs report --sort line" "$ebs_line"
	printf '  %-34s %8s s\n' "perf report --sort sym" "$perf_sym"
	if [ $rc -eq 124 ]; then
		printf '  %-34s %8s s\n' "perf report --sort srcline" ">900"
	else
		printf '  %-34s %8s s\n' "perf report --sort srcline" "$perf_line"
	fi
	printf '  ebs line / ebs func:        %s\n' "$(ratio "$ebs_line" "$ebs_func")"
	printf '  ebs func / perf sym:        %s\n' "$(ratio "$ebs_func" "$perf_sym")"
	[ $rc -ne 124 ] && printf '  perf srcline / ebs line:    %s\n' "$(ratio "$perf_line" "$ebs_line")"
}

# The recording-overhead run's own files: a small profile.
report "a small profile (one ./big $ROUNDS at 4000 Hz)" rec.data rec.perf

# annotate: the hottest function of the small profile
hot=$("$EBS" report -i rec.data --top 1 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rows"][0]["function"])')
echo
echo "== annotating the small profile's hottest function, $hot"
ebs_src=$(best "$EBS" annotate -i rec.data "$hot")
ebs_asm=$(best "$EBS" annotate -i rec.data "$hot" --asm)
perf_ann=$(best perf annotate -i rec.perf --stdio "$hot")
nfuncs=$("$EBS" report -i rec.data --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["rows"]))')
ebs_all=$(best "$EBS" annotate -i rec.data --top 1000000 --asm)
t0=$(date +%s%N)
timeout 900 perf annotate -i rec.perf --stdio >/dev/null 2>&1
perf_all=$(python3 -c "print('%.3f' % (($(date +%s%N) - $t0) / 1e9))")
printf '  %-38s %8s s\n' "ebs annotate $hot" "$ebs_src"
printf '  %-38s %8s s\n' "ebs annotate $hot --asm" "$ebs_asm"
printf '  %-38s %8s s\n' "perf annotate --stdio $hot" "$perf_ann"
printf '  %-38s %8s s\n' "ebs annotate --asm, all $nfuncs functions" "$ebs_all"
printf '  %-38s %8s s\n' "perf annotate --stdio, all functions" "$perf_all"
printf '  perf / ebs, one function:   %s\n' "$(ratio "$perf_ann" "$ebs_asm")"
printf '  perf / ebs, all functions:  %s\n' "$(ratio "$perf_all" "$ebs_all")"

# Call graphs, on SQLite (built -O2: no frame pointers, so dwarf is what
# works; fp is measured for its cost): the program's wall time alone and
# under each recorder, the file's bytes per sample, and the report of
# inclusive costs (ebs report --children, perf report --children --stdio)
# scaled to 100,000 samples.
callgraphs() {	# SQLWORK
	local sq=$1 alone mode ebs_t perf_t ebs_n perf_n ebs_b perf_b ebs_r perf_r
	echo
	echo "== call graphs: SQLite (sqlwork 1000000), cpu-clock at 4000 Hz"
	alone=$(best "$sq" 1000000)
	printf '  %-10s %10s %10s %9s %9s %12s %12s\n' mode "ebs rec s" "perf rec s" \
		"ebs B/s" "perf B/s" "ebs rep/100K" "perf rep/100K"
	for mode in fp dwarf; do
		ebs_t=$(best "$EBS" record -q --call-graph $mode -e cpu-clock -F 4000 -o cg.data "$sq" 1000000)
		perf_t=$(best perf record -q --call-graph $mode -e cpu-clock -F 4000 -o cg.perf "$sq" 1000000)
		ebs_n=$("$EBS" report -i cg.data --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')
		perf_n=$(perf report -i cg.perf --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
		ebs_b=$(( $(stat -c %s cg.data) / (ebs_n ? ebs_n : 1) ))
		perf_b=$(( $(stat -c %s cg.perf) / (${perf_n:-1} ? ${perf_n:-1} : 1) ))
		ebs_r=$(best "$EBS" report -i cg.data --children --no-pager)
		perf_r=$(best perf report -i cg.perf --children --stdio)
		printf '  %-10s %10s %10s %9s %9s %12s %12s\n' "$mode" "$ebs_t" "$perf_t" "$ebs_b" "$perf_b" \
			"$(python3 -c "print('%.2f' % ($ebs_r * 100000 / max($ebs_n, 1)))")" \
			"$(python3 -c "print('%.2f' % ($perf_r * 100000 / max(${perf_n:-1}, 1)))")"
	done
	printf '  (alone: %s s; rec s: the program under the recorder, wall; B/s: file bytes per sample;\n' "$alone"
	printf '   rep/100K: report --children seconds, scaled to 100,000 samples from %s)\n' "$ebs_n"
}

# A real program: the SQLite amalgamation under the test's driver (built
# by tests/real/build-sqlite.sh, cached).  Its three hottest functions are
# annotated by both (ebs: source; perf: its --stdio, source and
# instructions), with the listings' line counts, and both reports by line.
if SQLWORK=$("$OLDPWD/tests/real/build-sqlite.sh" 2>sqlite-build.err); then
	"$EBS" record -q -e cpu-clock -F 2000 -o sqlite.data "$SQLWORK" 400000
	perf record -q -e cpu-clock -F 2000 -o sqlite.perf "$SQLWORK" 400000 2>/dev/null
	echo
	echo "== SQLite 3.53.2 (sqlwork 400000): annotating the three hottest functions"
	for fn in $("$EBS" report -i sqlite.data --dso sqlwork --no-inline --top 3 --json |
		    python3 -c 'import json,sys; print(" ".join(r["function"] for r in json.load(sys.stdin)["rows"]))'); do
		ebs_t=$(best "$EBS" annotate -i sqlite.data "$fn")
		ebs_n=$("$EBS" annotate -i sqlite.data "$fn" | wc -l)
		perf_t=$(best perf annotate -i sqlite.perf --stdio "$fn")
		perf_n=$(perf annotate -i sqlite.perf --stdio "$fn" 2>/dev/null | wc -l)
		printf '  %-32s ebs %7s s %7s lines   perf %7s s %7s lines   perf / ebs %s\n' \
			"$fn" "$ebs_t" "$ebs_n" "$perf_t" "$perf_n" "$(ratio "$perf_t" "$ebs_t")"
	done
	report "SQLite (sqlwork 400000 at 2000 Hz)" sqlite.data sqlite.perf
	callgraphs "$SQLWORK"
else
	echo
	echo "== SQLite: not built ($(tail -n 1 sqlite-build.err)); left out"
fi

# A large one: two programs at once for ~12 s at 10 kHz.  Fixed costs (reading
# DWARF, kallsyms) weigh less as profiles grow.
work='./big 30000 >/dev/null & ./big 30000 >/dev/null; wait'
"$EBS" record -q -e cpu-clock -F 10000 -o large.data -- sh -c "$work"
perf record -q -e cpu-clock -F 10000 -o large.perf -- sh -c "$work" 2>/dev/null
report "a large profile (two ./big 30000 at once, 10000 Hz)" large.data large.perf
exit 0
