#!/usr/bin/env bash
# view-data.sh - the data of ebs view's page (docs/view.md), taken out of
# the page with python and recounted over the whole recording, against the
# commands whose numbers the page shows: the self samples of each function
# (ebs report --json), their inclusive samples (--children --json), the
# call tree (--tree --json), a function's lines (ebs annotate FUNC), two
# recordings' rows (ebs diff --json), and the time buckets (ebs script's
# times, bucketed by the design's rule).  Then what the page must never
# do: let a recorded name end its <script> element; be written through a
# link, into another user's file, or half; be written at all for a
# recording with no samples or an unreadable input.  The browser's side
# is tests/integration/view.sh's.
. "$(dirname "$0")/../lib.sh"

if ! command -v python3 >/dev/null; then
	skip "all" "python3 is not installed"
	exit 0
fi
MKDATA=$(dirname "$EBS")/tests/tools/mkdata

# The checker: page.py PAGE CMD ARGS... (each command prints what differs,
# nothing when all agrees, and exits 1 then).
cat >page.py <<'PY'
import collections, json, re, subprocess, sys
from viewcheck import annotate_lines  # tests/tools, on PYTHONPATH

EBS = sys.argv[1]

def page(path):
    s = open(path, encoding="utf-8").read()
    m = re.search(r'<script id="ebs-data" type="application/json">(.*?)</script>', s, re.S)
    return s, json.loads(m.group(1))

def ins(data):  # data: the recordings, then options: -i before each recording
    k = next((i for i, d in enumerate(data) if d.startswith("-")), len(data))
    return [a for d in data[:k] for a in ("-i", d)] + list(data[k:])

def run(*args):
    return subprocess.run([EBS, *args], check=True, capture_output=True, text=True).stdout

