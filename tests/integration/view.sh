#!/usr/bin/env bash
# timeout: 900
# view.sh - `ebs view`'s page in headless Chromium, held against ebs's own
# listings (issue 33).  Pages of
#   a. a call-graph recording of calltree (a known tree: main -> tree_a ->
#      tree_left/tree_right -> tree_leaf);
#   b. a multi-threaded program nobody here wrote: Debian's xz compressing a
#      generated file with two threads (-T2, small blocks);
#   c. SQLite (the driver tests/real/build-sqlite.sh builds), small;
#   d. two recordings of calltree: the diff view;
#   e. a recording without chains: the views that need them say so;
# are driven by tests/tools/viewcheck.py through tests/tools/browse.py with
# real mouse and keyboard events: each view's numbers (the DOM's data-*
# attributes) must equal `ebs report --json` (bottom-up self, share and
# interval), `--children --json` (total), `--tree --json` (top-down, flame
# graph), `--callers/--callees FUNC --json`, `ebs annotate FUNC [--asm]`
# (per line and instruction) and `ebs diff --json`, for the whole recording,
# a time range dragged across a timeline strip (its --time option, read
# from the page's ebsView.selection().cli, given to ebs), a thread chosen by
# its label (--tid), and search; digits, '/', arrows and Enter work; no
# request leaves the page, no exception or console error (a CSP violation
# is one); a function named with markup (<img src=http://...>, a script end
# tag) shows as text and loads nothing.  Screenshots of every view are kept
# as test artefacts (build/test-artefacts/view-*.png).
# Bad input: an empty recording (exit 1, one line, no page), one unreadable
# of several (exit 2, one line naming it, no page).
. "$(dirname "$0")/../lib.sh"

if ! "$EBS" view --help >/dev/null 2>&1; then
	skip "all" "this ebs has no 'ebs view' ($("$EBS" view --help 2>&1 | head -n 1))"
	exit 0
fi
check "ebs view --help says that two -i give the Diff view, the first the base" \
	sh -c "\"\$1\" view --help | tr '\\n' ' ' | grep -q 'Two -i: .*Diff view.*the first is the base'" sh "$EBS"
CHECK=$TOP/tests/tools/viewcheck.py
BROWSE=$TOP/tests/tools/browse.py
if ! command -v chromium >/dev/null && [ -z "${EBS_OFFLINE:-}" ]; then
	EBS_DEPS_EXTRA=chromium "$TOP/scripts/deps.sh" >deps.out 2>&1
fi
HAVE_CHROMIUM=1
command -v chromium >/dev/null || HAVE_CHROMIUM=

# view NAME ARGS...: ebs view ARGS -o NAME.html; status, size and time into NAME.view
view() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s%N)
	"$EBS" view "$@" -o "$name.html" 2>"$name.view.err"
	rc=$?
	echo "$rc $(stat -c %s "$name.html" 2>/dev/null || echo 0) $((($(date +%s%N) - t0) / 1000000))" >"$name.view"
	local ok=0
	[ "$rc" -eq 0 ] && [ -s "$name.html" ] && ok=1
	check "$name: ebs view $* writes a page (status $rc$([ -s "$name.view.err" ] && echo ": $(head -n 1 "$name.view.err")"))" \
		[ $ok = 1 ]
	[ $ok = 1 ]
}

# browse_check NAME VIEWCHECK-ARGS...: viewcheck.py on NAME.html, its ok/bad
# lines as PASS/FAIL, the screenshots and what it drove kept
browse_check() {
	local name=$1 line
	shift
	if [ -z "$HAVE_CHROMIUM" ]; then
		skip "$name: in Chromium" "chromium is not installed and could not be ($(tail -n 1 deps.out 2>/dev/null))"
		return
	fi
	timeout 600 python3 "$CHECK" --ebs "$EBS" --page "$name.html" --shots "view-$name" "$@" \
		>"$name.check" 2>"$name.check.err"
	local rc=$?
	while IFS= read -r line; do
		case "$line" in
		"ok "*) pass "$name: ${line#ok }" ;;
		"bad "*) fail "$name" "${line#bad }" ;;
		"note "*) echo "# $name: ${line#note }" ;;
		esac
	done <"$name.check"
	[ "$rc" -eq 0 ] || fail "$name: in Chromium: the page is driven" "status $rc: $(tail -n 1 "$name.check.err")"
	for f in view-"$name"*.png view-"$name".actions view-"$name".browse "$name.check"; do
		[ -e "$f" ] && cp -f "$f" "$ARTEFACTS/$f"
	done
}

