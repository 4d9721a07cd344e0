# SPDX-License-Identifier: MIT
"""elfsyms.py - a file's symbols as readelf(1) lists them, for tests that
compare ebs's names with perf's: two tools pick different names among the
aliases of one address (ld.so's mmap64 and mmap, libc's __memmove_* and
__memcpy_*), and only the symbol tables say that they are one."""
import os
import re
import subprocess

_CACHE = {}
_DATA = {}


def symbols(path):
    """{name: address} of the functions in path's symbol tables and in its
    debug file by build-id (/usr/lib/debug/.build-id), names without their
    version."""
    if path not in _CACHE:
        out, data, paths = {}, set(), [path]
        try:
            notes = subprocess.run(['readelf', '-n', path], capture_output=True, text=True).stdout
        except OSError:
            notes = ''
        m = re.search(r'Build ID: ([0-9a-f]+)', notes)
        if m:
            paths.append('/usr/lib/debug/.build-id/%s/%s.debug' % (m.group(1)[:2], m.group(1)[2:]))
        for f in paths:
            if not os.path.exists(f):
                continue
            # the sections that hold code: a symbol of no type elsewhere (an
            # assembler's label, ".LC3", that mold keeps) names data
            sects = subprocess.run(['readelf', '-SW', f], capture_output=True, text=True).stdout
            code = {m.group(1) for m in re.finditer(r'^ *\[ *(\d+)\] +\S+ +\S+ +\S+ +\S+ +\S+ +\S+ +(\S*X\S*) ',
                                                     sects, re.M)}
            text = subprocess.run(['readelf', '-Ws', f], capture_output=True, text=True).stdout
            for line in text.splitlines():
                w = line.split()
                if (len(w) >= 8 and w[0].rstrip(':').isdigit() and w[3] in ('FUNC', 'IFUNC')
                        and w[1] != '0000000000000000'):
                    out.setdefault(w[7].split('@')[0], int(w[1], 16))
                elif len(w) >= 8 and w[0].rstrip(':').isdigit() and w[3] in ('OBJECT', 'TLS'):
                    data.add(w[7].split('@')[0])
                elif (len(w) >= 8 and w[0].rstrip(':').isdigit() and w[3] == 'NOTYPE'
                      and w[6].isdigit() and w[6] not in code):
                    data.add(w[7].split('@')[0])
        _CACHE[path], _DATA[path] = out, data
    return _CACHE[path]


def is_data(path, name):
    """Is name (version aside) a data object of path's, and no function?"""
    symbols(path)
    name = name.split('@')[0]
    return name in _DATA[path] and name not in _CACHE[path]


def aliases(path, a, b):
    """Are names a and b (versions aside) symbols of one address in path?"""
    t = symbols(path)
    a, b = a.split('@')[0], b.split('@')[0]
    return a in t and t.get(a) == t.get(b)
