#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""golden.py - hold `ebs addr2line` against the line program and three oracles
over every instruction address of a binary's .text that lies in a function
symbol.

  golden.py NAME BIN --ebs EBS [--oracle tools|ebs] [--ref REF]
            [--debug-dir DIR] [--symbols SYMBIN] [--dwarf DBGBIN]

  --oracle tools     (default) two verdicts per address.
      1. The line program decides the innermost frame's file:line:column.
         DBGBIN's .debug_line is dumped raw (readelf --debug-dump=rawline)
         and run through the DWARF state machine here, file register
         starting at 1 in every version (DWARF 5 table 6.4): the row in
         effect at an address is the last row at the highest address <= it
         in the sequence holding it (several rows at one address: the last;
         a row of line 0: no line, "??:0").  ebs must print exactly that
         wherever a sequence holds the address.
      2. Each oracle (eu-addr2line, llvm-symbolizer, binutils addr2line) must
         print what ebs prints, frame for frame, or differ only in a way
         listed in CLASSES below: a known mistake of that oracle, each with
         the evidence that must hold for it to apply.  Every class used is
         printed with its count; any other difference fails.  And at every
         address one oracle at least must confirm ebs's whole answer (be
         equal, or equal once a class has undone a mistake it names),
         which the line program cannot do for inlined frames.
  --oracle ebs       ebs addr2line on --ref: for stripped binaries, whose
                     results must be identical to the unstripped one's
  --symbols SYMBIN   take the function ranges from SYMBIN (the unstripped
                     build) when BIN has no symbol table
  --dwarf DBGBIN     where the line program is (default SYMBIN, else BIN)

Prints one PASS or FAIL line (with the first ten failures) and exits 0.
Addresses in alignment padding between functions are left out: binutils
gives them to the preceding symbol, elfutils and ebs to none.
"""
import argparse
import bisect
import concurrent.futures
import os
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


def symbols(binary):
    """Defined function symbols of both tables as (value, size, raw name,
    demangled name), versions (@GLIBC_...) cut."""
    raw, _ = run(["readelf", "-sW", binary])
    dem, _ = run(["readelf", "-sW", "-C", binary])
    syms = []
    for r, d in zip(raw.splitlines(), dem.splitlines()):
        fr, fd = r.split(None, 7), d.split(None, 7)
        if len(fr) == 8 and len(fd) == 8 and fr[3] in ("FUNC", "IFUNC") and fr[6] != "UND":
            syms.append((int(fr[1], 16), int(fr[2], 0), fr[7].split("@")[0],
                         fd[7].split("@")[0]))
    return syms


def function_ranges(syms):
    """[lo, hi) of every defined function symbol; size 0 runs to the next one."""
    size = {}
    for lo, sz, _, _ in syms:
        size[lo] = max(size.get(lo, 0), sz)
    starts = sorted(size)
    ranges = []
    for i, lo in enumerate(starts):
        hi = lo + size[lo] if size[lo] else (starts[i + 1] if i + 1 < len(starts) else lo + 1)
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


# ---- the line program -------------------------------------------------------

STRING_FORM = re.compile(r"^\((indirect |indexed )?(line )?string[^)]*\): ")


class Unit:
    """One line program's header, and the unit whose DW_AT_stmt_list names it."""

    def __init__(self, offset, cu):
        self.offset, self.version = offset, 0
        self.dirs, self.files = {}, {}
        self.comp_dir, self.producer = cu.get("comp_dir"), cu.get("producer", "")

    def path(self, fno):
        """File entry FNO as a path: DWARF 5 numbers entries (and
        directories) from 0, its directory 0 being the unit's; earlier
        versions from 1, directory 0 meaning DW_AT_comp_dir."""
        if fno not in self.files:
            return None
        d, name = self.files[fno]
        if name.startswith("/"):
            return name
        dname = self.dirs.get(d, "") if d or self.version >= 5 else (self.comp_dir or "")
        if dname and not dname.startswith("/") and self.comp_dir:
            dname = os.path.join(self.comp_dir, dname)
        return os.path.join(dname, name) if dname else name


