#!/usr/bin/env bash
# flamegraph.sh - ebs flamegraph on the calltree workload, whose call tree
# and inclusive shares are known (see callgraph.sh):
#
#   main -> tree_a -> tree_left  -> tree_leaf   2/3 of the work
#                  -> tree_right -> tree_leaf   1/3
#
# The SVG is read two ways: as XML (python's xml.etree: every frame's
# data-n, data-x, data-d and its rect), held against ebs report's counts;
# and in headless Chromium (tests/tools/browse.py), where real mouse and
# keyboard events hover, zoom and search, and no script error may occur.
. "$(dirname "$0")/../lib.sh"

# facts SVG: the SVG's frames as JSON in SVG.json, or false when it is not
# well-formed XML.  j['frames'][i]: name, dso, kind, n, x, d, y, w (the
# rect's width), text (its label), title; j['root'] is the frame at depth 0;
# j['bad'] the frames with fewer samples than their children together;
# j['kids'][NAME]: the children of the widest frame NAME, widest first.
FACTS_PY='
import json, sys, xml.etree.ElementTree as ET
S = "{http://www.w3.org/2000/svg}"
try:
    svg = ET.parse(sys.argv[1]).getroot()
except ET.ParseError as e:
    sys.exit("not well-formed: %s" % e)
fr = []
for g in svg.iter(S + "g"):
    if g.get("class") != "f":
        continue
    r, t = g.find(S + "rect"), g.find(S + "text")
    fr.append(dict(name=g.get("data-name"), dso=g.get("data-dso"), kind=g.get("data-kind"),
                   n=int(g.get("data-n")), x=int(g.get("data-x")), d=int(g.get("data-d")),
                   y=float(r.get("y")), w=float(r.get("width")), fill=r.get("fill"),
                   text=t.text or "", title=g.find(S + "title").text))
def kids(p):
    return [f for f in fr if f["d"] == p["d"] + 1 and p["x"] <= f["x"] and f["x"] + f["n"] <= p["x"] + p["n"]]
roots = [f for f in fr if f["d"] == 0]
j = dict(width=int(svg.get("width")), title=svg.find(S + "title").text,
         texts={t.get("id"): "".join(t.itertext()) for t in svg.iter(S + "text") if t.get("id")},
         frames=fr, roots=len(roots), root=roots[0] if roots else None,
         bad=[f["name"] for f in fr if f["n"] < sum(k["n"] for k in kids(f))],
         maxd=max(f["d"] for f in fr), kids={})
for f in sorted(fr, key=lambda f: f["n"]):
    j["kids"][f["name"]] = [k["name"] for k in sorted(kids(f), key=lambda k: -k["w"])]
json.dump(j, open(sys.argv[1] + ".json", "w"))
'
facts() { python3 -c "$FACTS_PY" "$1" 2>"$1.err"; }

# oracle SVG FOLDED [reverse]: the frames of SVG (its SVG.json from facts)
# are those of a tree built here from ebs export's folded stacks, merged by
# name and pruned below 0.1% of the samples, each with its samples; and the
# note's hidden samples are the pruned ones.  Prints what differs.
ORACLE_PY='
import json, sys
j = json.load(open(sys.argv[1]))
rev = len(sys.argv) > 3
tree, total = {}, 0
for line in open(sys.argv[2]):
    stack, n = line.rsplit(" ", 1)
    n = int(n)
    total += n
    names = stack.split(";")
    if rev:
        names.reverse()
    for i in range(1, len(names) + 1):
        k = tuple(names[:i])
        tree[k] = tree.get(k, 0) + n
want = {k: n for k, n in tree.items() if all(tree[k[:i]] * 1000 >= total for i in range(1, len(k) + 1))}
hidden = sum(n for k, n in tree.items() if k not in want and k[:-1] in want or (len(k) == 1 and k not in want))
fr = sorted(j["frames"], key=lambda f: f["d"])
path = {}
for f in fr:
    if f["d"] == 0:
        path[id(f)] = ()
        continue
    p = [q for q in fr if q["d"] == f["d"] - 1 and q["x"] <= f["x"] and f["x"] + f["n"] <= q["x"] + q["n"]]
    path[id(f)] = (path[id(p[0])] if p else ("?",)) + (f["name"],)
