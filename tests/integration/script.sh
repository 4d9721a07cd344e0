#!/usr/bin/env bash
# script.sh - ebs script on recordings of the calltree workload made here
# (cpu-clock at 1 kHz, half a second of CPU each):
#
#   - every sample one line, in time order: as many lines as ebs report
#     --dump has SAMPLE records, and each line's time, pid, tid, cpu, ip and
#     period those of one record (--json's exact times; the text's are the
#     same to the microsecond);
#   - symbols: the lines of each function as many as ebs report --no-inline
#     counts for it; symoff within the symbol's size (nm -S) and ip less
#     symoff the same for all the samples of a function; srcline binutils
#     addr2line's for the link-time address nm's start plus symoff;
#     the same with inlined code (inlmany), whose line is the inlined one's;
#   - --fields (and +NAME/-NAME), --json (each line parsed by python3), two
#     events, -i -, and the same lines without the per-address memos;
#   - -g: a chain under every sample line; each function's samples in the
#     chains (once per sample) report --children's inclusive count; tree_leaf
#     under tree_left or tree_right, under tree_a, under main; inlined
#     code (inlmany) as perf script shows it, its compiled function at its
#     own line, and with --inline its frames marked " (inlined)";
#   - the filters, the pager on a terminal, a closed pipe (quiet), bad input
#     (one line, status 2);
#   - perf: on one perf record of calltree, ebs script -F time,pid,tid,ip,sym
#     against perf script's, line by line: time (both to the microsecond),
#     pid, tid and ip equal; symbols equal but where perf says [unknown] or
#     names another alias of the address (tests/tools/elfsyms.py);
#     and on a perf record -g, every chain frame for frame (function and DSO).
. "$(dirname "$0")/../lib.sh"

record flat.data -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.5
check "record calltree" [ $? -eq 0 ]
record g.data -g -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.5
check "record -g calltree" [ $? -eq 0 ]
"$EBS" report -i flat.data --dump >flat.dump
"$EBS" report -i g.data --dump >g.dump

# ---- every sample, one line, its fields the record's --------------------------------
"$EBS" script -i flat.data >flat.txt 2>flat.err
check "status 0, nothing on stderr" [ $? -eq 0 -a ! -s flat.err ]
"$EBS" script -i flat.data --json >flat.jsonl 2>flat.jerr
check "--json: status 0, nothing on stderr" [ $? -eq 0 -a ! -s flat.jerr ]
keep flat.txt
keep flat.jsonl
n=$(grep -c '^[0-9]* SAMPLE ' flat.dump)
check "as many lines as samples ($n, from --dump)" [ "$(wc -l <flat.txt)" -eq "$n" -a "$n" -gt 0 ]
check "--json: as many objects" [ "$(wc -l <flat.jsonl)" -eq "$n" ]

# The text's lines: "COMM PID/TID [CPU] SEC.USEC: PERIOD EVENT: IP SYM+OFF (DSO) FILE:LINE"
cat >lines.py <<'PY'
import json, re, sys
LINE = re.compile(r'^ *(\S+) +(\d+)/(\d+) +\[(\d{3})\] +(\d+)\.(\d{6}): +(\d+) +(\S+): +([0-9a-f]+) (\S+?)(?:\+0x([0-9a-f]+))? \((.*?)\)(?: (\S+:\d+))?$')
def text(path):
    out = []
    for l in open(path):
        m = LINE.match(l.rstrip('\n'))
        if not m:
            sys.exit('not a script line: %r' % l)
        g = m.groups()
        out.append(dict(comm=g[0], pid=int(g[1]), tid=int(g[2]), cpu=int(g[3]),
                        usec=int(g[4]) * 1000000 + int(g[5]), period=int(g[6]), event=g[7],
                        ip=int(g[8], 16), sym=g[9], symoff=int(g[10], 16) if g[10] else None,
                        dso=g[11], srcline=g[12]))
    return out
def jsonl(path):
    return [json.loads(l) for l in open(path)]
PY

# dump vs --json: the same (time, pid, tid, cpu, ip, period) records, each once
python3 - flat.dump flat.jsonl <<'PY' >fields.out 2>&1
import collections, json, sys
def rec(words):
    d = dict(zip(words[2::2], words[3::2]))
    return (int(d['time']), int(d['pid']), int(d['tid']), int(d['cpu']), int(d['ip'], 16), int(d['period']))