class Row:
    __slots__ = ("addr", "unit", "file", "line", "column", "file_set")

    def __init__(self, addr, unit, fno, line, column, file_set):
        self.addr, self.unit, self.file = addr, unit, fno
        self.line, self.column, self.file_set = line, column, file_set

    def loc(self):
        """As ebs and elfutils print it."""
        path = self.unit.path(self.file)
        if self.line == 0 or path is None:
            return "??:0"
        return "%s:%d:%d" % (path, self.line, self.column) if self.column else \
            "%s:%d" % (path, self.line)


def first_dump(out, heading):
    """The lines of readelf's first dump of a section: it dumps the section
    again from each separate debug file it follows (a debug file's build-id
    names itself), and its no-follow-links leaves DW_FORM_strx unread."""
    lines, seen = [], 0
    for line in out.splitlines():
        seen += line.startswith(heading)
        if seen > 1:
            break
        lines.append(line)
    return lines


def units(dbg):
    """DW_AT_stmt_list -> {comp_dir, producer} of every compilation unit."""
    out, _ = run(["readelf", "--debug-dump=info", "--dwarf-depth=1", dbg])
    cus, cur = {}, {}
    for line in first_dump(out, "Contents of the .debug_info section") + ["  Compilation Unit @"]:
        if "Compilation Unit @" in line:
            if "stmt_list" in cur:
                cus[cur["stmt_list"]] = cur
            cur = {}
            continue
        m = re.match(r"^\s+<[0-9a-f]+>\s+DW_AT_(stmt_list|comp_dir|producer)\s*: (.*)$", line)
        if m and m.group(1) == "stmt_list":
            cur["stmt_list"] = int(m.group(2).split()[0], 16)
        elif m:
            cur[m.group(1)] = STRING_FORM.sub("", m.group(2)).strip()
    return cus


OPCODE = re.compile(r"^\s+\[0x[0-9a-f]+\]\s+(.*)$")
SPECIAL = re.compile(r"^Special opcode \d+: advance Address by -?\d+ to (0x[0-9a-f]+) and "
                     r"Line by -?\d+ to (\d+)")
NO_ROW = re.compile(r"^(Set is_stmt|Set prologue_end|Set epilogue_begin|Set basic block|"
                    r"Set ISA|Extended opcode 4: set Discriminator)")


def line_program(dbg):
    """Every sequence of DBG's line programs as (rows, end address), sorted by
    start.  Decoded here from readelf's raw dump rather than taken from a
    decoder (libdwarf, bfd, libdw) that may share a mistake with ebs."""
    cus = units(dbg)
    out, _ = run(["readelf", "--debug-dump=rawline", dbg])
    seqs, unit, part, rows = [], None, None, []
    addr, fno, line, col, fset = 0, 1, 1, 0, False
    for text in first_dump(out, "Raw dump of debug contents of section .debug_line"):
        m = re.match(r"^\s+Offset:\s+(0x[0-9a-f]+|0)$", text)
        if m:
            off = int(m.group(1), 16)
            unit, part, rows = Unit(off, cus.get(off, {})), "header", []
            addr, fno, line, col, fset = 0, 1, 1, 0, False
            continue
        if unit is None:
            continue
        m = re.match(r"^\s+DWARF Version:\s+(\d+)", text)
        if m:
            unit.version = int(m.group(1))
            continue
        if text.startswith(" The Directory Table"):
            part = "dirs"
        elif text.startswith(" The File Name Table"):
            part = "files"
        elif text.startswith(" Line Number Statements"):
            part = "ops"
        elif part in ("dirs", "files"):
            f = text.split("\t")
            if len(f) >= 2 and f[0].strip().isdigit():
                name = STRING_FORM.sub("", f[-1])
                if part == "dirs":
                    unit.dirs[int(f[0])] = name
                else:
                    unit.files[int(f[0])] = (int(f[1].split()[0]), name)
        elif part == "ops" and OPCODE.match(text):
            op = OPCODE.match(text).group(1)
            m = SPECIAL.match(op)
            if m:
                addr, line = int(m.group(1), 16), int(m.group(2))
                rows.append(Row(addr, unit, fno, line, col, fset))
            elif op.startswith("Copy"):
                rows.append(Row(addr, unit, fno, line, col, fset))
            elif op.startswith("Extended opcode 1: End of Sequence"):
                if rows and addr > rows[0].addr:
                    seqs.append((rows, addr))
                rows = []
                addr, fno, line, col, fset = 0, 1, 1, 0, False
            elif NO_ROW.match(op):
                pass
            else:
                m = (re.match(r"^Advance PC by (?:constant |fixed size amount )?-?\d+ to "
                              r"(0x[0-9a-f]+)", op) or
                     re.match(r"^Extended opcode 2: set Address to (0x[0-9a-f]+)", op))
                if m:
                    addr = int(m.group(1), 16)
                    continue
                m = re.match(r"^(Advance Line by -?\d+ to|Set File Name to entry|"
                             r"Set column to) (\d+)", op)
                if not m:
                    raise RuntimeError("%s: readelf rawline: an opcode this test does not "
                                       "decode: %s" % (dbg, op))
                if m.group(1).startswith("Advance Line"):
                    line = int(m.group(2))
                elif m.group(1).startswith("Set File"):
                    fno, fset = int(m.group(2)), True
                else:
                    col = int(m.group(2))
    seqs.sort(key=lambda s: s[0][0].addr)
    return seqs


