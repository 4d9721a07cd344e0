#!/usr/bin/env bash
# callgraph.sh - ebs record -g / --call-graph and report --children on the
# calltree workload, whose call tree and inclusive shares are known:
#
#   main -> tree_a -> tree_left  -> tree_leaf   2/3 of the work
#                  -> tree_right -> tree_leaf   1/3
#
# tree_leaf builds no frame (gcc omits it in leaf functions even with
# -fno-omit-frame-pointer), so a frame-pointer chain skips its caller:
# perf record -g puts tree_leaf straight under tree_a.  ebs recovers the
# caller from the leaf's CFI (fp), or unwinds the copied stack through CFI
# (dwarf, on calltree-nofp, built without frame pointers).
. "$(dirname "$0")/../lib.sh"

# inclusive NAME JSON: "children self samples" of function NAME (0 0 N when absent)
inclusive() {
	json "$2" "'%d %d %d' % next(((r['children'], r['self'], j['samples']) for r in j['rows'] if r['function'] == '$1'), (0, 0, j['samples']))"
}

# A --tree --json's nodes as a nested tree: roots, each node with its children.
TREE_PY='
import json, sys
j = json.load(open(sys.argv[1]))
for n in j["tree"]:
    n["children"] = []
for n in j["tree"]:
    if n["parent"] >= 0:
        j["tree"][n["parent"]]["children"].append(n)
j["tree"] = [n for n in j["tree"] if n["parent"] < 0]
'

# tree_shares MODE JSON: the inclusive shares of tree_left and tree_right of
# tree_a's samples, each within 0.04 of 2/3 and 1/3 (the issue's tolerance;
# with 1500 samples in tree_a that is over 4 standard deviations).
tree_shares() {
	local mode=$1 f=$2 a l r
	read -r a _ _ < <(inclusive tree_a "$f")
	read -r l _ _ < <(inclusive tree_left "$f")
	read -r r _ _ < <(inclusive tree_right "$f")
	echo "# $mode: tree_a $a, tree_left $l, tree_right $r" \
		"($(awk "BEGIN { if ($a) printf \"%.3f / %.3f\", $l / $a, $r / $a }"))"
	enough "$mode: tree shares" "$a" 1500 || return 0
	check "$mode: tree_left is 2/3 of tree_a within 0.04 ($l of $a)" \
		awk "BEGIN { d = $l / $a - 2 / 3; exit !(d <= 0.04 && -d <= 0.04) }"
	check "$mode: tree_right is 1/3 of tree_a within 0.04 ($r of $a)" \
		awk "BEGIN { d = $r / $a - 1 / 3; exit !(d <= 0.04 && -d <= 0.04) }"
	check "$mode: left and right hold all of tree_a's samples but a few" \
		[ $((l + r)) -le "$a" -a $(((l + r) * 100)) -ge $((a * 97)) ]
}

# ---- -g (fp) on calltree, built with frame pointers --------------------------------
"$EBS" record -g -e cpu-clock -F 2000 -o fp.data "$WORKLOADS/calltree" 1.5 2>fp.err
check "-g: exit status 0" [ $? -eq 0 ]
"$EBS" report -i fp.data --dump >fp.dump
check "-g: the file says fp,512" grep -qx '# call-graph: fp,512' fp.dump
check "-g: samples carry a chain, registers and stack" \
	bash -c "grep SAMPLE fp.dump | grep -q 'chain .* regs abi 2 mask 0x1c0: .* stack 512 used'"
check "-g: user and kernel parts marked" bash -c "grep -q '\[user\]' fp.dump && grep -q '\[kernel\]' fp.dump"
"$EBS" report -i fp.data --children --json >fp.json
keep fp.json
tree_shares fp fp.json
read -r c s n < <(inclusive tree_leaf fp.json)
# (the kernel's share is interrupts taken in tree_leaf: 2-5% here, more on a loaded machine)
check "fp: tree_leaf's self is nearly all its children (a leaf; the rest the kernel's: $s of $c)" \
	[ "$s" -le "$c" -a $((s * 100)) -ge $((c * 90)) ]
read -r c s n < <(inclusive main fp.json)
check "fp: main's self is ~0, its children nearly all ($c of $n)" [ "$s" -le $((n / 50)) -a $((c * 100)) -ge $((n * 90)) ]
check "--json: children == samples in every row" jtrue fp.json "all(r['children'] == r['samples'] for r in j['rows'])"
check "--json: self <= children in every row" jtrue fp.json "all(r['self'] <= r['children'] for r in j['rows'])"
check "--json: the selves add up to the samples" jtrue fp.json "sum(r['self'] for r in j['rows']) == j['samples']"
check "--json: call_graph" [ "$(json fp.json "j['call_graph']")" = fp,512 ]
"$EBS" report -i fp.data --children --no-pager >fp.txt
keep fp.txt
check "text: the call graph named in the header" grep -q '^# call graph: fp,512' fp.txt
check "text: how often a leaf's caller was put back" \
	grep -qE '^# chains: the caller of a frameless function put back \(from its CFI\) in [0-9]+ of [0-9]+$' fp.txt
