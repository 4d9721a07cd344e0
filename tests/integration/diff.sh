#!/usr/bin/env bash
# diff.sh - ebs diff: a known change (split's 3:1 to 1:1) found in the
# right direction; no change found where there is none (the false-alarm
# rate); rows, shares and counts as ebs report gives them; the statistics
# recomputed from the printed counts; --json's shape, --significant, --sort
# line and dso, a file against itself, the header's notes when the events
# or the sampling differ, bad input.
. "$(dirname "$0")/../lib.sh"

S="$WORKLOADS/split"
# rec FILE RATIO [RATE]: split for 0.5 s of CPU time, RATIO iterations of
# split_a per split_b's, sampled by cpu-clock at RATE (default 1000) Hz
rec() { record "$1" -e cpu-clock -F "${3:-1000}" "$S" 0.5 "$2"; }

# pyj FILE...: run the Python on stdin with the JSON objects of FILEs in
# J[0], J[1]..., exit status its result (for check)
pyj() {
	python3 -c 'import json, sys
J = [json.load(open(f)) for f in sys.argv[2:]]
sys.exit(0 if eval("(" + sys.argv[1] + ")") else 1)' "$@"
}

# ---- a known change: 3:1 to 1:1 --------------------------------------------------
# split_a's share of split's time goes from 0.75 to 0.5 and split_b's from
# 0.25 to 0.5: at the ~500 samples of 0.5 s at 1 kHz, each change is about
# 11 standard errors (sqrt(0.625 0.375 2 / 500) = 3.1 points against 25),
# far past Holm's threshold for any number of rows (z 4 for 1000 rows).
# Each must also exceed 10 points: at the 300 samples the check needs, a
# standard error of at most 4 points, so 15 points short of 25 is 3.8 of
# them (1 in 14,000).
rec 31.data 3
rec 11.data 1
"$EBS" diff 31.data 11.data --json >d.json 2>d.err
check "3:1 vs 1:1: exit 0, a JSON object" pyj 'isinstance(J[0], dict)' d.json
keep d.json
n1=$(json d.json "j['base']['samples']")
n2=$(json d.json "j['new']['samples']")
if enough "3:1 vs 1:1: split_a and split_b significant" "$((n1 < n2 ? n1 : n2))" 300; then
	check "3:1 vs 1:1: split_a significant and down ($(json d.json "[(r['base_share'], r['new_share'], r['p_adjusted']) for r in j['rows'] if r['name'] == 'split_a']"))" \
		pyj "[(r['significant'], r['diff_points'] < -10) for r in J[0]['rows'] if r['name'] == 'split_a'] == [(True, True)]" d.json
	check "3:1 vs 1:1: split_b significant and up ($(json d.json "[(r['base_share'], r['new_share'], r['p_adjusted']) for r in j['rows'] if r['name'] == 'split_b']"))" \
		pyj "[(r['significant'], r['diff_points'] > 10) for r in J[0]['rows'] if r['name'] == 'split_b'] == [(True, True)]" d.json
	check "3:1 vs 1:1: split_a and split_b are the first two rows (the largest significant changes)" \
		pyj "sorted(r['name'] for r in J[0]['rows'][:2]) == ['split_a', 'split_b']" d.json
fi

# ---- the shape of --json ----------------------------------------------------------
check "--json: the top-level members" \
	pyj "sorted(J[0]) == sorted(['base', 'new', 'sort', 'alpha', 'test', 'correction', 'interval', 'rows_compared', 'rows'])" d.json
check "--json: each file's members; the events, the sampling" \
	pyj "all(sorted(J[0][s]) == ['event', 'file', 'freq', 'lost', 'period', 'samples'] for s in ('base', 'new')) and
	     (J[0]['base']['file'], J[0]['new']['file']) == ('31.data', '11.data') and
	     J[0]['base']['event'] == J[0]['new']['event'] == 'cpu-clock' and J[0]['base']['freq'] == 1000 and J[0]['base']['period'] is None" d.json
