#!/usr/bin/env bash
# timefilter.sh - --time START,END (seconds from a recording's start) and
# perf's percent ranges, and --pid/--tid lists, in every command that reads
# a recording (ebs-report(1), "Time").  What each command keeps is checked
# against an independent reading: the test's own Python takes the start
# and end clocks from the file's header and trailer (docs/format.md), every
# sample's time from `ebs script --json` (all samples, unfiltered), applies
# the rules of the Time section in integers (Fraction: no double), and
# counts what a range should keep.
#  0. the rules pinned exactly on a made-up recording (mkdata, its clocks
#     patched): exact ns, half-open ranges, floor(span x p / 100), the
#     header's start unless 0 or after the first sample, the end the later
#     of the trailer's and the last sample's, the header's only: line;
#  a. threads (4 threads) at 500 Hz: a range whose ends are two samples'
#     exact times (the first kept, the second not) and the open ranges:
#     script prints exactly those samples, report counts them per thread,
#     annotate, flamegraph, export and diff (each file from its own start)
#     count them;
#  b. percent forms: 10%-20%, 25%/2, 0%-100% (every sample), a union of
#     two, overlapping ranges, 33.3%/3;
#  c. --tid a,b is --tid a plus --tid b; --pid lists in a merged report;
#     the header's only: line names the filters;
#  d. perf as the oracle: on a perf.data of the same workload, ebs's
#     --time P%-Q% keeps perf report --time P%-Q%'s samples (perf's
#     boundaries are within 1 ns of ebs's: the tolerance is the number of
#     samples within 1 ns of one, computed, normally 0);
#  e. a merged report of two recordings: each timed from its own start;
#  f. bad values: one line naming --time/--pid/--tid and the value, exit 2;
#  g. a real program nobody here wrote: Debian's xz compressing a generated
#     file: the halves of its run partition its samples, each as counted.
# Python starts a handful of times only (it is the slow part on a loaded
# machine): the expectations are computed in one call, compared in one.
# shellcheck disable=SC2154	# N_*, W_*, na, nb: set by eval of tf.py's assignments
. "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null; then
	skip "all" "python3 is not installed"
	exit 0
fi

TF=$TMP/tf.py
cat >"$TF" <<'EOF'
"""tf.py - what --time keeps, computed independently of ebs.

  tf.py rel NAME DATA JSONL...   for each recording (ebs script --json of
                                 it, all samples) NAME.rel: its start, span
                                 and samples with "rel" (ns from the start);
                                 prints shell assignments: N_NAME (samples),
                                 Q1_NAME/Q3_NAME (a quarter's and three
                                 quarters' sample's time, s.9), TIDS_NAME
                                 (sorted), PID_NAME
  tf.py want JOBS                JOBS: lines KEY<tab>SPEC<tab>NAME...: what
                                 --time SPEC keeps of those recordings, into
                                 KEY.want (JSON: n, tid, sym, lines); prints
                                 W_KEY=n
  tf.py verify CHECKS            CHECKS: lines NAME<tab>KIND<tab>KEY<tab>FILE:
                                 KIND script: FILE (script --json) holds
                                 exactly KEY's samples; report: FILE (report
                                 --sort tid --json) counts KEY's per thread;
                                 prints ok<tab>NAME or bad<tab>NAME<tab>WHY
  tf.py perf TIMES SPEC...       per SPEC, "SPEC perf ebs near": perf's and
                                 ebs's rules' counts of a perf.data's samples
                                 (TIMES: perf script's, s.9), and how many lie
                                 within 1 ns of an ebs boundary
"""
import json, math, struct, sys
from decimal import Decimal
from fractions import Fraction


def clocks(path):
    """The header's start_clock_ns and the trailer's end_clock_ns (docs/format.md)."""
    with open(path, 'rb') as f:
        h = f.read(96)
        trailer_offset, = struct.unpack_from('<Q', h, 40)
        start, = struct.unpack_from('<Q', h, 56)
        end = 0
        if trailer_offset:
            f.seek(trailer_offset)
            end, = struct.unpack_from('<Q', f.read(24), 16)
    return start, end