check "text: a self column" grep -qE '^#  samples  percent  95% interval +self  function' fp.txt

# perf's frame-pointer result on the same binary, for the record (not checked)
if command -v perf >/dev/null 2>&1 &&
	perf record -q -g -e cpu-clock -F 2000 -o perf.data "$WORKLOADS/calltree" 1.5 >/dev/null 2>&1; then
	perf report -i perf.data --children --stdio 2>/dev/null >perf.txt
	for f in tree_a tree_left tree_right tree_leaf; do
		line=$(grep -E "^ +[0-9.]+% +[0-9.]+% .* $f\$" perf.txt | tr -s ' ')
		echo "# perf -g, children self: $f ${line:-absent: perf lost it}"
	done
fi

# ---- --call-graph dwarf on calltree-nofp, built without frame pointers ----------------
"$EBS" record --call-graph dwarf -e cpu-clock -F 2000 -o dw.data "$WORKLOADS/calltree-nofp" 1.5 2>dw.err
check "dwarf: exit status 0" [ $? -eq 0 ]
"$EBS" report -i dw.data --dump >dw.dump
check "dwarf: the file says dwarf,8192" grep -qx '# call-graph: dwarf,8192' dw.dump
check "dwarf: samples carry all user registers and a stack" \
	bash -c "grep SAMPLE dw.dump | grep -q 'regs abi 2 mask 0xff0fff: .* stack [0-9]* used'"
"$EBS" report -i dw.data --children --json >dw.json
keep dw.json
tree_shares dwarf dw.json
read -r c s n < <(inclusive _start dw.json)
check "dwarf: unwound out to _start, through libc ($c of $n)" [ $((c * 100)) -ge $((n * 90)) ]
"$EBS" record --call-graph fp -e cpu-clock -F 2000 -o nofp.data "$WORKLOADS/calltree-nofp" 0.3 2>/dev/null
"$EBS" report -i nofp.data --children --json >nofp.json
read -r c s n < <(inclusive main nofp.json)
echo "# fp chains of calltree-nofp reach main in $c of $n samples (it has no frame pointers)"
"$EBS" report -i nofp.data --children --no-pager >nofp.txt
"$EBS" report -i fp.data --tree --no-pager >fptree.txt
check "fp chains through code without frame pointers: the header says so and names --call-graph dwarf" \
	grep -qE '^# chains: [0-9]+ of [0-9]+ disagree with the CFI or leave the mappings: .*--call-graph dwarf' nofp.txt
check "fp chains of code with frame pointers: no such hint (report, --tree)" \
	bash -c "! grep -q 'disagree with the CFI' fp.txt fptree.txt"
# the common CFI rules are evaluated without libunwind (symbolize/cfa.c): its frames are libunwind's
for f in dw fp nofp; do
	"$EBS" report -i $f.data --children --stats --no-pager >$f.fast.txt 2>&1
	"$EBS" script -i $f.data >>$f.fast.txt 2>&1
	EBS_DEBUG_NO_FAST_CFI=1 "$EBS" report -i $f.data --children --stats --no-pager >$f.unw.txt 2>&1
	EBS_DEBUG_NO_FAST_CFI=1 "$EBS" script -i $f.data >>$f.unw.txt 2>&1
	check "$f: the chains unwound without libunwind are libunwind's" cmp -s $f.fast.txt $f.unw.txt
done

# ---- a recording without chains --------------------------------------------------------
record flat.data -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.2
"$EBS" report -i flat.data --children --no-pager >flat.txt
check "no chains: the header says so, and that inlined code counts in its caller too" \
	grep -q '^# call graph: none recorded (ebs record -g): each sample counts in its own function and in those it is inlined into' flat.txt
# each sample counts for its own function, and (inline frames) for those its code was inlined into
"$EBS" report -i flat.data --children --json --no-inline >flat.json
check "no chains, --no-inline: children == self in every row" jtrue flat.json "all(r['children'] == r['self'] for r in j['rows'])"
"$EBS" report -i flat.data --children --json >flati.json
check "no chains: the selves add up to the samples" jtrue flati.json "sum(r['self'] for r in j['rows']) == j['samples']"
check "no chains: no dump line has a chain" not grep -q ' chain ' <("$EBS" report -i flat.data --dump)