check "--json: sort func, alpha 0.05, Holm, Newcombe, every row compared" \
	pyj "(J[0]['sort'], J[0]['alpha'], J[0]['correction'], J[0]['interval']) == ('func', 0.05, 'holm', 'newcombe') and
	     J[0]['rows_compared'] == len(J[0]['rows']) >= 2" d.json
# how many rows there are depends on the kernel functions a run happens to
# sample; what is fixed is that every sample is in one row
check "--json: every sample of each file in one row (base $n1, new $n2)" \
	pyj "sum(r['base_samples'] for r in J[0]['rows']) == J[0]['base']['samples'] and
	     sum(r['new_samples'] for r in J[0]['rows']) == J[0]['new']['samples']" d.json
check "--json: each row's members, of their types" \
	pyj "all(sorted(r) == sorted(['name', 'dso', 'base_samples', 'new_samples', 'base_share', 'new_share', 'diff_points', 'ci95', 'p', 'p_adjusted', 'significant'])
	         and isinstance(r['name'], str) and isinstance(r['dso'], str) and isinstance(r['significant'], bool)
	         and len(r['ci95']) == 2 and all(isinstance(r[k], (int, float)) for k in ('base_share', 'new_share', 'diff_points', 'p', 'p_adjusted'))
	      for r in J[0]['rows'])" d.json

# ---- the rows are report's rows ------------------------------------------------------
# Every row of ebs report --json of either file is a row of the diff with
# the same samples and share, and the diff has no other rows.
"$EBS" report -i 31.data --json >r31.json
"$EBS" report -i 11.data --json >r11.json
check "rows: report's rows of both files, their samples and shares (to 1e-4 points)" \
	pyj "all({(r['function'] + (' (inlined into %s)' % r['inlined_into'] if 'inlined_into' in r else ''), r['dso']): (r['samples'], r['percent']) for r in J[i]['rows']} ==
	         {(d['name'], d['dso']): (d[s + '_samples'], d[s + '_share']) for d in J[2]['rows'] if d[s + '_samples']}
	         for i, s in ((0, 'base'), (1, 'new')))" r31.json r11.json d.json

# ---- the statistics, recomputed from the printed counts ---------------------------------
# p: the pooled z-test's two-sided p of each row's counts; p_adjusted:
# Holm's step-down over all the rows; significant: p_adjusted <= alpha;
# ci95: Newcombe's hybrid score interval (Wilson at z = 1.959964), all to
# 1e-6 relative (p), 1e-3 points (shares, interval: printed to 1e-4).
cat >stats.py <<'PY'
import json, math, sys
j = json.load(open(sys.argv[1]))
n1, n2 = j['base']['samples'], j['new']['samples']
z = 1.959963984540054
def wilson(k, n):
    p = k / n; d = 1 + z * z / n; c = p + z * z / (2 * n)
    a = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return max(0, (c - a) / d), min(1, (c + a) / d)
bad, ps = [], []
for r in j['rows']:
    k1, k2 = r['base_samples'], r['new_samples']
    p1, p2 = k1 / n1, k2 / n2
    q = (k1 + k2) / (n1 + n2)
    se = math.sqrt(q * (1 - q) * (1 / n1 + 1 / n2))
    p = math.erfc(abs(p2 - p1) / se / math.sqrt(2)) if se > 0 else 1.0
    l1, u1 = wilson(k1, n1); l2, u2 = wilson(k2, n2)
    lo = p2 - p1 - math.sqrt((p2 - l2) ** 2 + (u1 - p1) ** 2)
    hi = p2 - p1 + math.sqrt((u2 - p2) ** 2 + (p1 - l1) ** 2)
    want = (100 * p1, 100 * p2, 100 * (p2 - p1), 100 * lo, 100 * hi)
    got = (r['base_share'], r['new_share'], r['diff_points'], *r['ci95'])
    if any(abs(a - b) > 1e-3 for a, b in zip(want, got)) or abs(r['p'] - p) > 1e-6 * p + 1e-300:
        bad.append((r['name'], want, got, p, r['p']))
    ps.append(p)