def rows_at(seqs, addrs):
    """For each address, the rows in effect there, one per sequence holding
    it (more than one only where sequences overlap)."""
    starts, maxend, hi = [s[0][0].addr for s in seqs], [], 0
    keys = [[r.addr for r in rows] for rows, _ in seqs]
    for _, end in seqs:
        hi = max(hi, end)
        maxend.append(hi)	# sequences before j end at most here
    out = []
    for a in addrs:
        found, j = [], bisect.bisect_right(starts, a) - 1
        while j >= 0 and maxend[j] > a:
            rows, end = seqs[j]
            if a < end:
                k = bisect.bisect_right(keys[j], a) - 1
                found.append(rows[k])
            j -= 1
        out.append(found)
    return out


# ---- the oracles' output ----------------------------------------------------

def pretty_groups(text):
    """Groups of frames from the --pretty-print format (ebs and elfutils)."""
    groups = []
    for line in text.splitlines():
        inlined = line.startswith(" (inlined by) ")
        if inlined:
            line = line[len(" (inlined by) "):]
        func, _, loc = line.rpartition(" at ")
        if re.match(r"^.*:0(:\d+)?$", loc):
            loc = "??:0"	# line 0: ebs names its file (FILE:0); held as no line here
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
        cur.append((func, no_column(loc)))
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
    """binutils prints no column: what ebs prints, without one."""
    loc = re.sub(r" \(discriminator \d+\)$", "", loc)
    if loc in ("??:0", "??:?") or loc.endswith(":?"):
        return "??:0"
    m = re.match(r"^(.*):(\d+):(\d+)$", loc)
    return "%s:%s" % (m.group(1), m.group(2)) if m else loc


# ---- the differences each oracle is allowed ---------------------------------
#
# A class is (oracle, name, confirms, why, undo): undo(ctx, i, theirs) returns
# the oracle's answer at address i with that mistake undone, or None when
# the mistake's evidence does not hold there.  A class that "confirms" leaves
# an answer that still says something of its own (the rest of the frames);
# one that does not only excuses an oracle that saw nothing.