# hottest FILE [ARGS]: the user-space function with the most self samples
# that has a name ([unknown] DSO+offset: ebs annotate takes no such name)
hottest() { "$EBS" report -i "$1" --json "${@:2}" | python3 -c 'import json,sys; print([r["function"] for r in json.load(sys.stdin)["rows"] if not r["function"].startswith("[") and not r["dso"].startswith("[")][0])'; }

# ---- a. calltree with call chains; d. two of them: the diff view --------------------------
record ct.data -g -F 400 "$WORKLOADS/calltree" 0.5
record ct2.data -g -F 400 "$WORKLOADS/calltree" 0.5
if view ct -i ct.data; then
	check "ct: the page is 0644 ($(stat -c %a ct.html))" [ "$(stat -c %a ct.html)" = 644 ]
	check "ct: the page has the CSP meta tag" grep -qF "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:" ct.html
	browse_check ct -i ct.data --chains --func tree_leaf --search tree_ --drag 0.1,0.6
fi
# the checks can fail: the same page with one sample more (its data's first
# entry counted twice) must differ from ebs's listings
if [ -e ct.html ] && [ -n "$HAVE_CHROMIUM" ]; then
	python3 -c 'import json, re, sys
t = open(sys.argv[1], encoding="utf-8").read()
m = re.search(r"(<script id=\"ebs-data\" type=\"application/json\">)(.*?)(</script>)", t, re.S)
d = json.loads(m.group(2))
d["samples"]["count"][0] += 1
j = json.dumps(d, ensure_ascii=False, separators=(",", ":"))
for a, b in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
    j = j.replace(a, b)
open(sys.argv[2], "w", encoding="utf-8").write(t[:m.start(2)] + j + t[m.end(2):])' ct.html wrong.html
	timeout 300 python3 "$CHECK" --ebs "$EBS" --page wrong.html --shots wrong --quick -i ct.data --chains --func tree_leaf \
		>wrong.check 2>wrong.check.err
	check "a page with one sample more than the recording fails the checks ($(grep -c '^bad' wrong.check) bad, $(grep -c '^ok' wrong.check) ok: $(grep -m1 '^bad' wrong.check | cut -c1-120))" \
		grep -q '^bad whole: bottom-up: \(self\|total\)' wrong.check
	keep wrong.check
	# and browse.py sees a request a page makes, and the CSP's refusal
	printf '%s\n' '<!DOCTYPE html><meta http-equiv="Content-Security-Policy" content="img-src data:"><img src="http://127.0.0.1:9/leak.png">' >leak.html
	printf 'wait 0.2\n' | python3 "$BROWSE" leak.html >leak.browse 2>&1
	check "browse.py reports a page's request to the network ($(grep '^requests' leak.browse | cut -f 2-))" \
		grep -q '^requests.*http://127.0.0.1:9/leak.png (blocked: csp)' leak.browse
fi
if view diff -i ct.data -i ct2.data; then
	browse_check diff -i ct.data -i ct2.data --chains --diff --func tree_leaf --drag 0.3,0.8
fi
# two programs: rows that differ, p below 0.0001 written as ebs diff writes it
record ph.data -F 400 "$WORKLOADS/phases" 3 0.1 0.05
if view pdiff -i ct.data -i ph.data; then
	browse_check pdiff -i ct.data -i ph.data --diff --quick
fi

