#!/usr/bin/env python3
"""viewcheck.py - hold an `ebs view` page, as headless Chromium shows it,
against ebs's own listings for the same selection (tests/integration/view.sh).

usage: viewcheck.py --ebs EBS --page PAGE.html -i FILE [-i FILE]
                    [--func NAME] [--thread TID] [--search TEXT] [--chains]
                    [--diff] [--shots PREFIX] [--chromium PATH] [--quick]

Drives the page through tests/tools/browse.py as a user would (clicks on
the view buttons, a time range dragged across a timeline strip, a click on
a thread's label, typing into the search box, the keyboard), reads every
view's numbers from the DOM (the data-* attributes of docs/view.md's
contract) and runs ebs with the options the page shows for its selection
(ebsView.selection().cli): report --json (bottom-up self and share, its 95%
interval), --children --json (total), --tree --json (top-down and the flame
graph), --callers/--callees FUNC --json, annotate FUNC [--asm] (per line and
per instruction), diff --json (--diff: the first two inputs).  --quick:
the whole recording's views only, no screenshot.

Prints one line per check: "ok NAME" or "bad NAME: WHY", and "note TEXT"
lines; exits 0 when it could run (whatever the checks found), 1 when the
page could not be driven (browse.py's line on stderr).  The browse.py
script and its output are kept as PREFIX.actions and PREFIX.browse.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# Page side: the numbers each view shows, read from the DOM after two
# animation frames (whatever the page draws in requestAnimationFrame is in).
DUMP_JS = r"""
window.__vc = function (view) {
  return new Promise(function (done) { requestAnimationFrame(function () { requestAnimationFrame(function () {
  var D = ebsView.data;
  var q = function (s) { return Array.prototype.slice.call(document.querySelectorAll(s)); };
  var fn = function (i) { var f = D.funcs[+i]; return f ? [f[0], D.dsos[f[1]] ? D.dsos[f[1]][0] : null] : null; };
  var path = function (n) { var p = []; n = +n; var guard = 0;
    while (n >= 0 && guard++ < 100000) { p.unshift(fn(D.nodes[2 * n + 1])); n = D.nodes[2 * n]; } return p; };
  var vis = function (e) { return !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length); };
  var num = function (e, k) { var v = e.getAttribute('data-' + k); return v === null || v === '' ? null : +v; };
  var sec = document.getElementById('view-' + view);
  var out = {view: view, sel: ebsView.selection(), timings: ebsView.timings, W: D.bucket_ns, B: D.nbuckets,
             shown: sec ? vis(sec) : null, text: sec ? sec.innerText.slice(0, 2000) : null};
  if (view === 'summary') {
    out.keys = {};
    q('#view-summary dd[data-key]').forEach(function (e) {
      var k = e.getAttribute('data-key');
      (out.keys[k] = out.keys[k] || []).push(e.textContent); });
    out.title = document.title;
    out.header = (document.getElementById('title-file') || {}).textContent;
    out.hot = q('.hotlist .fn').map(function (e) {
      return {text: e.textContent, title: e.title, name: (D.funcs[+e.getAttribute('data-func')] || [])[0],
              clipped: e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1}; });
  } else if (view === 'bottomup') {
    out.rows = q('table#bottomup tr[data-func]').filter(vis).map(function (e) {
      var n = e.querySelector('td.name');
      return {f: fn(e.getAttribute('data-func')), self: num(e, 'self'), total: num(e, 'total'),
              share: num(e, 'share'), lo: num(e, 'lo'), hi: num(e, 'hi'),
              name: n ? n.textContent : null}; });
  } else if (view === 'topdown') {
    out.rows = q('#topdown [data-node]').filter(vis).map(function (e) {
      return {path: path(e.getAttribute('data-node')), f: fn(e.getAttribute('data-func')),
              total: num(e, 'total'), self: num(e, 'self'), depth: num(e, 'depth')}; });
  } else if (view === 'flame') {
    out.rows = q('svg#flame [data-node]').map(function (e) {
      var n = +e.getAttribute('data-node');
      return {path: n >= 0 ? path(n) : null, samples: num(e, 'samples')}; });
  } else if (view === 'callers') {
    ['callers', 'callees'].forEach(function (t) {
      out[t] = q('table#' + t + ' tr[data-func]').filter(vis).map(function (e) {
        var k = e.getAttribute('data-kind');
        return {f: k === 'self' ? ['(self)', ''] : k === 'none' ? ['(no caller: the chain starts here)', ''] :
                fn(e.getAttribute('data-func')), samples: num(e, 'samples'), share: num(e, 'share'),
                lo: num(e, 'lo'), hi: num(e, 'hi')}; });
    });
  } else if (view === 'source') {
    out.func = window.__vcFunc;
    var A = (D.annotate || {})[window.__vcFunc] || (D.annotate || {})[String(window.__vcIndex)] || null;
    out.has = !!A;
    out.rows = q('table#source tr[data-row]').map(function (e) {
      var r = +e.getAttribute('data-row'), l = A && A.lines[r] ? A.lines[r] : [null, null];
      return {file: l[0], line: l[1], samples: num(e, 'samples')}; });
    out.asm = q('table#asm tr[data-addr]').map(function (e) {
      return {addr: e.getAttribute('data-addr'), samples: num(e, 'samples')}; });
  } else if (view === 'diff') {
    out.rows = q('table#diff tr[data-func]').filter(vis).map(function (e) {
      /* ebs diff's row: its name ("f (inlined into g)" apart) and the function's DSO */
      var f = fn(e.getAttribute('data-func'));
      return {f: f && [e.getAttribute('data-name') || f[0], f[1]], base: num(e, 'base'), new: num(e, 'new'),
              delta: num(e, 'delta'), lo: num(e, 'lo'), hi: num(e, 'hi'),
              significant: num(e, 'significant'), ptext: (e.querySelector('td.p') || e.cells[e.cells.length - 2] || {}).textContent}; });
  }
  done(out);
  }); }); });
};
window.__vcDim = function () {
  /* a thread not selected is dimmed alike in and out of the time range: its strip's pixels do not change with it */
  /* the strip of a thread of another tid than the first's: a thread is its tid
     (sh's strip and the xz it became by exec are one thread to --tid) */
  var cv = document.querySelectorAll('#timeline .strip canvas'), th = ebsView.data.threads || [], o = null;
  var tid = function (c) { return (th[+c.parentNode.getAttribute('data-thread')] || [])[2]; };
  for (var k = 1; k < cv.length && !o; k++) if (tid(cv[k]) !== tid(cv[0])) o = cv[k];
  if (!o) return Promise.resolve(null);
  var px = function () { return Array.prototype.slice.call(o.getContext('2d').getImageData(0, 0, o.width, 1).data).join(','); };
  var frames = function () { return new Promise(function (d) { requestAnimationFrame(function () { requestAnimationFrame(d); }); }); };
  var B = ebsView.data.nbuckets, a;
  ebsView.clear();
  ebsView.selectThreads([+cv[0].parentNode.getAttribute('data-thread')]);
  return frames().then(function () {
    a = px();
    ebsView.selectTime(Math.floor(B * 0.3), Math.max(Math.floor(B * 0.3) + 1, Math.floor(B * 0.6)));
    return frames();
  }).then(function () { var b = px(); ebsView.clear(); return {dim: true, same: a === b}; });
};
window.__vcOpen = function (name) {
  var D = ebsView.data, best = -1;
  for (var i = 0; i < D.funcs.length; i++) if (D.funcs[i][0] === name) { best = i; break; }
  if (best < 0) throw new Error('no function ' + name + ' in the page');
  window.__vcFunc = name;
  window.__vcIndex = best;
  ebsView.openFunc(best);
  return best;
};
window.__vcActive = function () {
  var a = document.activeElement;
  var tr = a && a.closest ? a.closest('tr[data-func], [data-node]') : null;
  var s = document.querySelector('.cursor[data-func], .cursor[data-node], tr.selected[data-func], [aria-selected=true][data-func]');
  return {id: a ? a.id : null, tag: a ? a.tagName : null,
          rows: document.querySelectorAll('table#bottomup tr[data-func]').length,
          row: tr ? tr.getAttribute('data-func') || tr.getAttribute('data-node') : null,
          selected: s ? s.getAttribute('data-func') : null,
          shown: Array.prototype.slice.call(document.querySelectorAll('section[id^=view-]'))
            .filter(function (e) { return !!(e.offsetWidth || e.offsetHeight); }).map(function (e) { return e.id; })};
};
true
""".replace("\n", " ")

VIEWS = ("summary", "bottomup", "topdown", "flame", "callers", "source")


def button(view):
    return "document.querySelector('button[data-view=\"%s\"]')" % view


def script(a):
    """browse.py's actions; each dump's label is its view and the selection's name."""
    views = [v for v in VIEWS if a.chains or v not in ("topdown", "flame", "callers")]
    if a.diff:
        views.append("diff")
    out = ["size 1400 1000", "ready 120", "eval " + DUMP_JS]
    if a.func:
        out.append("eval __vcOpen(%s)" % json.dumps(a.func))

    def all_views(tag, shots):
        for v in views:
            out.append("click " + button(v))
            out.append("eval __vc('%s')" % v)
            if shots:
                out.append("shot %s-%s-%s.png" % (a.shots, tag, v))
    all_views("whole", not a.quick)
    if a.quick:
        return out
    if not a.chains:
        # the views that need chains say so
        for v in ("topdown", "flame", "callers"):
            out.append("click " + button(v))
            out.append("eval __vc('%s')" % v)
            out.append("shot %s-nochains-%s.png" % (a.shots, v))
    # a time range dragged on the timeline (the first thread's strip, or --thread's)
    strip = ("(function () { var D = ebsView.data, i = 0; for (var k = 0; k < D.threads.length; k++)"
             " if (D.threads[k][2] === %d) i = k;"
             " var s = document.querySelector('#timeline .strip[data-thread=\"' + i + '\"]');"
             " return s && (s.querySelector('canvas') || s); })()" % (a.thread or -1))
    out.append("click " + button("bottomup"))
    out.append("drag %s %s %s" % (strip, a.drag0, a.drag1))
    out.append("eval __vc('bottomup')")
    out.append("shot %s-timerange-timeline.png" % a.shots)
    all_views("time", False)
    # a plain click on the strip (no drag) clears the time range
    out.append("click " + strip)
    out.append("eval Object.assign(ebsView.selection(), {by: 'strip'})")
    out.append("eval __vcDim()")
    out.append("click document.getElementById('clear-selection')")
    out.append("eval ebsView.selection()")
    # a thread chosen by its label
    if a.thread:
        label = ("(function () { var D = ebsView.data, i = -1; for (var k = 0; k < D.threads.length; k++)"
                 " if (D.threads[k][2] === %d) i = k;"
                 " return document.querySelector('#timeline .strip[data-thread=\"' + i + '\"] .strip-label')"
                 " || document.querySelectorAll('#timeline .strip-label')[i]; })()" % a.thread)
        out.append("click " + label)
        all_views("thread", False)
        out.append("shot %s-thread.png" % a.shots)
        out.append("click document.getElementById('clear-selection')")
    # search
    if a.search:
        out.append("click " + button("bottomup"))
        out.append("click document.getElementById('search')")
        out.append("type " + a.search)
        out.append("eval __vc('bottomup')")
        out.append("shot %s-search.png" % a.shots)
        out.append("key Escape")
        out.append("eval __vc('bottomup')")
    # the keyboard: digits switch views, '/' focuses the search, arrows and Enter move
    out.append("key 3")
    out.append("eval __vcActive()")
    out.append("key 2")
    out.append("eval __vcActive()")
    out.append("key /")
    out.append("eval __vcActive()")
    out.append("key Escape")
    for k in ("ArrowDown", "ArrowDown", "ArrowUp", "Enter"):
        out.append("key " + k)
        out.append("eval __vcActive()")
    out.append("eval ebsView.selection()")
    return out


