#!/usr/bin/env python3
"""mkview.py - a synthetic `ebs view` page, for working on the page's front
end (report/view/assets) without a recording: makes data in the format of
docs/view.md (version 1) and wraps it into the template as the page writer
does (view.css, view.js and the data inlined, the data escaped).

usage: mkview.py [--entries N] [--funcs N] [--threads N] [--diff]
                 [--events N] [--seed S] [--json FILE] OUT.html
       mkview.py --wrap DATA.json OUT.html   (a page from a data file)
       mkview.py --wrap PAGE.html OUT.html   (an ebs view page with these assets)

The names include hostile ones (markup, a script end tag, U+2028) so that
the page's escaping is exercised.
"""
import argparse
import json
import os
import random
import re

ASSETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "report", "view",
                      "assets")

HOSTILE = ['<img src=x onerror="alert(1)">', '</script><script>alert(2)</script>',
           'a&amp;b\u2028c', "operator<<(std::ostream&, T const&)", "\u00e9t\u00e9_\u65e5\u672c"]


def escape_json(text):
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def wrap(data, out):
    def read(name):
        with open(os.path.join(ASSETS, name), encoding="utf-8") as f:
            return f.read()
    page = read("view.html")
    text = escape_json(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    # as report/view/page.c does
    page = page.replace("<!-- ebs:style -->", "<style>\n" + read("view.css") + "</style>", 1)
    page = page.replace("<!-- ebs:data -->",
                        '<script id="ebs-data" type="application/json">' + text + "</script>", 1)
    page = page.replace("<!-- ebs:script -->", "<script>\n" + read("view.js") + "</script>", 1)
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)