got = {path[id(f)]: f["n"] for f in fr if f["d"]}
bad = ["%s: svg %s, folded %s" % (";".join(k), got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)]
note = j["texts"].get("subtitle", "")
if hidden and ("holding %d samples" % hidden) not in note:
    bad.append("note %r, want %d samples hidden" % (note, hidden))
if not hidden and "not drawn" in note:
    bad.append("note %r, nothing hidden" % note)
print("; ".join(bad[:3]) or "ok %d frames, %d samples hidden" % (len(got), hidden))
sys.exit(1 if bad else 0)
'
oracle() { python3 -c "$ORACLE_PY" "$@"; }

# dsos SVG.json TREE.json: the DSO each frame of the SVG names is that of
# report --tree's nodes on the same path of names, or 'several DSOs' where
# they are in more than one (ld.so's _start and the program's).
DSOS_PY='
import json, sys
j = json.load(open(sys.argv[1]))
t = json.load(open(sys.argv[2]))["tree"]
path = {}
want = {}
for n in t:
    p = (path[n["parent"]] if n["parent"] >= 0 else ()) + (n["function"],)
    path[n["id"]] = p
    want.setdefault(p, set()).add(n["dso"])
fr = sorted(j["frames"], key=lambda f: f["d"])
fpath, bad, several = {}, [], 0
for f in fr:
    if f["d"] == 0:
        fpath[id(f)] = ()
        continue
    q = [g for g in fr if g["d"] == f["d"] - 1 and g["x"] <= f["x"] and f["x"] + f["n"] <= g["x"] + g["n"]]
    p = (fpath[id(q[0])] if q else ("?",)) + (f["name"],)
    fpath[id(f)] = p
    w = want.get(p, set())
    exp = "several DSOs" if len(w) > 1 else next(iter(w), None)
    several += exp == "several DSOs"
    if f["dso"] != exp:
        bad.append("%s: %r, want %r" % (";".join(p), f["dso"], exp))
print("; ".join(bad[:3]) or "ok, %d of several DSOs" % several)
sys.exit(1 if bad else 0)
'
dsos() { python3 -c "$DSOS_PY" "$@"; }

# inclusive NAME JSON: "children samples" of function NAME in a report --children --json
inclusive() {
	json "$2" "'%d %d' % (sum(r['children'] for r in j['rows'] if r['function'] == '$1'), j['samples'])"
}

