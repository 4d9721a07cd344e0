# SPDX-License-Identifier: MIT
"""dwsiblings.py - the DIEs of a file that carry a DW_AT_sibling, and a copy
of the file with one of them pointed elsewhere: for the tests that feed ebs
DWARF whose sibling links lead back, to the DIE itself or out of its unit.

    dwsiblings.py list FILE                    one JSON object a line
    dwsiblings.py pick FILE [EXPR]             "DIE PARENT UNIT UNIT_END LOW HIGH"
    dwsiblings.py set FILE OUT DIE TARGET      OUT: FILE with DIE's sibling at TARGET

DIE and TARGET are .debug_info offsets (as readelf prints them: hex with
0x, or decimal).  TARGET is written in the attribute's own form: relative
to the DIE's unit for DW_FORM_ref1/2/4/8 and ref_udata (as libdwarf reads
them), as a section offset for ref_addr; one the form cannot hold is an
error.  Each object that `list` prints:

    die, tag, depth    the DIE
    unit, unit_end     its unit: the header's offset, one past its last byte
    at, form, size     the attribute's value: offset in .debug_info, form, bytes
    target             where it points
    parent             the enclosing DIE's offset, tag, and whether it has
    parent_tag         a DW_AT_sibling of its own: when it has none,
    parent_sibling     libdwarf, asked for the parent's sibling, passes
                       through this DIE and follows its DW_AT_sibling
                       (Debian 12's libdwarf 20210528 for ever, when that
                       points at the DIE itself)
    grandparent_tag    the parent's enclosing DIE: its tag, and whether it
    grandparent_code   has code (DW_AT_low_pc or DW_AT_ranges)
    function           [low, high) of the nearest enclosing DW_TAG_subprogram
                       with DW_AT_low_pc and DW_AT_high_pc, or null
    after              the functions and inlined instances (DIEs) after
                       this DIE's own, up to the end of the nearest
                       enclosing DIE that has a DW_AT_sibling (else of the
                       unit): what a reader that stops at a bad sibling
                       and goes on past that enclosing DIE leaves unread
    passed             libdwarf passes through this DIE when a reader that
                       walks the functions' DIEs asks for its parent's
                       sibling: the parent has no DW_AT_sibling, and its
                       own parent is a function, an inlined instance or a
                       lexical block with code, inside a function

`pick` prints, of the first DIE that is passed, has a DW_FORM_ref4 link and
for which EXPR (Python, over d, the object above; default True) holds, its
offset, its parent's, its unit's and the unit's end, and the function's
[LOW, HIGH); exit status 1 when there is none.

The DWARF is read through readelf -W --debug-dump=info (binutils 2.35 and
later print each attribute's form); only the ELF section headers are
parsed here, to find .debug_info in the file.  ELF64 little-endian only,
as the tests build."""
import json
import re
import struct
import subprocess
import sys

UNIT = re.compile(r'^\s*Compilation Unit @ offset (0x[0-9a-f]+|\d+):')
LENGTH = re.compile(r'^\s*Length:\s+(0x[0-9a-f]+) \((32|64)-bit\)')
DIE = re.compile(r'^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)(?: \((\S+)\))?')
ATTR = re.compile(r'^\s*<([0-9a-f]+)>\s+(DW_AT_\w+|DW_AT value)\s*:\s*(?:\((\w+)\)\s*)?(.*)')
SIZES = {'ref1': 1, 'ref2': 2, 'ref4': 4, 'ref8': 8, 'ref_sig8': 8}
FUNCS = ('DW_TAG_subprogram', 'DW_TAG_inlined_subroutine')
WALKED = FUNCS + ('DW_TAG_lexical_block',)


def section(path, name):
    """(file offset, size) of section name in the ELF64 file at path."""
    b = open(path, 'rb').read()
    shoff = struct.unpack_from('<Q', b, 0x28)[0]
    shnum, shstrndx = struct.unpack_from('<HH', b, 0x3c)
    hdr = lambda i: struct.unpack_from('<IIQQQQIIQQ', b, shoff + 64 * i)
    strtab = hdr(shstrndx)[4]
    for i in range(shnum):
        h = hdr(i)
        if b[strtab + h[0]:b.index(0, strtab + h[0])].decode() == name:
            return h[4], h[5]
    raise SystemExit('dwsiblings.py: %s has no %s' % (path, name))


def units(path):
    """Each unit's DIEs in the order they are laid out: dicts of die, tag,
    depth, parent (the dict), code, sibling ({at, form, target, size} or
    None), with the unit's offset and end."""
    text = subprocess.run(['readelf', '-W', '--debug-dump=info', path], capture_output=True,
                          text=True, check=True).stdout
    out, cur, stack, offsz = [], None, [], 4
    for line in text.splitlines():
        m = UNIT.match(line)
        if m:
            out.append({'unit': int(m.group(1), 0), 'end': 0, 'dies': []})
            cur, stack = None, []
            continue
        m = LENGTH.match(line)
        if m and out:
            offsz = 4 if m.group(2) == '32' else 8
            out[-1]['end'] = out[-1]['unit'] + (4 if offsz == 4 else 12) + int(m.group(1), 16)
            continue
        m = DIE.match(line)
        if m and out:
            depth, off = int(m.group(1)), int(m.group(2), 16)
            sized(cur, off)
            del stack[depth:]
            if int(m.group(3)) == 0:
                cur = None
                continue
            cur = {'die': off, 'tag': m.group(4), 'depth': depth, 'code': False, 'low': None,
                   'high': None, 'parent': stack[-1] if stack else None, 'sibling': None}
            stack.append(cur)
            out[-1]['dies'].append(cur)
            continue
        m = ATTR.match(line)
        if not m or cur is None:
            continue
        at = int(m.group(1), 16)
        sized(cur, at)
        if m.group(2) in ('DW_AT_low_pc', 'DW_AT_ranges'):
            cur['code'] = True
        if m.group(2) in ('DW_AT_low_pc', 'DW_AT_high_pc'):
            v = re.findall(r'0x[0-9a-f]+', m.group(4))
            if v:  # high_pc: an address, or (a constant form) a length
                cur['low' if m.group(2) == 'DW_AT_low_pc' else 'high'] = (
                    int(v[-1], 16), (m.group(3) or '').startswith('addr'))
        elif m.group(2) == 'DW_AT_sibling':
            form = m.group(3) or '?'
            t = re.match(r'<?(0x[0-9a-f]+|\d+)', m.group(4))
            cur['sibling'] = {'at': at, 'form': form, 'target': int(t.group(1), 0) if t else None,
                              'size': SIZES.get(form, offsz if form == 'ref_addr' else None)}
    if out:
        sized(cur, out[-1]['end'])
    return out