# ---- ebs's side ---------------------------------------------------------------------
class Ebs:
    def __init__(self, a):
        self.a = a
        self.memo = {}
        t = open(a.page, encoding="utf-8").read()
        m = re.search(r'<script id="ebs-data" type="application/json">(.*?)</script>', t, re.S)
        self.page = json.loads(m.group(1)) if m else {}

    def run(self, args):
        key = tuple(args)
        if key not in self.memo:
            env = dict(os.environ, LC_ALL="C")
            env.pop("EBS_PAGER", None)
            env.pop("PAGER", None)
            p = subprocess.run([self.a.ebs] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=env)
            self.memo[key] = (p.returncode, p.stdout.decode("utf-8", "replace"),
                              p.stderr.decode("utf-8", "replace"))
        return self.memo[key]

    def inputs(self):
        return [x for f in self.a.input for x in ("-i", f)]

    def json(self, args):
        rc, out, err = self.run(args)
        if rc != 0:
            raise RuntimeError("ebs %s: status %d: %s" % (" ".join(args), rc, err.strip()[:300]))
        return json.loads(out)

    def report(self, cli, *extra):
        return self.json(["report"] + self.inputs() + ["--json", "-n", "0"] + list(extra) + cli)

    def annotate(self, cli, func, asm):
        args = ["annotate"] + self.inputs() + [func, "--no-pager", "--color", "never"] + \
            (["--asm"] if asm else []) + cli
        rc, out, err = self.run(args)
        if rc != 0:
            raise RuntimeError("ebs %s: status %d: %s" % (" ".join(args), rc, err.strip()[:300]))
        return out

    def diff(self, cli):
        return self.json(["diff", "--json", "-n", "0"] + cli + self.a.input[:2])


