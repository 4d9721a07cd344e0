#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""sqlite_check.py - the oracles of tests/integration/sqlite.sh: ebs on the
SQLite amalgamation (sqlwork, built by tests/real/build-sqlite.sh) against
perf, the ELF symbol table, DWARF as llvm-dwarfdump prints it, binutils'
addr2line and the source text itself.

  sqlite_check.py perf T --ebs EBS --exe SQLWORK --script PERF-SCRIPT.txt
  sqlite_check.py annotate T --ebs EBS --exe SQLWORK --data EBS.DATA
                  --dwarf DWARFDUMP.txt [--top 30] [--context 3]

Prints PASS/FAIL lines ("PASS: T: what") and notes (indented lines, for the
log), and exits 0 unless it could not run at all.

perf: every sample perf recorded in sqlwork, its IP made a link-time address
through perf's mmap events and the program headers, is resolved by one
`ebs addr2line -e sqlwork` (addresses on stdin); the last frame of its inline
chain (the compiled function) must be perf's symbol, sample for sample.  The
allowed differences: GCC's clones (foo.constprop.0, foo.part.0,
foo.isra.0, foo.cold) are named by the ELF symbol table, which perf reads,
and by DWARF (the clone's DIE points at foo's), which ebs addr2line reads;
and PLT code of no symbol (PLT0, .plt.got), which perf names _init (the
size-0 symbol before it, stretched) and ebs addr2line ??.

annotate: see check_functions, check_whole and check_html.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

# GCC's names for the parts of a function it split or specialised
CLONE = re.compile(r"(\.(cold|part|constprop|isra|lto_priv)(\.\d+)?)+$")


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:3]), p.returncode,
                                                (p.stderr.strip().splitlines() or [""])[-1][:300]))
    return p.stdout


def base_name(name):
    return CLONE.sub("", name)


# ---- addresses ----------------------------------------------------------------

def load_segments(exe):
    """(file offset, vaddr, file size) of each PT_LOAD."""
    segs = []
    for line in run(["readelf", "-lW", exe]).splitlines():
        f = line.split()
        if f and f[0] == "LOAD":
            segs.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))
    return segs


def link_address(maps, segs, pid, ip):
    """The link-time address of ip, through the mmap (start, len, pgoff) holding it."""
    for start, length, pgoff in maps.get(pid, ()):
        if start <= ip < start + length:
            off = ip - start + pgoff
            for o, v, size in segs:
                if o <= off < o + size:
                    return v + off - o
    return None


def mapped_samples(lines, exe, mm, sm):
    """[(link-time address or None, match)] of the samples of exe in lines:
    mm matches a mapping (pid, start, len, pgoff, file), sm a sample (pid,
    ip, ...), both in time order, so a sample resolves through the maps
    seen before it."""
    exe = os.path.realpath(exe)
    segs = load_segments(exe)
    maps, out = collections.defaultdict(list), []
    for line in lines:
        m = mm.match(line)
        if m:
            if os.path.realpath(m.group(5)) == exe:
                maps[int(m.group(1))].append((int(m.group(2), 16), int(m.group(3), 16),
                                              int(m.group(4), 16)))
            continue
        m = sm.match(line)
        if m:
            out.append((link_address(maps, segs, int(m.group(1)), int(m.group(2), 16)), m))
    return out


def perf_samples(script, exe):
    """[(address, perf's symbol)] of the samples in exe, from
    perf script -F pid,ip,sym,dso --show-mmap-events, and how many were not
    in a mapping of it."""
    mm = re.compile(r"^\s*-?\d+\s+PERF_RECORD_MMAP2? (-?\d+)/-?\d+: \[(0x[0-9a-f]+)\((0x[0-9a-f]+)\)"
                    r" @ (0x[0-9a-f]+|0)[ \]].*\]: [-rwxps]+ (.*)$")
    sm = re.compile(r"^\s*(\d+)\s+([0-9a-f]+) (.*) \((.*)\)$")
    real = os.path.realpath(exe)
    got = [(a, m.group(3)) for a, m in mapped_samples(open(script), exe, mm, sm)
           if os.path.realpath(m.group(4)) == real]
    return [g for g in got if g[0] is not None], sum(1 for g in got if g[0] is None)


