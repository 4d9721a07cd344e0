#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacheck.py - walk an ebs.data file record by record, independently of
ebs's own reader, and check what docs/format.md promises about its bytes:

  * every reserved field, every unused field (device and inode of an MMAP
    record that carries a build-id, build-id bytes past build_id_size) and
    every padding byte after a string or an image is zero;
  * records are whole, 8-byte multiples, in order, of known types, header
    records before data_offset and data records after it.

A finished file must end with its TRAILER at trailer_offset.  With
--unfinished the file may also be a recording that never finished (killed,
or cut short by a full disk): its data must then be whole records up to its
last byte, with no TRAILER.

Prints one line, "ok: finished, R data records, S samples" or "ok:
unfinished, R whole data records, S samples, ends at offset N", and exits 0;
or "FILE: offset N: what is wrong" and exits 1.  Given several files, it
prints one such line per file, the good ones as "FILE: ok: ...", and exits
1 when any is bad.

  datacheck.py [--unfinished] FILE...
"""
import ctypes
import struct
import sys

HEADER = struct.Struct('<8sIHHIIQQQQQ32s')	# 96 bytes
REC = struct.Struct('<HHI')

FIXED = {1: 16, 2: 56, 3: 72, 4: 56, 16: 48, 17: 104, 18: 24, 19: 32, 20: 32,
	 21: 32, 22: 24, 23: 56, 24: 16, 25: 24, 26: 16, 28: 24, 31: 72}
NAMES = {1: 'META', 2: 'EVENT', 3: 'DSO_IMAGE', 4: 'CALIBRATION', 16: 'SAMPLE',
	 17: 'MMAP', 18: 'COMM', 19: 'FORK', 20: 'EXIT', 21: 'LOST', 22: 'THROTTLE',
	 23: 'COUNT', 24: 'SAMPLES', 25: 'KSYMS', 26: 'SAMPLES_CG', 28: 'SAMPLES_CGZ',
	 31: 'TRAILER'}
SINCE = {24: 2, 25: 2, 26: 3, 28: 4}	# SAMPLES and KSYMS: 2.0; SAMPLES_CG: 3.0; SAMPLES_CGZ: 4.0
M64 = (1 << 64) - 1
CHAIN_USER, CHAIN_KERNEL, CHAIN_MAX = M64 + 1 - 512, M64 + 1 - 128, M64 + 1 - 4095


def varint(b, p, end, off):
	"""the LEB128 number at p (before end) and where it ends"""
	v, shift = 0, 0
	while True:
		if p >= end:
			raise Bad(off, 'SAMPLES: a number runs past the packed bytes')
		c = b[p]
		p += 1
		v |= (c & 0x7f) << shift
		shift += 7
		if not c & 0x80:
			if v >> 64:
				raise Bad(off, 'SAMPLES: a number of more than 64 bits')
			return v, p
		if shift > 63:
			raise Bad(off, 'SAMPLES: a number of more than 64 bits')


def unpack_samples(b, off, size):
	"""the number of samples of the SAMPLES record at off, each decoded"""
	count, nbytes = struct.unpack_from('<II', b, off + 8)
	if not 1 <= count <= 4096 or 16 + nbytes > size:
		raise Bad(off, 'SAMPLES: count %d, %d bytes in a record of %d' % (count, nbytes, size))
	p, end = off + 16, off + 16 + nbytes
	for i in range(count):
		if p >= end:
			raise Bad(off, 'SAMPLES: fewer samples than counted')
		flags = b[p]
		p += 1
		n = 2 + 2 * bool(flags & 0x10) + bool(flags & 0x20) + bool(flags & 0x40) + \
		    bool(flags & 0x80)
		if i == 0 and flags & 0xf0 != 0xf0:
			raise Bad(off, 'SAMPLES: the first sample lacks pid, cpu, event or period')
		for _ in range(n):
			_, p = varint(b, p, end, off)
	if p != end:
		raise Bad(off, 'SAMPLES: bytes left after the samples')
	zero(b, off, 16 + nbytes, size, 'SAMPLES padding')
	return count


def unzig(z):
	return (z >> 1) ^ (-(z & 1) & M64)


def unpack_samples_cg(b, off, size):
	"""the number of samples of the SAMPLES_CG record at off, each decoded
	(docs/format.md 7.10); checks what the reader must refuse"""
	count, nbytes = struct.unpack_from('<II', b, off + 8)
	if not 1 <= count <= 4096 or 16 + nbytes > size:
		raise Bad(off, 'SAMPLES_CG: count %d, %d bytes in a record of %d' % (count, nbytes, size))
	p, end = off + 16, off + 16 + nbytes
	ip, base, regs = [0, 0], [0, 0], [0] * 64
	hist, prev, unpacked = [], None, 0	# prev: (sp, words) of the last stack with an SP

	def num():
		nonlocal p
		v, p = varint(b, p, end, off)
		return v
	for i in range(count):
		if end - p < 2:
			raise Bad(off, 'SAMPLES_CG: fewer samples than counted')
		flags, parts = b[p], b[p + 1]
		p += 2
		if parts & ~7:
			raise Bad(off, 'SAMPLES_CG: parts byte 0x%x' % parts)
		if i == 0 and flags & 0xf0 != 0xf0:
			raise Bad(off, 'SAMPLES_CG: the first sample lacks pid, cpu, event or period')
		mode = flags & 7
		kernel = mode in (1, 4)
		num()	# time
		ip[kernel] = (ip[kernel] + unzig(num())) & M64
		for _ in range(2 * bool(flags & 0x10) + bool(flags & 0x20) + bool(flags & 0x40) +
			       bool(flags & 0x80)):
			num()
		unpacked += 48
		if parts & 1:	# chain
			ref = num()
			keep = 0
			if ref > len(hist):
				raise Bad(off, 'SAMPLES_CG: a chain names chain %d back of %d' % (ref, len(hist)))
			if ref:
				keep = num()
				if not 1 <= keep <= hist[-ref]:
					raise Bad(off, 'SAMPLES_CG: a chain keeps %d frames of %d' % (keep, hist[-ref]))
			fresh = num()
			ctx = int(kernel)
			base[ctx] = ip[kernel]
			for _ in range(fresh):
				c = num()
				if c & 1 == 0:
					base[ctx] = (base[ctx] + unzig(c >> 1)) & M64
				elif c in (3, 5):
					ctx = int(c == 5)
				elif c == 1:
					v = num()
					if v in (CHAIN_USER, CHAIN_KERNEL):
						ctx = int(v == CHAIN_KERNEL)
					elif v < CHAIN_MAX:
						base[ctx] = v
				else:
					raise Bad(off, 'SAMPLES_CG: chain frame code %d' % c)
			hist = (hist + [fresh + keep])[-16:]
			unpacked += 8 + 8 * (fresh + keep)
		sp = None
		if parts & 2:	# registers
			num()
			mask = num()
			k = 0
			for r in range(64):
				if mask >> r & 1:
					regs[r] = (regs[r] + unzig(num())) & M64
					if r == 7:
						sp = regs[r]
					k += 1
			unpacked += 16 + 8 * k
		if parts & 4:	# stack
			ssize, dyn = num(), num()
			if dyn > ssize:
				raise Bad(off, 'SAMPLES_CG: stack dyn_size %d > size %d' % (dyn, ssize))
			words, w = (ssize + 7) // 8, 0
			while w < words:
				same, lit = num(), num()
				if same + lit == 0 or w + same + lit > words:
					raise Bad(off, 'SAMPLES_CG: a stack run of %d + %d words at %d of %d' %
						  (same, lit, w, words))
				for j in range(w, w + same):
					a = (sp - prev[0] + 8 * j) & M64 if sp is not None and prev else 1
					if a % 8 or a // 8 >= prev[1]:
						raise Bad(off, 'SAMPLES_CG: a stack run repeats a word no stack before has')
				for _ in range(lit):
					num()
				w += same + lit
			if sp is not None:
				prev = (sp, words)
			unpacked += 16 + 8 * words
	if p != end:
		raise Bad(off, 'SAMPLES_CG: bytes left after the samples')
	if unpacked > 1 << 20:
		raise Bad(off, 'SAMPLES_CG: unpacks to %d bytes, more than 1 MiB' % unpacked)
	zero(b, off, 16 + nbytes, size, 'SAMPLES_CG padding')
	return count


def check_ksyms(b, off, size):
	nr, ssize = struct.unpack_from('<II', b, off + 8)
	sy, st = off + 24, off + 24 + 32 * nr
	if 24 + 32 * nr + ssize > size or ssize < 1 or b[st] or b[st + ssize - 1]:
		raise Bad(off, 'KSYMS: %d symbols and %d bytes of strings do not fit' % (nr, ssize))
	prev_end = 0
	for i in range(nr):
		start, end, name, module, flags, reserved = struct.unpack_from('<QQIIII', b, sy + 32 * i)
		if start >= end or start < prev_end or not 0 < name < ssize or module >= ssize:
			raise Bad(sy + 32 * i, 'KSYMS: symbol %d is malformed' % i)
		if flags & ~1 or reserved:
			raise Bad(sy + 32 * i + 24, 'KSYMS: symbol %d: unknown flags or reserved set' % i)
		prev_end = end
	zero(b, off, 24 + 32 * nr + ssize, size, 'KSYMS padding')


def unpack_samples_cgz(b, off, size):
	"""the number of samples of the SAMPLES_CGZ record at off: its zstd frame
	(one, exactly its bytes) decompressed with libzstd, through ctypes, to
	exactly the packed bytes it announces, which are checked as a
	SAMPLES_CG record's (docs/format.md 7.12)"""
	count, nbytes, packed, reserved = struct.unpack_from('<IIII', b, off + 8)
	if not 1 <= count <= 4096 or 24 + nbytes > size or not 1 <= packed <= 1 << 20:
		raise Bad(off, 'SAMPLES_CGZ: count %d, %d bytes of %d packed in a record of %d' %
			  (count, nbytes, packed, size))
	if reserved:
		raise Bad(off + 20, 'SAMPLES_CGZ reserved is not zero')
	zero(b, off, 24 + nbytes, size, 'SAMPLES_CGZ padding')
	z = ctypes.CDLL('libzstd.so.1')
	z.ZSTD_findFrameCompressedSize.restype = ctypes.c_size_t
	z.ZSTD_findFrameCompressedSize.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
	z.ZSTD_decompress.restype = ctypes.c_size_t
	z.ZSTD_decompress.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p,
				      ctypes.c_size_t]
	z.ZSTD_isError.argtypes = [ctypes.c_size_t]
	frame = bytes(b[off + 24:off + 24 + nbytes])
	n = z.ZSTD_findFrameCompressedSize(frame, nbytes)
	if z.ZSTD_isError(n) or n != nbytes:
		raise Bad(off + 24, 'SAMPLES_CGZ: not one zstd frame of %d bytes' % nbytes)
	out = ctypes.create_string_buffer(packed)
	n = z.ZSTD_decompress(out, packed, frame, nbytes)
	if z.ZSTD_isError(n) or n != packed:
		raise Bad(off + 24, 'SAMPLES_CGZ: the frame does not hold %d bytes' % packed)
	rec = struct.pack('<HHIII', 26, 0, 16 + packed, count, packed) + out.raw
	try:
		return unpack_samples_cg(rec, 0, len(rec))
	except Bad as e:
		raise Bad(off, 'SAMPLES_CGZ: byte %d of its samples: %s' % (e.off - 16, e.what))