m = len(ps)
order = sorted(range(m), key=lambda i: ps[i])
adj, run = [0] * m, 0
for rank, i in enumerate(order):
    run = max(run, min(1, (m - rank) * ps[i]))
    adj[i] = run
for r, a in zip(j['rows'], adj):
    if abs(r['p_adjusted'] - a) > 1e-6 * a or r['significant'] != (a <= j['alpha']):
        bad.append((r['name'], 'holm', a, r['p_adjusted'], r['significant']))
# significant rows first, each part by |diff| descending
key = [(not r['significant'], -abs(r['diff_points'])) for r in j['rows']]
if any(key[i][0] > key[i + 1][0] or (key[i][0] == key[i + 1][0] and key[i][1] > key[i + 1][1] + 1e-3)
       for i in range(m - 1)):
    bad.append(('order', key))
if j['rows_compared'] != m:
    bad.append(('rows_compared', j['rows_compared'], m))
print(bad)
sys.exit(1 if bad else 0)
PY
check "statistics: p, Holm's p_adjusted, significant, Newcombe's interval and the order, from the counts" \
	python3 stats.py d.json

# ---- the text listing ------------------------------------------------------------------
"$EBS" diff 31.data 11.data >d.txt 2>&1
keep d.txt
check "text: the header names both files, their event, sampling and samples" \
	sh -c "grep -qx '# base: 31.data: cpu-clock, frequency 1000 Hz: $n1 samples' d.txt &&
	       grep -qx '# new:  11.data: cpu-clock, frequency 1000 Hz: $n2 samples' d.txt"
check "text: the test, the correction and the rows compared, in the header" \
	grep -qE "^# test: pooled two-proportion z-test per row, Holm-corrected over the $(json d.json "j['rows_compared']") rows: [0-9]+ significant \(\*\) at family-wise alpha 0.05$" d.txt
check "text: no note of differing events or sampling when they do not" not grep -qE 'differs?:' d.txt
check "text: split_a and split_b marked significant (*), split_a down, split_b up" \
	sh -c "grep -qE '^ +[0-9.]+% +[0-9.]+% +-[0-9.]+ .* \*  split_a ' d.txt && grep -qE '^ +[0-9.]+% +[0-9.]+% +\+[0-9.]+ .* \*  split_b ' d.txt"
check "text: in a pipe, no colour" not grep -q $'\033' d.txt
"$EBS" diff 31.data 11.data --color=always >dc.txt
nsig=$(json d.json "sum(r['significant'] for r in j['rows'])")
check "text --color=always: every row that is not significant grey, and only those" \
	python3 -c 'import sys
rows = [l for l in open("dc.txt").read().split("\n") if l and not l.startswith("#")]
grey = [l for l in rows if l.startswith("\033[90m") and l.endswith("\033[0m")]
sig = [l for l in rows if "*  " in l]
sys.exit(0 if sig and len(sig) == int(sys.argv[2]) and len(grey) + len(sig) == len(rows) == int(sys.argv[1])
         and not any("\033" in l for l in sig) else 1)' "$(json d.json "len(j['rows'])")" "$nsig"
check "text --color=never: no colour" sh -c "\"$EBS\" diff 31.data 11.data --color=never | cmp -s - d.txt"

# --significant: only the significant rows, text and JSON
"$EBS" diff 31.data 11.data --significant --json >ds.json
check "--significant --json: the significant rows, all of them" \
	pyj "J[0]['rows'] == [r for r in J[1]['rows'] if r['significant']] and J[0]['rows_compared'] == J[1]['rows_compared']" ds.json d.json
"$EBS" diff 31.data 11.data --significant >ds.txt
check "--significant: $nsig rows, each marked *" \
	sh -c "[ \$(grep -c '^ ' ds.txt) -eq $nsig ] && [ \$(grep -c '\*  ' ds.txt) -eq $nsig ]"
