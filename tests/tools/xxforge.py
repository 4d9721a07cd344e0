#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""xxforge.py - a forged copy of an ELF program whose DWARF names other
functions, yet has the genuine file's build-id, size and XXH64 as ebs up
to issue 28 hashed it (symbolize/cache.c's sym_hash_file: XXH64 over the
file in 1 MiB pieces, each piece's hash the seed of the next), so that
ebs's DWARF cache took the forgery's entry for the genuine program's.

    xxforge.py GENUINE FORGED OLD=NEW [OLD=NEW...]

Each OLD string of .debug_str (a whole string: a function's name) becomes
NEW, of the same length.  Then one 32-byte stripe after the last change
is solved so that XXH64's four lanes leave it as they leave the genuine
file's stripe there: a lane's round, acc' = rotl(acc + in * P2, 31) * P1,
is invertible (P1 and P2 are odd), in = (rotr(acc' * P1^-1, 31) - acc) *
P2^-1 mod 2^64.  Everything after is the genuine file's, so every later
piece and the whole file hash alike.  The stripe is taken inside a string
nothing reads for names: a unit's DW_AT_producer ("GNU C11 12.2.0 ..."),
after its first 4 bytes (dwarf.c reads "GNU " there).

Prints the XXH64 chain of both files (equal) and the offset solved, or
one line saying why it cannot (exit status 1).
"""
import struct
import sys

M = (1 << 64) - 1
P1 = 0x9E3779B185EBCA87
P2 = 0xC2B2AE3D27D4EB4F
P3 = 0x165667B19E3779F9
P4 = 0x85EBCA77C2B2AE63
P5 = 0x27D4EB2F165667C5
CHUNK = 1 << 20  # sym_hash_range's piece


def rotl(x, r):
    return ((x << r) | (x >> (64 - r))) & M


def rnd(acc, x):
    return rotl((acc + x * P2) & M, 31) * P1 & M


def merge(h, v):
    return ((h ^ rnd(0, v)) * P1 + P4) & M


def lanes_init(seed):
    return [(seed + P1 + P2) & M, (seed + P2) & M, seed, (seed - P1) & M]


def stripe(v, b, at):
    w = struct.unpack_from('<4Q', b, at)
    return [rnd(v[i], w[i]) for i in range(4)]


def xxh64(b, seed=0):
    """XXH64 of b (bytes), the published algorithm."""
    n, p = len(b), 0
    if n >= 32:
        v = lanes_init(seed)
        while n - p >= 32:
            v = stripe(v, b, p)
            p += 32
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & M
        for x in v:
            h = merge(h, x)
    else:
        h = (seed + P5) & M
    h = (h + n) & M
    while n - p >= 8:
        (x,) = struct.unpack_from('<Q', b, p)
        h = (rotl(h ^ rnd(0, x), 27) * P1 + P4) & M
        p += 8
    if n - p >= 4:
        (x,) = struct.unpack_from('<I', b, p)
        h = (rotl(h ^ (x * P1 & M), 23) * P2 + P3) & M
        p += 4
    while p < n:
        h = rotl(h ^ (b[p] * P5 & M), 11) * P1 & M
        p += 1
    h ^= h >> 33
    h = h * P2 & M
    h ^= h >> 29
    h = h * P3 & M
    h ^= h >> 32
    return h


def chain(b):
    """sym_hash_file: XXH64 over 1 MiB pieces, each seeded by the last."""
    h = 0
    for at in range(0, len(b), CHUNK):
        h = xxh64(b[at:at + CHUNK], h)
    return h


def seed_at(b, chunk_start):
    h = 0
    for at in range(0, chunk_start, CHUNK):
        h = xxh64(b[at:at + CHUNK], h)
    return h


def lanes_before(b, at):
    """The lanes when the stripe at file offset at starts (at 32-aligned)."""
    start = at - at % CHUNK
    v = lanes_init(seed_at(b, start))
    for p in range(start, at, 32):
        v = stripe(v, b, p)
    return v


def sections(b):
    if b[:4] != b'\x7fELF' or b[4] != 2 or b[5] != 1:
        sys.exit('xxforge.py: not a little-endian ELF64 file')
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    hdrs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    out = {}
    for h in hdrs:
        end = b.index(b'\0', names + h[0])
        out[b[names + h[0]:end].decode()] = (h[4], h[5])  # offset, size
    return out


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__.split('\n\n')[1])
    assert xxh64(b'') == 0xEF46DB3751D8E999  # the published value
    good = open(sys.argv[1], 'rb').read()
    b = bytearray(good)
    secs = sections(b)
    if '.debug_str' not in secs:
        sys.exit('xxforge.py: %s has no .debug_str' % sys.argv[1])
    s_off, s_size = secs['.debug_str']
    strs = bytes(b[s_off:s_off + s_size])
    last = 0
    for pair in sys.argv[3:]:
        old, new = (x.encode() for x in pair.split('=', 1))
        if len(old) != len(new):
            sys.exit('xxforge.py: %s: not the same length' % pair)
        at = (b'\0' + strs).find(b'\0' + old + b'\0')
        if at < 0:
            sys.exit('xxforge.py: no string %r in .debug_str' % old.decode())
        b[s_off + at:s_off + at + len(new)] = new
        last = max(last, s_off + at + len(new))
    # a 32-byte stripe inside a producer string, after its "GNU " and the changes
    fix = None
    p = 0
    while fix is None:
        p = strs.find(b'GNU ', p)
        if p < 0:
            sys.exit('xxforge.py: no DW_AT_producer string with room for a stripe after the changes')
        end = strs.index(b'\0', p)
        lo = max(s_off + p + 4, last)
        at = (lo + 31) // 32 * 32
        # a whole stripe of the lane loop: not in a piece's last 31 bytes
        if at + 32 <= s_off + end and at % CHUNK + 32 <= min(CHUNK, len(b) - at + at % CHUNK):
            fix = at
        p = end
    want = stripe(lanes_before(good, fix), good, fix)
    have = lanes_before(b, fix)
    inv1, inv2 = pow(P1, -1, 1 << 64), pow(P2, -1, 1 << 64)
    words = [(((rotl(want[i] * inv1 & M, 33)) - have[i]) & M) * inv2 & M for i in range(4)]
    struct.pack_into('<4Q', b, fix, *words)
    g, f = chain(good), chain(bytes(b))
    if g != f:
        sys.exit('xxforge.py: the hashes differ (%016x, %016x): a bug here' % (g, f))
    open(sys.argv[2], 'wb').write(b)
    print('xxh64 chain %016x %016x, stripe solved at %#x' % (g, f, fix))


if __name__ == '__main__':
    main()