# ---- bad input: one line, exit 2, nothing written --------------------------------------
rm -f bad.data
expect "--call-graph nonsense" 2 "^ebs record: --call-graph wants fp\[,SIZE\] or dwarf\[,SIZE\], not 'nonsense'$" \
	"$EBS" record --call-graph nonsense -o bad.data "$WORKLOADS/calltree" 0.1
expect "--call-graph dwarf,12: not a multiple of 8" 2 "dwarf,12: SIZE must be a multiple of 8" \
	"$EBS" record --call-graph dwarf,12 -o bad.data "$WORKLOADS/calltree" 0.1
expect "--call-graph dwarf,70000: past the kernel's limit" 2 "dwarf,70000: SIZE must be a multiple of 8 from 8 to 65528 bytes" \
	"$EBS" record --call-graph dwarf,70000 -o bad.data "$WORKLOADS/calltree" 0.1
expect "--call-graph dwarf,0" 2 "dwarf,0: SIZE must be" \
	"$EBS" record --call-graph dwarf,0 -o bad.data "$WORKLOADS/calltree" 0.1
expect "--call-graph fp,abc" 2 "fp,SIZE: SIZE is a number of bytes, not 'abc'" \
	"$EBS" record --call-graph fp,abc -o bad.data "$WORKLOADS/calltree" 0.1
expect "--call-graph dwarf,-8" 2 "SIZE is a number of bytes, not '-8'" \
	"$EBS" record --call-graph dwarf,-8 -o bad.data "$WORKLOADS/calltree" 0.1
expect "-g with --backend=kmod" 2 "^ebs record: --call-graph: ebs.ko records instruction pointers only" \
	"$EBS" record -g --backend=kmod -o bad.data "$WORKLOADS/calltree" 0.1
expect "-g dwarf: -g takes no mode" 2 "^ebs record: -g takes no mode, so 'dwarf' would be the command to run: --call-graph dwarf$" \
	"$EBS" record -g dwarf -o bad.data "$WORKLOADS/calltree" 0.1
expect "-g fp,1024: the same" 2 "^ebs record: -g takes no mode, so 'fp,1024' would be the command to run: --call-graph fp,1024$" \
	"$EBS" record -g fp,1024 -o bad.data "$WORKLOADS/calltree" 0.1
check "bad input: no file written" [ ! -e bad.data ]
expect "--children --sort line" 2 "^ebs report: --children counts functions: it goes with --sort func" \
	"$EBS" report -i fp.data --children --sort line

# ---- what is kept: fp,0 takes no stack; a larger dwarf SIZE is what the file says ------
record fp0.data --call-graph fp,0 -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.1
check "fp,0: chains without a stack copy" \
	bash -c "\"$EBS\" report -i fp0.data --dump | grep SAMPLE | grep ' chain ' | grep -vq ' stack '"
record dw16.data --call-graph dwarf,16384 -e cpu-clock -F 1000 "$WORKLOADS/calltree-nofp" 0.1
check "dwarf,16384: in the file" grep -qx '# call-graph: dwarf,16384' <("$EBS" report -i dw16.data --dump)

# ---- --tree, --callers, --callees on the fp recording ----------------------------------
"$EBS" report -i fp.data --callers tree_leaf --json >callers.json
keep callers.json
check "--callers tree_leaf: tree_left and tree_right, nothing else above 1%" \
	jtrue callers.json "sorted(c['function'] for c in j['callers'] if c['percent'] >= 1) == ['tree_left', 'tree_right']"
check "--callers tree_leaf: tree_left has 2/3 within 0.04" \
	jtrue callers.json "abs([c['percent'] for c in j['callers'] if c['function'] == 'tree_left'][0] / 100 - 2 / 3) <= 0.04"
"$EBS" report -i fp.data --callees tree_a --json >callees.json
check "--callees tree_a: tree_left then tree_right" \
	jtrue callees.json "[c['function'] for c in j['callees']][:2] == ['tree_left', 'tree_right']"
"$EBS" report -i fp.data --callees tree_leaf --json >self.json
check "--callees tree_leaf (a leaf): (self) first" jtrue self.json "j['callees'][0]['function'] == '(self)'"
"$EBS" report -i fp.data --tree --no-pager >tree.txt
keep tree.txt
check "--tree: pruned at 1% by default, saying so" grep -q '^# below 1.00% of the samples left out' tree.txt
check "--tree: tree_left indented under tree_a, tree_leaf under it" \
	awk '/  tree_a  /{a=index($0,"tree_a")} /  tree_left  /{l=index($0,"tree_left")} /  tree_leaf  /{if(!f)f=index($0,"tree_leaf")} END{exit !(a && l == a + 2 && f == l + 2)}' tree.txt