class Ctx:
    def __init__(self, ours, rows, syms, own_syms, binary):
        self.ours, self.rows, self.binary = ours, rows, binary
        self.own_names = {n for _, _, raw, dem in own_syms for n in (raw, dem)}
        self.by_name = {}	# a function symbol's names (raw, demangled) -> its values
        for lo, _, raw, dem in syms:
            self.by_name.setdefault(raw, set()).add(lo)
            self.by_name.setdefault(dem, set()).add(lo)
        self.raw_names = {raw for _, _, raw, _ in syms}
        self.confirmed = {}	# oracle -> addresses it confirmed
        self.demangled = {}	# names llvm-symbolizer left mangled -> c++filt's
        sections, _ = run(["readelf", "-SW", binary])
        self.zdebug = ".zdebug_info" in sections

    def row(self, i):
        """The line program's row at address i, when exactly one holds it."""
        return self.rows[i][0] if len(self.rows[i]) == 1 else None

    def producer(self, i):
        r = self.row(i)
        return r.unit.producer if r else ""


def merged(ours, theirs):
    """Is theirs ours with runs of frames merged into one (named after the
    run's outermost function, at the run's innermost location), as a reader
    that misses some inlined instances prints it?"""
    if not theirs:
        return not ours
    for j in range(len(ours)):
        if (ours[j][0], ours[0][1]) == theirs[0] and merged(
                [(ours[j + 1][0], ours[j + 1][1])] + ours[j + 2:] if j + 1 < len(ours) else [],
                theirs[1:]):
            return True
    return False


def undo_file0(ctx, i, theirs):
    """binutils names the row's file entry 0 (the primary file) where the
    register was never set: swap in entry 1, as the line program says."""
    r = ctx.row(i)
    if not (r and r.unit.version >= 5 and not r.file_set and r.file == 1 and r.line and
            r.unit.path(0) != r.unit.path(1) and theirs[0][1] == "%s:%d" % (r.unit.path(0),
                                                                            r.line)):
        return None
    return [(theirs[0][0], "%s:%d" % (r.unit.path(1), r.line))] + theirs[1:]


def undo_alias(ctx, i, theirs):
    """The function symbol's frame (the outermost) named by another symbol
    at the same address (__GI_munmap for __munmap)."""
    ours = ctx.ours(i)
    if len(ours) != len(theirs) or ours[-1][0] == theirs[-1][0]:
        return None
    if not ctx.by_name.get(ours[-1][0], set()) & ctx.by_name.get(theirs[-1][0], set()):
        return None
    return theirs[:-1] + [(ours[-1][0], theirs[-1][1])]


CLONE = re.compile(r"^(.*?)((?:\.(?:constprop|isra|part|cold)(?:\.\d+)?)+|"
                   r"(?: \((?:\.[a-z]+(?:\.\d+)?)+\))+|(?: \[clone (?:\.[a-z]+(?:\.\d+)?)+\])+)$")


def clone_of(ctx, name, base):
    """Is NAME a compiler clone's symbol of function BASE (f.constprop.0,
    demangled "f() [clone .isra.0]" or "f() (.isra.0)")?"""
    m = CLONE.match(name)
    if not m or m.group(1) != base:
        return False
    suffix = re.sub(r" \[clone |[ ()\]]", "", m.group(2))
    return any(n.endswith(suffix) for n in ctx.raw_names)


def undo_clone(ctx, i, theirs):
    """The outermost frame named by a compiler clone's symbol where ebs and
    the other oracles name the function DWARF describes."""
    ours = ctx.ours(i)
    if len(ours) != len(theirs) or not clone_of(ctx, theirs[-1][0], ours[-1][0]):
        return None
    return theirs[:-1] + [(ours[-1][0], theirs[-1][1])]


def undo_mangled(ctx, i, theirs):
    """Names left mangled, which c++filt demangles to ebs's."""
    ours = ctx.ours(i)
    if len(ours) != len(theirs):
        return None
    fixed = [(ctx.demangled.get(t[0], t[0]), t[1]) for t in theirs]
    return fixed if fixed != theirs else None


def symbol_only(ctx, i, theirs):
    """The symbol's name and no line: the oracle read no DWARF here."""
    ours = ctx.ours(i)
    return ours if theirs == [(ours[-1][0], "??:0")] else None


def undo_zdebug(ctx, i, theirs):
    return symbol_only(ctx, i, theirs) if ctx.zdebug else None