# shape MODE DATA: the flame graph of a -g recording of calltree against report
shape() {
	local mode=$1 data=$2 n l tot
	"$EBS" flamegraph -i "$data" -o "$mode.svg" 2>"$mode.fg.err"
	check "$mode: exit status 0, nothing on stderr" [ $? -eq 0 -a ! -s "$mode.fg.err" ]
	keep "$mode.svg"
	if ! facts "$mode.svg"; then
		fail "$mode: the SVG is well-formed XML" "$(cat "$mode.svg.err")"
		return 1
	fi
	pass "$mode: the SVG is well-formed XML"
	"$EBS" report -i "$data" --children --json >"$mode.json"
	n=$(json "$mode.json" "j['samples']")
	check "$mode: one root, holding report's $n samples, at full width" \
		jtrue "$mode.svg.json" "j['roots'] == 1 and j['root']['n'] == $n and abs(j['root']['w'] - (j['width'] - 20)) < 0.01"
	check "$mode: every frame has at least its children's samples" jtrue "$mode.svg.json" "j['bad'] == []"
	check "$mode: every frame's width is its share of the root's (within 0.01 px)" jtrue "$mode.svg.json" \
		"all(abs(f['w'] - f['n'] * j['root']['w'] / j['root']['n']) < 0.01 for f in j['frames'] if f['d'])"
	check "$mode: the root at the bottom, callees above their callers" jtrue "$mode.svg.json" \
		"all(f['y'] < j['root']['y'] - 16 * (f['d'] - 1) for f in j['frames'] if f['d'])"
	"$EBS" export -i "$data" --format folded -o "$mode.folded"
	check "$mode: the frames and the hidden samples are those of export's folded stacks ($(oracle "$mode.svg.json" "$mode.folded"))" \
		oracle "$mode.svg.json" "$mode.folded"
	"$EBS" report -i "$data" --tree --json --min-percent 0 >"$mode.tree.json"
	check "$mode: each frame names its DSO, or 'several DSOs' where one name on that path is in several ($(dsos "$mode.svg.json" "$mode.tree.json"))" \
		dsos "$mode.svg.json" "$mode.tree.json"
	read -r l tot < <(inclusive tree_left "$mode.json")
	enough "$mode: tree_left's width" "$tot" 1000 || return 0
	check "$mode: the widest child of tree_a is tree_left ($(json "$mode.svg.json" "j['kids'].get('tree_a')"))" \
		jtrue "$mode.svg.json" "j['kids'].get('tree_a', [None])[0] == 'tree_left'"
	w=$(json "$mode.svg.json" "'%.4f' % (sum(f['w'] for f in j['frames'] if f['name'] == 'tree_left') / j['root']['w'])")
	check "$mode: tree_left's width share $w is report --children's $l of $tot within 0.01" \
		within "$w" "$(awk "BEGIN { print $l / $tot }")" 0.01
}

"$EBS" record -q -g -e cpu-clock -F 2000 -o fp.data "$WORKLOADS/calltree" 1.5 2>fp.data.err
check "-g recording" [ $? -eq 0 ]
shape fp fp.data
"$EBS" record -q --call-graph dwarf -e cpu-clock -F 2000 -o dw.data "$WORKLOADS/calltree-nofp" 1.5 2>dw.data.err
check "--call-graph dwarf recording" [ $? -eq 0 ]
shape dwarf dw.data

# ---- options: --reverse, --title, --width ------------------------------------------------
"$EBS" flamegraph -i fp.data -o rev.svg --reverse
if facts rev.svg; then
	keep rev.svg
	check "--reverse: the widest frame above the root is the leaf, tree_leaf" \
		jtrue rev.svg.json "j['kids']['all'][0] == 'tree_leaf'"
	check "--reverse: tree_leaf's callers below it, tree_left widest" \
		jtrue rev.svg.json "j['kids']['tree_leaf'][:2] == ['tree_left', 'tree_right']"
	check "--reverse: the root at the top, each level below the one before" jtrue rev.svg.json \
		"all(f['y'] == j['root']['y'] + 16 * f['d'] for f in j['frames'])"
	"$EBS" export -i fp.data --format folded -o fp.folded
	check "--reverse: the frames are those of export's folded stacks reversed ($(oracle rev.svg.json fp.folded reverse))" \
		oracle rev.svg.json fp.folded reverse
	check "--reverse: the root keeps all samples" jtrue rev.svg.json "j['root']['n'] == $(json fp.json "j['samples']")"
else
	fail "--reverse: well-formed" "$(cat rev.svg.err)"
fi
"$EBS" flamegraph -i fp.data -o opt.svg --title 'Calls <of> "tree" & co' --width 800
if facts opt.svg; then
	check "--title: the document's title and the one drawn" jtrue opt.svg.json \
		"j['title'] == j['texts']['title'] == 'Calls <of> \"tree\" & co'"
	check "--width 800: the SVG is 800 wide, the root 780" jtrue opt.svg.json \
		"j['width'] == 800 and abs(j['root']['w'] - 780) < 0.01"
else
	fail "--title, --width: well-formed" "$(cat opt.svg.err)"
