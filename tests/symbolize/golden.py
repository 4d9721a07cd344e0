#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""golden.py - compare `ebs addr2line` with an oracle over every instruction
address of a binary's .text that lies in a function symbol.

  golden.py NAME BIN --ebs EBS [--oracle tools|binutils|ebs] [--ref REF]
            [--debug-dir DIR] [--symbols SYMBIN]

  --oracle tools     (default) each address must equal what elfutils prints
                     (eu-addr2line -f -i -C --pretty-print, columns too) or
                     what binutils prints (below), or what llvm-symbolizer
                     prints when it is installed.  Each has bugs the others do
                     not share: elfutils 0.188 misreads some DWARF 4 range
                     lists and clang's DWARF 5 line tables; binutils names
                     some inlined C++ frames after the symbol table's clone or
                     the caller and misses clang's DWARF 5 inline ranges.  How
                     often ebs differs from each is printed too.
  --oracle binutils  binutils only: addr2line -a -f -i -C, without columns;
                     "FILE:?" (binutils' guess from STT_FILE symbols) counts
                     as no line
  --oracle ebs       ebs addr2line on --ref: for stripped binaries, whose
                     results must be identical to the unstripped one's
  --symbols SYMBIN   take the function ranges from SYMBIN (the unstripped
                     build) when BIN has no symbol table

Prints one PASS or FAIL line (with the first ten mismatches) and exits 0.
Addresses in alignment padding between functions are left out: binutils
gives them to the preceding symbol, elfutils and ebs to none.
"""
import argparse
import re
import shutil
import subprocess
import sys


def run(cmd, stdin=None, ok_if_output=False):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True)
    if p.returncode != 0 and not (ok_if_output and p.stdout):
        raise RuntimeError("%s: exit %d: %s" % (cmd[0], p.returncode, p.stderr.strip()[:300]))
    return p.stdout, p.stderr


def text_addresses(binary):
    out, _ = run(["objdump", "-d", "--no-show-raw-insn", binary])
    addrs, in_text = [], False
    for line in out.splitlines():
        if line.startswith("Disassembly of section"):
            in_text = line.strip().endswith(".text:")
            continue
        m = re.match(r"^\s+([0-9a-f]+):", line)
        if in_text and m:
            addrs.append(int(m.group(1), 16))
    return addrs


def function_ranges(binary):
    """[lo, hi) of every defined function symbol; size 0 runs to the next one."""
    out, _ = run(["readelf", "-sW", binary])
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] in ("FUNC", "IFUNC") and f[6] != "UND":
            lo, size = int(f[1], 16), int(f[2], 0)
            syms[lo] = max(syms.get(lo, 0), size)
    starts = sorted(syms)
    ranges = []
    for i, lo in enumerate(starts):
        hi = lo + syms[lo] if syms[lo] else (starts[i + 1] if i + 1 < len(starts) else lo + 1)
        ranges.append((lo, hi))
    return ranges


def in_functions(addrs, ranges):
    keep, j = [], 0
    for a in sorted(addrs):
        while j < len(ranges) and ranges[j][1] <= a:
            j += 1
        if j < len(ranges) and ranges[j][0] <= a < ranges[j][1]:
            keep.append(a)
    return keep


def pretty_groups(text):
    """Groups of frames from the --pretty-print format (ebs and elfutils)."""
    groups = []
    for line in text.splitlines():
        inlined = line.startswith(" (inlined by) ")
        if inlined:
            line = line[len(" (inlined by) "):]
        func, _, loc = line.rpartition(" at ")
        frame = (func, loc)
        if inlined and groups:
            groups[-1].append(frame)
        else:
            groups.append([frame])
    return groups


def binutils_groups(text):
    groups, cur = [], None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if re.match(r"^0x[0-9a-f]+$", lines[i]):
            cur = []
            groups.append(cur)
            i += 1
            continue
        func, loc = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
        cur.append((func, loc))
        i += 2
    return groups


def llvm_groups(text):
    """llvm-symbolizer: FUNC, FILE:LINE:COL per frame; a blank line ends an address."""
    groups, cur, lines = [], [], text.split("\n")
    i = 0
    while i < len(lines):
        if lines[i] == "":
            if cur:
                groups.append(cur)
            cur = []
            i += 1
            continue
        func, loc = lines[i], lines[i + 1] if i + 1 < len(lines) else ""
        loc = re.sub(r":0$", "", loc) if re.match(r"^.*:\d+:0$", loc) else loc
        if re.match(r"^.*:0(:\d+)?$", loc):
            loc = "??:0"	# line 0, or the STT_FILE guess: no line
        cur.append((func, loc))
        i += 2
    if cur:
        groups.append(cur)
    return groups


def no_column(loc):
    loc = re.sub(r" \(discriminator \d+\)$", "", loc)
    if loc in ("??:0", "??:?") or loc.endswith(":?"):
        return "??:0"
    m = re.match(r"^(.*):(\d+):(\d+)$", loc)
    return "%s:%s" % (m.group(1), m.group(2)) if m else loc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("binary")
    ap.add_argument("--ebs", required=True)
    ap.add_argument("--oracle", default="tools", choices=("tools", "binutils", "ebs"))
    ap.add_argument("--ref")
    ap.add_argument("--debug-dir", action="append", default=[])
    ap.add_argument("--symbols")
    a = ap.parse_args()

    try:
        addrs = in_functions(text_addresses(a.binary), function_ranges(a.symbols or a.binary))
        if not addrs:
            print("FAIL: %s: no instruction addresses in function symbols" % a.name)
            return
        stdin = "".join("%x\n" % x for x in addrs)
        dirs = [opt for d in a.debug_dir for opt in ("--debug-dir", d)]
        got_out, got_err = run([a.ebs, "addr2line", "-e", a.binary] + dirs, stdin)
        got = pretty_groups(got_out)
        got_nc = [[(f, no_column(l)) for f, l in g] for g in got]
        oracles = []	# (name, their groups, ours as compared with theirs)
        if a.oracle == "tools":
            # elfutils exits 1 when it found no debug information, answering still
            eu = pretty_groups(run(["eu-addr2line", "--pretty-print", "-f", "-i", "-C",
                                    "-e", a.binary], stdin, ok_if_output=True)[0])
            oracles.append(("elfutils", eu, got))
        if a.oracle == "tools" and shutil.which("llvm-symbolizer"):
            llvm = llvm_groups(run(["llvm-symbolizer", "--obj=" + a.binary, "--inlining",
                                    "--demangle", "--functions=linkage"],
                                   "".join("0x%x\n" % x for x in addrs))[0])
            oracles.append(("llvm-symbolizer", llvm, got))
        if a.oracle in ("tools", "binutils"):
            bu = binutils_groups(run(["addr2line", "-a", "-f", "-i", "-C", "-e", a.binary],
                                     stdin)[0])
            oracles.append(("binutils", [[(f, no_column(l)) for f, l in g] for g in bu],
                            got_nc))
        if a.oracle == "ebs":
            oracles.append(("ebs on " + a.ref,
                            pretty_groups(run([a.ebs, "addr2line", "-e", a.ref], stdin)[0]),
                            got))
    except (RuntimeError, OSError) as e:
        print("FAIL: %s: %s" % (a.name, e))
        return
    for name, theirs, _ in oracles:
        if len(theirs) != len(addrs):
            print("FAIL: %s: %d addresses, %s answered %d" % (a.name, len(addrs), name,
                                                              len(theirs)))
            return
    if len(got) != len(addrs):
        print("FAIL: %s: %d addresses, ebs answered %d" % (a.name, len(addrs), len(got)))
        return
    bad, differ = [], [0] * len(oracles)
    for i, x in enumerate(addrs):
        agree = [ours[i] == theirs[i] for _, theirs, ours in oracles]
        for k, ok in enumerate(agree):
            differ[k] += not ok
        if not any(agree):
            bad.append(i)
    lines = sum(1 for g in got for f in g if f[1] != "??:0")
    inl = sum(1 for g in got if len(g) > 1)
    names = " or ".join(n for n, _, _ in oracles)
    detail = ", ".join("%s differs at %d" % (n, d) for (n, _, _), d in zip(oracles, differ))
    if bad:
        print("FAIL: %s: %d of %d addresses equal neither %s (%s)" %
              (a.name, len(bad), len(addrs), names, detail))
        for i in bad[:10]:
            print("    %#x: ebs %s" % (addrs[i], got[i]))
            for n, theirs, _ in oracles:
                print("    %s  %s %s" % (" " * len("%#x" % addrs[i]), n, theirs[i]))
    else:
        print("PASS: %s: %d addresses (%d frames with a line, %d addresses in inlined code) "
              "equal %s (%s)" % (a.name, len(addrs), lines, inl, names, detail))
    if got_err.strip():
        print("    (ebs said: %s)" % got_err.strip().splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
