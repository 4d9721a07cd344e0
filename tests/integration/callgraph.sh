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
check "fp: tree_leaf's self is nearly all its children (a leaf; the rest the kernel's: $s of $c)" \
	[ "$s" -le "$c" -a $((s * 100)) -ge $((c * 98)) ]
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

# ---- a recording without chains --------------------------------------------------------
record flat.data -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.2
"$EBS" report -i flat.data --children --no-pager >flat.txt
check "no chains: the header says so" grep -q '^# call graph: none recorded' flat.txt
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
check "bad input: no file written" [ ! -e bad.data ]
expect "--children --sort line" 2 "^ebs report: --children counts functions: it goes with --sort func" \
	"$EBS" report -i fp.data --children --sort line

# ---- what is kept: fp,0 takes no stack; a larger dwarf SIZE is what the file says ------
record fp0.data --call-graph fp,0 -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.1
check "fp,0: chains without a stack copy" \
	bash -c "\"$EBS\" report -i fp0.data --dump | grep SAMPLE | grep ' chain ' | grep -vq ' stack '"
record dw16.data --call-graph dwarf,16384 -e cpu-clock -F 1000 "$WORKLOADS/calltree-nofp" 0.1
check "dwarf,16384: in the file" grep -qx '# call-graph: dwarf,16384' <("$EBS" report -i dw16.data --dump)