fi
facts fp.svg
check "the default title: the file and the event" jtrue fp.svg.json "j['title'] == 'Flame graph of fp.data (cpu-clock)'"
check "labels fit their frames (7.2 px a character, 6 px of margin)" jtrue fp.svg.json \
	"all(len(f['text']) * 7.2 + 6 <= f['w'] + 0.01 for f in j['frames'] if f['text'])"
check "labels are the name, or its start and '..'" jtrue fp.svg.json \
	"all(f['text'] in ('', f['name']) or (f['text'].endswith('..') and f['name'].startswith(f['text'][:-2])) for f in j['frames'])"
# A frame without a DSO ([unknown], [truncated]) has no "(dso)": a chain the
# unwinder cut short under load gives one now and then.
check "frames say what they are: 'name (dso): N samples, P%', no '(dso)' without one" jtrue fp.svg.json \
	"all(f['title'] == '%s%s: %d sample%s, %.2f%%' % (f['name'], ' (%s)' % f['dso'] if f['dso'] else '', f['n'], '' if f['n'] == 1 else 's', 100 * f['n'] / j['root']['n']) for f in j['frames'] if f['d'])"
check "kernel frames are kernel-coloured (bluish), user ones not" jtrue fp.svg.json \
	"all((lambda r, g, b: (b > r) == (f['kind'] == 'kernel'))(*map(int, f['fill'][4:-1].split(','))) for f in j['frames'] if f['kind'] in ('user', 'kernel'))"

# ---- no call chains: one level above the root ---------------------------------------------
record flat.data -e cpu-clock -F 1000 "$WORKLOADS/calltree" 0.3
"$EBS" flamegraph -i flat.data -o flat.svg --no-inline
if facts flat.svg; then
	keep flat.svg
	check "no chains (--no-inline): one level above the root" jtrue flat.svg.json "j['maxd'] == 1"
	check "no chains: tree_leaf is there" jtrue flat.svg.json "'tree_leaf' in j['kids']['all']"
	check "no chains: the subtitle says so" jtrue flat.svg.json "'no call graph recorded' in j['texts']['subtitle']"
else
	fail "no chains: well-formed" "$(cat flat.svg.err)"
fi

# ---- no samples at all (a filter that lets none through): the root alone -------------------
"$EBS" flamegraph -i fp.data --pid 1 -o none.svg
if facts none.svg; then
	check "no samples: the root alone, with 0 samples" jtrue none.svg.json "j['maxd'] == 0 and j['root']['n'] == 0"
else
	fail "no samples: well-formed" "$(cat none.svg.err)"
fi

# ---- C++ names: <, >, & escaped -------------------------------------------------------------
if command -v g++ >/dev/null; then
	cat >cpp.cpp <<'EOF'
#include <map>
#include <utility>
template <typename T> struct box { T v; };
volatile unsigned long sink;
template <typename T> __attribute__((noinline)) void spin(const box<T> &b, unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink = sink + i + sizeof(b.v);
}
template <typename K> __attribute__((noinline)) bool operator&(const box<K> &a, int n)
{
	spin(a, (unsigned long)n);
	return true;
}
int main()
{
	box<std::map<int, std::pair<char, long> > > b{};
	for (int i = 0; i < 2000; i++)
		(void)(b & 200000);
}
EOF
	if g++ -O1 -g -fno-omit-frame-pointer -o cpp cpp.cpp 2>cpp.err &&
		record cpp.data -g -e cpu-clock -F 1000 ./cpp &&
		"$EBS" flamegraph -i cpp.data -o cpp.svg && facts cpp.svg; then
		keep cpp.svg
		check "C++: names with <, > and & survive the XML ($(json cpp.svg.json "[f['name'] for f in j['frames'] if '<' in f['name']][:1]"))" \
			jtrue cpp.svg.json "any('spin<std::map<int' in f['name'] for f in j['frames']) and any('operator&' in f['name'] for f in j['frames'])"
	else
		fail "C++: names with <, > and &" "$(cat cpp.err cpp.data.err cpp.svg.err 2>/dev/null | head -n 3)"
	fi