"$EBS" diff 31.data 11.data --top 1 >dt.txt
check "--top 1: one row, then how many more" \
	sh -c "[ \$(grep -c '%  ' dt.txt) -eq 1 ] && grep -q \"($(($(json d.json "len(j['rows'])") - 1)) more rows\?; --top 0 shows all)\" dt.txt"

"$EBS" diff 31.data 11.data --width 90 >dw.txt
check "--width 90: every row in 90 columns (names narrowed when they are longer)" \
	sh -c "[ \$(grep '^ ' dw.txt | awk '{ if (length(\$0) > m) m = length(\$0) } END { print m + 0 }') -le 90 ] &&
	       grep -q '^#     base       new     diff  95% interval        p (Holm)   function' dw.txt"
"$EBS" diff 31.data 11.data --comm nosuch >dn.txt
rc=$?
check "no samples (--comm nosuch): exit 0, said, no rows" \
	sh -c "[ $rc -eq 0 ] && grep -qx '# no samples in 31.data: nothing to compare' dn.txt && ! grep -q '^ ' dn.txt"
"$EBS" diff 31.data 11.data --comm nosuch --json >dn.json
check "no samples --json: rows_compared 0, no rows" pyj "J[0]['rows_compared'] == 0 and J[0]['rows'] == [] and J[0]['base']['samples'] == 0" dn.json

# ---- --sort line and dso ----------------------------------------------------------------
"$EBS" diff 31.data 11.data --sort line --json >dl.json
"$EBS" report -i 31.data --sort line --json >rl.json
check "--sort line: rows are source lines of split.c, with their function" \
	pyj "J[0]['sort'] == 'line' and any(r['name'].endswith(tuple('split.c:%d' % i for i in range(1, 100))) and r['function'] == 'split_a' for r in J[0]['rows'])" dl.json
check "--sort line: split_a's hottest line significant and down, split_b's up" \
	pyj "[(r['significant'], r['diff_points'] < 0) for r in J[0]['rows'] if r['function'] == 'split_a'][:1] == [(True, True)] and
	     [(r['significant'], r['diff_points'] > 0) for r in J[0]['rows'] if r['function'] == 'split_b'][:1] == [(True, True)]" dl.json
check "--sort line: base's rows are report --sort line's rows, samples and shares" \
	pyj "{(('%s:%s' % (r['file'], r['line'])) if r['line'] else '??', r['dso']): (r['samples'], r['percent']) for r in J[0]['rows'] if r['line']} ==
	     {(d['name'], d['dso']): (d['base_samples'], d['base_share']) for d in J[1]['rows'] if d['base_samples'] and d['name'] != '??'}" rl.json dl.json
check "--sort line: the statistics from the counts" python3 stats.py dl.json
"$EBS" diff 31.data 11.data --sort dso --json >dd.json
"$EBS" report -i 31.data --sort dso --json >rd.json
check "--sort dso: rows are DSOs (name is the DSO), split among them, as report --sort dso" \
	pyj "all(r['name'] == r['dso'] for r in J[0]['rows']) and 'split' in [r['name'] for r in J[0]['rows']] and
	     {r['dso']: r['samples'] for r in J[1]['rows']} == {d['dso']: d['base_samples'] for d in J[0]['rows'] if d['base_samples']}" dd.json rd.json
check "--sort dso: the shares of each file add up to 100" \
	pyj "all(abs(sum(r[s] for r in J[0]['rows']) - 100) < 0.01 for s in ('base_share', 'new_share'))" dd.json
check "--sort dso: the statistics from the counts" python3 stats.py dd.json
"$EBS" diff 31.data 11.data --sort srcline --significant >/dev/null
check "--sort srcline (perf's name for line): taken" [ $? -eq 0 ]

# ---- a file against itself -----------------------------------------------------------------
"$EBS" diff 31.data 31.data --json >self.json
check "a file against itself: every difference 0, p 1, none significant" \
	pyj "J[0]['rows'] and all(r['diff_points'] == 0 and r['p'] == 1 and r['p_adjusted'] == 1 and not r['significant'] and r['ci95'][0] < 0 < r['ci95'][1] for r in J[0]['rows'])" self.json