ROW = re.compile(r"^\s*(\d+)\s+[0-9.]+\s+[0-9.]+\s+(\d+)\s")
ASM = re.compile(r"^\s*(\d+)\s+[0-9.]+\s+[0-9.]+\s+([0-9a-f]+):\s")
# an instruction of annotate without the source: [samples %func %total] [line] address
BARE = re.compile(r"^(?:\s+(\d+)\s+[0-9.]+\s+[0-9.]+)?\s+(?:(\d+)\s+)?[0-9a-f]+:  ")


def annotate_lines(text):
    """annotate FUNC's listing: {(source file's basename, line): samples} of the sampled lines."""
    out, src, cur = {}, None, None
    for l in text.splitlines():
        if l.startswith("# source: "):
            src = os.path.basename(l[len("# source: "):].strip())
            continue
        # without the source text, instructions: a line's number beside its
        # first instruction only, so a sampled one without it is on the line above
        m = BARE.match(l)
        if m:
            cur = int(m.group(2)) if m.group(2) else cur
            if m.group(1) and cur is not None:
                out[(src, cur)] = out.get((src, cur), 0) + int(m.group(1))
            continue
        if l.strip() == "...":
            cur = None
            continue
        m = ROW.match(l)
        if m:
            k = (src, int(m.group(2)))
            out[k] = out.get(k, 0) + int(m.group(1))
    return out