class Page:
    def __init__(self, path):
        self.text, d = page(path)
        self.d = d
        self.nodes = [(d["nodes"][2 * i], d["nodes"][2 * i + 1]) for i in range(len(d["nodes"]) // 2)]
        self.sites = [(d["sites"][2 * i], d["sites"][2 * i + 1]) for i in range(len(d["sites"]) // 2)]
        self.stacks = [(d["stacks"][2 * i], d["stacks"][2 * i + 1]) for i in range(len(d["stacks"]) // 2)]
        s = d["samples"]
        self.entries = []
        for b in range(d["nbuckets"]):
            for i in range(s["bucket_start"][b], s["bucket_start"][b + 1]):
                self.entries.append((b, s["thread"][i], s["event"][i], s["stack"][i], s["count"][i]))
        assert s["bucket_start"][-1] == len(s["count"]), "bucket_start ends at the columns' end"

    def fname(self, f):
        name, dso, _ = self.d["funcs"][f]
        return (name, self.d["dsos"][dso][0])

    def path(self, node):  # functions from the outermost in
        p = []
        while node >= 0:
            parent, f = self.nodes[node]
            p.append(f)
            node = parent
        return p[::-1]

    def chosen(self, event=0, recording=None):
        for b, t, e, st, n in self.entries:
            if e == event and (recording is None or self.d["threads"][t][0] == recording):
                yield b, t, st, n

def differ(what, want, got):
    bad = [(k, want.get(k), got.get(k)) for k in sorted(set(want) | set(got), key=str)
           if want.get(k, 0) != got.get(k, 0)]
    for k, w, g in bad[:10]:
        print("%s %s: the command says %s, the page %s" % (what, k, w, g))
    return not bad

def check_report(p, data):
    rows = collections.Counter()
    for r in json.loads(run("report", *ins(data), "--json", "-n", "0"))["rows"]:
        rows[(r["function"], r["dso"])] += r["samples"]
    self_ = collections.Counter()
    for b, t, st, n in p.chosen():
        self_[p.fname(p.nodes[p.stacks[st][0]][1])] += n
    return differ("self", dict(rows), dict(self_))

def check_children(p, data):
    want_t, want_s = {}, {}
    for r in json.loads(run("report", *ins(data), "--children", "--json", "-n", "0"))["rows"]:
        want_t[(r["function"], r["dso"])] = r["samples"]
        want_s[(r["function"], r["dso"])] = r["self"]
    tot, own = collections.Counter(), collections.Counter()
    for b, t, st, n in p.chosen():
        path = p.path(p.stacks[st][0])
        for f in set(p.fname(f) for f in path):
            tot[f] += n
        own[p.fname(path[-1])] += n
    return differ("children", want_t, dict(tot)) & differ("children self", want_s, dict(own))

def check_tree(p, data):
    want, ids = {}, {}
    for r in json.loads(run("report", *ins(data), "--tree", "--min-percent", "0", "--json", "-n", "0"))["tree"]:
        key = ids.get(r["parent"], ()) + ((r["function"], r["dso"]),)
        ids[r["id"]] = key
        want[key] = (r["samples"], r["self"])
    got = collections.defaultdict(lambda: [0, 0])
    for b, t, st, n in p.chosen():
        path = tuple(p.fname(f) for f in p.path(p.stacks[st][0]))
        for i in range(1, len(path) + 1):
            got[path[:i]][0] += n
        got[path][1] += n
    return differ("tree node", want, {k: tuple(v) for k, v in got.items()})

def check_annotate(p, data, nfuncs):
    ok, done = True, 0
    count = collections.Counter()
    for b, t, st, n in p.chosen():
        count[p.stacks[st][1]] += n
    hot = sorted(((sum(count[s] for s in set(a["map"][0::3])), int(k)) for k, a in p.d["annotate"].items()), reverse=True)
    for _, f in hot[:nfuncs]:
        a = p.d["annotate"][str(f)]
        name = p.d["funcs"][f][0]
        # the sampled lines as viewcheck.py reads the listing (with the
        # source, or its instructions under each line), by line alone
        want = collections.Counter()
        for (_, line), n in annotate_lines(run("annotate", *ins(data), name)).items():
            want[line] += n
        got = collections.Counter()
        m = a["map"]
        for i in range(0, len(m), 3):
            if m[i + 1] >= 0 and count[m[i]]:
                got[a["lines"][m[i + 1]][1]] += count[m[i]]
        ok &= differ("annotate %s line" % name, dict(want), dict(got))
        if a["asm"]:  # the instructions, as annotate --asm counts them
            want = collections.Counter()
            for line in run("annotate", *ins(data), "--asm", name).splitlines():
                m = re.match(r"^\s+(\d+)\s+[\d.]+\s+[\d.]+\s+(?:\d+\s+)?([0-9a-f]+):  ", line)
                if m:
                    want[int(m.group(2), 16)] += int(m.group(1))
            got = collections.Counter()
            for i in range(0, len(m_ := a["map"]), 3):
                if m_[i + 2] >= 0 and count[m_[i]]:
                    got[a["asm"][m_[i + 2]][0]] += count[m_[i]]
            ok &= differ("annotate --asm %s instruction" % name, dict(want), dict(got))
        done += 1
    if not done:
        print("no function annotated")
    return ok and done > 0

def check_buckets(p, data):
    d = p.d
    W = d["bucket_ns"]
    starts = [r["start_ns"] for r in d["recordings"]]
    want = collections.Counter()
    files = [r["file"] for r in d["recordings"]]
    for line in run("script", *ins(data), "--json", "--fields", "time,tid", "--ns").splitlines():
        j = json.loads(line)
        i = files.index(j["recording"]) if "recording" in j else 0
        rel = max(0, j["time"] - starts[i])
        want[rel // W] += 1
    got = collections.Counter()
    for b, t, e, st, n in p.entries:
        got[b] += n
    ok = differ("bucket", dict(want), dict(got))
    if W % 1000 or d["nbuckets"] > 1000 or W * d["nbuckets"] < max(r["span_ns"] for r in d["recordings"]):
        print("bucket_ns %d, nbuckets %d: not the design's rule" % (W, d["nbuckets"]))
        ok = False
    return ok

def check_diff(p, a, b):
    want_b, want_n = {}, {}
    for r in json.loads(run("diff", a, b, "--json"))["rows"]:
        want_b[(r["name"], r["dso"])] = r["base_samples"]
        want_n[(r["name"], r["dso"])] = r["new_samples"]
    # the page's rows: a function, "f (inlined into g)" apart by its site's site_into
    got = [collections.Counter(), collections.Counter()]
    for rec in (0, 1):
        for b_, t, st, n in p.chosen(recording=rec):
            name, dso = p.fname(p.nodes[p.stacks[st][0]][1])
            into = p.d["site_into"][p.stacks[st][1]]
            if into >= 0 and p.d["funcs"][into][0] != name:
                name += " (inlined into %s)" % p.d["funcs"][into][0]
            got[rec][(name, dso)] += n
    ok = p.d["diff"] == {"base": 0, "new": 1, "alpha": 0.05}
    if not ok:
        print("diff: %s" % p.d["diff"])
    return differ("diff base", want_b, dict(got[0])) & differ("diff new", want_n, dict(got[1])) & ok

def check_window(p, data):
    # buckets [B/4, B/2) are --time S,E (W whole microseconds: exact with 6 decimals)
    d = p.d
    b0, b1 = d["nbuckets"] // 4, d["nbuckets"] // 2
    opt = "%.6f,%.6f" % (b0 * d["bucket_ns"] / 1e9, b1 * d["bucket_ns"] / 1e9)
    rows = collections.Counter()
    for r in json.loads(run("report", *ins(data), "--time", opt, "--json", "-n", "0"))["rows"]:
        rows[(r["function"], r["dso"])] += r["samples"]
    got = collections.Counter()
    for b, t, st, n in p.chosen():
        if b0 <= b < b1:
            got[p.fname(p.nodes[p.stacks[st][0]][1])] += n
    if not got:
        print("no samples in buckets [%d, %d)" % (b0, b1))
    return differ("--time %s self" % opt, dict(rows), dict(got)) and bool(got)

what, path, data = sys.argv[2], sys.argv[3], sys.argv[4:]
p = Page(path)
ok = {"report": lambda: check_report(p, data),
      "children": lambda: check_children(p, data),
      "tree": lambda: check_tree(p, data),
      "annotate": lambda: check_annotate(p, data, 3),
      "buckets": lambda: check_buckets(p, data),
      "diff": lambda: check_diff(p, *data),
      "window": lambda: check_window(p, data)}[what]()
sys.exit(0 if ok else 1)
PY

# agrees WHAT PAGE DATA...: page.py's check WHAT of PAGE against the commands on DATA
agrees() {
	local what=$1 pg=$2
	shift 2
	local rc
	PYTHONPATH="$TOP/tests/tools" python3 page.py "$EBS" "$what" "$pg" "$@" >"$pg.$what.diff" 2>&1
	rc=$? # before the message's $(...), which sets $? again
	check "$pg: $what agrees with the commands ($(tail -n 3 "$pg.$what.diff" | tr '\n' ' '))" \
		[ $rc -eq 0 ]
}

# ---- 1. a program with call chains: every view's numbers --------------------
record cg.data -g -F 499 -- "$WORKLOADS/calltree" 0.4
"$EBS" view -i cg.data -o cg.html 2>cg.err
check "view writes the page (exit 0, $(head -c 200 cg.err))" [ -s cg.html ]
check "the page is 0644" [ "$(stat -c %a cg.html)" = 644 ]
for w in report children tree annotate buckets window; do
	agrees $w cg.html cg.data
done

# a multi-threaded program: each thread its own, and the same agreement
record thr.data -g -F 499 -- "$WORKLOADS/threads" 0.3
"$EBS" view -i thr.data -o thr.html 2>thr.err
check "threads: the page (exit 0, $(head -c 200 thr.err))" [ -s thr.html ]
check "threads: one entry per thread, 4 workers and main" python3 -c '
import json, re, sys
d = json.loads(re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
sys.exit(len(set(t[2] for t in d["threads"])) < 4)' thr.html
for w in report children tree buckets window; do
	agrees $w thr.html thr.data
done

# a real program nobody here wrote: SQLite (tests/real's driver), its
# stacks unwound from DWARF (it is built without frame pointers)
if sqlite_build sqlite; then
	record sq.data --call-graph dwarf -e cpu-clock -F 499 "$SQLWORK" 100000
	"$EBS" view -i sq.data -o sq.html 2>sq.err
	check "SQLite: the page (exit 0, $(head -c 200 sq.err))" [ -s sq.html ]
	for w in report children tree annotate buckets; do
		agrees $w sq.html sq.data
	done
fi

# a stripped DSO nobody here built: Debian's xz, its liblzma without symbols
# for its hottest code ("[unknown] liblzma.so.5+0x..."): such functions have
# no listing, and are not counted as over the page's size bound (a page of
# a few listings is far under it)
if ! command -v xz >/dev/null; then
	skip "xz: functions without symbols" "xz is not installed (Debian: xz-utils)"
else
	head -c 1500000 /dev/urandom | od -An -tx1 >xzin.txt
	record xz.data -F 499 sh -c 'exec xz -T1 -6 -c xzin.txt >xzin.xz'
	"$EBS" view -i xz.data -o xz.html 2>xz.err
	check "xz: the page (exit 0, $(head -c 200 xz.err))" [ -s xz.html ]
	# the functions with samples of their own, no listing and no symbol; annotate_left; annotate_none
	xznone=$(python3 -c '
import json, re, sys
d = json.loads(re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
self = {}
for k, st in enumerate(d["samples"]["stack"]):
    f = d["sites"][2 * d["stacks"][2 * st + 1]]
    self[f] = self.get(f, 0) + d["samples"]["count"][k]
unknown = [f for f in self if self[f] and d["funcs"][f][2] & 4 and str(f) not in d["annotate"]]
print(len(unknown), d["annotate_left"], d.get("annotate_none", {}).get("no_symbol", "none"))' xz.html)
	read -r xzunk xzleft xznosym <<<"$xznone"
	check "xz: some functions have no symbol ($xzunk)" [ "${xzunk:-0}" -gt 0 ]
	check "xz: annotate_left counts only what the bound left out ($xzleft, of a small page)" [ "$xzleft" = 0 ]
	check "xz: annotate_none.no_symbol counts the [unknown] ($xznosym, $xzunk)" [ "$xznosym" = "$xzunk" ]
fi

# ---- 2. two recordings: one page, the diff's rows -----------------------------
record cg2.data -g -F 499 -- "$WORKLOADS/calltree" 0.4
"$EBS" view -i cg.data -i cg2.data -o two.html 2>two.err
check "two recordings: the page (exit 0, $(head -c 200 two.err))" [ -s two.html ]
agrees report two.html cg.data cg2.data
agrees buckets two.html cg.data cg2.data
agrees diff two.html cg.data cg2.data

# a function inlined at one call site and called out of line at another: ebs
# diff's rows "mix (inlined into in_line)" and "mix", from the data's site_into
for f in inl inl2; do
	record $f.data -g -F 499 "$WORKLOADS/inlsome" 0.3
done
"$EBS" view -i inl.data -i inl2.data -o inl.html 2>inl.err
check "inlined at one site: the page (exit 0, $(head -c 200 inl.err))" [ -s inl.html ]
"$EBS" diff inl.data inl2.data --json >inl.diff.json
check "inlined at one site: ebs diff has both rows, mix (inlined into in_line) and mix" \
	sh -c 'grep -q "\"name\":\"mix (inlined into in_line)\"" "$1" && grep -q "\"name\":\"mix\"" "$1"' sh inl.diff.json
agrees diff inl.html inl.data inl2.data
agrees report inl.html inl.data inl2.data

# ---- 3. no call chains: a page all the same, its chains one frame -------------
record flat.data -F 499 -- "$WORKLOADS/leafloop" 0.3
"$EBS" view -i flat.data -o flat.html 2>flat.err
check "no chains: the page is written (exit 0, $(head -c 200 flat.err))" [ -s flat.html ]
check "no chains: call_graph is empty, the page can say so" \
	grep -q '"call_graph":""' flat.html
agrees report flat.html flat.data
agrees tree flat.html flat.data
# what the model keeps by address (its memo) changes nothing
EBS_DEBUG_NO_MEMO=1 "$EBS" view -i flat.data -o flat-nomemo.html 2>/dev/null
check "no chains: the page without the memo is the same" cmp -s flat.html flat-nomemo.html

# ---- 4. hostile names: inert inside <script> ----------------------------------
EVIL='</script><script>alert(1)</script><!--'
cat >evil.txt <<EOF
meta 1 host</script><script>alert(2)</script>
event cpu-clock cpu-clock 1000000
comm 100 100 $EVIL
mmap 100 400000 1000 0 /tmp/x<script>alert(3)<!--.so
sample 0 100 100 400010 5
comm 200 200 $(printf 'a\xe2\x80\xa8b\xe2\x80\xa9c&d>e')
mmap 200 400000 1000 0 /tmp/x<script>alert(3)<!--.so
sample 0 200 200 400020 3
EOF
if "$MKDATA" evil.data <evil.txt 2>mk.err; then
	"$EBS" view -i evil.data -o evil.html 2>evil.err
	check "hostile names: the page is written ($(head -c 200 evil.err))" [ -s evil.html ]
	check "hostile names: one data element, the whole JSON in it, the names as recorded" python3 -c '
import json, re, sys
s = open(sys.argv[1], encoding="utf-8").read()
evil = sys.argv[2]
m = re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", s, re.S)
d = json.loads(m.group(1))
comms = [t[3] for t in d["threads"]]
ok = evil in comms and "a\u2028b\u2029c&d>e" in comms and d["recordings"][0]["host"].startswith("host</script>")
ok = ok and any("<script>alert(3)<!--" in f[0] for f in d["funcs"])
raw = m.group(1)
ok = ok and not re.search(r"[<>&\u2028\u2029]", raw)
ok = ok and not re.search(r"alert\([123]\)", s.replace(raw, ""))
sys.exit(not ok)' evil.html "$EVIL"
else
	fail "hostile names" "mkdata: $(head -n 1 mk.err)"
fi

# ---- 5. the output: never through a link, another's file, or half -------------
if can_play_nobody "output safety" "to play another user in a shared directory"; then
	mkdir -m 1777 shared
	$NOBODY ln -s "$TMP/victim" shared/link.html
	expect "a link of another user's at -o: refused" 1 "link.html" \
		"$EBS" view -i cg.data -o shared/link.html
	check "...and nothing written through it" [ ! -e victim ]
	$NOBODY sh -c 'echo theirs >shared/theirs.html'
	expect "another user's file at -o: refused" 1 "theirs.html" \
		"$EBS" view -i cg.data -o shared/theirs.html
	check "...and left as it was" [ "$(cat shared/theirs.html)" = theirs ]
fi
# a write cut short (SIGXFSZ kills it at 8 KiB): the old page stays, whole
echo old >cut.html
(ulimit -f 8 && exec "$EBS" view -i thr.data -o cut.html) 2>/dev/null
rc=$?
check "a write cut short (exit $rc): the old page stays as it was" \
	[ "$rc" -ne 0 ] && [ "$(cat cut.html)" = old ]
"$EBS" view -i cg.data -o - >stdout.html 2>/dev/null
check "-o -: the page on standard output" cmp -s stdout.html cg.html

# standard input, read once: the listings come from the same pass
cat cg.data | "$EBS" view -i - -o pipe.html 2>pipe.err
check "-i - (a pipe): the page, nothing said ($(head -c 200 pipe.err))" \
	sh -c '[ -s pipe.html ] && [ ! -s pipe.err ]'
agrees report pipe.html cg.data
agrees annotate pipe.html cg.data

# ---- 6. bad input: exit codes, one line, no page ------------------------------
expect "no samples after the filters: exit 1" 1 "no samples" \
	"$EBS" view -i cg.data --pid 1 -o empty.html
check "...and no page" [ ! -e empty.html ]
expect "one of two inputs missing: exit 2, naming it" 2 "missing.data" \
	"$EBS" view -i cg.data -i missing.data -o bad.html
check "...and no page" [ ! -e bad.html ]
: >zero.data
expect "an empty file: exit 2" 2 "zero.data" "$EBS" view -i zero.data -o zero.html
check "...and no page" [ ! -e zero.html ]

# ---- 7. filters: the page of --tid T is the samples of T ----------------------
# --time: the page of a time range holds the samples report --time counts,
# in the buckets of the whole recording's times (each its own start)
opt=$(python3 -c '
import json, re, sys
d = json.loads(re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
print("%.6f,%.6f" % (d["nbuckets"] // 4 * d["bucket_ns"] / 1e9, d["nbuckets"] // 2 * d["bucket_ns"] / 1e9))' cg.html)
"$EBS" view -i cg.data --time "$opt" -o time.html 2>time.err
check "--time $opt: the page ($(head -c 200 time.err))" [ -s time.html ]
agrees report time.html cg.data --time "$opt"
agrees buckets time.html cg.data --time "$opt"
agrees annotate time.html cg.data --time "$opt"
# --tid with a list
"$EBS" view -i thr.data --tid "$(python3 -c '
import json, re, sys
d = json.loads(re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
print(",".join(str(t[2]) for t in d["threads"][-2:]))' thr.html)" -o tids.html 2>/dev/null
check "--tid T1,T2: the page" [ -s tids.html ]

tid=$(python3 -c '
import json, re, sys
d = json.loads(re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", open(sys.argv[1]).read(), re.S).group(1))
print(d["threads"][-1][2])' thr.html)
"$EBS" view -i thr.data --tid "$tid" -o tid.html 2>/dev/null
agrees report tid.html thr.data --tid "$tid"
"$EBS" view -i thr.data --comm threads --dso threads -o cd.html 2>/dev/null
agrees report cd.html thr.data --comm threads --dso threads

# ---- 8. the page's assets are built in: an edited one rebuilds ebs -----------
# (make's own rules, printed with -p -n for a build directory of the test's:
# the tree's build is left alone)
if git -C "$TOP" rev-parse --git-dir >/dev/null 2>&1; then
	env -u MAKEFLAGS -u MAKELEVEL make -C "$TOP" --no-print-directory -p -n BUILD="$TMP/b" \
		"$TMP/b/report/view/assets.o" >make.db 2>&1
	grep "^$TMP/b/report/view/assets.o:" make.db >assets.rule
	for a in view.html view.css view.js; do
		check "an edited $a rebuilds the page's assets into ebs ($(head -c 200 assets.rule))" \
			grep -q " report/view/assets/$a" assets.rule
	done
fi