"$EBS" report -i fp.data --tree --json --min-percent 0 >tree.json
check "--tree --json: the root nodes' samples add up to the samples" \
	jtrue tree.json "sum(n['samples'] for n in j['tree'] if n['parent'] < 0) == j['samples']"
check "--tree --json: each node's children hold no more than it" \
	python3 -c "$TREE_PY
def ok(ns): return all(sum(c['samples'] for c in x['children']) + x['self'] == x['samples'] and ok(x['children']) for x in ns)
sys.exit(0 if ok(j['tree']) else 1)" tree.json
expect "--callers of a function on no stack" 2 "^ebs report: fp.data: no sample has 'nosuch' on its stack$" \
	"$EBS" report -i fp.data --callers nosuch
expect "--tree with --children" 2 "exclude each other" "$EBS" report -i fp.data --tree --children
expect "--tree with --sort" 2 "^ebs report: --sort orders the table; --tree, --callers and --callees order by samples" \
	"$EBS" report -i fp.data --tree --sort dso
# the DSO column lines up, as in the table; no line ends in a blank
"$EBS" report -i fp.data --callers tree_leaf --no-pager >callers.txt
check "--tree and --callers: the dso column aligned, no trailing blanks" \
	python3 -c "
import re, sys
for fn in sys.argv[1:]:
    rows = [l for l in open(fn).read().split('\n') if l and not l.startswith('#') and not l.startswith('  (')]
    head = [l for l in open(fn) if l.startswith('#  ')][-1]
    col = head.index(' dso') + 1
    bad = [l for l in rows if not re.match(r'\S', l[col:col + 1]) or l[col - 1] != ' ']
    if bad or any(l != l.rstrip() for l in open(fn).read().split('\n')) or open(fn).read().endswith('\n\n'):
        sys.exit('%s: %r' % (fn, bad[:2]))
" tree.txt callers.txt
"$EBS" report -i fp.data --tree --top 1 --min-percent 0 --json >top1.json
check "--tree --top 1: one node at each level (a single path)" \
	jtrue top1.json "len(j['tree']) > 3 and len(set(n['parent'] for n in j['tree'])) == len(j['tree'])"
"$EBS" report -i fp.data --tree --top 1 --no-pager >top1.txt
check "--tree --top 1: the header says so" grep -q '^# the 1 hottest at each level shown' top1.txt
"$EBS" report -i fp.data --callers tree_leaf --top 1 --json >ctop1.json
check "--callers --top 1: one row" jtrue ctop1.json "len(j['callers']) == 1 and j['callers'][0]['function'] == 'tree_left'"
check "--json: pseudo-frames marked by kind, functions too" \
	jtrue self.json "j['callees'][0]['kind'] == 'self' and all(c['kind'] in ('function', 'kernel', 'unknown') for c in j['callees'][1:]) and {n['kind'] for n in json.load(open('tree.json'))['tree'] if not n['function'].startswith('[')} <= {'function', 'kernel'}"

# ---- unwinding through libc, a signal frame, a deep stack, a stripped binary (dwarf) ------
# find_path JSON A B ...: the --tree has a path through A, then B (directly below), ...
find_path() {
	local f=$1
	shift
	python3 - "$f" "$@" <<PY
$TREE_PY
want = sys.argv[2:]
def walk(nodes, i):
    for n in nodes:
        if n['function'] == want[i] and (i + 1 == len(want) or walk(n['children'], i + 1)):
            return True
        if i == 0 and walk(n['children'], 0):
            return True
    return False
sys.exit(0 if walk(j['tree'], 0) else 1)
PY
}
"$EBS" record -q --call-graph dwarf -e cpu-clock -F 2000 -o qs.data "$WORKLOADS/unwind" qsort 0.5
"$EBS" report -i qs.data --tree --json --min-percent 0 >qs.json
check "dwarf, qsort: main -> qsort_loop -> libc's qsort_r" find_path qs.json main qsort_loop qsort_r
read -r c s n < <(inclusive cmp_hot <("$EBS" report -i qs.data --children --json))
check "dwarf, qsort: cmp_hot's samples (the hot comparator) have main above them ($c)" \
	[ "$c" -gt 0 -a "$(python3 -c "$TREE_PY
def ok(ns, seen):
    t = 0
    for x in ns:
        s2 = seen | {x['function']}
        if x['function'] == 'cmp_hot':
            t += x['samples'] if {'main', 'qsort_r'} <= seen else 0
        else:
            t += ok(x['children'], s2)
    return t
print(ok(j['tree'], set()))" qs.json)" -ge $((c * 95 / 100)) ]
"$EBS" record -q --call-graph dwarf -e cpu-clock -F 2000 -o sig.data "$WORKLOADS/unwind" signal 1
"$EBS" report -i sig.data --tree --json --min-percent 0 >sig.json
check "dwarf, signal: handler_work under on_prof" find_path sig.json on_prof handler_work
check "dwarf, signal: on_prof's chain goes on through the signal frame to spin_main and main" \
	python3 -c "$TREE_PY