class Bad(Exception):
	def __init__(self, off, what):
		super().__init__(what)
		self.off = off
		self.what = what


def zero(b, off, start, end, what):
	"""bytes b[start:end] of the record at off are all zero"""
	seg = b[off + start:off + end]
	if any(seg):
		i = next(k for k, c in enumerate(seg) if c)
		raise Bad(off + start + i, '%s: byte %d is 0x%02x, not zero' % (what, start + i, seg[i]))


def strings(b, off, start, size, n, what):
	"""n NUL-terminated strings from start, then zero padding to size"""
	p = off + start
	for i in range(n):
		end = b.find(b'\0', p, off + size)
		if end < 0:
			raise Bad(p, '%s: string %d is not terminated' % (what, i))
		p = end + 1
	zero(b, off, p - off, size, what + ' padding')


def check_rec(b, off, typ, misc, size):
	name = NAMES[typ]
	if typ == 1:	# META: key, reserved, value
		zero(b, off, 12, 16, 'META reserved')
		strings(b, off, 16, size, 1, 'META')
	elif typ == 2:	# EVENT
		zero(b, off, 20, 24, 'EVENT reserved')
		strings(b, off, 56, size, 3, 'EVENT')
	elif typ == 3:	# DSO_IMAGE
		image_size, bid = struct.unpack_from('<QB', b, off + 8)
		zero(b, off, 17, 20, 'DSO_IMAGE reserved')
		zero(b, off, 20 + min(bid, 20), 40, 'DSO_IMAGE build_id past build_id_size')
		strings(b, off, 40, 72, 1, 'DSO_IMAGE name')
		if 72 + image_size > size:
			raise Bad(off, 'DSO_IMAGE image of %d bytes past the record' % image_size)
		zero(b, off, 72 + image_size, size, 'DSO_IMAGE padding')
	elif typ == 4:	# CALIBRATION
		zero(b, off, 10, 12, 'CALIBRATION reserved0')
		zero(b, off, 56, size, 'CALIBRATION padding')
	elif typ == 16:	# SAMPLE
		zero(b, off, 46, 48, 'SAMPLE reserved')
		end = 48
		if misc & (1 << 4):	# callchain
			nr, = struct.unpack_from('<Q', b, off + end)
			end += 8 + 8 * nr
		if misc & (1 << 5):	# user registers
			_, mask = struct.unpack_from('<QQ', b, off + end)
			end += 16 + 8 * bin(mask).count('1')
		if misc & (1 << 6):	# user stack
			ssize, = struct.unpack_from('<Q', b, off + end)
			pad = (ssize + 7) // 8 * 8
			zero(b, off, end + 8 + ssize, end + 8 + pad, 'SAMPLE stack padding')
			end += 8 + pad + 8
		if end > size:
			raise Bad(off, 'SAMPLE optional parts end past the record')
		zero(b, off, end, size, 'SAMPLE padding')
	elif typ == 17:	# MMAP
		bid = b[off + 80]
		if misc & (1 << 4):
			zero(b, off, 48, 72, 'MMAP maj/min/ino/ino_generation (with a build-id)')
			zero(b, off, 84 + min(bid, 20), 104, 'MMAP build_id past build_id_size')
		else:
			zero(b, off, 80, 104, 'MMAP build_id_size/build_id (no build-id)')
		zero(b, off, 81, 84, 'MMAP reserved')
		strings(b, off, 104, size, 1, 'MMAP filename')
	elif typ == 18:	# COMM
		strings(b, off, 24, size, 1, 'COMM')
	elif typ in (19, 20):
		zero(b, off, 32, size, name + ' padding')
	elif typ == 21:
		zero(b, off, 30, size, 'LOST reserved')
	elif typ == 22:
		zero(b, off, 22, size, 'THROTTLE reserved')
	elif typ == 23:
		zero(b, off, 50, size, 'COUNT reserved')
	elif typ in (24, 26, 28):
		if misc:
			raise Bad(off, '%s misc 0x%x is not zero' % (name, misc))
	elif typ == 25:
		if misc:
			raise Bad(off, 'KSYMS misc 0x%x is not zero' % misc)
		check_ksyms(b, off, size)
	elif typ == 31:
		nr_events, nr_index = struct.unpack_from('<II', b, off + 60)
		zero(b, off, 68, 72, 'TRAILER reserved')
		if 72 + 32 * nr_events + 16 * nr_index != size:
			raise Bad(off, 'TRAILER size %d does not fit its arrays' % size)