def ebs_samples(ebs, data, exe):
    """Link-time addresses of ebs's samples in exe, from ebs report --dump."""
    mm = re.compile(r"^\d+ MMAP .* pid (\d+) \[(0x[0-9a-f]+)\+(0x[0-9a-f]+)\] pgoff (0x[0-9a-f]+) (.*)$")
    sm = re.compile(r"^\d+ SAMPLE .* pid (\d+) .* ip (0x[0-9a-f]+) .* event 0 ")
    dump = run([ebs, "report", "-i", data, "--dump"]).splitlines()
    return [a for a, _ in mapped_samples(dump, exe, mm, sm) if a is not None]


def plt_ranges(exe):
    """[start, end) of the PLT sections (.plt, .plt.got, .plt.sec)."""
    out = []
    for line in run(["readelf", "-SW", exe]).splitlines():
        m = re.match(r"^\s*\[\s*\d+\] (\.plt\S*)\s+\S+\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+) ", line)
        if m:
            out.append((int(m.group(2), 16), int(m.group(2), 16) + int(m.group(3), 16)))
    return out


def ebs_compiled(ebs, exe, addrs):
    """Per address, the last frame of ebs addr2line's inline chain: the compiled function."""
    text = run([ebs, "addr2line", "-e", exe], "".join("%x\n" % a for a in addrs))
    names = []
    for line in text.splitlines():
        inl = line.startswith(" (inlined by) ")
        name = line[len(" (inlined by) "):] if inl else line
        name = name.rsplit(" at ", 1)[0]
        if inl:
            names[-1] = name
        else:
            names.append(name)
    return names


def binutils_frames(exe, addrs):
    """{address: [(function, file, line)], innermost first} from binutils
    addr2line -a -f -i; frames without a line are left out."""
    addrs = sorted(set(addrs))
    text = run(["addr2line", "-a", "-f", "-i", "-e", exe], "".join("%#x\n" % a for a in addrs))
    frames, cur, fn = {}, None, None
    for line in text.splitlines():
        if re.match(r"^0x[0-9a-f]+$", line):
            cur = int(line, 16)
            frames[cur] = []
            fn = None
        elif fn is None:
            fn = line
        else:
            m = re.match(r"^(.*):(\d+)(?: \(discriminator \d+\))?$", line)
            if m and m.group(1) != "??" and int(m.group(2)):
                frames[cur].append((fn, m.group(1), int(m.group(2))))
            fn = None
    return frames


def symtab(exe):
    """Sorted [(start, end, name)] of the function symbols (readelf -s), and
    each 16-byte entry of the PLT sections as "plt+OFFSET"."""
    syms = set()
    for line in run(["readelf", "-sW", exe]).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            start, size = int(f[1], 16), int(f[2], 0)
            if size:
                syms.add((start, start + size, f[7].split("@")[0]))
    for start, end in plt_ranges(exe):
        syms |= {(a, a + 16, "plt+%x" % a) for a in range(start, end, 16)}
    return sorted(syms)


def function_at(syms, addr):
    lo, hi = 0, len(syms)
    while lo < hi:
        mid = (lo + hi) // 2
        if syms[mid][0] <= addr:
            lo = mid + 1
        else:
            hi = mid
    if lo and syms[lo - 1][0] <= addr < syms[lo - 1][1]:
        return syms[lo - 1][2]
    return None


# ---- DWARF and the source -------------------------------------------------------

def dwarf_functions(path):
    """{name: {(decl_file, decl_line)}} of every function DWARF defines, from
    llvm-dwarfdump --debug-info: a DIE's own DW_AT_name/decl_* or, when it
    lacks them, those of the DIE its DW_AT_specification or
    DW_AT_abstract_origin names; pure declarations (DW_AT_declaration) left out."""
    dies, cur = {}, None
    die_re = re.compile(r"^(0x[0-9a-f]+):\s+(DW_TAG_\w+)")
    attr_re = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*?)\)?$")
    for line in open(path):
        m = die_re.match(line)
        if m:
            cur = {} if m.group(2) == "DW_TAG_subprogram" else None
            if cur is not None:
                dies[int(m.group(1), 16)] = cur
            continue
        if cur is None:
            continue
        m = attr_re.match(line)
        if not m:
            continue
        k, v = m.group(1), m.group(2)
        if k in ("DW_AT_name", "DW_AT_decl_file"):
            cur[k] = v.strip('"')
        elif k == "DW_AT_decl_line":
            cur[k] = int(v, 0)
        elif k in ("DW_AT_specification", "DW_AT_abstract_origin"):
            cur["ref"] = int(v.split()[0], 16)
        elif k == "DW_AT_declaration":
            cur["decl_only"] = True

    def attr(die, k, depth=0):
        while die is not None and depth < 8:
            if k in die:
                return die[k]
            die, depth = dies.get(die.get("ref")), depth + 1
        return None

    out = collections.defaultdict(set)
    for die in dies.values():
        if die.get("decl_only"):
            continue
        name, f, l = attr(die, "DW_AT_name"), attr(die, "DW_AT_decl_file"), attr(die, "DW_AT_decl_line")
        if name and f and l:
            out[name].add((os.path.realpath(f), l))
    return out