def start_span(hs, he, times):
    """ebs-report(1), Time: the start and the span."""
    if times:
        first, last = min(times), max(times)
        start = hs if hs and hs <= first else first
        end = max(he, last)
    else:
        start, end = hs, he
    end = max(end, start)
    return start, end - start + 1


def pct(text):
    assert text.endswith('%'), text
    return Fraction(Decimal(text[:-1]))


def ranges(spec, span):
    """[(s, e)] ns from the start."""
    if '%' not in spec:
        s, e = spec.split(',')
        return [(int(Decimal(s) * 10**9) if s else 0, int(Decimal(e) * 10**9) if e else math.inf)]
    out = []
    for item in spec.split(','):
        if '/' in item:
            p, n = item.split('/')
            a, b = pct(p) * (int(n) - 1), pct(p) * int(n)
        else:
            a, b = map(pct, item.split('-'))
        out.append((math.floor(span * a / 100), math.floor(span * b / 100)))
    return out


def secs(ns):
    return '%d.%09d' % divmod(ns, 10**9)


def rel(args):
    for name, data, jsonl in zip(args[0::3], args[1::3], args[2::3]):
        rows = [json.loads(l) for l in open(jsonl) if l.strip()]
        start, span = start_span(*clocks(data), [r['time'] for r in rows])
        for r in rows:
            r['rel'] = max(0, r['time'] - start)
        json.dump({'span': span, 'rows': rows}, open(name + '.rel', 'w'))
        rs = sorted(r['rel'] for r in rows) or [0]
        print('N_%s=%d Q1_%s=%s Q3_%s=%s TIDS_%s="%s" PID_%s=%s SPAN_%s=%.3f' % (
            name, len(rows), name, secs(rs[len(rs) // 4]), name, secs(rs[len(rs) * 3 // 4]),
            name, ' '.join(map(str, sorted({r['tid'] for r in rows}))), name,
            rows[0]['pid'] if rows else 0, name, span / 1e9))


def want(jobs):
    for line in open(jobs):
        key, spec, *names = line.rstrip('\n').split('\t')
        out = {'n': 0, 'tid': {}, 'sym': {}, 'lines': []}
        for name in names:
            j = json.load(open(name + '.rel'))
            rs = ranges(spec, j['span'])
            for r in j['rows']:
                if any(s <= r['rel'] < e for s, e in rs):
                    out['n'] += 1
                    t, f = str(r['tid']), r.get('sym', '')
                    out['tid'][t] = out['tid'].get(t, 0) + 1
                    out['sym'][f] = out['sym'].get(f, 0) + 1
                    out['lines'].append([r['tid'], r['time']])
        json.dump(out, open(key + '.want', 'w'))
        print('W_%s=%d' % (key, out['n']))


def verify(checks):
    for line in open(checks):
        name, kind, key, path = line.rstrip('\n').split('\t')
        w = json.load(open(key + '.want'))
        why = ''
        try:
            if kind == 'script':
                got = sorted([r['tid'], r['time']] for r in map(json.loads, open(path)))
                if got != sorted(w['lines']):
                    why = '%d samples printed, %d of them not the %d wanted' % (
                        len(got), len([g for g in got if g not in w['lines']]), w['n'])
            else:
                r = json.load(open(path))
                tids = {str(x['tid']): x['samples'] for x in r['rows']}
                if r['samples'] != w['n'] or tids != w['tid']:
                    why = '%d samples %s, want %d %s' % (r['samples'], tids, w['n'], w['tid'])
        except (OSError, ValueError, KeyError) as e:
            why = '%s: %s' % (path, e)
        print('%s\t%s\t%s' % ('bad' if why else 'ok', name, why))


def perf(times_path, specs):
    times = [int(Decimal(l.strip().rstrip(':')) * 10**9) for l in open(times_path) if l.strip()]
    first, last = min(times), max(times)
    total = last - first
    for spec in specs:
        ours, theirs = ranges(spec, total + 1), []
        for item in spec.split(','):
            # tools/perf/util/time-utils.c (6.1): set_percent_time, C's round()
            a, b = map(pct, item.split('-'))
            s = first + math.floor(total * a / 100 + Fraction(1, 2))
            e = first + math.floor(total * b / 100 + Fraction(1, 2))
            if e > s and e != last:
                e -= 1
            theirs.append((s, e))
        np = sum(1 for t in times if any(s <= t <= e for s, e in theirs))
        ne = sum(1 for t in times if any(s <= t - first < e for s, e in ours))
        # the boundaries inside: at 0 and at the span both keep the first and last sample
        inner = [b for r in ours for b in r if 0 < b <= total]
        near = sum(1 for t in times for b in inner if abs(t - first - b) <= 1)
        print(spec, np, ne, near)


cmd, args = sys.argv[1], sys.argv[2:]
if cmd == 'rel':
    rel(args)
elif cmd == 'want':
    want(args[0])
elif cmd == 'verify':
    verify(args[0])
elif cmd == 'perf':
    perf(args[0], args[1:])
EOF

# samples ARGS...: ebs report ARGS --json's sample count (its first "samples")
samples() { "$EBS" report "$@" --json 2>/dev/null | grep -o '"samples":[0-9]*' | head -n 1 | cut -d: -f2; }
# job KEY SPEC NAME...: a line of the expectations to compute
job() { local IFS=$'\t'; echo "$*" >>jobs.tsv; }
# later NAME KIND KEY FILE: a check that Python makes (verify)
later() { local IFS=$'\t'; echo "$*" >>checks.tsv; }

# ---- 0. the rules, pinned on a made-up recording ---------------------------------
MKDATA=$(dirname "$EBS")/tests/tools/mkdata
cat >mk.script <<'EOF'
meta 1 tfhost
event cpu-clock cpu-clock 1000000
comm 100 100 mk
clock 5000000000
sample 0 100 100 401000 1
clock 5000000001
sample 0 100 100 401000 1
clock 5500000000
sample 0 100 100 401000 1
clock 5999999999
sample 0 100 100 401000 1
clock 6000000000
sample 0 100 100 401000 1
EOF
# mk1: header start 4.9 s, the trailer's end 5 s (before the last sample: the
# end is the last sample's); mk2: header start after the first sample; mk3:
# none (0); both the trailer's end at 7 s
if "$MKDATA" mk.data <mk.script 2>mk.err &&
	python3 - <<'EOF'
import shutil, struct
for name, start, end in (('mk1', 4900000000, 5000000000), ('mk2', 5000000002, 7000000000),
                         ('mk3', 0, 7000000000)):
    b = bytearray(open('mk.data', 'rb').read())
    struct.pack_into('<Q', b, 56, start)
    t, = struct.unpack_from('<Q', b, 40)
    struct.pack_into('<Q', b, t + 16, end)
    open(name + '.data', 'wb').write(b)
EOF
then
	# mk1's samples at 0.1, 0.100000001, 0.6, 1.099999999 and 1.1 s; span 1100000001 ns
	check "made-up: --time 0.1,0.100000001 keeps the sample at 0.1 s alone (exact ns, half-open)" \
		[ "$(samples -i mk1.data --time 0.1,0.100000001)" = 1 ]
	check "made-up: --time 0.100000001,1.1: three (the end's sample is not kept)" \
		[ "$(samples -i mk1.data --time 0.100000001,1.1)" = 3 ]
	check "made-up: --time 1.1,: the last one; --time ,0.1: none" \
		sh -c "[ \"\$1\" = 1 ] && [ \"\$2\" = 0 ]" sh \
		"$(samples -i mk1.data --time 1.1,)" "$(samples -i mk1.data --time ,0.1)"
	# 50% of 1100000001 ns is 550000000 (the floor of 550000000.5)
	check "made-up: 0%-50% keeps the two below 0.55 s, 50%-100% the other three (the last too)" \
		sh -c "[ \"\$1\" = 2 ] && [ \"\$2\" = 3 ]" sh \
		"$(samples -i mk1.data --time 0%-50%)" "$(samples -i mk1.data --time 50%-100%)"
	# 99.999999909% of it is 1099999999.999: the 4th sample (at 1099999999) is out
	check "made-up: 0%-99.999999909% ends at floor(span x p / 100), before the 4th sample" \
		[ "$(samples -i mk1.data --time 0%-99.999999909%)" = 3 ]
	check "made-up: 0%-99.99999991% keeps it (1100000000.01: the 5th is out)" \
		[ "$(samples -i mk1.data --time 0%-99.99999991%)" = 4 ]
	# mk2, mk3: rel 0, 1, 0.5e9, 0.999999999e9, 1e9 ns; span 2e9 + 1, 50% = 1e9
	# (were the last sample the end, 50% would be 0.5e9 and 0%-50% two samples)
	for f in mk2 mk3; do
		check "made-up ($f: header start $([ $f = mk2 ] && echo after the first sample || echo 0)): the first sample is the start, the trailer's 7 s the end" \
			sh -c "[ \"\$1\" = 2 ] && [ \"\$2\" = 4 ] && [ \"\$3\" = 1 ]" sh \
			"$(samples -i $f.data --time ,0.000000002)" "$(samples -i $f.data --time 0%-50%)" \
			"$(samples -i $f.data --time 50%/2)"
	done
	"$EBS" report -i mk1.data --time 0.5,1.2 --tid 100 >mk.txt 2>&1
	check "made-up: the header names the filters ('# only: time 0.5-1.2 s, tid 100')" \
		grep -qx '# only: time 0.5-1.2 s, tid 100' mk.txt
	"$EBS" report -i mk1.data --time 2.5, --pid 7,100 >mk.txt 2>&1
	check "made-up: '# only: time from 2.5 s, pid 7,100'; no samples: exit 0" \
		sh -c "[ $? -eq 0 ] && grep -qx '# only: time from 2.5 s, pid 7,100' mk.txt"
else
	fail "mkdata" "$(head -n 1 mk.err)"
fi

# ---- the recordings --------------------------------------------------------------
record a.data -e cpu-clock -F 500 "$WORKLOADS/threads" 0.1 ||
	{ fail "record threads" "$(tail -n 1 a.data.err)"; exit 0; }
record b.data -e cpu-clock -F 500 "$WORKLOADS/phases" 4 0.1 0.05 ||
	{ fail "record phases" "$(tail -n 1 b.data.err)"; exit 0; }
XZ=""
if ! command -v xz >/dev/null; then
	skip "xz" "xz is not installed (xz-utils)"
else
	# 1.3 MB of words, the same on every run: about half a second of xz -6
	awk 'BEGIN { srand(33); for (i = 0; i < 500; i++) { w = ""; n = 2 + int(rand() * 8)
		for (k = 0; k < n; k++) w = w sprintf("%c", 97 + int(rand() * 10)); v[i] = w }
		for (i = 0; i < 200000; i++) printf "%s%s", v[int(rand() * 500)], (i % 12 == 11 ? "\n" : " ") }' >input.txt
	# the command's last act: its realtime clock, to hold the trailer's end against
	# shellcheck disable=SC2016	# sh -c's own $?
	record x.data -e cpu-clock -F 500 sh -c 'xz -6 -T1 -c input.txt; s=$?; date +%s%N >exit.ns; exit $s' >/dev/null
	check "record Debian's xz -6 -T1 compressing $(($(wc -c <input.txt) / 1000)) kB of words: exit 0" [ $? -eq 0 ] &&
		XZ=x
	# the recording ends when the command exited, not when ebs finished its
	# file (/proc/kallsyms and the rest after it: 0.24 s here), which --time's
	# percentages and ebs view's timeline would count as time without samples
	end=$(python3 -c 'import struct, sys
f = open(sys.argv[1], "rb"); h = f.read(96); f.seek(struct.unpack_from("<Q", h, 40)[0])
print(struct.unpack_from("<Q", f.read(16), 8)[0])' x.data)
	gap=$(( (end - $(cat exit.ns)) / 1000000 ))
	inside=no
	[ "$gap" -ge -5 ] && [ "$gap" -le 100 ] && inside=yes
	check "the trailer's end is when the command exited: ${gap} ms after its last date +%s%N (at most 100)" \
		[ $inside = yes ]
fi
for n in a b $XZ; do
	"$EBS" script -i "$n.data" --json -F pid,tid,time,sym >"$n.jsonl" 2>"$n.script.err" ||
		{ fail "script --json of $n.data" "$(head -n 1 "$n.script.err")"; exit 0; }
done
eval "$(python3 "$TF" rel A a.data a.jsonl B b.data b.jsonl ${XZ:+X x.data x.jsonl})"
enough "threads' samples" "$N_A" 100 || exit 0
enough "phases' samples" "$N_B" 60 || exit 0
read -r T1 T2 _ <<<"$TIDS_A"
S=$Q1_A
E=$Q3_A

# ---- what each range should keep, in one Python ------------------------------------
: >jobs.tsv
job a1 "$S,$E" A
job a2 "$S," A
job a3 ",$E" A
job ab "$S,$E" B
i=0
for spec in 10%-20% 25%/2 0%-100% 0%-10%,50%-60% 10%-30%,20%-40% 33.3%/3 0.5%-99.5%; do
	i=$((i + 1))
	job p$i "$spec" A
done
i=0
for spec in 0%-50% 50%-100% 25%/3,0%-10% 0.05,0.2; do
	i=$((i + 1))
	job ma$i "$spec" A
	job mb$i "$spec" B
done
if [ -n "$XZ" ]; then
	i=0
	for spec in 0%-50% 50%-100% "$Q1_X," ",$Q1_X" 20%/2,80%-90%; do
		i=$((i + 1))
		job x$i "$spec" X
	done
fi
eval "$(python3 "$TF" want jobs.tsv)"
spec_of() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' jobs.tsv; }

# ---- a. every command keeps exactly the samples of the range ----------------------
: >checks.tsv
for k in a1 a2 a3; do
	spec=$(spec_of $k)
	"$EBS" script -i a.data --time "$spec" --json -F tid,time >$k.script
	later "script --time $spec: exactly its samples" script $k $k.script
	"$EBS" report -i a.data --time "$spec" --sort tid --json >$k.report
	later "report --time $spec --sort tid: each thread's samples of it" report $k $k.report
done
n=$W_a1
f0=$(grep -o '"thread_fn_0": [0-9]*' a1.want | cut -d' ' -f2)
"$EBS" annotate -i a.data thread_fn_0 --time "$S,$E" >an.txt 2>an.err
check "annotate thread_fn_0 --time $S,$E: '${f0:-0} samples in it, ... of $n'" \
	grep -qE "^# event: cpu-clock: ${f0:-0} samples in it, [0-9.]+% of $n\$" an.txt
"$EBS" flamegraph -i a.data --time "$S,$E" -o a.svg
check "flamegraph --time $S,$E: all: $n samples" grep -q "<title>all: $n samples, " a.svg
"$EBS" export -i a.data --format folded --time "$S,$E" >a.folded
check "export --format folded --time $S,$E: the stacks' counts add up to $n" \
	[ "$(awk '{ s += $NF } END { print s + 0 }' a.folded)" = "$n" ]
"$EBS" diff a.data b.data --time "$S,$E" --json >d.json
check "diff a b --time $S,$E: base $n, new $W_ab samples (each from its own start)" \
	grep -q "^{\"base\":{[^}]*\"samples\":$n,[^}]*},\"new\":{[^}]*\"samples\":$W_ab," d.json

# ---- b. percent forms --------------------------------------------------------------
i=0
for spec in 10%-20% 25%/2 0%-100% 0%-10%,50%-60% 10%-30%,20%-40% 33.3%/3 0.5%-99.5%; do
	i=$((i + 1))
	"$EBS" script -i a.data --time "$spec" --json -F tid,time >p$i.script
	later "script --time $spec: exactly its samples" script p$i p$i.script
	eval "want=\$W_p$i"
	check "report --time $spec: its $want samples" [ "$(samples -i a.data --time "$spec")" = "$want" ]
done
check "0%-100% is every sample ($N_A)" [ "$W_p3" = "$N_A" ]

# ---- c. --tid and --pid lists ------------------------------------------------------
n1=$(samples -i a.data --tid "$T1")
n2=$(samples -i a.data --tid "$T2")
check "--tid $T1,$T2: --tid $T1 ($n1) plus --tid $T2 ($n2)" \
	[ "$(samples -i a.data --tid "$T1,$T2")" = $((n1 + n2)) ]
check "--tid $T2,$T1,$T2: the same" [ "$(samples -i a.data --tid "$T2,$T1,$T2")" = $((n1 + n2)) ]
n1t=$(samples -i a.data --tid "$T1" --time 25%/2)
n2t=$(samples -i a.data --tid "$T2" --time 25%/2)
check "--tid $T1,$T2 --time 25%/2: the sum of each ($n1t + $n2t)" \
	[ "$(samples -i a.data --tid "$T1,$T2" --time 25%/2)" = $((n1t + n2t)) ]
"$EBS" report -i a.data -i b.data --pid "$PID_A,$PID_B" --tid "$T1,$PID_B" --time 0%-50% >ab.txt 2>&1
want="# only: time 0%-50%, pid $(printf '%s\n' "$PID_A" "$PID_B" | sort -n | paste -sd,), tid $(printf '%s\n' "$T1" "$PID_B" | sort -n | paste -sd,)"
check "the header: '$want'" grep -qxF "$want" ab.txt
pa=$(samples -i a.data -i b.data --pid "$PID_A")
pb=$(samples -i a.data -i b.data --pid "$PID_B")
check "merged: --pid $PID_A,$PID_B is --pid $PID_A ($pa = $N_A) plus --pid $PID_B ($pb = $N_B)" \
	sh -c "[ $pa = $N_A ] && [ $pb = $N_B ] && [ \"\$1\" = $((N_A + N_B)) ]" sh \
	"$(samples -i a.data -i b.data --pid "$PID_A,$PID_B")"

# ---- no samples after the filters: one line says why it may be so -------------------
"$EBS" report -i a.data --time 1000,2000 >none.txt 2>&1
rc=$?
check "--time 1000,2000 of a $SPAN_A s recording: '# no samples', '# (the recording spans $SPAN_A s)', exit 0 ($rc)" \
	sh -c "[ $rc -eq 0 ] && grep -qx '# no samples' none.txt && grep -qxF '# (the recording spans $SPAN_A s)' none.txt"
"$EBS" report -i a.data --pid 1 >none.txt 2>&1
check "--pid 1: '# (its processes: $PID_A...)' ($(grep -m1 '^# (' none.txt))" grep -qF "# (its processes: $PID_A" none.txt
"$EBS" report -i a.data --tid 1 >none.txt 2>&1
check "--tid 1: '# (its threads: ...)' names $T1 ($(grep -m1 '^# (' none.txt))" \
	grep -qE "^# \(its threads: ([0-9]+, )*$T1(,|\))" none.txt
"$EBS" view -i a.data --time 1000, -o none.html >none.err 2>&1
rc=$?
check "view --time 1000,: exit 1, one line with the span ($rc: $(head -n 1 none.err))" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l <none.err) = 1 ] && grep -qF 'no samples after the filters (the recording spans $SPAN_A s)' none.err"