"$EBS" diff 31.data 31.data --significant >selfs.txt
check "a file against itself, --significant: no row, and a line saying none is significant" \
	sh -c "! grep -q '%  ' selfs.txt && grep -qx '  (no significant change at family-wise alpha 0.05)' selfs.txt"

# ---- events and sampling that differ ---------------------------------------------------------
rec 31f500.data 3 500
"$EBS" diff 31.data 31f500.data >f.txt
check "-F 1000 vs -F 500: the header says the sampling differs, in one line" \
	sh -c "[ \$(grep -cE 'differs?:' f.txt) -eq 1 ] &&
	       grep -qx '# sampling differs: base frequency 1000 Hz, new frequency 500 Hz; the shares are still comparable' f.txt"
record 31c.data -e task-clock -c 1000000 "$S" 0.5 3
"$EBS" diff 31.data 31c.data >e.txt
check "cpu-clock -F 1000 vs task-clock -c 1000000: one line for the events, one for the sampling" \
	sh -c "[ \$(grep -cE 'differs?:' e.txt) -eq 2 ] &&
	       grep -qx '# events differ: base cpu-clock, new task-clock; the shares are still comparable' e.txt &&
	       grep -qx '# sampling differs: base frequency 1000 Hz, new one sample after every 1000000 events; the shares are still comparable' e.txt"
"$EBS" diff 31.data 31c.data --json >e.json
check "--json: each file's event and sampling" \
	pyj "(J[0]['new']['event'], J[0]['new']['freq'], J[0]['new']['period']) == ('task-clock', None, 1000000)" e.json

# perf's default event is cpu-clock:ppp: a precise level is not another event
if perf record -q -F 1000 -o pp.data "$S" 0.5 3 >/dev/null 2>&1 &&
	perf script -i pp.data -F event 2>/dev/null | head -n 1 | grep -q 'cpu-clock:ppp'; then
	"$EBS" diff 31.data pp.data >pp.txt 2>&1
	check "ebs cpu-clock vs perf's default cpu-clock:ppp: no 'events differ' line" \
		sh -c "grep -q 'cpu-clock:ppp' pp.txt && ! grep -q 'events differ' pp.txt"
else
	skip "ebs cpu-clock vs perf's cpu-clock:ppp" "perf's default event here is not cpu-clock:ppp (a PMU, or no perf)"
fi

# ---- bad input ----------------------------------------------------------------------------
expect "a missing file: exit 2, one line naming it" 2 "^ebs diff: nosuch.data: No such file.*ebs record -o nosuch.data" \
	"$EBS" diff 31.data nosuch.data
expect "a missing base" 2 "^ebs diff: nosuch.data: No such file" "$EBS" diff nosuch.data 31.data
head -c $(($(stat -c %s 11.data) / 2)) 11.data >cut.data
expect "a truncated file: exit 2, the file and offset" 2 "^ebs diff: cut.data: offset [0-9]+: " "$EBS" diff 31.data cut.data
head -c 4096 /dev/urandom >garbage.data
expect "a garbage file" 2 "^ebs diff: garbage.data: offset 0: not an ebs.data file" "$EBS" diff garbage.data 31.data
expect "unknown --sort" 2 "^ebs diff: --sort 'color': one of func, line or dso$" "$EBS" diff --sort color 31.data 11.data
expect "--sort pid (a key of report, not of diff)" 2 "^ebs diff: --sort 'pid': one of func, line or dso$" "$EBS" diff --sort pid 31.data 11.data
expect "--sort func,dso (one key)" 2 "^ebs diff: --sort 'func,dso'" "$EBS" diff --sort func,dso 31.data 11.data
for a in 0 1 1.5 -0.1 x 0.05x ''; do
	expect "--alpha '$a'" 2 "^ebs diff: --alpha wants a number above 0 and below 1, not '$a'$" "$EBS" diff --alpha "$a" 31.data 11.data