# a function inlined at one call site and called out of line at another: the
# diff's rows "mix (inlined into in_line)" and "mix", as ebs diff's
record inl.data -g -F 400 "$WORKLOADS/inlsome" 0.3
record inl2.data -g -F 400 "$WORKLOADS/inlsome" 0.3
if view inl -i inl.data -i inl2.data; then
	browse_check inl -i inl.data -i inl2.data --chains --diff --func in_line --quick
fi

# ---- e. no chains: the views that need them say so --------------------------------------
record flat.data -F 400 "$WORKLOADS/calltree" 0.3
if view flat -i flat.data; then
	browse_check flat -i flat.data --func tree_leaf --search tree_leaf
fi
# three recordings: merged, no diff view: the header says "a + b + c", not "a vs b vs c"
if view three -i ct.data -i ct2.data -i flat.data; then
	browse_check three -i ct.data -i ct2.data -i flat.data --quick
fi

# ---- b. a multi-threaded program nobody here wrote: xz -T2 ---------------------------------
if ! command -v xz >/dev/null; then
	skip "xz" "xz is not installed (Debian: xz-utils)"
else
	# 2.5 MB of words: five blocks of 512 KiB, compressed by two threads
	python3 -c 'import random
r = random.Random(33)
w = ["".join(r.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(r.randint(2, 9))) for _ in range(5000)]
with open("words.txt", "w") as f:
    n = 0
    while n < 2500000:
        s = r.choice(w) + (" " if r.random() < 0.9 else "\n")
        f.write(s)
        n += len(s)'
	record xz.data -g -F 400 sh -c 'exec xz -T2 -2 --block-size=512KiB -c words.txt >words.xz'
	# the thread with most samples that is not the first (a worker)
	"$EBS" report -i xz.data --sort pid,tid --json >xz.tids.json
	read -r xtid xthreads < <(json xz.tids.json "'%s %d' % (max((r for r in j['rows'] if r['tid'] != r['pid']), key=lambda r: r['samples'], default={'tid': 0})['tid'], len(j['rows']))")
	check "xz: more than one thread sampled ($xthreads)" [ "${xthreads:-0}" -ge 2 ]
	if view xz -i xz.data; then
		targs=()
		[ "${xtid:-0}" != 0 ] && targs=(--thread "$xtid")
		browse_check xz -i xz.data --chains --func "$(hottest xz.data)" "${targs[@]}" --search lzma --drag 0.1,0.5
		# a function without a symbol ([unknown] liblzma...+0x...): its source view says
		# why there is no listing, suggests no `ebs annotate` that cannot work, and does
		# not count it as over the size bound
		if [ -n "$HAVE_CHROMIUM" ]; then
			cat >xzunk.actions <<'EOF'
ready 120
eval (function () { var d = ebsView.data, f; for (f = 0; f < d.funcs.length; f++) if (d.funcs[f][2] & 4 && !d.annotate[f]) { ebsView.show('source'); ebsView.openFunc(f); return [d.funcs[f][0], document.getElementById('source-note').textContent, d.annotate_left]; } return null; })()
eval document.getElementById('view-summary').textContent
EOF
			python3 "$BROWSE" xz.html <xzunk.actions >xzunk.browse 2>xzunk.browse.err
			keep xzunk.browse
			check "xz: an [unknown] function's source view says it has no symbol, suggests no annotate ($(sed -n 2p xzunk.browse | cut -f 2- | cut -c1-300))" \
				python3 -c 'import json, sys
v = json.loads(sys.argv[1])
sys.exit(not (v and v[0].startswith("[unknown] ") and "has no symbol" in v[1] and "ebs annotate " not in v[1] and "size bound" not in v[1]))' "$(sed -n 2p xzunk.browse | cut -f 2-)"
			check "xz: the summary counts no function as over the size bound" \
				python3 -c 'import json, sys; sys.exit("size bound" in json.loads(sys.argv[1]))' "$(sed -n 3p xzunk.browse | cut -f 2-)"
		fi
	fi