def annotate_asm(text):
    out = {}
    for l in text.splitlines():
        m = ASM.match(l)
        if m:
            out[int(m.group(2), 16)] = out.get(int(m.group(2), 16), 0) + int(m.group(1))
    return out


# ---- the comparisons ----------------------------------------------------------------
class Checks:
    def __init__(self):
        self.n_bad = 0

    def ok(self, name, cond, why=""):
        if cond:
            print("ok %s" % name)
        else:
            self.n_bad += 1
            print("bad %s: %s" % (name, why[:600]))

    @staticmethod
    def note(text):
        print("note %s" % text)


def close(a, b, tol=0.001):
    return a is not None and b is not None and abs(float(a) - float(b)) <= tol


def key(f):
    return "%s (%s)" % (f[0], f[1]) if f else "?"


def tree_paths(tree):
    byid = {n["id"]: n for n in tree["tree"]}
    out = {}
    for n in tree["tree"]:
        p, m = [], n
        while m is not None:
            p.append((m["function"], m["dso"]))
            m = byid.get(m["parent"])
        out[tuple(reversed(p))] = (n["samples"], n["self"])
    return out


def check_bottomup(c, ebs, d, label, chains):
    cli = d["sel"]["cli"].split()
    rep = ebs.report(cli)
    # a row per function as --children has them: report's "f (inlined into g)" rows
    # (function f, each its own row) summed into f's (docs/view.md); the interval is
    # compared where report has one row
    want, nrows = {}, collections.Counter()
    for r in rep["rows"]:
        k = (r["function"], r["dso"])
        nrows[k] += 1
        if k in want:
            want[k] = dict(want[k], samples=want[k]["samples"] + r["samples"],
                           percent=want[k]["percent"] + r["percent"])
        else:
            want[k] = r
    got = {tuple(r["f"]): r for r in d["rows"] if r["f"]}
    own = {k: r for k, r in got.items() if r["self"]}
    c.ok("%s: bottom-up: the functions with self samples are report --json's (%d rows, %d)"
         % (label, len(own), len(want)), set(own) == set(want),
         "page only: %s; report only: %s" % ([key(k) for k in set(own) - set(want)][:5],
                                              [key(k) for k in set(want) - set(own)][:5]))
    bad = [key(k) for k, r in own.items() if k in want and r["self"] != want[k]["samples"]]
    c.ok("%s: bottom-up: self = report's samples, row by row" % label, not bad, "differ: %s" % bad[:5])
    bad = [(key(k), r["share"], want[k]["percent"]) for k, r in own.items()
           if k in want and not close(r["share"], want[k]["percent"], 0.0015)]
    c.ok("%s: bottom-up: share = report's percent" % label, not bad, "differ: %s" % bad[:5])
    bad = [(key(k), r["lo"], r["hi"], want[k]["ci95"]) for k, r in own.items()
           if k in want and nrows[k] == 1 and not (close(r["lo"], want[k]["ci95"][0], 0.0015) and
                                 close(r["hi"], want[k]["ci95"][1], 0.0015))]
    c.ok("%s: bottom-up: 95%% interval = report's ci95" % label, not bad, "differ: %s" % bad[:5])
    if chains:
        ch = ebs.report(cli, "--children")
        cw = {(r["function"], r["dso"]): r for r in ch["rows"]}
        bad = [(key(k), r["total"], cw.get(k, {}).get("children"), r["self"], cw.get(k, {}).get("self"))
               for k, r in got.items() if k not in cw or r["total"] != cw[k]["children"] or
               r["self"] != cw[k]["self"]]
        c.ok("%s: bottom-up: total and self = report --children's children and self (%d rows)"
             % (label, len(got)), not bad, "differ (page total, cli, page self, cli): %s" % bad[:5])
    names = [r["name"] for r in d["rows"] if r["f"] and r["name"] is not None]
    bad = [n for n, r in zip(names, [r for r in d["rows"] if r["f"] and r["name"] is not None])
           if r["f"][0] not in n]
    c.ok("%s: bottom-up: each row's name cell shows its function's name, as text" % label, not bad,
         "cells: %s" % bad[:3])
    return rep