def undo_clang_unit(ctx, i, theirs):
    return symbol_only(ctx, i, theirs) if "clang" in ctx.producer(i) else None


def undo_merged_if(cond):
    def undo(ctx, i, theirs):
        ours = ctx.ours(i)
        return ours if cond(ctx, i) and len(theirs) < len(ours) and merged(ours, theirs) \
            else None
    return undo


def undo_caller_name(ctx, i, theirs):
    """An inlined frame named after its caller (or the caller's clone
    symbol): C++ only."""
    ours = ctx.ours(i)
    if not ctx.producer(i).startswith("GNU C++") or len(ours) != len(theirs):
        return None
    for k, (o, t) in enumerate(zip(ours, theirs)):
        if o != t and not (k + 1 < len(ours) and o[1] == t[1] and
                           (t[0] == ours[k + 1][0] or clone_of(ctx, t[0], ours[k + 1][0]))):
            return None
    return ours


def undo_debug_symtab(ctx, i, theirs):
    """No name where only the separate debug file's .symtab has one."""
    ours = ctx.ours(i)
    if theirs == [("??", "??:0")] and len(ours) == 1 and ours[0][1] == "??:0" and \
            ours[0][0] in ctx.by_name and ours[0][0] not in ctx.own_names:
        return ours
    return None


def undo_boundary(ctx, i, theirs):
    """Only the inlined frames around the innermost location differ, and the
    other oracles (llvm-symbolizer, when installed, and binutils) print ebs's
    frames."""
    ours = ctx.ours(i)
    others = [o for o in ("llvm-symbolizer", "binutils") if o in ctx.confirmed]
    if theirs[0] == ours[0] and others and all(i in ctx.confirmed[o] for o in others):
        return ours
    return None


CLASSES = [
    ("binutils", "file-register-0", True,
     "binutils 2.40, like libdwarf 20210528, starts a DWARF 5 line program's file register "
     "at 0, not 1: rows before the sequence's first DW_LNS_set_file name file entry 0",
     undo_file0),
    ("binutils", "symbol-alias", True,
     "the function named by another symbol at the same address", undo_alias),
    ("binutils", "zdebug", False,
     "binutils 2.40 reads no .zdebug_* (-gz=zlib-gnu) sections: the symbol, no line",
     undo_zdebug),
    ("binutils", "clang-inlined", False,
     "binutils 2.40 misses some of clang's inlined instances: those frames merged into "
     "their caller", undo_merged_if(lambda ctx, i: "clang" in ctx.producer(i))),
    ("binutils", "c++-inlined-named-after-caller", False,
     "binutils names some inlined C++ frames after their caller", undo_caller_name),
    ("llvm-symbolizer", "clone-symbol", True,
     "llvm-symbolizer names a clone by its symbol (.constprop.0, .isra.0), ebs by the "
     "function's DWARF name", undo_clone),
    ("llvm-symbolizer", "left-mangled", True,
     "llvm-symbolizer 14 leaves some C++ names mangled (an enable_if return type); "
     "c++filt demangles them to ebs's", undo_mangled),
    ("llvm-symbolizer", "symbol-alias", True,
     "the function named by another symbol at the same address", undo_alias),
    ("llvm-symbolizer", "debug-file-symtab", False,
     "llvm-symbolizer takes symbols from the binary only, not from its separate debug "
     "file: no name where only that file's .symtab has one", undo_debug_symtab),
    ("elfutils", "clang-no-unit", False,
     "elfutils 0.188 finds no DWARF for clang 14's code: the symbol, no line",
     undo_clang_unit),
    ("elfutils", "dwarf4-ranges", False,
     "elfutils 0.188 misreads some gcc DWARF 4 range lists: inlined frames merged into "
     "their caller", undo_merged_if(lambda ctx, i: ctx.row(i) is not None and
                                    ctx.row(i).unit.version <= 4 and
                                    ctx.producer(i).startswith("GNU "))),
    ("elfutils", "inline-boundary", True,
     "elfutils 0.188 counts an inlined instance's range end as inside it: where one "
     "instance ends and another begins its inline chain differs; llvm-symbolizer and "
     "binutils print ebs's", undo_boundary),
]
# Oracles in the order they are judged: inline-boundary needs the other two.
ORDER = ("llvm-symbolizer", "binutils", "elfutils")