fi

# ---- c. SQLite ----------------------------------------------------------------------------
if sqlite_build sqlite; then
	record sql.data -g -F 500 "$SQLWORK" 100000
	if view sql -i sql.data; then
		browse_check sql -i sql.data --chains --func "$(hottest sql.data --dso "$(basename "$SQLWORK")")" --search sqlite3Btree --drag 0.25,0.75
	fi
fi

# ---- hostile names: markup in a function's name is text, loads nothing -------------------
HOSTILE_IMG='<img src=http://127.0.0.1:9/ebs-view-leak.png onerror=window.__pwned=1>'
HOSTILE_SCRIPT='</script><script>window.__pwned=2</script>'
cat >hostile.c <<'C'
static volatile unsigned long sink;
__attribute__((noinline)) void hostile_img(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		sink = sink * 6364136223846793005UL + 1442695040888963407UL;
}
__attribute__((noinline)) void hostile_script(unsigned long n)
{
	hostile_img(n);
	sink++;
}
int main(void)
{
	for (int i = 0; i < 300; i++)
		hostile_script(1000000);
	return 0;
}
C
if ! command -v gcc >/dev/null || ! command -v objcopy >/dev/null; then
	skip "hostile names" "gcc and objcopy are needed to build the program"
elif ! gcc -O1 -g -fno-omit-frame-pointer -o hostile hostile.c 2>hostile.err ||
	! objcopy --redefine-sym "hostile_img=$HOSTILE_IMG" --redefine-sym "hostile_script=$HOSTILE_SCRIPT" hostile 2>>hostile.err; then
	fail "hostile names" "could not build the program: $(head -n 1 hostile.err)"
else
	record hostile.data -g -F 400 ./hostile
	if view hostile -i hostile.data && [ -z "$HAVE_CHROMIUM" ]; then
		skip "hostile: in Chromium" "chromium is not installed and could not be"
	elif [ -e hostile.html ]; then
		check "hostile: no '<img' nor '</script>' of a name is raw in the page's data" \
			python3 -c 'import re, sys
t = open(sys.argv[1], encoding="utf-8").read()
d = re.search(r"<script id=\"ebs-data\" type=\"application/json\">(.*?)</script>", t, re.S)
sys.exit(not (d and "<" not in d.group(1) and ">" not in d.group(1) and "ebs-view-leak" in d.group(1)))' hostile.html
		cat >hostile.actions <<EOF
ready 120
click document.querySelector('button[data-view="bottomup"]')
eval Array.prototype.slice.call(document.querySelectorAll('table#bottomup tr[data-func] td.name')).map(function (e) { return e.textContent; })
eval [typeof window.__pwned, document.querySelectorAll('img').length, document.querySelectorAll('script').length]
shot view-hostile-bottomup.png
click document.querySelector('button[data-view="flame"]')
eval Array.prototype.slice.call(document.querySelectorAll('svg#flame text, svg#flame title')).map(function (e) { return e.textContent; }).join('\n')
shot view-hostile-flame.png
click document.querySelector('button[data-view="topdown"]')
shot view-hostile-topdown.png
eval [typeof window.__pwned, document.querySelectorAll('img').length]
eval (function () { var d = ebsView.data, f; for (f = 0; f < d.funcs.length; f++) if (d.funcs[f][0].indexOf('ebs-view-leak') >= 0) { ebsView.show('callers'); ebsView.openFunc(f); ebsView.selectTime(0, Math.max(1, d.nbuckets >> 1)); return [d.funcs[f][0], document.querySelector('#callers-note code').textContent, ebsView.selection().cli]; } return null; })()
EOF
		if python3 "$BROWSE" hostile.html <hostile.actions >hostile.browse 2>hostile.browse.err; then
			keep hostile.browse
			for f in view-hostile-*.png; do cp -f "$f" "$ARTEFACTS/$f"; done
			act() { sed -n "${1}p" hostile.browse | cut -f 2-; }
			check "hostile: the names are shown as text in bottom-up" \
				python3 -c 'import json, sys