def check_tree(c, ebs, d, label, what):
    cli = d["sel"]["cli"].split()
    want = tree_paths(ebs.report(cli, "--tree", "--min-percent", "0"))
    rows = [r for r in d["rows"] if r["path"]]
    c.ok("%s: %s: it shows frames (%d)" % (label, what, len(rows)), len(rows) > 0 or not want,
         "no [data-node] shown")
    flame = what == "flame"
    if flame:
        # a flame frame is the nodes of one name under its parent frame, whatever
        # their DSOs (two _start, ld.so's and the program's, are one frame), so
        # its samples are those of every --tree path with its names; its
        # data-node is the first of them, whose path the row carries
        byname = {}
        for p, (n, s) in want.items():
            k = tuple((x[0], None) for x in p)
            o = byname.get(k, (0, 0))
            byname[k] = (o[0] + n, o[1] + s)
        want = byname
    bad = []
    for r in rows:
        p = tuple(tuple(x) if x else ("?", None) for x in r["path"])
        if flame:
            p = tuple((x[0], None) for x in p)
        n = r.get("total", r.get("samples"))
        if p not in want or want[p][0] != n or ("self" in r and r["self"] is not None and
                                                 want[p][1] != r["self"]):
            bad.append(("/".join(x[0] for x in p), n, r.get("self"), want.get(p)))
    c.ok("%s: %s: every frame's samples (and self) = report --tree's for its path" % (label, what),
         not bad, "differ (path, page, page self, cli (samples, self)): %s" % bad[:4])


def check_folded(c, ebs, d, label):
    """A flame graph without chains: its frames are ebs export --format folded's (ebs flamegraph's)."""
    cli = d["sel"]["cli"].split()
    rc, out, err = ebs.run(["export", "--format", "folded"] + cli + ebs.inputs())
    if rc:
        raise RuntimeError("ebs export --format folded: status %d: %s" % (rc, err.strip()[:200]))
    want = {}
    for line in out.splitlines():
        stack, _, n = line.rpartition(" ")
        names = tuple(stack.split(";"))
        for i in range(1, len(names) + 1):
            want[names[:i]] = want.get(names[:i], 0) + int(n)
    got = {tuple(x[0] if x else "?" for x in r["path"]): r["samples"] for r in d["rows"] if r["path"]}
    c.ok("%s: flame without chains: it draws the sampled functions (%d frames)" % (label, len(got)), len(got) > 0,
         "no frame drawn")
    bad = [(p, n, want.get(p)) for p, n in got.items() if want.get(p) != n]
    c.ok("%s: flame without chains: each frame's samples = export --format folded's" % label, not bad,
         "differ (path, page, folded): %s" % bad[:4])


def absent(e):
    """Did ebs refuse because the function has no samples in the selection?"""
    m = str(e)
    return "status 2" in m and ("no sample has" in m or "with samples" in m)


def check_callers(c, ebs, d, label, func):
    cli = d["sel"]["cli"].split()
    for t in ("callers", "callees"):
        try:
            j = ebs.report(cli, "--" + t, func)
        except RuntimeError as e:
            # the function opened for the whole recording may have no
            # sample in a selection (xz's hot functions move in time)
            if not absent(e):
                raise
            got = [r for r in d[t] if r["f"] and r["samples"]]
            c.ok("%s: %s of %s: none, as report says (no sample of it here)" % (label, t, func),
                 not got, "page: %s; ebs: %s" % (got[:4], str(e)[-160:]))
            continue
        want = {(r["function"], r["dso"]): r for r in j[t]}
        got = {tuple(r["f"]): r for r in d[t] if r["f"]}
        bad = [key(k) for k in set(got) ^ set(want)]
        bad += [(key(k), r["samples"], want[k]["samples"], r["share"], want[k]["percent"])
                for k, r in got.items() if k in want and
                (r["samples"] != want[k]["samples"] or not close(r["share"], want[k]["percent"], 0.0015) or
                 (r["lo"] is not None and not (close(r["lo"], want[k]["ci95"][0], 0.0015) and
                                               close(r["hi"], want[k]["ci95"][1], 0.0015))))]
        c.ok("%s: %s of %s = report --%s %s --json (%d rows)" % (label, t, func, t, func, len(got)),
             not bad, "differ: %s" % bad[:5])