def find(ns, path):
    for x in ns:
        p = path + [x['function']]
        if x['function'] == 'on_prof':
            return p
        r = find(x['children'], p)
        if r: return r
p = find(j['tree'], []) or []
print('# on_prof path:', ' -> '.join(p))
sys.exit(0 if p[:4] == ['_start', '__libc_start_main', '__libc_start_call_main', 'main'] and 'spin_main' in p else 1)" sig.json
"$EBS" record -q --call-graph dwarf -e cpu-clock -F 2000 -o deep.data "$WORKLOADS/unwind" deep 0.5
"$EBS" report -i deep.data --children --json >deep.json
"$EBS" report -i deep.data --children --no-pager >deep.txt
read -r c s n < <(inclusive '[truncated]' deep.json)
check "dwarf, 1200 frames of 256 bytes: chains marked truncated ($c of $n)" [ $((c * 100)) -ge $((n * 90)) ]
"$EBS" report -i deep.data --tree --json --min-percent 0 >deeptree.json
check "dwarf, deep: no chain from deep_leaf (1200 frames down) invents its way to main" \
	python3 -c "$TREE_PY
def bad(ns, seen_main):
    return any((x['function'] == 'deep_leaf' and seen_main) or bad(x['children'], seen_main or x['function'] == 'main') for x in ns)
sys.exit(1 if bad(j['tree'], False) else 0)" deeptree.json
check "dwarf, deep: [truncated] has kind truncated in --tree --json" \
	jtrue deeptree.json "{n['kind'] for n in j['tree'] if n['function'] == '[truncated]'} == {'truncated'}"
check "dwarf, deep: the header counts them" grep -qE '^# chains: [0-9]+ of [0-9]+ cut short by the stack copy' deep.txt
# A sample in the kernel (here: a page fault at fault_first's first
# instruction) starts its user chain at the interrupted address, not a
# return address: before_fault, the function whose last byte precedes
# it, is never run and must never be named.
for m in fp dwarf; do
	"$EBS" record -q --call-graph $m -e cpu-clock -F 2000 -o fault-$m.data "$WORKLOADS/unwind" fault 0.4
	"$EBS" report -i fault-$m.data --children --json >fault-$m.json
	read -r c s n < <(inclusive fault_first fault-$m.json)
	check "$m, a fault at a function's first byte: fault_first on the stack in >= 50% ($c of $n), before_fault nowhere" \
		jtrue fault-$m.json "$c * 2 >= $n and not [r for r in j['rows'] if r['function'] == 'before_fault']"
	"$EBS" report -i fault-$m.data --callers fault_first --json >fault-callers-$m.json
	check "$m, fault: fault_first's caller is fault_loop in >= 99%" \
		jtrue fault-callers-$m.json "[c['percent'] for c in j['callers'] if c['function'] == 'fault_loop'][0] >= 99"
done
# A frame-pointer walk gone astray (unwind badfp: rbp points at a fake
# frame whose return address is 0x0fdd00007f000001, then 0x200, as rbp
# holding data in code built without frame pointers): ebs cuts the chain
# there, [truncated], and names no such address; the caller CFI finds is kept
"$EBS" record -q -g -e cpu-clock -F 2000 -o badfp.data "$WORKLOADS/unwind" badfp 0.5
"$EBS" report -i badfp.data --children --json >badfp.json
"$EBS" report -i badfp.data --stats --json >badfp-stats.json
keep badfp.json
read -r c s n < <(inclusive '[truncated]' badfp.json)
read -r cl sl nl < <(inclusive badfp_loop badfp.json)
check "fp, a walk into an impossible address: cut there, [truncated] in >= 90% ($c of $n), badfp_loop from CFI in >= 90% ($cl)" \
	[ $((c * 10)) -ge $((n * 9)) -a $((cl * 10)) -ge $((n * 9)) ]
check "fp, impossible addresses: no row names one (>= 2^56 or in page 0), --stats counts the cut chains ($(json badfp-stats.json "j['chains']['impossible']"))" \
	jtrue badfp.json "not [r for r in j['rows'] if r['function'].startswith('[unknown] 0x') and not 4096 <= int(r['function'].split('0x')[1], 16) < 2 ** 56] and json.load(open('badfp-stats.json'))['chains']['impossible'] >= $c"