dump = collections.Counter(rec(l.split()) for l in open(sys.argv[1]) if l.split()[1:2] == ['SAMPLE'])
js = [json.loads(l) for l in open(sys.argv[2])]
mine = collections.Counter((o['time'], o['pid'], o['tid'], o['cpu'], int(o['ip'], 16), o['period']) for o in js)
print('differ: %d' % sum(((dump - mine) + (mine - dump)).values()))
print('ordered: %d' % all(a['time'] <= b['time'] for a, b in zip(js, js[1:])))
PY
check "--json: time, pid, tid, cpu, ip and period are the --dump records', each once" grep -qx 'differ: 0' fields.out
check "--json: in time order" grep -qx 'ordered: 1' fields.out

# text vs --json, line by line: the same sample, the text's time to the microsecond
python3 - flat.txt flat.jsonl <<'PY' >text.out 2>&1
import sys
sys.path.insert(0, '.')
import lines
t, j = lines.text(sys.argv[1]), lines.jsonl(sys.argv[2])
bad = [(a, b) for a, b in zip(t, j) if (a['pid'], a['tid'], a['cpu'], a['usec'], a['period'], a['ip'], a['sym'], a['symoff'], a['dso'], a['comm'], a['event'], a['srcline']) !=
       (b['pid'], b['tid'], b['cpu'], b['time'] // 1000, b['period'], int(b['ip'], 16), b['sym'] or '[unknown]', b['symoff'], b['dso'] or '[unknown]', b['comm'], b['event'], b['srcline'])]
print('lines %d bad %d' % (len(t), len(bad)))
for a, b in bad[:3]:
    print(a, b)
PY
keep text.out
check "text: every line parses, the same sample as --json's line ($(head -n 1 text.out))" \
	grep -qx "lines $n bad 0" text.out
check "comm calltree, event cpu-clock" \
	bash -c "grep -q '^ *calltree .* cpu-clock: ' flat.txt && ! grep -qv ' cpu-clock: ' flat.txt"

# symbols: each function's lines as many as report --no-inline counts for it
"$EBS" report -i flat.data --no-inline --json >flat.report.json
python3 - flat.report.json flat.jsonl <<'PY' >syms.out 2>&1
import collections, json, sys
r = json.load(open(sys.argv[1]))
want = collections.Counter()
for row in r['rows']:
    f = row['function']
    want['[unknown]' if f is None or f.startswith('[unknown]') else f] += row['samples']
got = collections.Counter(o['sym'] or '[unknown]' for o in map(json.loads, open(sys.argv[2])))
print('functions %d differ %d' % (len(want), len(set(want.items()) ^ set(got.items()))))
for k in sorted(set(want) | set(got)):
    if want[k] != got[k]:
        print('%s: report %d script %d' % (k, want[k], got[k]))
PY
keep syms.out
check "each function's lines: report --no-inline's samples ($(head -n 1 syms.out))" \
	grep -qE '^functions [0-9]+ differ 0$' syms.out
check "tree_leaf holds most samples" \
	bash -c "[ \$(grep -c ' tree_leaf+0x' flat.txt) -gt \$(($n / 2)) ]"

# symoff and srcline against nm and binutils addr2line: against_addr2line NAME
# JSONL BINARY, on the samples in BINARY.  addr2line without -i gives the
# line of the code at an address (inlined code's own), as srcline does.
cat >a2l.py <<'PY'
import json, sys
syms = {}
for l in open(sys.argv[2]):
    w = l.split()
    if len(w) == 4 and w[2] in 'tTwW':
        syms[w[3]] = (int(w[0], 16), int(w[1], 16))
start, bad, seen = {}, [], set()
for o in map(json.loads, open(sys.argv[1])):
    if o['dso'] != sys.argv[3] or o['sym'] not in syms:
        continue
    addr, size = syms[o['sym']]
    if not 0 <= o['symoff'] < size:
        bad.append('%s+%#x outside its %d bytes' % (o['sym'], o['symoff'], size))
    # ip less symoff: the function's start in the process, the same for all its samples
    if start.setdefault((o['pid'], o['sym']), int(o['ip'], 16) - o['symoff']) != int(o['ip'], 16) - o['symoff']:
        bad.append('%s: ip - symoff differs' % o['sym'])
    if addr + o['symoff'] not in seen:
        seen.add(addr + o['symoff'])
        print('%x %s' % (addr + o['symoff'], o['srcline']))
for b in bad[:5]:
    print(b, file=sys.stderr)
PY
against_addr2line() {
	local name=$1 jsonl=$2 bin=$3
	nm -S "$bin" >"$name.nm"
	python3 a2l.py "$jsonl" "$name.nm" "$bin" >"$name.a2l.in" 2>"$name.a2l.err"
	check "$name: symoff within the symbol's size (nm -S), ip - symoff one start per function" \
		[ -s "$name.a2l.in" -a ! -s "$name.a2l.err" ]
	cut -d' ' -f1 "$name.a2l.in" | addr2line -s -e "$bin" | sed 's/ (discriminator [0-9]*)//' >"$name.a2l.out"
	paste -d' ' "$name.a2l.in" "$name.a2l.out" | awk '$2 != $3' >"$name.a2l.bad"
	keep "$name.a2l.bad"
	check "$name: srcline is binutils addr2line's at nm's start + symoff ($(wc -l <"$name.a2l.in") addresses)" \
		[ -s "$name.a2l.out" -a ! -s "$name.a2l.bad" ]
}
against_addr2line calltree flat.jsonl "$WORKLOADS/calltree"

# what is kept per address (the rendered symbol, the chains' frames) changes nothing
EBS_DEBUG_NO_MEMO=1 "$EBS" script -i flat.data >nomemo.txt
check "without the per-address memos: the same lines" cmp -s nomemo.txt flat.txt

# ---- --fields -----------------------------------------------------------------------
"$EBS" script -i flat.data -F time,pid,tid,ip,sym >f1.txt
check "-F time,pid,tid,ip,sym: 'PID/TID SEC.USEC: IP SYM' on every line" \
	bash -c "[ \$(grep -cE '^ *[0-9]+/[0-9]+ +[0-9]+\.[0-9]{6}: +[0-9a-f]+ [^ ]+$' f1.txt) -eq $n ]"
"$EBS" script -i flat.data -F sym,tid,ip,time,pid >f2.txt
check "-F in another order: the same lines (fields show in one order)" cmp -s f1.txt f2.txt
"$EBS" script -i flat.data -F comm,period >f3.txt
check "-F comm,period" bash -c "[ \$(grep -cE '^ +calltree +[0-9]+ $' f3.txt) -eq $n ]"
"$EBS" script -i flat.data -F +srcline >f4.txt
check "-F +srcline: the default" cmp -s f4.txt flat.txt
"$EBS" script -i flat.data -F -srcline,-dso,-symoff >f5.txt
check "-F -srcline,-dso,-symoff: lines end with the symbol" \
	bash -c "[ \$(grep -cE ' [0-9a-f]+ [^ +]+$' f5.txt) -eq $n ]"
"$EBS" script -i flat.data -F pid,sym,srcline --json >f6.jsonl
check "--json -F pid,sym,srcline: those members only, on every line" \
	python3 -c "import json, sys; sys.exit(not all(set(json.loads(l)) == {'pid', 'sym', 'srcline'} for l in open('f6.jsonl')))"
check "--json: all twelve fields by default" \
	python3 -c "import json, sys; sys.exit(not all(set(json.loads(l)) == {'comm', 'pid', 'tid', 'cpu', 'time', 'period', 'event', 'ip', 'sym', 'symoff', 'dso', 'srcline'} for l in open('flat.jsonl')))"
"$EBS" script -i flat.data --ns -F time >f7.txt
check "--ns: the times to the nanosecond, --json's" \
	python3 -c "import json, sys; sys.exit([l.strip().rstrip(':').replace('.', '').lstrip('0') for l in open('f7.txt')] != [str(json.loads(l)['time']) for l in open('flat.jsonl')])"

# ---- -g: the chains ---------------------------------------------------------------------
"$EBS" script -i g.data >g.txt 2>g.serr
check "-g: status 0, nothing on stderr" [ $? -eq 0 -a ! -s g.serr ]
"$EBS" script -i g.data --json >g.jsonl
keep g.txt
EBS_DEBUG_NO_MEMO=1 "$EBS" script -i g.data >gnomemo.txt
check "-g: without the per-address memos: the same lines" cmp -s gnomemo.txt g.txt
gn=$(grep -c '^[0-9]* SAMPLE ' g.dump)
cat >chains.py <<'PY'
import re, sys
FRAME = re.compile(r'^\t *([0-9a-f]+) (\S+?)(?:\+0x[0-9a-f]+)?(?: \((.*?)\))?(?: (\S+:\d+))?( \(inlined\))?$')
def samples(path):
    """[(sample line, [(ip, sym, dso, srcline, inlined)])]; exits on a line out of place"""
    out, cur = [], None
    for l in open(path):
        l = l.rstrip('\n')
        if l == '':
            cur = None
        elif l.startswith('\t'):
            m = FRAME.match(l)
            if cur is None or not m:
                sys.exit('frame line out of place or bad: %r' % l)
            g = m.groups()
            cur[1].append((int(g[0], 16), g[1], g[2], g[3], bool(g[4])))
        else:
            if cur is not None:
                sys.exit('a sample line before the last one\'s chain ended: %r' % l)
            cur = (l, [])
            out.append(cur)
    return out
PY
python3 - g.txt g.jsonl <<'PY' >g.out 2>&1
import json, sys
sys.path.insert(0, '.')
import chains
s = chains.samples(sys.argv[1])
j = [json.loads(l) for l in open(sys.argv[2])]
print('samples %d' % len(s))
print('every sample a chain: %d' % all(c for _, c in s))
print('sample lines end with the event: %d' % all(l.endswith(' cpu-clock: ') for l, _ in s))
# a cut chain: the text's last frame "0 [truncated]", --json's "truncated": true
same = all([(f[0], f[1]) for f in c] == [(int(f['ip'], 16), f['sym'] or '[unknown]') for f in o['callchain']] +
           [(0, '[truncated]')] * bool(o.get('truncated'))
           for (_, c), o in zip(s, j))
print('json chains the same: %d' % same)
leaf = [c for _, c in s if c[0][1] == 'tree_leaf']
good = 0
for c in leaf:
    names = [f[1] for f in c]
    if names[1] in ('tree_left', 'tree_right') and names[2] == 'tree_a' and 'main' in names[3:]:
        good += 1
print('tree_leaf samples %d under caller, tree_a, main %d' % (len(leaf), good))
PY
keep g.out
check "-g: one sample line per sample ($gn)" grep -qx "samples $gn" g.out
check "-g: a chain under every sample line, then an empty line" grep -qx 'every sample a chain: 1' g.out
check "-g: the sample line ends with the event, as perf's" grep -qx 'sample lines end with the event: 1' g.out
check "-g: --json's callchain arrays are the text's frames (ip, sym)" grep -qx 'json chains the same: 1' g.out
read -r _ _ nl _ _ _ _ ng < <(grep '^tree_leaf samples' g.out)
enough "-g: tree_leaf's callers" "${nl:-0}" 100 &&
	check "-g: tree_leaf under tree_left or tree_right, under tree_a, under main in 97% or more ($ng of $nl)" \
		[ $((ng * 100)) -ge $((nl * 97)) ]
# each function's samples in the chains (once a sample) are report --children's:
# without inlined frames report --children --no-inline's, with them (--inline) its own
cat >gsyms.py <<'PY'
import collections, json, sys
sys.path.insert(0, '.')
import chains
r = json.load(open(sys.argv[1]))
want = collections.Counter()
for row in r['rows']:
    if not row['function'].startswith('[unknown]'):
        want[row['function']] += row['children']
got = collections.Counter()
for _, c in chains.samples(sys.argv[2]):
    for name in set(f[1] for f in c):
        if name != '[unknown]':
            got[name] += 1
print('functions %d differ %d' % (len(want), len(set(want.items()) ^ set(got.items()))))
for k in sorted(set(want) | set(got)):
    if want[k] != got[k]:
        print('%s: report %d script %d' % (k, want[k], got[k]))
PY
"$EBS" report -i g.data --children --no-inline --json >g.report.json
python3 gsyms.py g.report.json g.txt >gsyms.out 2>&1
keep gsyms.out
check "-g: each function in as many chains as report --children --no-inline counts ($(head -n 1 gsyms.out))" \
	grep -qE '^functions [0-9]+ differ 0$' gsyms.out
"$EBS" report -i g.data --children --json >gi.report.json
"$EBS" script -i g.data --inline >gi.txt
python3 gsyms.py gi.report.json gi.txt >gisyms.out 2>&1
keep gisyms.out
check "-g --inline: each function in as many chains as report --children counts ($(head -n 1 gisyms.out))" \
	grep -qE '^functions [0-9]+ differ 0$' gisyms.out
"$EBS" script -i g.data -G >gG.txt
check "-G: one line per sample, no chains" \
	bash -c "[ \$(wc -l <gG.txt) -eq $gn ] && ! grep -q \$'^\t' gG.txt"
"$EBS" script -i g.data -F time,pid >gnoloc.txt
check "-g with no address field: no chains" bash -c "[ \$(wc -l <gnoloc.txt) -eq $gn ]"

# --call-graph dwarf: chains unwound from the copied stack; one cut short ends in [truncated]
record dw.data --call-graph dwarf -e cpu-clock -F 1000 "$WORKLOADS/calltree-nofp" 0.3
"$EBS" script -i dw.data >dw.txt
"$EBS" script -i dw.data --json >dw.jsonl
python3 - dw.txt dw.jsonl <<'PY' >dw.out 2>&1
import json, sys
sys.path.insert(0, '.')
import chains
s = chains.samples(sys.argv[1])
j = [json.loads(l) for l in open(sys.argv[2])]
ok = len(s) == len(j) > 0 and all(c for _, c in s)
for (_, c), o in zip(s, j):
    cut = c[-1][1] == '[truncated]'
    ok = ok and o['truncated'] == cut and len(o['callchain']) == len(c) - cut
print('dwarf ok %d samples %d reach _start %d' % (ok, len(s), sum('_start' in [f[1] for f in c] for _, c in s)))
PY
keep dw.out
check "dwarf: chains under every sample, [truncated] as the last frame where --json says truncated ($(cat dw.out))" \
	grep -q '^dwarf ok 1 ' dw.out

# inlined code: step() inlined into caller_a..caller_d (inlmany).  By default, as perf
# script's, a chain's frame is the function compiled at its address, at the line of
# the code there (step's): the leaf frame is what the sample's own line says.
record inl.data -g -e cpu-clock -F 1000 "$WORKLOADS/inlmany" 0.3
"$EBS" script -i inl.data >inl.txt
"$EBS" script -i inl.data --json >inl.jsonl
keep inl.txt
check "inlined: no inlined frames by default" not grep -q '(inlined)' inl.txt
check "inlined: the leaf frame's function and line are the sample's own (--json)" \
	python3 -c "import json, sys; j = [json.loads(l) for l in open('inl.jsonl')]; sys.exit(not j or not all((o['callchain'][0]['sym'], o['callchain'][0]['srcline']) == (o['sym'], o['srcline']) for o in j))"
STEP=$(grep -n '/\* STEP \*/' "$TOP/tests/workloads/inlmany.c" | cut -d: -f1)
check "inlined: caller_X's frame at step's line (inlmany.c:$STEP)" \
	grep -qE $'^\t +[0-9a-f]+ caller_[abcd]\\+0x[0-9a-f]+ \\([^)]*\\) inlmany\\.c:'"$STEP"'$' inl.txt
"$EBS" script -i inl.data --inline >inli.txt
keep inli.txt
check "--inline: 'step+0x... inlmany.c:$STEP (inlined)', no DSO, then caller_X at the same ip at the call" \
	awk -v step="inlmany.c:$STEP" '/^\t/ && $2 ~ /^step\+0x/ && $NF == "(inlined)" && $3 == step { ip = $1; next }
	     ip != "" && $1 == ip && $2 ~ /^caller_[abcd]\+0x/ && $NF != step { ok = 1 } { ip = "" } END { exit !ok }' inli.txt
"$EBS" script -i inl.data --inline --no-inline >inlno.txt
check "--inline --no-inline: the last wins" cmp -s inlno.txt inl.txt
"$EBS" script -i inl.data -G -F sym,srcline >inlG.txt
check "without the chain: the compiled function, at step's line" \
	grep -qE "^ caller_[abcd] inlmany\.c:$STEP\$" inlG.txt
"$EBS" script -i inl.data -G --json >inlG.jsonl
against_addr2line inlmany inlG.jsonl "$WORKLOADS/inlmany"

# ---- filters --------------------------------------------------------------------------
pid=$(awk '$2 == "SAMPLE" { for (i = 3; i < NF; i++) if ($i == "pid") { print $(i + 1); exit } }' flat.dump)
"$EBS" script -i flat.data --pid "$pid" >p.txt
check "--pid $pid: report --pid's samples" \
	[ "$(wc -l <p.txt)" = "$("$EBS" report -i flat.data --pid "$pid" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')" ]
"$EBS" script -i flat.data --comm calltree -F comm >c.txt
check "--comm calltree: only calltree's" bash -c "[ -s c.txt ] && ! grep -qv '^ *calltree $' c.txt"
"$EBS" script -i flat.data --func tree_a >fa.txt
check "--func tree_a: only tree_a's (report's count)" \
	[ "$(wc -l <fa.txt)" = "$("$EBS" report -i flat.data --func tree_a --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["samples"])')" ]
"$EBS" script -i flat.data -e cpu-clock >e.txt
check "-e cpu-clock: all of them" cmp -s e.txt flat.txt

# two events: each sample of each, the names right-aligned to the longer; -e one of them
record two.data -e cpu-clock,task-clock -F 1000 "$WORKLOADS/calltree" 0.2
"$EBS" script -i two.data -F time,event >two.txt
"$EBS" report -i two.data --dump >two.dump
check "two events: a line per sample of either" \
	[ "$(wc -l <two.txt)" -eq "$(grep -c '^[0-9]* SAMPLE ' two.dump)" ]
check "two events: ' cpu-clock:' and 'task-clock:' right-aligned" \
	bash -c "grep -qE '^ *[0-9]+\.[0-9]{6}:  cpu-clock: \$' two.txt && grep -qE '^ *[0-9]+\.[0-9]{6}: task-clock: \$' two.txt"
"$EBS" script -i two.data -e task-clock -F event >tc.txt
check "-e task-clock: task-clock's samples only" \
	bash -c "[ -s tc.txt ] && [ \$(grep -c 'task-clock:' tc.txt) -eq \$(wc -l <tc.txt) ] &&
		 [ \$(wc -l <tc.txt) -eq \$(awk '\$2 == \"SAMPLE\" && / event 1 /' two.dump | wc -l) ]"
"$EBS" script -i - <flat.data >stdin.txt
check "-i - reads standard input" cmp -s stdin.txt flat.txt

# time order across CPUs: batches of two CPUs' samples that overlap in time, ties
# of time between them, and a last sample earlier than all (held to the end);
# want the samples stably sorted by time: of one time, in the file's order
MKDATA=$(dirname "$EBS")/tests/tools/mkdata
"$MKDATA" ooo.data <<'EOF' || fail "mkdata" "cannot write ooo.data"
event cpu-clock cpu-clock 1000
comm 100 100 ooo
comm 100 101 ooo
cpu 0
clock 2000000
sample 0 100 100 401000 5
cpu 1
clock 2000500
sample 0 100 101 402000 3
clock 2001000
sample 0 100 101 402004 3
cpu 0
clock 2002000
sample 0 100 100 401004 4
cpu 1
clock 1999000
sample 0 100 101 402008 1
EOF
"$EBS" report -i ooo.data --dump >ooo.dump
"$EBS" script -i ooo.data --json -F time,tid,cpu,ip >ooo.jsonl
"$EBS" script -i ooo.data --ns -F time,tid,cpu,ip >ooo.txt
keep ooo.txt
python3 - ooo.dump ooo.jsonl ooo.txt <<'PY' >ooo.out 2>&1
import json, sys
def rec(words):
    d = dict(zip(words[2::2], words[3::2]))
    return (int(d['time']), int(d['tid']), int(d['cpu']), int(d['ip'], 16))
dump = [rec(l.split()) for l in open(sys.argv[1]) if l.split()[1:2] == ['SAMPLE']]
want = sorted(dump, key=lambda r: r[0])		# stable: ties in file order
got = [(o['time'], o['tid'], o['cpu'], int(o['ip'], 16)) for o in map(json.loads, open(sys.argv[2]))]
text = [(int(w[2].rstrip(':').replace('.', '')), int(w[0]), int(w[1].strip('[]')), int(w[3], 16))
        for w in (l.split() for l in open(sys.argv[3]))]
print('samples %d out of order in the file %d json %d text %d' % (len(dump), dump != want, got == want, text == want))
PY
keep ooo.out
check "samples of several CPUs: sorted by time, ties in the file's order ($(cat ooo.out))" \
	grep -qx 'samples 16 out of order in the file 1 json 1 text 1' ooo.out

# ---- the pager, a closed pipe ---------------------------------------------------------------
cat >onpty.py <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
while True:
    try:
        if not os.read(fd, 65536):
            break
    except OSError:
        break
_, st = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(st))
PY
printf '#!/bin/sh\ncat >"%s/paged"\n' "$TMP" >pager.sh
chmod +x pager.sh
EBS_PAGER=$TMP/pager.sh python3 onpty.py "$EBS" script -i flat.data
check "on a terminal: through the pager, the same lines" cmp -s paged flat.txt
"$EBS" script -i g.data 2>pipe.err | head -n 1 >/dev/null
st=${PIPESTATUS[0]}
check "| head -n 1: nothing said, status 0 or 141 (SIGPIPE) ($st)" \
	bash -c "[ ! -s pipe.err ] && [ $st -eq 0 -o $st -eq 141 ]"
(trap '' PIPE; "$EBS" script -i g.data 2>pipe2.err | head -n 1 >/dev/null; echo "${PIPESTATUS[0]}" >pipe2.st)
check "| head -n 1 with SIGPIPE ignored: nothing said, status 141 ($(cat pipe2.st))" \
	bash -c "[ ! -s pipe2.err ] && [ \$(cat pipe2.st) -eq 141 ]"

# ---- bad input ------------------------------------------------------------------------
expect "a missing file" 2 "^ebs script: nosuch\.data: No such file" "$EBS" script -i nosuch.data
check "... nothing on stdout" [ ! -s out.txt ]
head -c 100 flat.data >cut.data
expect "a file cut in its header" 2 "^ebs script: cut\.data: " "$EBS" script -i cut.data
head -c $(($(stat -c %s flat.data) * 2 / 3)) flat.data >cut2.data
expect "a file cut short" 2 "^ebs script: cut2\.data: " "$EBS" script -i cut2.data
check "... nothing on stdout" [ ! -s out.txt ]
head -c 4096 /dev/zero >zero.data
expect "a file of zeros" 2 "^ebs script: zero\.data: " "$EBS" script -i zero.data
expect "an unknown field" 2 "^ebs script: --fields: unknown field 'foo' \(known: comm, " \
	"$EBS" script -i flat.data -F time,foo
expect "an empty field" 2 "^ebs script: --fields: unknown field ''" "$EBS" script -i flat.data -F sym,
expect "names mixed with +/-" 2 "^ebs script: --fields '\+sym,dso': either names" \
	"$EBS" script -i flat.data -F +sym,dso
expect "every field taken away" 2 "leaves no field" "$EBS" script -i flat.data \
	-F -comm,-pid,-tid,-cpu,-time,-period,-event,-ip,-sym,-symoff,-dso,-srcline
expect "an unknown event" 2 "^ebs script: flat\.data: no event 'nosuch'" "$EBS" script -i flat.data -e nosuch
expect "an unknown option" 2 "^ebs script: unknown option '--nosuch'" "$EBS" script --nosuch
expect "--top is report's" 2 "^ebs script: --top is ebs report's" "$EBS" script -i flat.data -n 3
expect "an argument" 2 "^ebs script: unexpected argument 'flat.data'" "$EBS" script flat.data

# ---- against perf script, on a recording perf made -----------------------------------------
if ! command -v perf >/dev/null 2>&1; then
	skip "perf script" "perf is not installed (apt-get install linux-perf)"
elif ! perf record -q -e cpu-clock -F 1000 -o p.data "$WORKLOADS/calltree" 0.5 >perf.out 2>perf.err; then
	skip "perf script" "perf record failed: $(head -n 1 perf.err)"
elif ! "$EBS" report -i p.data >/dev/null 2>p.err; then
	skip "perf script" "ebs does not read perf.data yet ($(head -n 1 p.err)); issue 16's reader"
else
	perf script -i p.data -F time,pid,tid,ip,sym,dso >perf.txt 2>perf.script.err
	"$EBS" script -i p.data -F time,pid,tid,ip,sym,dso >ebs.txt 2>ebs.script.err
	check "perf: ebs script -i p.data: status 0" [ $? -eq 0 ]
	keep perf.txt
	keep ebs.txt
	# "PID/TID SEC.USEC: IP SYM (DSO)" from both; perf's symbol may hold spaces
	python3 - perf.txt ebs.txt <<'PY' >perf.cmp 2>&1
import os, re, sys
sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests', 'tools'))
from elfsyms import aliases
L = re.compile(r'^ *(\d+)/(\d+) +(\d+\.\d{6}): +([0-9a-f]+) (.*) \((.*)\)$')
def rows(path):
    out = []
    for l in open(path):
        m = L.match(l.rstrip('\n'))
        if not m:
            sys.exit('%s: not a line: %r' % (path, l))
        out.append(m.groups())
    return out
p, e = rows(sys.argv[1]), rows(sys.argv[2])
print('lines perf %d ebs %d' % (len(p), len(e)))
bad = [(a, b) for a, b in zip(p, e) if a[:4] != b[:4]]
print('time pid tid ip differ %d' % len(bad))
# perf keeps a symbol's version (clock_gettime@@GLIBC_2.17), ebs drops it (symbolize.md)
V = re.compile(r'@@?[A-Za-z0-9_.]+$')
# and two names of one address (ld.so's mmap64 and mmap): each tool picks one
sym = [(a, b) for a, b in zip(p, e) if a[:4] == b[:4] and V.sub('', a[4]) != b[4] and a[4] != '[unknown]'
       and not (a[5].startswith('/') and aliases(a[5], a[4], b[4]))]
print('symbols differ %d' % len(sym))
print('perf [unknown] %d' % sum(a[4] == '[unknown]' for a in p))
for a, b in (bad + sym)[:5]:
    print('perf %s | ebs %s' % (' '.join(a), ' '.join(b)))
PY
	keep perf.cmp
	check "perf: as many lines as perf script ($(head -n 1 perf.cmp))" \
		awk 'NR == 1 { exit !($3 == $5 && $3 > 0) }' perf.cmp
	check "perf: time, pid, tid and ip equal, line by line" grep -qx 'time pid tid ip differ 0' perf.cmp
	check "perf: symbols equal but where perf says [unknown] ($(sed -n 4p perf.cmp))" \
		grep -qx 'symbols differ 0' perf.cmp
	# -g: every chain, frame for frame, as perf script has it (what is left
	# out and which names are one: tests/tools/perfchains.py); the frames
	# named by an alias counted, and at most a tenth of them.  Addresses are
	# not compared: perf 6.1 prints a user frame's relative to its DSO, ebs
	# the process's (ebs-script.1).  A run sampling the dynamic loader's
	# start shows these.
	if perf record -q -g -e cpu-clock -F 1000 -o pg.data "$WORKLOADS/calltree" 0.5 >perf.out 2>perf.err; then
		perf script -i pg.data -F ip,sym,symoff,dso >perfg.txt 2>perfg.err
		"$EBS" script -i pg.data -F ip,sym,dso >ebsg.txt 2>ebsg.err
		keep perfg.txt
		keep ebsg.txt
		python3 "$TOP/tests/tools/perfchains.py" perfg.txt ebsg.txt >perfg.cmp 2>&1
		keep perfg.cmp
		check "perf -g: as many chains as perf script ($(head -n 1 perfg.cmp))" \
			awk 'NR == 1 { exit !($3 == $5 && $3 > 0) }' perfg.cmp
		check "perf -g: every chain equal, frame for frame ($(sed -n 2p perfg.cmp))" \
			sh -c "grep -qx 'chains differ 0' perfg.cmp && awk 'NR == 2 { exit !(\$2 > 0 && \$4 * 10 <= \$2) }' perfg.cmp"
	else
		skip "perf -g" "perf record -g failed: $(head -n 1 perf.err)"
	fi
fi