_sources = {}


def source(path):
    """The lines of path (line n at [n - 1]), None when unreadable."""
    if path not in _sources:
        try:
            with open(path, errors="replace") as f:
                _sources[path] = f.read().split("\n")
        except OSError:
            _sources[path] = None
    return _sources[path]


def body_end(src, decl):
    """The line of the brace closing the body of the function declared at
    line decl: braces counted from decl on, leaving out comments, string and
    character literals, preprocessor lines and every branch of an #if but
    the first (SQLite opens a block differently under #ifdef and #else).
    The first line that is just "}" is not the end: the case blocks of
    sqlite3VdbeExec end with one.  None when the braces never balance."""
    depth, started, in_comment, in_macro = 0, False, False, False
    conds = []	# per open #if: True once past its first branch
    for n in range(decl, len(src) + 1):
        s = src[n - 1]
        if in_macro or (not in_comment and s.lstrip().startswith("#")):
            if not in_macro:
                d = re.match(r"#\s*(\w*)", s.lstrip()).group(1)
                if d.startswith("if"):
                    conds.append(False)
                elif d in ("else", "elif") and conds:
                    conds[-1] = True
                elif d == "endif" and conds:
                    conds.pop()
            in_macro = s.endswith("\\")
            continue
        if any(conds):
            continue
        i = 0
        while i < len(s):
            if in_comment:
                j = s.find("*/", i)
                if j < 0:
                    break
                in_comment, i = False, j + 2
                continue
            c = s[i]
            if s.startswith("/*", i):
                in_comment, i = True, i + 2
                continue
            if s.startswith("//", i):
                break
            if c in "\"'":
                j = i + 1
                while j < len(s) and s[j] != c:
                    j += 2 if s[j] == "\\" else 1
                i = j + 1
                continue
            if c == "{":
                depth, started = depth + 1, True
            elif c == "}":
                depth -= 1
                if started and depth == 0:
                    return n
            i += 1
    return None


def function_span(dwarf, name):
    """(decl_file, decl_line, last_line) of a function, or a reason why not."""
    decls = dwarf.get(base_name(name))
    if not decls:
        return "no DWARF subprogram named %s" % base_name(name)
    if len(decls) > 1:
        return "DWARF declares %s %d times: %s" % (base_name(name), len(decls), sorted(decls)[:3])
    f, decl = next(iter(decls))
    src = source(f)
    if src is None:
        return "its declaration file %s is not there to read" % f
    end = body_end(src, decl)
    if end is None:
        return "the braces of its body from %s:%d do not balance" % (f, decl)
    # a function defined by a macro: its decl_line is where the macro is used
    nxt = [l for decls in dwarf.values() for g, l in decls if g == f and decl < l <= end]
    if nxt:
        return "another function is declared at %s:%d, before its braces close at %d" % \
            (f, min(nxt), end)
    return f, decl, end


# ---- ebs annotate's text ---------------------------------------------------------

ROW = re.compile(r"^  (.{8}) (.{6}) (.{6})  ([ \d]{5}\d)  (.*)$")
GAP = re.compile(r"^ {26} {3}\.\.\.$")
SUFFIX = re.compile(r"^(   \[[^\]]*\])?(   <- \d+ samples? \([\d.]+%\) of .* inlined here)?$")