# Past code without CFI (unwind nocfi: nocfi_spin, rbp at fake frames whose
# return addresses are a stack address and the word "ebsjunk", below 2^56),
# libunwind guesses the caller through rbp, as the kernel's -g walk does:
# such words are no callers.  dwarf: the chain stops at nocfi_spin, counted
# as stopped at code without CFI; fp: cut there, [truncated].  No caller
# may be an address outside the process's mappings ([unknown]): the
# callers are a chain's user frames after its first, the sample's own user
# address, which a sample in execve takes from the image exec replaced.
for m in dwarf fp; do
	"$EBS" record -q --call-graph $m -e cpu-clock -F 2000 -o nocfi-$m.data "$WORKLOADS/unwind" nocfi 0.4
	"$EBS" report -i nocfi-$m.data --children --json >nocfi-$m.json
	"$EBS" report -i nocfi-$m.data --stats --json >nocfi-stats-$m.json
	"$EBS" script -i nocfi-$m.data -F ip,sym,dso >nocfi-$m.txt
	keep nocfi-$m.json
	read -r c s n < <(inclusive nocfi_spin nocfi-$m.json)
	enough "$m, nocfi" "$n" 200 || continue
	bad=$(python3 -c '
import os, sys
sys.path.insert(0, os.path.join(os.environ["TOP"], "tests", "tools"))
from perfchains import chains
print(sum(f[2] == "[unknown]" for c in chains(sys.argv[1], False)
          for f in [f for f in c if f[1] != "[kernel]"][1:]))' nocfi-$m.txt 2>&1)
	check "$m, past code without CFI: nocfi_spin in >= 90% ($c of $n), no caller outside the mappings ($bad)" \
		eval '[ $((c * 10)) -ge $((n * 9)) ] && [ "$bad" = 0 ]'
	k=no_cfi
	[ $m = fp ] && k=impossible
	check "$m, nocfi: --stats counts the chains ended there as $k ($(json nocfi-stats-$m.json "j['chains']['$k']") of $c)" \
		jtrue nocfi-stats-$m.json "j['chains']['$k'] >= $c"
done
"$EBS" record -q --call-graph dwarf -e cpu-clock -F 2000 -o strip.data "$WORKLOADS/calltree-stripped" 1
"$EBS" report -i strip.data --tree --json --min-percent 0 >strip.json
keep strip.json
check "stripped (no symbols, .eh_frame kept): unwound through its FDEs to libc" \
	find_path strip.json __libc_start_call_main '[unknown] calltree-stripped+0x'"$(nm "$WORKLOADS/calltree-nofp" | awk '$3 == "main" {sub(/^0+/, "", $1); print $1}')"
"$EBS" report -i strip.data --json >stripflat.json
check "stripped: the flat report has one row per function (FDE), tree_leaf's start" \
	jtrue stripflat.json "j['rows'][0]['function'] == '[unknown] calltree-stripped+0x$(nm "$WORKLOADS/calltree-nofp" | awk '$3 == "tree_leaf" {sub(/^0+/, "", $1); print $1}')'"

# neither symbols nor CFI (calltree-bare, frame pointers kept): a caller is
# named by its return address as recorded, as perf shows it, the
# instruction after a call (ebs looks up the address before it, the call)
"$EBS" record -q -g -e cpu-clock -F 2000 -o bare.data "$WORKLOADS/calltree-bare" 0.5
"$EBS" report -i bare.data --children --json >bare.json
keep bare.json
objdump -d --no-show-raw-insn "$WORKLOADS/calltree-bare" >bare.asm
python3 - bare.json bare.asm <<'PY' >bare.out
import json, re, sys
j = json.load(open(sys.argv[1]))
after_call, prev = set(), None
for line in open(sys.argv[2]):
    m = re.match(r'\s*([0-9a-f]+):\s+(\S+)', line)
    if m:
        if prev == 'call':
            after_call.add(int(m.group(1), 16))
        prev = m.group(2)
callers = [int(r['function'].rsplit('+0x', 1)[1], 16) for r in j['rows']
           if r['function'].startswith('[unknown] calltree-bare+0x') and r['self'] == 0]
bad = [hex(a) for a in callers if a not in after_call]
print('%d caller rows, %d not after a call %s' % (len(callers), len(bad), ' '.join(bad[:5])))
PY
check "no symbols, no CFI: callers named by their return address, after a call ($(cat bare.out))" \
	grep -Eq '^([2-9]|[1-9][0-9]+) caller rows, 0 not after a call' bare.out

# ---- CFI in .debug_frame only (-fno-asynchronous-unwind-tables), in the file and in a
# separate debug file: libdwarf reads it, ebs gives it to libunwind as .eh_frame ----------
df_check() {	# NAME BINARY
	local name=$1 bin=$2
	"$EBS" record -q --call-graph dwarf -e cpu-clock -F 2000 -o "$name.data" "$bin" 1.5
	"$EBS" report -i "$name.data" --children --json >"$name.json"
	tree_shares "$name" "$name.json"
	read -r c s n < <(inclusive main "$name.json")
	check "$name: unwound to main ($c of $n)" [ $((c * 100)) -ge $((n * 90)) ]
}
DF=$WORKLOADS/calltree-debugframe
check ".debug_frame workload: its functions have no .eh_frame FDE" \
	not bash -c "readelf --debug-dump=frames-interp '$DF' 2>/dev/null | sed -n '/Contents of the .eh_frame/,/Contents of the .debug_frame/p' | grep -q 'pc=0*$(nm "$DF" | awk '$3 == "tree_leaf" {print $1}' | sed 's/^0*//')'"
df_check debug_frame "$DF"
mkdir -p split
cp "$DF" split/ctdf
objcopy --only-keep-debug split/ctdf split/ctdf.debug
objcopy --strip-debug --add-gnu-debuglink=split/ctdf.debug split/ctdf
check "split: the binary has no .debug_frame, its debug file has" \
	bash -c "! readelf -S split/ctdf | grep -q debug_frame && readelf -S split/ctdf.debug | grep -q debug_frame"
df_check "debug_frame in a separate debug file" split/ctdf

# ---- report --stats: how the chains came out -------------------------------------------
"$EBS" report -i fp.data --stats --json >fpstats.json
check "--stats, fp: leaf callers put back in most samples" \
	jtrue fpstats.json "j['chains']['leaf_recovered'] * 10 >= j['samples'] * 9 and j['chains']['leaf_checked'] >= j['chains']['leaf_recovered']"
"$EBS" report -i fp.data --stats --no-pager >fpstats.txt
check "--stats, fp: one line saying so" \
	grep -qE '^# call chains \(fp,512\): [0-9]+ samples with one, [0-9.]+ frames each on average; a frameless leaf.s caller put back from its CFI in [0-9]+' fpstats.txt
# --stats counts how the chains came out; the table stays the flat one
"$EBS" report -i fp.data --json >fpflat.json
check "--stats without --children: the flat table, no self or children in the rows" \
	jtrue fpstats.json "all('self' not in r and 'children' not in r for r in j['rows']) and 'call_graph' not in j and [(r['function'], r['samples']) for r in j['rows']] == [(r['function'], r['samples']) for r in json.load(open('fpflat.json'))['rows']]"
check "--stats without --children, text: no self column, no call-graph line" \
	bash -c "grep -qE '^#  samples  percent  95% interval    function' fpstats.txt && ! grep -q '^# call graph:' fpstats.txt"
"$EBS" report -i deep.data --stats --json >deepstats.json
check "--stats, dwarf deep: truncated counted" jtrue deepstats.json "j['chains']['truncated'] * 10 >= j['samples'] * 9"
"$EBS" report -i flat.data --stats --json >flatstats.json
check "--stats without chains: no chains member" jtrue flatstats.json "'chains' not in j"

# ---- through shared libraries: one linked (libebshot.so), one dlopen()ed (libebsdl.so) --
for mode in fp dwarf; do
	"$EBS" record -q --call-graph $mode -e cpu-clock -F 2000 -o sh-$mode.data "$WORKLOADS/shlib" 0.5
	for f in shlib_hot dl_hot; do
		"$EBS" report -i sh-$mode.data --callers $f --json >sh-$mode-$f.json
		check "$mode: $f (in a shared library, a leaf) is called from main in >= 99%" \
			jtrue sh-$mode-$f.json "[c['percent'] for c in j['callers'] if c['function'] == 'main'][0] >= 99"
	done
done

# ---- folded stacks: as many samples as the report --------------------------------------
for f in fp dw flat deep; do
	"$EBS" export -i $f.data --format folded >$f.folded
	check "export --format folded of $f.data: the counts add up to the report's samples" \
		[ "$(awk '{n += $NF} END {print n + 0}' $f.folded)" = "$(json <("$EBS" report -i $f.data --json) "j['samples']")" ]
done
check "folded: root first (__libc_start_call_main;main;tree_a;tree_left;tree_leaf)" \
	grep -q '^__libc_start_call_main;main;tree_a;tree_left;tree_leaf [0-9]*$' fp.folded
check "folded: a cut chain starts at [truncated]" grep -q '^\[truncated\];recurse;' deep.folded

# ---- kernel chains: a caller named by the byte before its return address -------------
# A caller's return address is looked up one byte back, inside its call,
# in the kernel as in user space: after a noreturn call that ends a
# function (x86_64_start_reservations ends calling start_kernel, on the
# boot CPU's idle chain) it is the next function's first byte.  Of an
# -a -g recording (the idle tasks' chains, sysloop's system calls), every
# kernel frame that /proc/kallsyms names (the sampled address, a caller's
# return address less one) must be named so in script: that symbol's
# start at the shown offset; and report --children has no [unknown]
# [kernel]+0xOFF row whose address kallsyms names, or the byte before it.
# (The recorder kept in the file only the symbols of the return addresses
# themselves: such a caller was [unknown] [kernel]+0xOFF, where perf says
# __pfx_clear_bss+0x0.)  Except when the byte before is a function's
# padding (__pfx_NAME, __cfi_NAME), which holds no call: the address is
# NAME's entry, which a retpoline thunk put there to jump to it, and is
# NAME+0x0 (a SAN run: native_set_pte+0x0, not __pfx_native_set_pte+0x10).
if [ "$(awk 'NR == 1 {print $1; exit}' /proc/kallsyms)" = 0000000000000000 ]; then
	skip "kernel chains" "/proc/kallsyms shows zero addresses to this user"
elif ! record kc.data -a -g -e cpu-clock -F 1000 -- "$WORKLOADS/sysloop" 0.4; then
	skip "kernel chains" "record -a -g: $(tail -n 1 kc.data.err)"
else
	"$EBS" script -i kc.data >kc.script 2>kc.err
	"$EBS" report -i kc.data --children --json >kc.json 2>>kc.err
	keep kc.script
	python3 - /proc/kallsyms kc.script kc.json >kc.out <<'PY'
import bisect, json, re, sys
names, stext = {}, None	# kallsyms: start -> its names; _stext
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) >= 3 and f[1] in 'tTwW' and int(f[0], 16):
        names.setdefault(int(f[0], 16), set()).add(f[2])
        if f[2] == '_stext' and stext is None:
            stext = int(f[0], 16)