def walk(b, unfinished):
	if len(b) < HEADER.size:
		raise Bad(0, 'shorter than the fixed header')
	(magic, endian, major, _minor, hsize, flags, data_off, data_size, trailer_off, _r, _c,
	 reserved) = HEADER.unpack_from(b, 0)
	if magic != b'EBSDATA\0' or endian != 0x01020304 or major not in (1, 2, 3, 4):
		raise Bad(0, 'not an ebs.data file of version 1 to 4 in this byte order')
	if any(reserved):
		raise Bad(64, 'header reserved is not zero')
	if flags & ~1:
		raise Bad(20, 'unknown header flags 0x%x' % flags)
	if hsize != 96 or data_off < hsize or data_off > len(b) or data_off % 8:
		raise Bad(16, 'header_size %d / data_offset %d' % (hsize, data_off))
	off, records, samples, trailer = hsize, 0, 0, None
	while off < len(b):
		if len(b) - off < REC.size:
			if unfinished and off >= data_off:
				raise Bad(off, 'a partial record header at the end (not whole records)')
			raise Bad(off, 'truncated record header')
		typ, misc, size = REC.unpack_from(b, off)
		if size < 8 or size % 8:
			raise Bad(off, 'bad record size %d' % size)
		if off + size > len(b):
			raise Bad(off, 'record of %d bytes past the end of the file (%s)' %
				  (size, 'not whole records' if unfinished else 'truncated'))
		if typ not in FIXED or major < SINCE.get(typ, 1):
			raise Bad(off, 'unknown record type %d in a version %d file' % (typ, major))
		if size < FIXED[typ]:
			raise Bad(off, '%s of %d bytes, shorter than its fixed part' % (NAMES[typ], size))
		if (off < data_off) != (typ < 16):
			raise Bad(off, '%s on the wrong side of data_offset %d' % (NAMES[typ], data_off))
		check_rec(b, off, typ, misc, size)
		if typ == 31:
			trailer = off
			off += size
			break
		if off >= data_off:
			records += 1
			samples += unpack_samples(b, off, size) if typ == 24 else \
				unpack_samples_cg(b, off, size) if typ == 26 else \
				unpack_samples_cgz(b, off, size) if typ == 28 else typ == 16
		off += size
	if off != data_off and off < data_off:
		raise Bad(off, 'header records end before data_offset')
	if trailer is None:
		if not unfinished:
			raise Bad(40, 'no TRAILER: the recording never finished')
		if flags & 1 == 0 and (trailer_off or data_size):
			raise Bad(40, 'no TRAILER but trailer_offset %d, data_size %d' % (trailer_off, data_size))
		return 'ok: unfinished, %d whole data records, %d samples, ends at offset %d' % (
			records, samples, off)
	nr_records, = struct.unpack_from('<Q', b, trailer + 24)
	if nr_records != records:
		raise Bad(trailer, 'TRAILER counts %d data records, the file has %d' % (nr_records, records))
	if flags & 1 == 0 and (trailer_off != trailer or data_size != off - data_off):
		raise Bad(40, 'trailer_offset %d / data_size %d do not match the TRAILER at %d' %
			  (trailer_off, data_size, trailer))
	return 'ok: finished, %d data records, %d samples' % (records, samples)


def check(path, unfinished, many):
	with open(path, 'rb') as f:
		b = f.read()
	try:
		print(('%s: ' % path if many else '') + walk(b, unfinished))
		return True
	except Bad as e:
		print('%s: offset %d: %s' % (path, e.off, e.what))
	except struct.error as e:
		print('%s: a field past the end of its record: %s' % (path, e))
	return False


def main():
	args = sys.argv[1:]
	unfinished = bool(args) and args[0] == '--unfinished'
	if unfinished:
		args = args[1:]
	if not args:
		sys.exit('usage: datacheck.py [--unfinished] FILE...')
	ok = [check(a, unfinished, len(args) > 1) for a in args]
	sys.exit(0 if all(ok) else 1)


if __name__ == '__main__':
	main()