else
	skip "C++: names with <, > and &" "g++ is not installed"
fi

# ---- in Chromium: no script errors; hover, zoom, reset, search --------------------------
if ! command -v chromium >/dev/null; then
	EBS_DEPS_EXTRA=chromium "$TOP/scripts/deps.sh" >deps.out 2>&1
fi
BROWSE="$TOP/tests/tools/browse.py"
if ! command -v chromium >/dev/null; then
	skip "in Chromium" "chromium is not installed and could not be ($(tail -n 1 deps.out))"
else
	LEFT="document.querySelector('g.f[data-name=\"tree_left\"] rect')"
	H=$(grep -o 'height="[0-9]*"' fp.svg | head -n 1 | tr -dc 0-9)
	cat >fp.actions <<EOF
size 1200 $H
shot fp-plain.png
eval $LEFT.getAttribute('width')
hover $LEFT
eval document.getElementById('details').textContent
click $LEFT
eval [$LEFT.getAttribute('width'), document.querySelector('g.f[data-d="0"] rect').getAttribute('width')]
eval [].slice.call(document.querySelectorAll('g.f[data-name="tree_right"]')).every(function (g) { return getComputedStyle(g).display == 'none'; })
eval [].slice.call(document.querySelectorAll('g.f[data-name="tree_a"] rect')).map(function (r) { return r.getAttribute('width'); })
shot fp-zoomed.png
click document.getElementById('reset')
eval $LEFT.getAttribute('width')
eval document.querySelectorAll('g.f.hide').length
click document.getElementById('search')
type tree_leaf
eval document.getElementById('matched').textContent
eval document.querySelectorAll('g.f.match').length
shot fp-search.png
EOF
	if ! python3 "$BROWSE" fp.svg <fp.actions >fp.browse 2>browse.err; then
		fail "in Chromium: the SVG loads and the actions run" "$(head -n 1 browse.err)"
	else
		keep fp.browse
		for p in fp-plain.png fp-zoomed.png fp-search.png; do keep $p; done
		# act N: the result of the Nth action (from 1)
		act() { sed -n "${1}p" fp.browse | cut -f 2-; }
		w0=$(act 3 | tr -d '"')
		check "in Chromium: no exception, no console error ($(grep '^errors' fp.browse | cut -f 2-))" [ "$(grep '^errors' fp.browse)" = "$(printf 'errors\t[]')" ]
		check "in Chromium: no request leaves the SVG ($(grep '^requests' fp.browse | cut -f 2-))" [ "$(grep '^requests' fp.browse)" = "$(printf 'requests\t[]')" ]
		check "in Chromium: hover puts the frame in the status line ($(act 5))" \
			grep -q '^"tree_left (calltree): [0-9]* samples, [0-9.]*%"$' <(act 5)
		check "in Chromium: a click on tree_left makes it as wide as the root ($(act 7))" \
			python3 -c 'import json,sys; w, r = map(float, json.loads(sys.argv[1])); sys.exit(not (abs(w - r) < 0.01 and w > float(sys.argv[2]) + 100))' "$(act 7)" "$w0"
		check "in Chromium: zoomed, tree_right (a sibling's subtree) is hidden" [ "$(act 8)" = true ]
		check "in Chromium: zoomed, tree_a (an ancestor) stays at full width ($(act 9))" [ "$(act 9)" = '["1180.00"]' ]
		check "in Chromium: reset gives tree_left its width back ($(act 12) = $w0)" \
			within "$(act 12 | tr -d '"')" "$w0" 0.01
		check "in Chromium: reset shows every frame again" [ "$(act 13)" = 0 ]
		read -r c tot < <(inclusive tree_leaf fp.json)
		m=$(act 16 | grep -o '[0-9.]*%' | tr -d %)
		check "in Chromium: search tree_leaf: '$(act 16)' is report --children's $c of $tot within 0.5 points" \
			within "${m:-nan}" "$(awk "BEGIN { print 100 * $c / $tot }")" 0.5
		check "in Chromium: search highlights both tree_leaf frames" [ "$(act 17)" = 2 ]
		check "in Chromium: screenshots taken" sh -c '[ "$(head -c 4 fp-search.png | tail -c 3)" = PNG ]'
	fi
	# recursion: a search matching frames nested in each other counts each sample once
	cat >rec.actions <<'EOF'