starts = sorted(names)
def start_of(a):	# kallsyms' symbol covering a: up to the next; the last 4096 bytes
    i = bisect.bisect_right(starts, a)
    if i == 0 or (i == len(starts) and a - starts[-1] >= 4096):
        return None
    return starts[i - 1]
frames = wrong = first_byte = padding = 0
bad, pos = [], 0
for line in open(sys.argv[2]):
    if not line.startswith('\t'):
        pos = 0
        continue
    m = re.match(r'\t\s*([0-9a-f]+) (\S+) \(', line)
    if not m:
        continue
    a, shown, p = int(m.group(1), 16), m.group(2), pos
    pos += 1
    if a < 1 << 63:
        continue
    look = a - 1 if p else a	# a caller: the byte before its return address
    s = start_of(look)
    if s is None:
        continue
    frames += 1
    first_byte += p > 0 and start_of(a) != s
    # but not padding before a function (a retpoline's jump to it): a
    # caller's return address there is named by its own symbol
    if p and start_of(a) not in (s, None) and \
            any(x.startswith(('__pfx_', '__cfi_')) for x in names[s]):
        s = start_of(a)
        padding += 1
    n = re.match(r'(.*)\+0x([0-9a-f]+)$', shown)
    if not n or n.group(1) not in names[s] or a - int(n.group(2), 16) != s:
        wrong += 1
        if len(bad) < 3:
            bad.append('%x %s, kallsyms %s+0x%x' % (a, shown, sorted(names[s])[0], a - s))
for r in json.load(open(sys.argv[3]))['rows']:
    m = re.match(r'\[unknown\] \[kernel\]\+0x([0-9a-f]+)$', r['function'])
    if m and stext and (start_of(stext + int(m.group(1), 16)) is not None or
                        start_of(stext + int(m.group(1), 16) - 1) is not None):
        wrong += 1
        bad.append('report: ' + r['function'])
print(frames, wrong, first_byte, padding, '; '.join(bad))
PY
	read -r frames wrong first_byte padding rest <kc.out
	check "kernel chains: $frames frames named as kallsyms names them, $first_byte of them callers whose return address is another function's first byte, $padding of those after padding (wrong: ${wrong:-?} ${rest:-})" \
		[ "${frames:-0}" -gt 0 -a "${wrong:-1}" = 0 ]
fi