def judge(name, ctx, theirs, ours_at, addrs):
    """Each difference of one oracle explained by its classes (counted per
    class), or listed; returns (counts, unexplained, addresses that differ)."""
    counts, unexplained, confirmed, differ = {}, [], set(), 0
    classes = [c for c in CLASSES if c[0] == name]
    for i in range(len(addrs)):
        t, used, confirms = theirs[i], [], True
        differ += t != ours_at(i)
        for _, cname, conf, _, undo in classes:
            if t == ours_at(i):
                break
            u = undo(ctx, i, t)
            if u is not None and u != t:
                t = u
                used.append(cname)
                confirms = confirms and conf
        if t != ours_at(i):
            unexplained.append(i)
            continue
        if confirms:
            confirmed.add(i)
        for c in used:
            counts[c] = counts.get(c, 0) + 1
    ctx.confirmed[name] = confirmed
    return counts, unexplained, differ


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("name")
    ap.add_argument("binary")
    ap.add_argument("--ebs", required=True)
    ap.add_argument("--oracle", default="tools", choices=("tools", "ebs"))
    ap.add_argument("--ref")
    ap.add_argument("--debug-dir", action="append", default=[])
    ap.add_argument("--symbols")
    ap.add_argument("--dwarf")
    a = ap.parse_args()

    try:
        syms = symbols(a.symbols or a.binary)
        addrs = in_functions(text_addresses(a.binary), function_ranges(syms))
        if not addrs:
            print("FAIL: %s: no instruction addresses in function symbols" % a.name)
            return
        stdin = "".join("%x\n" % x for x in addrs)
        dbg = a.dwarf or a.symbols or a.binary
        dirs = [opt for d in a.debug_dir for opt in ("--debug-dir", d)]
        cmds = {"ebs": ([a.ebs, "addr2line", "-e", a.binary] + dirs, stdin, False)}
        if a.oracle == "tools":
            # elfutils exits 1 when it found no debug information, answering still
            cmds["elfutils"] = (["eu-addr2line", "--pretty-print", "-f", "-i", "-C", "-e",
                                 a.binary], stdin, True)
            cmds["binutils"] = (["addr2line", "-a", "-f", "-i", "-C", "-e", a.binary],
                                stdin, False)
            if shutil.which("llvm-symbolizer"):
                cmds["llvm-symbolizer"] = (["llvm-symbolizer", "--obj=" + a.binary,
                                            "--inlining", "--demangle",
                                            "--functions=linkage"],
                                           "".join("0x%x\n" % x for x in addrs), False)
        else:
            cmds["ebs on " + a.ref] = ([a.ebs, "addr2line", "-e", a.ref], stdin, False)
        # the oracles in parallel: elfutils alone takes seconds on a large unit
        with concurrent.futures.ThreadPoolExecutor(len(cmds) + 1) as pool:
            futs = {k: pool.submit(run, c, s, ok) for k, (c, s, ok) in cmds.items()}
            seqs = pool.submit(line_program, dbg) if a.oracle == "tools" else None
            outs = {k: f.result() for k, f in futs.items()}
            seqs = seqs.result() if seqs else []
        got_err = outs["ebs"][1]
        got = pretty_groups(outs["ebs"][0])
        parse = {"elfutils": pretty_groups, "binutils": binutils_groups,
                 "llvm-symbolizer": llvm_groups}
        oracles = {k: parse.get(k, pretty_groups)(v[0]) for k, v in outs.items() if k != "ebs"}
        ctx = Ctx(lambda i: got[i], rows_at(seqs, addrs), syms,
                  symbols(a.binary) if a.symbols else syms, a.binary)
        mangled = sorted({f for g in oracles.get("llvm-symbolizer", []) for f, _ in g
                          if f.startswith("_Z")})
        if mangled:
            out, _ = run(["c++filt"], "".join(n + "\n" for n in mangled))
            ctx.demangled = dict(zip(mangled, out.splitlines()))
    except (RuntimeError, OSError) as e:
        print("FAIL: %s: %s" % (a.name, e))
        return
    for k, theirs in list(oracles.items()) + [("ebs", got)]:
        if len(theirs) != len(addrs):
            print("FAIL: %s: %d addresses, %s answered %d" % (a.name, len(addrs), k,
                                                              len(theirs)))
            return
    got_nc = [[(f, no_column(l)) for f, l in g] for g in got]

    if a.oracle == "ebs":
        (k, theirs), = oracles.items()
        bad = [i for i in range(len(addrs)) if theirs[i] != got[i]]
        for i in bad[:10]:
            print("    %#x: ebs %s\n    %s  %s %s" % (addrs[i], got[i], " " * len(hex(addrs[i])),
                                                     k, theirs[i]))
        print("%s: %s: %d addresses%s equal %s" %
              ("FAIL" if bad else "PASS", a.name, len(addrs),
               " (%d do not)" % len(bad) if bad else "", k))
        return

    # 1. the line program decides the innermost frame
    lp_bad, lp_n, lp_ambiguous = [], 0, 0
    for i in range(len(addrs)):
        want = {r.loc() for r in ctx.rows[i]}
        if len(want) > 1:
            lp_ambiguous += 1
        elif want:
            lp_n += 1
            if got[i][0][1] not in want:
                lp_bad.append((i, want.pop()))
    lp_none = not lp_n and any(".debug_line" in l or ".zdebug_line" in l
                               for l in run(["readelf", "-SW", dbg])[0].splitlines())
    # 2. every difference of an oracle explained
    results = {}
    for k in ORDER:
        if k in oracles:
            ctx.ours = (lambda i: got_nc[i]) if k == "binutils" else (lambda i: got[i])
            results[k] = judge(k, ctx, oracles[k], ctx.ours, addrs)
    unconfirmed = [i for i in range(len(addrs))
                   if not any(i in ctx.confirmed[k] for k in results)]

    lines = sum(1 for g in got for f in g if f[1] != "??:0")
    inl = sum(1 for g in got if len(g) > 1)
    failed = lp_bad or lp_none or unconfirmed or any(u for _, u, _ in results.values())
    print("%s: %s: %d addresses (%d frames with a line, %d in inlined code), "
          "innermost = line program at %d%s, %s" %
          ("FAIL" if failed else "PASS", a.name, len(addrs), lines, inl, lp_n,
           " (%d overlapping sequences disagree)" % lp_ambiguous if lp_ambiguous else "",
           ", ".join("%s differs at %d%s" % (k, n, " (%d unexplained)" % len(u) if u else "")
                     for k, (_, u, n) in results.items())))
    for i, want in lp_bad[:10]:
        print("    %#x: ebs %s, the line program %s" % (addrs[i], got[i][0][1], want))
    if lp_bad:
        print("    ebs differs from the line program at %d addresses" % len(lp_bad))
    if lp_none:
        print("    %s has a line program but no row was found at any address: "
              "readelf's dump misread?" % dbg)
    for k, (counts, unexplained, _) in results.items():
        for c in CLASSES:
            if c[0] == k and c[1] in counts:
                print("    %s %s: %d: %s" % (k, c[1], counts[c[1]], c[3]))
        for i in unexplained[:10]:
            print("    %#x: %s differs, in no listed way:\n      ebs %s\n      %s %s" %
                  (addrs[i], k, got[i], k, oracles[k][i]))
    for i in unconfirmed[:10]:
        print("    %#x: no oracle confirms ebs %s" % (addrs[i], got[i]))
    if got_err.strip():
        print("    (ebs said: %s)" % got_err.strip().splitlines()[0])


if __name__ == "__main__":
    sys.exit(main())
