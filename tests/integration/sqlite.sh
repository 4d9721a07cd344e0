#!/usr/bin/env bash
# sqlite.sh - ebs on a real program no one here wrote: the SQLite
# amalgamation (3.53.2, from npm's better-sqlite3, built once into
# build/real-cache by tests/real/build-sqlite.sh) under the sqlwork driver,
# held against independent oracles (tests/real/sqlite_check.py):
#  a. ebs record of sqlwork exits 0 and ebs report shows SQLite's functions;
#  b. on the samples perf recorded, ebs addr2line's compiled function of
#     every sample is perf's own symbol (GCC's clones allowed, and counted);
#  c. ebs annotate FUNC of the 30 hottest functions: the own-source rows are
#     in the function's DWARF declaration file from its DW_AT_decl_line to the
#     '}' closing its body in the source, hold every sampled line of its own
#     code, and are no longer than that span and the context;
#  d. ebs annotate of every function with samples in sqlwork prints no more
#     lines than a bound from their spans and their samples' lines;
#  e. ebs annotate --html of the hottest function and of sqlite3VdbeExec
#     (the largest) is no larger than a bound from the function's span.
# Without npm or the registry (the first time only) one SKIP line says why.
. "$(dirname "$0")/../lib.sh"

# ~1.5 s of CPU here: ~3000 samples at 2 kHz, enough for 30 functions with
# samples; how many does not matter to any check (none is a share)
ROWS=400000
CHECK="python3 $TOP/tests/real/sqlite_check.py"

SQLWORK=$("$TOP/tests/real/build-sqlite.sh" 2>build.err)
rc=$?
sed 's/^/    /' build.err
if [ $rc -eq 77 ]; then
	skip "all" "no SQLite to build: $(tail -n 1 build.err)"
	exit 0
elif [ $rc -ne 0 ] || [ ! -x "$SQLWORK" ]; then
	fail "build" "tests/real/build-sqlite.sh failed: $(tail -n 1 build.err)"
	exit 0
fi

# ---- a. record and report -------------------------------------------------------
# perf records the same work meanwhile: each samples its own process's CPU time
if command -v perf >/dev/null; then
	perf record -q -e cpu-clock -F 2000 -o perf.data "$SQLWORK" $ROWS >perf.out 2>perf.err &
	perf_pid=$!
fi
record sq.data -e cpu-clock -F 2000 "$SQLWORK" $ROWS
check "ebs record -e cpu-clock -F 2000 sqlwork $ROWS: exit 0" [ $? -eq 0 ]
"$EBS" report -i sq.data --json >report.json 2>report.err
check "ebs report: exit 0" [ $? -eq 0 ]
"$EBS" report -i sq.data --dso sqlwork --json >sqlwork.json
# 200 samples: enough for the checks below to have lines with samples
check "ebs report: >= 200 samples in sqlwork, sqlite3VdbeExec and sqlite3BtreeTableMoveto among them" \
	[ "$(json sqlwork.json "(j['samples'] >= 200 and
		{'sqlite3VdbeExec', 'sqlite3BtreeTableMoveto'} <= {r['function'] for r in j['rows']})")" = 1 ]

# ---- b. function shares against perf, sample for sample --------------------------
if [ -z "${perf_pid:-}" ]; then
	skip "perf" "perf is not installed (linux-perf): no oracle for the function of each sample"
elif ! wait "$perf_pid"; then
	skip "perf" "perf record failed: $(tail -n 1 perf.err)"
elif ! perf script -i perf.data -F pid,ip,sym,dso --show-mmap-events >perf.txt 2>perf-script.err; then
	skip "perf" "perf script failed: $(tail -n 1 perf-script.err)"
else
	$CHECK perf "$T" --ebs "$EBS" --exe "$SQLWORK" --script perf.txt
fi

# ---- f. calibrate on a real program ---------------------------------------------
# sqlwork does fixed work, so the command itself is the cost probe.  What
# ebs promises, checked: a clock's N by the rule at 1000/s; the focus's
# samples in the verifying run are what ebs report counts for that
# function in the kept recording; and they reach --min-samples within the
# 20% miss rule, or the run says it missed (met false, a note).
"$EBS" calibrate -q -e cpu-clock --rate 1000 --overhead 90 --min-samples 40 \
	--focus sqlite3VdbeExec --json -o sqcal.data -- "$SQLWORK" 200000 >sqcal.json 2>sqcal.err
rc=$?
keep sqcal.json
check "calibrate sqlwork --focus sqlite3VdbeExec: exit 0 ($rc), N = 1000000 for a clock at 1000/s" \
	jtrue sqcal.json "j['events'][0]['sample_after'] == 1000000 and j['events'][0]['focus_share'] > 0"
"$EBS" report -i sqcal.data --func sqlite3VdbeExec --json >sqcal-report.json 2>&1
check "calibrate: the focus's samples ($(json sqcal.json "j['events'][0]['focus_samples']")) are what report counts in the kept file" \
	[ "$(json sqcal.json "j['events'][0]['focus_samples']")" = "$(json sqcal-report.json "j['samples']")" ]
check "calibrate: >= 32 samples (40 - 20%) in sqlite3VdbeExec, or the miss said" \
	jtrue sqcal.json "j['events'][0]['focus_samples'] >= 32 or (not j['events'][0]['met'] and j['notes'])"

# ---- c, d, e. annotate ------------------------------------------------------------
if ! command -v llvm-dwarfdump >/dev/null; then
	skip "annotate" "llvm-dwarfdump (llvm) is needed for the DWARF declarations; scripts/deps.sh installs it"
	exit 0
fi
llvm-dwarfdump --debug-info "$SQLWORK" >dwarf.txt
$CHECK annotate "$T" --ebs "$EBS" --exe "$SQLWORK" --data sq.data --dwarf dwarf.txt --top 30