# ---- e. merged: each recording from its own start ----------------------------------
for i in 1 2 3 4; do
	spec=$(spec_of ma$i)
	eval "na=\$W_ma$i nb=\$W_mb$i"
	"$EBS" report -i a.data -i b.data --time "$spec" --sort pid --json >m$i.json 2>m$i.err
	got="$(grep -o '"samples":[0-9]*' m$i.json | head -n 1 | cut -d: -f2) $(sed 's/.*"rows"://' m$i.json |
		grep -o '"samples":[0-9]*' | cut -d: -f2 | paste -sd' ')"
	got=${got% }
	# the total, then a row per pid, the larger first (none for a pid without samples)
	want=$((na + nb))
	for x in $(printf '%s\n' "$na" "$nb" | sort -rn); do
		[ "$x" -gt 0 ] && want="$want $x"
	done
	check "report -i a -i b --time $spec --sort pid: $na of a's and $nb of b's ($got)" \
		[ "$got" = "$want" ]
done

# ---- f. bad values -----------------------------------------------------------------
# every refusal in report; three in each of the others (one parser: cli/view.c)
for cmd in report annotate flamegraph export script diff; do
	bads=("--time 2,1" "--time 30%/4" "--tid ''")
	[ $cmd = report ] && bads+=("--time 101%-102%" "--time 1,2,3" "--time x" "--time 10%"
		"--time ," "--time 20%-10%" "--time 1.0000000001," "--pid 1,,2" "--tid 0" "--pid x")
	for bad in "${bads[@]}"; do
		opt=${bad%% *}
		val=${bad#* }
		[ "$val" = "''" ] && val=
		expect "$cmd $opt '$val': exit 2, one line naming $opt and the value" 2 \
			"^ebs $cmd: $opt '$(printf '%s' "$val" | sed 's/[.*]/\\&/g')': " \
			"$EBS" "$cmd" "$opt" "$val" -i a.data
	done
done

# ---- g. a real program: xz ---------------------------------------------------------
if [ -n "$XZ" ] && enough "xz's samples" "$N_X" 60; then
	h1=$(samples -i x.data --time 0%-50%)
	h2=$(samples -i x.data --time 50%-100%)
	check "xz: --time 0%-50% ($h1) and 50%-100% ($h2) partition its $N_X samples" \
		[ $((h1 + h2)) = "$N_X" ]
	for i in 1 2 3 4 5; do
		spec=$(spec_of x$i)
		"$EBS" script -i x.data --time "$spec" --json -F tid,time >x$i.script
		later "xz: script --time $spec: exactly its samples" script x$i x$i.script
		"$EBS" report -i x.data --time "$spec" --sort tid --json >x$i.report
		later "xz: report --time $spec: its samples" report x$i x$i.report
	done
fi

# ---- the checks Python makes ---------------------------------------------------------
python3 "$TF" verify checks.tsv >verified.tsv
check "every check of checks.tsv made ($(wc -l <checks.tsv))" \
	[ "$(wc -l <verified.tsv)" = "$(wc -l <checks.tsv)" ]
while IFS=$'\t' read -r how name why; do
	if [ "$how" = ok ]; then pass "$name"; else fail "$name" "$why"; fi
done <verified.tsv

# ---- d. perf as the oracle ---------------------------------------------------------
PSPECS="0%-100% 10%-20% 0%-50% 50%-100% 0%-10%,40%-60%,90%-100% 12.5%-87.5%"
if ! command -v perf >/dev/null; then
	skip "perf" "perf is not installed (linux-perf): no oracle for the percents"
elif ! perf record -q -e cpu-clock -F 500 -o perf.data -- "$WORKLOADS/threads" >/dev/null 2>perf.err ||
	[ ! -s perf.data ]; then
	skip "perf" "perf record cannot sample cpu-clock here: $(tail -n 1 perf.err)"
else
	perf script -i perf.data -F time --ns 2>/dev/null >perf.times
	# shellcheck disable=SC2086	# the specs are words
	python3 "$TF" perf perf.times $PSPECS >perf.rules
	while read -r spec np ne near; do
		got=$(samples -i perf.data --time "$spec")
		pr=$(perf report -i perf.data --time "$spec" --stdio -n --sort pid -q 2>/dev/null |
			awk 'NF >= 3 { s += $2 } END { print s + 0 }')
		check "perf.data --time $spec: ebs $got, as its rule counts ($ne)" [ "$got" = "$ne" ]
		check "perf.data --time $spec: perf report $pr, as perf's rule counts ($np)" [ "$pr" = "$np" ]
		check "perf.data --time $spec: ebs $got, perf $pr (tolerance: $near samples within 1 ns of a boundary)" \
			[ $((got > pr ? got - pr : pr - got)) -le "$near" ]
	done <perf.rules
fi
