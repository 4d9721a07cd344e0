#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perfchains.py - the call chains of `perf script -F ip,sym,symoff,dso`
and of `ebs script -F ip,sym,dso` on one recording, compared frame for
frame (tests/integration/script.sh, linkers.sh).

A frame is (function, DSO's base name, DSO as printed, symbol offset or
None).  Left out: perf's frames of address 0 (ebs leaves them out:
ebs-script.1), ebs's [truncated], and perf's frames from the first one
in no mapping on (dso [unknown]: a frame pointer, or libunwind's guess
through rbp, followed into data, a stack address or a word of text) or
named by a data object of its DSO (libc's __quick_exit_funcs after
__run_exit_handlers): ebs cuts the chain there, at the first return
address outside the executable mappings.  perf's [kernel.kallsyms] is
ebs's [kernel].

Two frames are one when their DSOs are and their functions' names are
equal ('same'), equal but for leading underscores and a symbol version
or two names of one address in the DSO's symbol tables ('alias': each
tool picks one: clock_gettime@@GLIBC_2.17 and __clock_gettime in libc,
mmap64 and mmap in ld.so), or a return address at a symbol's first byte,
which perf names by that symbol and ebs by the call's, one byte back
('boundary': ld.so's _dl_start_user after _start's call), or in ld.so
perf's _dl_start_user (a label of the debug file ebs does not take) and
ebs's _start, which covers it, or a PLT entry of no symbol, perf's bare
"@plt" and ebs's [unknown] in the same DSO, or a PLT entry perf names _init
(the symbol before it) and ebs NAME@plt.  A chain of perf's that is kernel
frames alone, where ebs's goes on into user space, is one whose user part
perf's unwinder lost (it failed at the first frame, as it does early in
ld.so): counted apart.

  perfchains.py PERF.txt EBS.txt   prints "chains perf N ebs M", "frames F,
                                   A of them named by an alias", "chains
                                   differ D" and up to 3 that differ
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from elfsyms import aliases, is_data  # noqa: E402

F = re.compile(r'^\s+([0-9a-f]+) (.*) \((.*)\)$')


def chains(path, perf):
    """The chains of a script output, each a list of frames, leaf first."""
    out, cur, cut, seen = [], [], False, 0
    for l in open(path):
        l = l.rstrip('\n')
        if not l.strip():
            if cur:
                out.append(cur)
            # each sample starts whole: a chain whose leaf was cut left
            # cut set, and every later chain was dropped (8 of 804 seen)
            cur, cut, seen = [], False, 0
            continue
        if not perf and l.split() == ['0', '[truncated]']:
            continue  # ebs cut the walk at an address no user code has (ebs-script.1)
        m = F.match(l)
        if not m:
            sys.exit('%s: not a frame: %r' % (path, l))
        ip, sym, dso = m.groups()
        if perf and int(ip, 16) == 0:
            continue
        # perf keeps frames of an address no user code has, in no mapping
        # (a walk into data: printed raw) or in a DSO's data (named by a
        # data object): ebs cuts the chain at the first such return
        # address; a leaf there (the sampled ip itself) both keep
        seen += 1
        data = perf and dso.startswith('/') and is_data(dso, sym.rsplit('+0x', 1)[0])
        if perf and seen > 1 and (dso == '[unknown]' or data):
            cut = True
        elif data:  # the leaf, in no function: ebs's [unknown] in that DSO
            sym = '[unknown]'
        if cut:
            continue
        off = None
        if perf and '+0x' in sym:  # perf's symoff: sym+0xOFF
            sym, off = sym.rsplit('+0x', 1)
            off = int(off, 16)
        cur.append((sym, '[kernel]' if dso.startswith('[kernel') else dso.rsplit('/', 1)[-1], dso, off))
    if cur:
        out.append(cur)
    return out


def name(s):
    return s.split('@')[0].lstrip('_')


_KSYMS = None


def kernel_aliases(a, b):
    """Two names of one address in /proc/kallsyms (perf's __pi_memset and
    ebs's memset: the kernel's position-independent aliases)."""
    global _KSYMS
    if _KSYMS is None:
        _KSYMS = {}
        try:
            with open('/proc/kallsyms') as f:
                for line in f:
                    parts = line.split()
                    if len(parts) >= 3 and int(parts[0], 16):
                        _KSYMS.setdefault(parts[2], set()).add(parts[0])
        except OSError:
            pass
    return bool(_KSYMS.get(a, set()) & _KSYMS.get(b, set()))


def same(x, y, k):
    """perf's frame x and ebs's y, the k-th of a chain: 'same', 'alias', 'boundary' or None."""
    if x[1] != y[1]:
        return None
    if x[0] == y[0]:
        return 'same'
    if name(x[0]) == name(y[0]):
        return 'alias'
    if x[2].startswith('/') and aliases(x[2], x[0], y[0]):
        return 'alias'  # two names of one address (ld.so's mmap64 and mmap)
    if x[1] == '[kernel]' and kernel_aliases(x[0], y[0]):
        return 'alias'  # two names of one kernel address (__pi_memset, memset)
    if k > 0 and x[1] != '[kernel]' and x[3] == 0:
        return 'boundary'
    # ld.so's _dl_start_user, an unsized STT_NOTYPE label perf names from
    # the debug file: ebs takes no such label, its _start covers it
    # (docs/symbolize.md, "The entry point")
    if x[1].startswith('ld-linux') and x[0] == '_dl_start_user' and y[0] == '_start':
        return 'alias'
    # a PLT entry of no symbol (an IRELATIVE one: libc calls its own
    # ifuncs through them), which perf calls "@plt" and ebs leaves
    # [unknown] in the DSO: one address, no name to compare
    if x[0] == '@plt' and y[0] == '[unknown]':
        return 'alias'
    # a PLT entry perf 6.1 names by the symbol before it, .init's _init
    # (of size 0, which perf stretches to the next symbol), and ebs
    # NAME@plt: calltree's clock_gettime@plt at 0x1050 was perf's
    # _init+0x50 in a SAN run of script.sh
    if x[0] == '_init' and y[0].endswith('@plt'):
        return 'alias'
    return None


def compare(a, b):
    """The kinds of perf's chain a's frames against ebs's b ([None]: they
    differ).  A sample in the kernel whose user part perf lost altogether
    (its unwinder failed at the first frame: early in ld.so) is ebs's
    kernel part alone, then user frames: 'no user part'."""
    if len(a) < len(b) and all(x[1] == '[kernel]' for x in a) and \
            all(y[1] != '[kernel]' for y in b[len(a):]):
        return [same(x, y, k) for k, (x, y) in enumerate(zip(a, b))] + ['no user part']
    if len(a) != len(b):
        return [None]
    return [same(x, y, k) for k, (x, y) in enumerate(zip(a, b))]


def main(argv):
    p, e = chains(argv[1], True), chains(argv[2], False)
    print('chains perf %d ebs %d' % (len(p), len(e)))
    frames = sum(map(len, p))
    kinds = [compare(a, b) for a, b in zip(p, e)]
    alias = sum(c.count('alias') + c.count('boundary') for c in kinds)
    bad = [(a, b) for (a, b), c in zip(zip(p, e), kinds) if None in c]
    print('frames %d, %d of them named by an alias' % (frames, alias))
    print('chains differ %d' % len(bad))
    print('chains whose user part perf lost %d' % sum('no user part' in c for c in kinds))
    for a, b in bad[:3]:
        print('perf %s | ebs %s' % ([x[:2] for x in a], [y[:2] for y in b]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