eval window.ebsFlame.search('^(tree_a|tree_left|tree_leaf|main)$'); document.getElementById('matched').textContent
eval window.ebsFlame.search('tree_'); document.getElementById('matched').textContent
eval window.ebsFlame.search('('); document.getElementById('matched').textContent
EOF
	if python3 "$BROWSE" fp.svg <rec.actions >rec.browse 2>browse.err; then
		read -r c tot < <(inclusive main fp.json)
		m=$(sed -n 1p rec.browse | grep -o '[0-9.]*%' | tr -d %)
		check "search over nested matches counts each sample once: $m% is main's inclusive share" \
			within "${m:-nan}" "$(awk "BEGIN { print 100 * $c / $tot }")" 0.5
		check "search: a bad regex is said, not thrown ($(sed -n 3p rec.browse))" \
			sh -c "sed -n 3p rec.browse | grep -q 'Not a regular expression' && grep -qx 'errors.\[\]' rec.browse"
	else
		fail "search over nested matches" "$(head -n 1 browse.err)"
	fi
	H=$(grep -o 'height="[0-9]*"' rev.svg | head -n 1 | tr -dc 0-9)
	printf 'size 1200 %s\nshot rev.png\n' "$H" | python3 "$BROWSE" rev.svg >rev.browse 2>browse.err
	check "in Chromium: --reverse loads without errors" grep -qx 'errors.\[\]' rev.browse
	keep rev.png
fi

# ---- bad input (exit 2) and an output not written (exit 1): one line naming the file or
# option, nothing written
rm -f bad.svg
expect "missing input file" 2 "^ebs flamegraph: nope.data: No such file" \
	"$EBS" flamegraph -i nope.data -o bad.svg
expect "-o into a missing directory: exit 1 (the system's)" 1 "^ebs flamegraph: nodir/bad.svg: cannot write: No such file or directory$" \
	"$EBS" flamegraph -i fp.data -o nodir/bad.svg
expect "--width 0" 2 "^ebs flamegraph: --width wants a whole number from 200 .*, not '0'$" \
	"$EBS" flamegraph -i fp.data -o bad.svg --width 0
expect "no -o" 2 "^ebs flamegraph: where to\? -o OUT.svg$" "$EBS" flamegraph -i fp.data
printf 'EBS\0garbage' >garbage.data
expect "a file that is not ebs data" 2 "^ebs flamegraph: garbage.data" \
	"$EBS" flamegraph -i garbage.data -o bad.svg
check "bad input: no file under the output name, no temporary left" \
	sh -c '[ ! -e bad.svg ] && [ -z "$(ls -A | grep "\.tmp\.")" ]'
# a write that fails midway (past RLIMIT_FSIZE: EFBIG, as a full disk gives
# ENOSPC) leaves the old file as it was and no temporary
echo old >big.svg
expect "a write that fails midway: exit 1" 1 "^ebs flamegraph: big.svg: write failed: File too large$" \
	bash -c "trap '' XFSZ; ulimit -f 4; exec \"$EBS\" flamegraph -i fp.data -o big.svg"
check "a failed write: the old file kept, no temporary left" \
	sh -c '[ "$(cat big.svg)" = old ] && [ -z "$(ls -A | grep "\.tmp\.")" ]'
if [ -w /dev/full ]; then
	expect "a full disk: standard output: exit 1" 1 "^ebs flamegraph: standard output: write failed" \
		sh -c "\"$EBS\" flamegraph -i fp.data -o - >/dev/full"
fi
