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
#     (the largest) is no larger than a bound from the function's span;
#  f. ebs calibrate --focus on it;
#  g. --call-graph dwarf: chains reach main, sqlite3VdbeExec's caller, and
#     the inclusive shares against perf's own dwarf unwinding.
# Without npm or the registry (the first time only) one SKIP line says why.
. "$(dirname "$0")/../lib.sh"

# ~1.5 s of CPU here: ~3000 samples at 2 kHz, enough for 30 functions with
# samples; how many does not matter to any check (none is a share)
ROWS=400000
CHECK="python3 $TOP/tests/real/sqlite_check.py"

sqlite_build || exit 0

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

# ---- g. call graphs: --call-graph dwarf of SQLite (built -O2: no frame pointers) ----
# ebs's own recording is checked for its structure: chains reach main, and
# sqlite3VdbeExec is called through sqlite3_step.  Its unwinding is checked
# against perf's on the same samples: perf records the same work with its
# own dwarf unwinding meanwhile, and ebs report -i of perf's file unwinds
# perf's copied stacks itself; each function's inclusive share must be
# perf's, within 0.02 for what the two tools name differently (perf folds a
# few inlined frames otherwise).  Where a tool's unwinding stops short of
# main, a chain it lost can only lower the shares it reports, by at most
# the share of its chains that miss main: so ebs - perf must lie in
# [-m_ebs, m_perf], widened by that 0.02.  The two recordings' shares are
# not compared: they are two runs, whose memory-bound functions' shares
# differ (sqlite3BtreeTableMoveto's went from 0.26 to 0.39 over 8 quiet
# recordings, both tools, and in one CI run under load ebs had 0.437
# against perf's 0.280, every chain reaching main in both).
if command -v perf >/dev/null; then
	perf record -q -m 8M --call-graph dwarf -e cpu-clock -F 2000 -o perfg.data "$SQLWORK" 200000 \
		>/dev/null 2>perfg.err &
	perfg_pid=$!
fi
record sqg.data --call-graph dwarf -e cpu-clock -F 2000 "$SQLWORK" 200000
check "record --call-graph dwarf sqlwork: exit 0" [ $? -eq 0 ]
"$EBS" report -i sqg.data --children --stats --json --comm sqlwork >sqg.json
keep sqg.json
check "dwarf, SQLite: main holds >= 95% of the samples outside the kernel's own" \
	jtrue sqg.json "[r['children'] for r in j['rows'] if r['function'] == 'main'][0] * 100 >= 95 * (j['samples'] - sum(r['self'] for r in j['rows'] if r['dso'] == '[kernel]'))"
check "dwarf, SQLite: chains cut short or stopped on no CFI in < 2% of the samples" \
	jtrue sqg.json "(j['chains']['truncated'] + j['chains']['no_cfi']) * 50 < j['chains']['samples']"
"$EBS" report -i sqg.data --callers sqlite3VdbeExec --json >sqg-callers.json
check "dwarf, SQLite: sqlite3VdbeExec is called from sqlite3Step (inlined into sqlite3_step) in >= 99%" \
	jtrue sqg-callers.json "[c['percent'] for c in j['callers'] if c['function'] == 'sqlite3Step'][0] >= 99"
# perf's inclusive shares from its samples' chains (perf script), each sample
# counted once for each function in its chain: perf report --children may
# list one function twice (sqlite3_step at 76% and at 20% in one CI run),
# which read as its first line halved the share
if [ -n "${perfg_pid:-}" ] && wait "$perfg_pid" &&
	perf report -i perfg.data --children --stdio --comm sqlwork 2>/dev/null >perfg.txt &&
	perf script -i perfg.data -F comm,ip,sym --comm sqlwork 2>/dev/null >perfg.script &&
	"$EBS" report -i perfg.data --children --json --comm sqlwork >perfg-ebs.json; then
	keep perfg.txt # perf's side, for a failure's reader
	keep perfg-ebs.json
	python3 - perfg-ebs.json perfg.txt perfg.script <<'PY'
import collections, json, sys
j = json.load(open(sys.argv[1]))
ebs = {}
for r in j['rows']:  # a name in two DSOs (ld.so's _start, sqlwork's): the larger
    ebs[r['function']] = max(ebs.get(r['function'], 0), r['children'] / j['samples'])
n = j['samples']
# perf script: a sample is a line of its own, then a tab-indented line per frame
# ("ADDR SYMBOL+0xOFF"), then a blank line
counts, frames, nperf, in_sample = collections.Counter(), set(), 0, False
for line in list(open(sys.argv[3])) + ['\n']:
    if not line.strip():
        if in_sample:
            nperf += 1
            counts.update(frames)
        frames, in_sample = set(), False
    elif not line.startswith('\t'):
        in_sample = True
    else:
        f = line.split(None, 1)
        if len(f) == 2:
            # perf keeps a symbol's version (__libc_start_main@@GLIBC_2.34), ebs drops it
            frames.add(f[1].split('+0x')[0].replace(' (inlined)', '').strip().split('@')[0])
perf = {f: c / nperf for f, c in counts.items()} if nperf else {}
# the share of each tool's samples whose chain never reached main
m_ebs = 1 - ebs.get('main', 0)
m_perf = 1 - perf.get('main', 0)
print('sqlite: dwarf: chains not reaching main: ebs %.3f, perf %.3f' % (m_ebs, m_perf))
both = sorted((f for f in perf if f in ebs and perf[f] >= 0.10), key=lambda f: -perf[f])
bad = 0
for f in both:
    tol = 0.02  # the same samples: what the two tools name differently
    d = ebs[f] - perf[f]
    ok = -m_ebs - tol <= d <= m_perf + tol
    bad += not ok
    print("%s: sqlite: dwarf, perf's samples unwound by both, inclusive share of %s: ebs %.3f, perf %.3f (ebs - perf within [%.3f, %.3f])" %
          ('PASS' if ok else 'FAIL', f, ebs[f], perf[f], -m_ebs - tol, m_perf + tol))
print("%s: sqlite: dwarf, perf's file: ebs reads as many samples of sqlwork as perf script (%d, %d)" %
      ('PASS' if n == nperf else 'FAIL', n, nperf))
if len(both) < 5:
    print('FAIL: sqlite: dwarf: only %d functions above 10%% in both (%s)' % (len(both), ', '.join(both)))
PY
	[ $? -eq 0 ] || fail "dwarf against perf" "the comparison's python failed"
else
	skip "dwarf against perf" "perf is not installed or its --call-graph dwarf recording failed: $(tail -n 1 perfg.err 2>/dev/null)"
fi

# ---- c, d, e. annotate ------------------------------------------------------------
if ! command -v llvm-dwarfdump >/dev/null; then
	skip "annotate" "llvm-dwarfdump (llvm) is needed for the DWARF declarations; scripts/deps.sh installs it"
	exit 0
fi
llvm-dwarfdump --debug-info "$SQLWORK" >dwarf.txt
$CHECK annotate "$T" --ebs "$EBS" --exe "$SQLWORK" --data sq.data --dwarf dwarf.txt --top 30