done
expect "one file" 2 "^ebs diff: two data files wanted" "$EBS" diff 31.data
expect "three files" 2 "^ebs diff: unexpected argument 'x.data'" "$EBS" diff 31.data 11.data x.data
expect "-i" 2 "^ebs diff: the files are BASE and NEW, without -i" "$EBS" diff -i 31.data 11.data
expect "both from stdin" 2 "^ebs diff: one of BASE and NEW can be '-'" "$EBS" diff - - </dev/null
expect "--event not in the files" 2 "^ebs diff: 31.data: no event 'nosuch'" "$EBS" diff --event nosuch 31.data 11.data
expect "--event in one file only" 2 "^ebs diff: 31c.data: no event 'cpu-clock'" "$EBS" diff --event cpu-clock 31.data 31c.data
"$EBS" diff --alpha 0.01 --json 31.data 11.data >a.json
check "--alpha 0.01: taken, and in the JSON" pyj "J[0]['alpha'] == 0.01" a.json
"$EBS" diff - 11.data --json <31.data >stdin.json
check "BASE from stdin ('-'): the same rows" pyj "J[0]['rows'] == J[1]['rows'] and J[0]['base']['file'] == '-'" stdin.json d.json

# ---- no change where there is none: the false-alarm rate ----------------------------------------
# Two recordings of the same workload (3:1 both) differ by sampling alone.
# Holm's correction holds the chance that a diff shows any significant
# change at all (a false alarm) to at most alpha = 0.05, whatever the rows'
# dependence.  For split's profile it is less: simulating both recordings
# as multinomial draws of 500 samples from split's shares (0.735, 0.245
# and six small rows), 1.4-1.6% of diffs alarm, as split_a's and split_b's
# tests are nearly one test (their shares move together) and the small
# rows rarely reach significance.  (Without the correction: 16.5%.)
#
# Real runs vary a little more than multinomial draws (40 runs of split
# 3:1 gave 1.3 times the binomial variance of split_a's share), which
# about doubles that (2.75% simulated with that excess); measured: no
# false alarm in 60 diffs (the smallest adjusted p 0.09).  So q is 1.6% to
# 3%, and at most 5%.
#
# The check: at most 1 of 10 diffs with a false alarm.  At q = 0.03 per
# diff, 2 or more of 10 happen with probability 1 - 0.97^10 -
# 10 x 0.03 x 0.97^9 = 3.5% (1.1% at q = 0.016); at Holm's bound q = 0.05,
# 8.6%: too often for a test.  So a block of 10 that fails is run again
# once, and the check fails when both fail: 0.12% of runs at q = 0.03,
# 0.74% at q = 0.05.  It catches a test gone badly wrong (one that alarms
# in half the diffs fails it 98% of the time); the calibration itself (5%
# alarms at 0.05, Holm's family-wise rate) is checked closely on simulated
# samples by tests/unit/test-stats.c.
alarms_in_block() {
	local t a=0
	for t in 1 2 3 4 5 6 7 8 9 10; do
		rec n1.data 3
		rec n2.data 3
		"$EBS" diff n1.data n2.data --json >n.json 2>/dev/null
		if [ "$(json n.json "sum(r['significant'] for r in j['rows'])")" != 0 ]; then
			a=$((a + 1))
			echo "false alarm: $(json n.json "[(r['name'], r['base_samples'], r['new_samples'], r['p_adjusted']) for r in j['rows'] if r['significant']]")" >>alarms.log
		fi
	done
	echo $a
}
a1=$(alarms_in_block)
a2=-
[ "$a1" -gt 1 ] && a2=$(alarms_in_block)
[ -e alarms.log ] && keep alarms.log
check "the same workload twice: a false alarm in at most 1 of 10 diffs (block 1: $a1, block 2: $a2)" \
	sh -c "[ $a1 -le 1 ] || [ $a2 -le 1 ]"