def sized(die, nxt):
    """A ref_udata sibling's size: up to what follows it (at offset nxt)."""
    if die is not None and die['sibling'] is not None and die['sibling']['size'] is None:
        die['sibling']['size'] = nxt - die['sibling']['at']


def subtree_ends(dies):
    """For each DIE, the index of the first DIE after its own."""
    ends, stack = [len(dies)] * len(dies), []
    for i, d in enumerate(dies):
        while stack and dies[stack[-1]]['depth'] >= d['depth']:
            ends[stack.pop()] = i
        stack.append(i)
    return ends


def dies(path):
    """Every DIE with a DW_AT_sibling, as list prints them."""
    res = []
    for u in units(path):
        ds = u['dies']
        ends = subtree_ends(ds)
        index = {id(d): i for i, d in enumerate(ds)}
        funcs = [0]  # funcs[i]: DW_TAG_subprogram and inlined_subroutine DIEs before dies[i]
        for d in ds:
            funcs.append(funcs[-1] + (d['tag'] in FUNCS))
        for i, d in enumerate(ds):
            s = d['sibling']
            if s is None:
                continue
            p = d['parent']
            g = p['parent'] if p else None
            a = p
            while a is not None and (a['sibling'] is None or a['depth'] == 0):
                a = a['parent']
            stop = ends[index[id(a)]] if a is not None else len(ds)
            f = p
            while f is not None and not (f['tag'] == 'DW_TAG_subprogram' and f['low'] and f['high']):
                f = f['parent']
            func = None
            if f is not None:
                low, high = f['low'][0], f['high'][0]
                func = [low, high if f['high'][1] else low + high]
            res.append({'die': d['die'], 'tag': d['tag'], 'depth': d['depth'],
                        'unit': u['unit'], 'unit_end': u['end'], 'at': s['at'],
                        'form': s['form'], 'size': s['size'], 'target': s['target'],
                        'parent': p['die'] if p else None, 'parent_tag': p['tag'] if p else None,
                        'parent_sibling': bool(p and p['sibling']),
                        'grandparent_tag': g['tag'] if g else None,
                        'grandparent_code': bool(g and g['code']), 'function': func,
                        'after': funcs[stop] - funcs[ends[i]],
                        'passed': bool(p and not p['sibling'] and g and g['code'] and func and
                                       g['tag'] in WALKED)})
    return res


def uleb(v, size):
    """v as an unsigned LEB128 of exactly size bytes (padded), or None."""
    out = []
    for i in range(size):
        byte = v & 0x7f
        v >>= 7
        out.append(byte | (0x80 if i + 1 < size else 0))
    return bytes(out) if v == 0 else None


def encode(d, target):
    """The bytes of DIE d's DW_AT_sibling pointing at target, in its form, or
    None when the form cannot hold it."""
    form, size = d['form'], d['size']
    value = target if form == 'ref_addr' else target - d['unit']
    if value < 0:
        return None
    if form == 'ref_udata':
        return uleb(value, size)
    if form in SIZES or form == 'ref_addr':
        return value.to_bytes(size, 'little') if value < 1 << (8 * size) else None
    return None


def set_sibling(path, outpath, die, target):
    d = next((x for x in dies(path) if x['die'] == die), None)
    if d is None:
        raise SystemExit('dwsiblings.py: no DIE with a DW_AT_sibling at %#x' % die)
    raw = encode(d, target)
    if raw is None:
        raise SystemExit('dwsiblings.py: DW_FORM_%s cannot hold %#x' % (d['form'], target))
    base, _ = section(path, '.debug_info')
    b = bytearray(open(path, 'rb').read())
    b[base + d['at']:base + d['at'] + d['size']] = raw
    open(outpath, 'wb').write(b)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'list':
        for d in dies(sys.argv[2]):
            print(json.dumps(d))
    elif len(sys.argv) in (3, 4) and sys.argv[1] == 'pick':
        expr = sys.argv[3] if len(sys.argv) == 4 else 'True'
        for d in dies(sys.argv[2]):
            if d['passed'] and d['form'] == 'ref4' and eval(expr, {'d': d}):
                print(d['die'], d['parent'], d['unit'], d['unit_end'], *d['function'])
                return
        sys.exit(1)
    elif len(sys.argv) == 6 and sys.argv[1] == 'set':
        set_sibling(sys.argv[2], sys.argv[3], int(sys.argv[4], 0), int(sys.argv[5], 0))
    else:
        raise SystemExit(__doc__.split('\n\n')[1])


if __name__ == '__main__':
    main()