def parse_annotate(text):
    """The first listing of an ebs annotate text output: its header fields,
    the own-source block: the rows (line, samples, text) before the first
    '# inlined code, FILE:' or '# other lines, FILE:' line."""
    a = {"header": None, "source": None, "block": [], "block_lines": 0}
    in_block, listings = False, 0
    for line in text.split("\n"):
        if line.startswith("# annotate: "):
            listings += 1
            if listings > 1:
                break
            a["header"] = line
            continue
        if line.startswith("# source: "):
            a["source"] = line[len("# source: "):].split(" (read from ")[0]
            continue
        if line.startswith("#  ") and " line  source" in line:
            in_block = True
            continue
        if line.startswith("# inlined code, ") or line.startswith("# other lines, "):
            in_block = False
            continue
        m = ROW.match(line)
        if m:
            n = int(m.group(1)) if m.group(1).strip() else 0
            if in_block:
                a["block"].append((int(m.group(4)), n, m.group(5)))
                a["block_lines"] += 1
        elif GAP.match(line) and in_block:
            a["block_lines"] += 1
    return a


def annotate(ebs, data, name, html=None):
    cmd = [ebs, "annotate", "-i", data, name, "--color", "never"]
    if html:
        cmd += ["--html", html]
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


# ---- the checks ---------------------------------------------------------------------

def verdict(t, name, failures, checked, notes=()):
    if not checked:
        print("FAIL: %s: %s: nothing was checked" % (t, name))
    elif failures:
        print("FAIL: %s: %s: %d of %d functions: %s" % (t, name, len(failures), checked,
                                                         "; ".join(failures[:4])))
        for f in failures:
            print("    " + f)
    else:
        print("PASS: %s: %s (%d functions)" % (t, name, checked))
    for n in notes:
        print("    " + n)


def cmd_perf(a):
    samples, unmapped = perf_samples(a.script, a.exe)
    if len(samples) < 200:
        print("FAIL: %s: perf: only %d samples in sqlwork (%d outside its mmaps)" %
              (a.t, len(samples), unmapped))
        return
    names = ebs_compiled(a.ebs, a.exe, [s[0] for s in samples])
    if len(names) != len(samples):
        print("FAIL: %s: perf: ebs addr2line answered %d of %d addresses" % (a.t, len(names), len(samples)))
        return
    clones, bad = collections.Counter(), collections.Counter()
    plts, plt = plt_ranges(a.exe), 0
    for (addr, sym), name in zip(samples, names):
        if name == sym:
            continue
        if CLONE.search(sym) and base_name(sym) == name:
            clones[sym] += 1
        elif sym == "_init" and name == "??" and any(lo <= addr < hi for lo, hi in plts):
            # PLT code of no symbol (PLT0, .plt.got): perf stretches .init's
            # _init (size 0) over it; ebs names nothing (a SAN run: 1 of 5343)
            plt += 1
        else:
            bad[(sym, name)] += 1
    agree = len(samples) - sum(clones.values()) - sum(bad.values()) - plt
    if bad or unmapped:
        print("FAIL: %s: perf's symbol = ebs addr2line's compiled function, sample for sample: "
              "%d of %d samples differ%s: %s" %
              (a.t, sum(bad.values()), len(samples),
               ", %d outside any mmap of sqlwork" % unmapped if unmapped else "",
               ", ".join("perf %s / ebs %s (%d)" % (k[0], k[1], n) for k, n in bad.most_common(6))))
    else:
        print("PASS: %s: perf's symbol = ebs addr2line's compiled function for each of %d "
              "samples: %d equal, %d allowed (GCC clones: perf names the ELF symbol, ebs the "
              "DWARF function: %s), %d in PLT code of no symbol (perf's _init, ebs's ??)" %
              (a.t, len(samples), agree, sum(clones.values()),
               ", ".join("%s (%d)" % kv for kv in clones.most_common(5)) or "none", plt))