def make(a):
    rnd = random.Random(a.seed)
    nrec = 2 if a.diff else 1
    events = ["cpu-clock", "task-clock"][:a.events]
    dsos = [["prog", "/usr/bin/prog", 1], ["libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0],
            ["[kernel]", "[kernel.kallsyms]", 0], ["libsqlite3.so.0", "/usr/lib/libsqlite3.so.0", 1]]
    funcs = [["main", 0, 0], ["[unknown]", 1, 4]]
    for i in range(a.funcs):
        d = rnd.choice([0, 0, 1, 2, 3, 3])
        name = {0: "prog_fn_%d", 1: "libc_%d", 2: "kern_%d", 3: "sqlite3Vdbe_%d"}[d] % i
        if i < len(HOSTILE):
            name = HOSTILE[i]
        flags = 1 if d == 2 else (2 if rnd.random() < 0.1 else 0)
        funcs.append([name, d, flags])
    nf = len(funcs)
    threads = []
    for r in range(nrec):
        pid = 1000 + 100 * r
        for t in range(a.threads):
            p = pid + (t // 4) * 10
            threads.append([r, p, p + t % 4, "worker-%d" % t if t else "prog"])
    # the trie: random walks from main
    nodes, index = [], {}

    def node(parent, f):
        k = (parent, f)
        if k not in index:
            index[k] = len(nodes) // 2
            nodes.extend([parent, f])
        return index[k]
    weights = [1.0 / (1 + i) ** 0.9 for i in range(nf)]
    leaves = []
    for _ in range(max(50, a.entries // 40)):
        n = node(-1, 0)
        depth = rnd.randint(1, 24)
        for _d in range(depth):
            f = rnd.choices(range(2, nf), weights[2:])[0] if rnd.random() < 0.8 else rnd.randrange(2, nf)
            n = node(n, f)
        leaves.append(n)
    sites, site_of = [], {}
    for f in range(nf):
        site_of[f] = []
        for k in range(rnd.randint(1, 6)):
            site_of[f].append(len(sites) // 2)
            sites.extend([f, 0x1000 + f * 0x100 + k * 4])
    stacks, stack_index = [], {}

    def stack(n):
        f = nodes[2 * n + 1]
        s = rnd.choice(site_of[f])
        k = (n, s)
        if k not in stack_index:
            stack_index[k] = len(stacks) // 2
            stacks.extend([n, s])
        return stack_index[k]
    nb = 1000 if a.entries >= 5000 else 100
    span = 2_345_678_000
    w = -(-span // nb)
    w = -(-w // 1000) * 1000
    nb = -(-span // w)
    cols = {"bucket_start": [], "thread": [], "event": [], "stack": [], "count": []}
    per = a.entries / nb
    lw = [1.0 / (1 + i) ** 1.1 for i in range(len(leaves))]
    for b in range(nb):
        cols["bucket_start"].append(len(cols["thread"]))
        seen = set()
        for _ in range(max(1, int(rnd.gauss(per, per / 3)))):
            t = rnd.randrange(len(threads))
            if threads[t][0] == 1 and rnd.random() < 0.3:
                continue
            if t % 3 == 2 and b > nb // 2:  # some threads stop half way
                continue
            leaf = rnd.choices(range(len(leaves)), lw)[0] if rnd.random() < 0.7 else rnd.randrange(len(leaves))
            if threads[t][0] == 1 and leaf % 7 == 0:
                leaf = 0  # the new recording moves samples to one place
            k = (t, rnd.randrange(len(events)), stack(leaves[leaf]))
            if k in seen:
                continue
            seen.add(k)
            cols["thread"].append(k[0])
            cols["event"].append(k[1])
            cols["stack"].append(k[2])
            cols["count"].append(rnd.choice([1, 1, 1, 2, 3, 7]))
    cols["bucket_start"].append(len(cols["thread"]))
    total = sum(cols["count"])
    # annotate the hottest functions
    self_ = [0] * nf
    for s, c in zip(cols["stack"], cols["count"]):
        self_[sites[2 * stacks[2 * s + 1]]] += c
    hot = sorted(range(nf), key=lambda f: -self_[f])
    annotate = {}
    for f in hot[:40]:
        if not self_[f]:
            break
        if f == 1:
            annotate[str(f)] = {"file": None, "why": "[unknown]: no symbol", "lines": [], "asm": [], "map": []}
            continue
        if funcs[f][1] == 1:
            annotate[str(f)] = {"file": None, "why": "libc.so.6 has no debug info (apt install libc6-dbg)",
                                "lines": [], "asm": [[sites[2 * s + 1], "mov %%rax, 0x%x(%%rbp)" % i, -1]
                                                     for i, s in enumerate(site_of[f])],
                                "map": sum([[s, -1, i] for i, s in enumerate(site_of[f])], [])}
            continue
        src = "src/%s.c" % ("sqlite3" if funcs[f][1] == 3 else "prog")
        lines = [[src, 100 + i, t] for i, t in enumerate(
            ["static int %s(struct ctx *c, int n)" % ("fn%d" % f), "{", "\tint i, sum = 0;", "",
             "\tfor (i = 0; i < n; i++) {", "\t\tif (c->v[i] < 0 && c->w[i] > 0) /* <b>&amp; */",
             "\t\t\tcontinue;", "\t\tsum += c->v[i] * c->w[i];", "\t}", "\treturn sum;", "}"])]
        asm, amap = [], []
        for i, s in enumerate(site_of[f]):
            row = [4, 5, 7, 7, 9, 2][i % 6]
            asm.append([sites[2 * s + 1], ["add %eax, %edx", "cmp $0x0, -0x4(%rbp)", "imul %ecx, %eax",
                                            "jl 1f <x>", "ret", "push %rbp"][i % 6], row])
            amap.extend([s, row, i])
        annotate[str(f)] = {"file": src, "why": None, "lines": lines, "asm": asm, "map": amap}
    recs = []
    for r in range(nrec):
        recs.append({"file": "ebs%s.data" % ("" if r == 0 else ".new"), "host": "vm1",
                     "cmdline": "ebs record -g -F 999 -- ./prog --size <big> & more",
                     "target": "./prog", "backend": "perf_event",
                     "events": [{"name": e, "asked": e, "fallback": None, "period": None, "freq": 999}
                                for e in events],
                     "calibration": None, "samples": total // nrec, "lost": 3 * r, "throttled": 0,
                     "span_ns": span - r * 100_000_000, "call_graph": "fp,512"})
    return {"format": 1, "ebs": "0.33-synthetic", "recordings": recs, "events": events,
            "bucket_ns": w, "nbuckets": nb, "dsos": dsos, "no_debug": [1, 2],
            "funcs": funcs, "threads": threads, "nodes": nodes, "sites": sites, "stacks": stacks,
            "samples": cols, "annotate": annotate, "annotate_left": max(0, sum(1 for x in self_ if x) - 40),
            "diff": {"base": 0, "new": 1, "alpha": 0.05} if a.diff else None}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--entries", type=int, default=3000)
    p.add_argument("--funcs", type=int, default=200)
    p.add_argument("--threads", type=int, default=6)
    p.add_argument("--events", type=int, default=1)
    p.add_argument("--diff", action="store_true")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json")
    p.add_argument("--wrap")
    p.add_argument("out")
    a = p.parse_args()
    if a.wrap:
        with open(a.wrap, encoding="utf-8") as f:
            text = f.read()
        # a page of ebs view: its data, for the assets of this tree
        m = re.search(r'<script id="ebs-data" type="application/json">(.*?)</script>', text, re.S)
        data = json.loads(m.group(1) if m else text)
    else:
        data = make(a)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(data, f)
    wrap(data, a.out)


if __name__ == "__main__":
    main()