def check_source(c, ebs, d, label, func):
    cli = d["sel"]["cli"].split()
    if not d.get("has"):
        c.note("%s: source: the page has no annotate data for %s" % (label, func))
        return
    try:
        want = annotate_lines(ebs.annotate(cli, func, False))
    except RuntimeError as e:
        if not absent(e):
            raise
        got = [r for r in d["rows"] + d["asm"] if r["samples"]]
        c.ok("%s: source of %s: no line with samples, as annotate says (no sample of it here)"
             % (label, func), not got, "page: %s; ebs: %s" % (got[:4], str(e)[-160:]))
        return
    got = {}
    for r in d["rows"]:
        if r["samples"]:
            f = os.path.basename(r["file"]) if isinstance(r["file"], str) else None
            got[(f, r["line"])] = got.get((f, r["line"]), 0) + r["samples"]
    if any(k[0] is None for k in got):  # files as indices: by line alone
        want = {(None, k[1]): v for k, v in want.items()}
    c.ok("%s: source of %s: each line's samples = ebs annotate %s's (%d lines)"
         % (label, func, func, len(got)), got == want,
         "page: %s; annotate: %s" % (sorted(got.items())[:6], sorted(want.items())[:6]))
    if not got:
        c.note("%s: source of %s: no line has samples, in the page and in annotate" % (label, func))
    wa = annotate_asm(ebs.annotate(cli, func, True))
    if not wa:
        c.note("%s: annotate --asm of %s lists no instruction (no disassembler?)" % (label, func))
        return
    for base in (16, 10):
        try:
            ga = {}
            for r in d["asm"]:
                if r["samples"]:
                    v = int(r["addr"], 0 if r["addr"].startswith("0x") else base)
                    ga[v] = ga.get(v, 0) + r["samples"]
        except ValueError:
            continue
        if ga == wa:
            break
    c.ok("%s: assembly of %s: each instruction's samples = annotate --asm's (%d)"
         % (label, func, len(ga)), ga == wa,
         "page: %s; annotate: %s" % (sorted(ga.items())[:6], sorted(wa.items())[:6]))