def top_functions(ebs, data, n):
    """The n hottest function names of ebs report --dso sqlwork (an inlined
    function's rows counted together)."""
    rep = json.loads(run([ebs, "report", "-i", data, "--dso", "sqlwork", "--json"]))
    per = collections.Counter()
    for r in rep["rows"]:
        per[r["function"]] += r["samples"]
    return [f for f, _ in sorted(per.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def own_samples(r):
    """Samples of a --sort line row in its function's own compiled code: a
    row with no "inlined_into" is all own; one with a list of the functions
    it was inlined into says "own"; one inlined into a single function
    (named by a string: ebs before report gave one row per line) has none."""
    if "inlined_into" not in r:
        return r["samples"]
    return r.get("own", 0) if isinstance(r["inlined_into"], list) else 0


def check_functions(a, dwarf, names, lines, compiled_fns, jobs):
    """(c) For each function, its listing's own-source block (the rows
    before the first section header) against oracles independent of ebs:
    (i)   the rows are lines of DW_AT_decl_file (their text is that file's
          text) and start at or after DW_AT_decl_line;
    (ii)  they end at or before the function's last line, the '}' closing
          its body in the source text;
    (iii) every line ebs report --sort line gives samples of the function's
          own code, in [decl_line, last line], is in the block with samples;
    (iv)  the block has at most (last - decl_line + 1) + 2 * context lines,
          the context being the lines annotate may show around sampled lines.
    A function compiled out of line with samples (a row of ebs report
    --no-inline: annotate lists that one) is listed whole, and its block must
    lie in [decl_line, last line]: its sampled lines outside belong under
    '# other lines'.  One that exists
    only inlined is listed as every line its inlined code was sampled at,
    with context, in one block: DWARF's line table can give a line of the
    caller to an address in the inlined code's range, so there its block
    may also hold the sampled lines outside [decl_line, last line] (counted
    in the notes), and the context around these and around the span."""
    c = a.context
    fails = {k: [] for k in ("i", "ii", "iii", "iv")}
    checked, notes, nown = 0, [], 0
    for name in names:
        rc, out, err = jobs[name].result()
        span = function_span(dwarf, name)
        if isinstance(span, str):
            notes.append("not checked: %s: %s" % (name, span))
            continue
        dfile, decl, last = span
        compiled = name in compiled_fns
        own = {}	# sampled own lines in [decl, last]: report's count
        for r in lines:
            n = own_samples(r) if compiled else r["samples"]
            if r["function"] == name and n and os.path.realpath(r["file"]) == dfile and \
               decl <= r["line"] <= last:
                own[r["line"]] = own.get(r["line"], 0) + n
        nown += len(own)
        if rc != 0:
            for k in fails:
                fails[k].append("%s: ebs annotate exited %d: %s" % (name, rc, err[:200]))
            checked += 1
            continue
        ann = parse_annotate(out)
        block = ann["block"]
        checked += 1
        # only inlined: the sampled lines outside its body, which its listing shows
        outside = set() if compiled else \
            {r["line"] for r in lines if r["function"] == name and os.path.realpath(r["file"]) == dfile
             and not decl <= r["line"] <= last}
        allowed = set(range(decl, last + 1))
        if not compiled:
            for l in outside | {decl, last}:
                allowed |= set(range(l - c, l + c + 1))
        if outside:
            notes.append("%s: only inlined, %d sampled lines outside its body allowed in its "
                         "listing: %s" % (name, len(outside), ", ".join(map(str, sorted(outside)[:8]))))
        src = source(dfile)
        where = "%s:%d-%d" % (os.path.basename(dfile), decl, last)
        # (i) the decl file, from decl_line
        why = []
        if not ann["header"] or ("(inlined, " in ann["header"]) == compiled:
            why.append("the header %r does not say %s" %
                       (ann["header"], "compiled" if compiled else "only inlined"))
        if not ann["source"] or os.path.realpath(ann["source"]) != dfile:
            why.append("source %s, not its decl file %s" % (ann["source"], dfile))
        if not block:
            why.append("no own-source rows")
        else:
            before = [r[0] for r in block if r[0] < decl and r[0] not in allowed]
            if before:
                why.append("starts at line %d, before decl_line %d%s" %
                           (before[0], decl, "" if compiled else " - %d" % c))
            wrong = [r[0] for r in block if not (1 <= r[0] <= len(src)) or
                     not r[2].startswith(src[r[0] - 1]) or not SUFFIX.match(r[2][len(src[r[0] - 1]):])]
            if wrong:
                why.append("%d rows are not the text of %s (line %d first)" %
                           (len(wrong), os.path.basename(dfile), wrong[0]))
        if why:
            fails["i"].append("%s (%s): %s" % (name, where, ", ".join(why)))
        # (ii) the last line
        after = [r[0] for r in block if r[0] > last and r[0] not in allowed]
        if after:
            fails["ii"].append("%s (%s): ends at line %d, after its last line %d%s" %
                               (name, where, max(after), last, "" if compiled else " + %d" % c))
        # (iii) every sampled own line in range
        have = {r[0]: r[1] for r in block}
        missing = sorted(l for l in own if not have.get(l))
        if missing:
            fails["iii"].append("%s (%s): %d sampled lines of its own not in its block "
                                "with samples: %s" % (name, where, len(missing),
                                                      ", ".join(map(str, missing[:8]))))
        # (iv) the length
        # (a line outside with its context and a gap marker: 2 * c + 2 more)
        bound = last - decl + 1 + 2 * c + (2 * c + 2) * len(outside)
        if ann["block_lines"] > bound:
            fails["iv"].append("%s (%s): %d lines, more than %d - %d + 1 + 2 * %d%s = %d" %
                               (name, where, ann["block_lines"], last, decl, c,
                                " + %d * %d" % (2 * c + 2, len(outside)) if outside else "", bound))
    verdict(a.t, "annotate FUNC, %d hottest: (i) own-source rows are of DW_AT_decl_file, "
            "from DW_AT_decl_line on" % len(names), fails["i"], checked, notes)
    verdict(a.t, "annotate FUNC: (ii) own-source rows end by the function's closing '}'",
            fails["ii"], checked)
    verdict(a.t, "annotate FUNC: (iii) own-source rows hold every sampled line of the "
            "function's own code (ebs report --sort line: %d lines) with samples" % nown,
            fails["iii"], checked)
    verdict(a.t, "annotate FUNC: (iv) own-source rows at most the function's span + 2 * "
            "%d context lines" % c, fails["iv"], checked)


def sample_lines(a, dwarf):
    """Per compiled function (symbol table) of ebs's samples in sqlwork: the
    (file, line) of every frame of every sample, by binutils addr2line -i."""
    addrs = ebs_samples(a.ebs, a.data, a.exe)
    syms = symtab(a.exe)
    frames = binutils_frames(a.exe, addrs)
    per = collections.defaultdict(set)
    for addr in addrs:
        fn = function_at(syms, addr) or "??"
        per[fn]	# a function with samples, with lines or not
        for _, f, l in frames.get(addr, ()):
            per[fn].add((os.path.realpath(f), l))
    return addrs, per, syms


def check_whole(a, dwarf, per, job, functions):
    """(d) ebs annotate --dso sqlwork of every function with samples finishes
    and prints at most 1 + sum over its functions (compiled, by the symbol
    table) of 9 header lines + the function's span (decl_line to its closing
    '}', 0 without DWARF) + (2 * context + 3) per line any sample's inline
    chain names (binutils addr2line -i): a hot line with its context lines
    and a gap or section header (two lines), wherever that line lies.  Only
    sqlwork: other DSOs' listings depend on the debug packages installed.
    There is one listing per function ebs report names in sqlwork
    (functions: a size-0 symbol such as _init, which the oracle's table
    leaves out, is still a function there)."""
    c = a.context
    bound, spans = 1, 0
    for fn, lines in per.items():
        span = function_span(dwarf, fn) if fn != "??" else "no symbol"
        s = 0 if isinstance(span, str) else span[2] - span[1] + 1
        spans += s
        bound += 9 + s + (2 * c + 3) * len(lines)
    p = job.result()
    n = p.stdout.count("\n")
    listed = re.findall(r"^# annotate: (.*) \(sqlwork, ", p.stdout, re.M)
    name = ("annotate of the whole profile (--dso sqlwork, %d functions): at most %d lines "
            "(%d functions x 9 header lines + %d lines of their spans + %d x %d sampled lines "
            "+ 1)" % (len(per), bound, len(per), spans, 2 * c + 3, sum(map(len, per.values()))))
    if p.returncode != 0:
        print("FAIL: %s: %s: exit %d: %s" % (a.t, name, p.returncode, p.stderr.strip()[:200]))
    elif sorted(listed) != sorted(functions):
        print("FAIL: %s: %s: %d listings for the %d functions ebs report names (listed, not "
              "named: %s; named, not listed: %s)" % (a.t, name, len(listed), len(functions),
                                                      sorted(set(listed) - set(functions))[:5],
                                                      sorted(set(functions) - set(listed))[:5]))
    elif n > bound:
        print("FAIL: %s: %s: %d lines" % (a.t, name, n))
    else:
        print("PASS: %s: %s: %d lines" % (a.t, name, n))


def html_len(text):
    """Bytes of text as html.c's esc() writes it (tabs as 8 spaces)."""
    return len(text.encode()) + 3 * text.count("<") + 3 * text.count(">") + \
        4 * text.count("&") + 5 * text.count('"') + 7 * text.count("\t")


def check_html(a, dwarf, per, syms, name, job):
    """(e) The --html page of one function is at most: 16 KiB (the page's
    head and style, the function's header, the table's head), 10 hottest-list
    entries of 256 bytes + the longest name, and per row shown ROW bytes of
    markup (html.c's row, every cell at its widest, with an inlined-function
    mark, an "inlined here" note and a section header before it) + its
    escaped source text.  The rows: the function's lines from decl_line - C
    to its closing '}' + C, and each line of another function that a
    sample's inline chain names (binutils addr2line -i) with C lines either
    side."""
    c = a.context
    span = function_span(dwarf, name)
    if isinstance(span, str):
        print("FAIL: %s: annotate --html %s: no oracle for its size: %s" % (a.t, name, span))
        return
    dfile, decl, last = span
    longest = max(len(s[2]) for s in syms)
    row = len('<tr id="f0-l999999" class="hottest"><td>99999999</td><td>100.0</td><td>100.0</td>'
              '<td class="ln">999999</td><td class="src" style="background: rgba(230, 60, 30, '
              '0.60)"><pre></pre><span class="inl">[]</span><span class="inl">&larr; 99999999 '
              'samples (100.0%) of  inlined here</span></td></tr>\n'
              '<tr class="gap"><td colspan="5">inlined code, :</td></tr>\n') + 2 * longest + len(dfile)
    shown = {(dfile, l) for l in range(max(1, decl - c), last + c + 1)}
    for f, l in per.get(name, ()):
        if f != dfile or not decl <= l <= last:
            shown |= {(f, k) for k in range(max(1, l - c), l + c + 1)}
    size = 16384 + 10 * (256 + longest)
    for f, l in shown:
        src = source(f)
        size += row + (html_len(src[l - 1]) if src and l <= len(src) else len("&lt;source not found&gt;"))
    out = "%s.html" % name
    rc, _, err = job.result()
    what = ("annotate --html %s (%s:%d-%d): at most %d bytes (%d rows of at most %d bytes "
            "of markup + their text, 16 KiB + 10 x %d of page)" %
            (name, os.path.basename(dfile), decl, last, size, len(shown), row, 256 + longest))
    if rc != 0:
        print("FAIL: %s: %s: exit %d: %s" % (a.t, what, rc, err[:200]))
    elif os.path.getsize(out) > size:
        print("FAIL: %s: %s: %d bytes" % (a.t, what, os.path.getsize(out)))
    else:
        print("PASS: %s: %s: %d bytes" % (a.t, what, os.path.getsize(out)))


def cmd_annotate(a):
    """(c), (d) and (e): ebs annotate runs two at a time, the slowest first,
    while the oracles are worked out."""
    names = top_functions(a.ebs, a.data, a.top)
    rep = json.loads(run([a.ebs, "report", "-i", a.data, "--dso", "sqlwork", "--no-inline", "--json"]))
    pages = list(dict.fromkeys(["sqlite3VdbeExec", rep["rows"][0]["function"]]))
    whole = [a.ebs, "annotate", "-i", a.data, "--dso", "sqlwork", "--top", "100000",
             "--min-percent", "0", "--color", "never"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as ex:
        whole_job = ex.submit(subprocess.run, whole, capture_output=True, text=True)
        html_jobs = {n: ex.submit(annotate, a.ebs, a.data, n, "%s.html" % n) for n in pages}
        jobs = {n: ex.submit(annotate, a.ebs, a.data, n) for n in names}
        dwarf = dwarf_functions(a.dwarf)
        lines = json.loads(run([a.ebs, "report", "-i", a.data, "--dso", "sqlwork", "--sort", "line",
                                "--json"]))["rows"]
        _, per, syms = sample_lines(a, dwarf)
        check_functions(a, dwarf, names, lines, {r["function"] for r in rep["rows"]}, jobs)
        check_whole(a, dwarf, per, whole_job,
                    [r["function"] for r in rep["rows"] if not r["function"].startswith("[unknown]")])
        for name in reversed(pages):	# the hottest first
            check_html(a, dwarf, per, syms, name, html_jobs[name])


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["perf", "annotate"])
    p.add_argument("t")
    p.add_argument("--ebs", required=True)
    p.add_argument("--exe", required=True)
    p.add_argument("--script")
    p.add_argument("--data")
    p.add_argument("--dwarf")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--context", type=int, default=3)
    a = p.parse_args()
    try:
        (cmd_perf if a.what == "perf" else cmd_annotate)(a)
    except (RuntimeError, OSError) as e:
        print("FAIL: %s: %s: %s" % (a.t, a.what, e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
