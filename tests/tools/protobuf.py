# protobuf.py - the protocol buffer wire format, enough for the tests to
# read back what ebs export --format pprof writes (merge.sh, neighbours.sh).

def varint(b, i):
    """The varint at b[i]: (value, the index after it)."""
    v = s = 0
    while True:
        c = b[i]; i += 1
        v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i


def fields(b, wires=(0, 1, 2, 5)):
    """(field number, value) of each field of message b: an int for a varint,
    bytes otherwise.  A wire type outside wires stops the test."""
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w not in wires:
            raise SystemExit("wire type %d" % w)
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        else:
            v, i = b[i:i + 4], i + 4
        yield f, v