def check_diff(c, ebs, d, label):
    cli = d["sel"]["cli"].split()
    j = ebs.diff(cli)
    want = {(r["name"], r["dso"]): r for r in j["rows"]}
    got = {tuple(r["f"]): r for r in d["rows"] if r["f"]}
    c.ok("%s: diff: the rows are ebs diff --json's (%d, %d)" % (label, len(got), len(want)),
         set(got) == set(want), "page only: %s; diff only: %s"
         % ([key(k) for k in set(got) - set(want)][:5], [key(k) for k in set(want) - set(got)][:5]))
    bad = []
    for k, r in got.items():
        w = want.get(k)
        if w and not (r["base"] == w["base_samples"] and r["new"] == w["new_samples"] and
                      close(r["delta"], w["diff_points"], 0.0015) and
                      close(r["lo"], w["ci95"][0], 0.0015) and close(r["hi"], w["ci95"][1], 0.0015) and
                      bool(r["significant"]) == w["significant"]):
            bad.append((key(k), r, {x: w[x] for x in ("base_samples", "new_samples", "diff_points",
                                                       "ci95", "significant")}))
    c.ok("%s: diff: counts, points, interval and significance = ebs diff --json's" % label, not bad,
         "differ: %s" % bad[:3])
    # p as ebs diff's text table prints it: 4 decimals, "<0.0001" below
    bad = [(key(k), r.get("ptext"), want[k]["p_adjusted"]) for k, r in got.items() if k in want and
           r.get("ptext") != ("<0.0001" if want[k]["p_adjusted"] < 0.0001 else "%.4f" % want[k]["p_adjusted"])]
    c.ok("%s: diff: p is written as ebs diff writes it" % label, not bad, "differ (page, p): %s" % bad[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ebs", required=True)
    ap.add_argument("--page", required=True)
    ap.add_argument("-i", dest="input", action="append", required=True)
    ap.add_argument("--func")
    ap.add_argument("--thread", type=int)
    ap.add_argument("--search")
    ap.add_argument("--chains", action="store_true")
    ap.add_argument("--diff", action="store_true")
    ap.add_argument("--shots", default="view")
    ap.add_argument("--drag", default="0.2,0.7")
    ap.add_argument("--chromium", default="chromium")
    ap.add_argument("--quick", action="store_true", help="the whole recording's views only")
    a = ap.parse_args()
    a.drag0, a.drag1 = a.drag.split(",")
    actions = script(a)
    with open(a.shots + ".actions", "w") as f:
        f.write("\n".join(actions) + "\n")
    p = subprocess.run([sys.executable, os.path.join(HERE, "browse.py"), a.page, a.chromium],
                       input="\n".join(actions).encode(), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    with open(a.shots + ".browse", "wb") as f:
        f.write(p.stdout)
    if p.returncode != 0:
        sys.stderr.write(p.stderr.decode(errors="replace").strip().splitlines()[0] + "\n"
                         if p.stderr.strip() else "browse.py: status %d\n" % p.returncode)
        return 1
    res = [l.split("\t", 1) for l in p.stdout.decode().splitlines()]
    res = [(x[0], json.loads(x[1])) for x in res]
    c, ebs = Checks(), Ebs(a)
    errs = [v for k, v in res if k == "errors"][0]
    reqs = [v for k, v in res if k == "requests"][0]
    c.ok("no exception, no console error, no CSP violation (%d)" % len(errs), not errs, json.dumps(errs))
    c.ok("no request leaves the page (%d)" % len(reqs), not reqs, json.dumps(reqs))
    ready = [v for k, v in res if k == "ready"][0]
    c.note("load to ready: %.0f ms (timings %s)" % (ready["ms"], json.dumps(ready.get("timings"))))
    c.ok("a time range was dragged", a.quick or any(k == "drag" for k, v in res))
    # each dump's selection: the one its cli names; "search" from the typing to the next dump
    order, search = [], False
    for i, (k, v) in enumerate(res):
        if k == "type":
            search = True
        elif k == "eval" and isinstance(v, dict) and "view" in v and "sel" in v:
            cli = (v["sel"] or {}).get("cli", "")
            phase = "search" if search else "time" if "--time" in cli else \
                "thread" if "--tid" in cli else "whole"
            search = False
            order.append((phase, v))
        elif k == "eval" and isinstance(v, dict) and set(v) >= {"b0", "b1", "cli"} and \
                res[i - 1][0] == "click":
            c.ok("%s empties the selection (cli '%s')" % ("a plain click on the strip" if v.get("by") else "clear-selection",
                                                          v["cli"]), v["cli"] == "", json.dumps(v))
        elif k == "eval" and isinstance(v, dict) and v.get("dim"):
            c.ok("a thread not selected is dimmed alike in and out of the time range", v["same"], json.dumps(v))
    for phase, d in order:
        cli = d["sel"]["cli"]
        label = "%s [%s]" % (phase, cli) if cli else phase
        if phase == "whole":
            c.ok("%s: %s: no selection, no option (cli '%s')" % (label, d["view"], cli), cli == "")
        elif phase == "time" and d["view"] == "bottomup":
            # buckets [b0, b1) of W ns are --time b0*W/1e9,b1*W/1e9 with 6 decimals, exactly
            sel, w = d["sel"], d["W"]
            want = "--time %d.%06d,%d.%06d" % (sel["b0"] * w // 10**9, sel["b0"] * w % 10**9 // 1000,
                                               sel["b1"] * w // 10**9, sel["b1"] * w % 10**9 // 1000)
            c.ok("%s: the dragged buckets [%s, %s) of %s ns are the option %s" % (label, sel["b0"], sel["b1"], w, want),
                 w % 1000 == 0 and 0 <= sel["b0"] < sel["b1"] and cli.split(" --tid")[0] == want, cli)
            # the mouse went from fraction drag0 to drag1 of the strip: those buckets, within a pixel's
            tol = d["B"] / 100.0 + 1
            c.ok("%s: the buckets are where the mouse went: %s-%s of %d" % (label, a.drag0, a.drag1, d["B"]),
                 abs(sel["b0"] - float(a.drag0) * d["B"]) <= tol and
                 abs(sel["b1"] - float(a.drag1) * d["B"]) <= tol, json.dumps(sel))
        elif phase == "thread" and d["view"] == "bottomup":
            c.ok("%s: the thread's label selects --tid %d" % (label, a.thread),
                 re.search(r"--tid %d\b" % a.thread, cli) is not None, cli)
        if d["view"] != "summary":
            c.ok("%s: %s: the view is shown after its button's click" % (label, d["view"]),
                 d["shown"] is True, "section#view-%s shown: %s" % (d["view"], d["shown"]))
        try:
            if d["view"] == "summary" and phase == "whole":
                rep = ebs.report([])
                # the whole's count, or one per recording (several recordings) adding up to it
                got = [int(m.group(0).replace(",", "")) for m in
                       (re.search(r"[0-9][0-9,]*", t) for t in d["keys"].get("samples", [])) if m]
                c.ok("%s: summary: samples = report's (%s, %s)" % (label, got, rep["samples"]),
                     rep["samples"] in got or sum(got) == rep["samples"] or
                     sum(got[1:]) == rep["samples"], json.dumps(d["keys"])[:300])
                miss = [k for k in ("command", "event", "sampling", "samples", "lost", "duration",
                                    "threads") if k not in d["keys"]]
                c.ok("%s: summary: every key is there" % label, not miss, "missing %s" % miss)
                # the hottest functions: names whole (wrapped, not cut), the full name in the tooltip
                bad = [h for h in d.get("hot", []) if h["clipped"] or h["text"] != h["name"] or not h["title"].startswith(h["name"])]
                c.ok("%s: summary: the hottest functions' names are whole (%d)" % (label, len(d.get("hot", []))),
                     not bad, json.dumps(bad[:3]))
                # titles: the recorded command, not the target's token; "a vs b" only with the diff view
                recs = ebs.page["recordings"]
                cmd = [os.path.basename(w) for w in str(recs[0].get("cmdline") or "").split()]
                c.ok("%s: the tab's title names the command (%s)" % (label, d["title"]),
                     " ".join(cmd[:2]) in d["title"] and "(%s)" % recs[0].get("target") not in d["title"], cmd)
                files = [r["file"] for r in recs]
                sep = " vs " if ebs.page.get("diff") else " + "
                c.ok("%s: the header reads %r" % (label, d["header"]), d["header"] == sep.join(files), sep.join(files))
            elif d["view"] == "bottomup" and phase == "search":
                rows = [r for r in d["rows"] if r["f"]]
                if any(a.search not in (r["f"][0] or "") for r in rows):
                    c.ok("search '%s': every row shown holds it" % a.search, False,
                         str([r["f"][0] for r in rows if a.search not in r["f"][0]][:5]))
                else:
                    rep = ebs.report(d["sel"]["cli"].split(), "--children")
                    want = {(r["function"], r["dso"]) for r in rep["rows"] if a.search in r["function"]}
                    got = {tuple(r["f"]) for r in rows}
                    c.ok("search '%s': the rows shown are those whose name holds it (%d)"
                         % (a.search, len(got)), got == want or (got and got <= want),
                         "page %s; report %s" % (sorted(got)[:5], sorted(want)[:5]))
            elif d["view"] == "bottomup":
                check_bottomup(c, ebs, d, label, a.chains)
            elif d["view"] in ("topdown", "flame") and a.chains:
                check_tree(c, ebs, d, label, d["view"])
            elif d["view"] == "callers" and a.chains and a.func:
                check_callers(c, ebs, d, label, a.func)
            elif d["view"] == "source" and a.func:
                check_source(c, ebs, d, label, a.func)
            elif d["view"] == "diff":
                check_diff(c, ebs, d, label)
            elif d["view"] == "flame" and not a.chains:
                t = d.get("text") or ""
                c.ok("%s: flame says without chains it shows the sampled functions only, and how to record them"
                     % label, "only the sampled functions" in t and "record -g" in t, repr(t[:200]))
                check_folded(c, ebs, d, label)
            elif d["view"] in ("topdown", "flame", "callers") and not a.chains:
                t = d.get("text") or ""
                c.ok("%s: %s says it needs call chains and how to record them" % (label, d["view"]),
                     "record -g" in t, repr(t[:200]))
        except RuntimeError as e:
            c.ok("%s: %s: ebs's listing" % (label, d["view"]), False, str(e))
    # counts: "1 function", never "1 functions"
    ones = [(d["view"], m.group(0)) for _, d in order
            for m in re.finditer(r"(?<![0-9,.])1 (functions|samples|frames|threads)\b", d.get("text") or "")]
    c.ok("no '1 <plural>' in the views' text (%d dumps)" % len(order), not ones, json.dumps(ones[:5]))
    # the keyboard
    act = [v for k, v in res if k == "eval" and isinstance(v, dict) and "shown" in v and "tag" in v]
    if a.quick:
        pass
    elif len(act) >= 7:
        c.ok("key 3 shows the third view (%s)" % act[0]["shown"], act[0]["shown"] == ["view-topdown"] or
             (len(act[0]["shown"]) == 1 and act[0]["shown"][0] != "view-bottomup"), json.dumps(act[0]))
        c.ok("key 2 shows bottom-up (%s)" % act[1]["shown"], "view-bottomup" in act[1]["shown"],
             json.dumps(act[1]))
        c.ok("'/' focuses the search box (%s)" % act[2]["id"], act[2]["id"] == "search", json.dumps(act[2]))
        cur = [x["selected"] or x["row"] for x in act[3:7]]
        c.ok("ArrowDown puts a cursor on a row of the table (%s)" % cur[0], cur[0] is not None,
             json.dumps(act[3]))
        if act[3]["rows"] >= 2:
            c.ok("ArrowDown moves it, ArrowUp back (%s)" % cur[:3],
                 cur[1] is not None and cur[1] != cur[0] and cur[2] == cur[0], json.dumps(act[3:6]))
        c.ok("Enter on the row opens another view (%s -> %s)" % (act[5]["shown"], act[6]["shown"]),
             act[6]["shown"] != act[5]["shown"], json.dumps(act[5:7]))
    else:
        c.ok("the keyboard actions ran", False, "%d of 7 answers" % len(act))
    return 0


if __name__ == "__main__":
    sys.exit(main())