names = json.loads(sys.argv[1])
sys.exit(not (any(sys.argv[2] in n for n in names) and any(sys.argv[3] in n for n in names)))' "$(act 3)" "$HOSTILE_IMG" "$HOSTILE_SCRIPT"
			check "hostile: no script of a name ran, no img element made ($(act 4))" \
				python3 -c 'import json, sys; p, img, _ = json.loads(sys.argv[1]); sys.exit(not (p == "undefined" and img == 0))' "$(act 4)"
			check "hostile: after the flame graph and top-down too ($(act 11))" \
				python3 -c 'import json, sys; p, img = json.loads(sys.argv[1]); sys.exit(not (p == "undefined" and img == 0))' "$(act 11)"
			# the callers view's command, run by sh: its argument is the name, whole, then the selection's options
			check "hostile: the callers command is the name, quoted for sh, with the selection ($(act 12 | cut -c1-300))" \
				python3 -c 'import json, subprocess, sys
name, code, cli = json.loads(sys.argv[1])
out = subprocess.run(["sh", "-c", "ebs() { printf \"%s\\n\" \"$@\"; }; " + code], capture_output=True, text=True).stdout
argv = out.split("\n")[:-1]
i = argv.index("--callers") if "--callers" in argv else -1
rest = argv[1:i] + argv[i + 2:] if i >= 0 else None
sys.exit(not (cli.startswith("--time ") and argv[0] == "report" and i > 0 and argv[i + 1] == name and rest == cli.split(" ")))' "$(act 12)"
			check "hostile: no request left the page ($(grep '^requests' hostile.browse | cut -f 2-))" \
				[ "$(grep '^requests' hostile.browse)" = "$(printf 'requests\t[]')" ]
			check "hostile: no exception, no console error ($(grep '^errors' hostile.browse | cut -f 2- | cut -c1-200))" \
				[ "$(grep '^errors' hostile.browse)" = "$(printf 'errors\t[]')" ]
		else
			fail "hostile: in Chromium" "$(tail -n 1 hostile.browse.err)"
		fi
	fi
fi

# ---- bad input: one line, the status, no page --------------------------------------------
# an empty recording: a program that ends before its first sample at 1 Hz
record empty.data -F 1 true
rm -f empty.html
expect "an empty recording: one line naming it, exit 1" 1 "empty\.data: no samples" "$EBS" view -i empty.data -o empty.html
check "an empty recording: no page written" [ ! -e empty.html ]
rm -f none.html
expect "no sample after the filters (--tid 1): one line naming the threads it has, exit 1" 1 \
	"ct\.data: no samples after the filters \(its threads: [0-9]" "$EBS" view -i ct.data --tid 1 -o none.html
check "no sample after the filters: no page written" [ ! -e none.html ]
rm -f bad.html
expect "one of two recordings missing: one line naming it, exit 2" 2 "nope\.data" \
	"$EBS" view -i ct.data -i nope.data -o bad.html
check "one of two recordings missing: no page written" [ ! -e bad.html ]
head -c 4096 /dev/urandom >junk.data
expect "one of three recordings not a recording: one line naming it, exit 2" 2 "junk\.data" \
	"$EBS" view -i ct.data -i ct2.data -i junk.data -o bad.html
check "one of three recordings not a recording: no page written" [ ! -e bad.html ]
head -c "$(($(stat -c %s ct.data) / 2))" ct.data >cut.data
expect "a recording cut short as one of two: one line naming it, exit 2" 2 "cut\.data" \
	"$EBS" view -i cut.data -i ct.data -o bad.html
check "a recording cut short: no page written" [ ! -e bad.html ]
ls -la ./*.html >pages.txt 2>&1
for f in ct diff inl flat xz sql hostile; do
	[ -e "$f.view" ] && echo "$f: $(cat "$f.view") (status bytes ms)" >>pages.txt
done
keep pages.txt
cat pages.txt
exit 0
