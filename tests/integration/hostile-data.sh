#!/usr/bin/env bash
# hostile-data.sh - ebs report, report --dump and annotate on data files
# that are not what a finished `ebs record` leaves: unfinished recordings
# (ebs record killed), endless input, files that shrink or grow while they
# are read, a file of 100,000 mappings; and annotate's FILE:LINE.
#
# Each case either reads what can be read and says what is missing (exit
# 0), or gives one line naming the file and the byte offset (exit 2):
# never a crash, a signal, a hang or memory without bound.  `timeout` only
# stops a hang; no time is asserted.
. "$(dirname "$0")/../lib.sh"

MKDATA=$(dirname "$EBS")/tests/tools/mkdata
L="$WORKLOADS/leafloop"

# field FILE OFFSET: the u64 at OFFSET of FILE's fixed header
field() { python3 -c "import struct,sys; print(struct.unpack_from('<Q', open(sys.argv[1],'rb').read(96), int(sys.argv[2]))[0])" "$1" "$2"; }
# grouped N: N with a comma every three digits, as ebs prints counts
grouped() { python3 -c "import sys; print('{:,}'.format(int(sys.argv[1])))" "$1"; }

# ---- unfinished recordings -------------------------------------------------
# What a killed `ebs record` leaves: the header written at the start
# (trailer_offset and data_size 0), the data records streamed so far, the
# last one perhaps cut.  Made from a finished recording, so that its
# samples are known: header fields zeroed, cut inside the last COUNT record
# before the trailer (and, for the second file, at a record boundary).
if ! record good.data -e cpu-clock -F 2000 "$L" 0.3; then
	fail "record leafloop" "$(head -n 1 good.data.err)"
	exit 0
fi
"$EBS" report --dump -i good.data >good.dump 2>/dev/null
toff=$(field good.data 40)
python3 - "$toff" <<'PY'
import struct, sys
toff = int(sys.argv[1])
b = bytearray(open('good.data', 'rb').read())
struct.pack_into('<QQ', b, 32, 0, 0)           # data_size, trailer_offset: never written
open('unfinished.data', 'wb').write(b[:toff - 12])      # inside the last record
open('unfinished-whole.data', 'wb').write(b[:toff])     # every record whole
PY
# samples of the records that lie wholly before the cut, from the dump of the whole file
n=$(awk -v cut=$((toff - 12)) '$2 == "SAMPLE" && $1 + 48 <= cut' good.dump | wc -l)
last=$(awk '$1 ~ /^[0-9]+$/ && $2 != "TRAILER" { off = $1 } END { print off }' good.dump)
ng=$(grouped "$n")
expect "unfinished: report reads it, one line says so" 0 \
	"^ebs report: warning: unfinished.data: recording did not finish: $ng samples up to offset $last \(an incomplete record after it left out\)$" \
	"$EBS" report -i unfinished.data
check "unfinished: the report counts its $n samples" grep -q "^# samples: $n," out.txt
check "unfinished: the report shows leafloop's leaf" grep -qE ' leaf +leafloop$' out.txt
expect "unfinished: report --dump reads it" 0 "recording did not finish: $ng samples up to offset $last " \
	"$EBS" report --dump -i unfinished.data
check "unfinished: --dump lists its $n samples, then says where it stops" \
	sh -c "[ \$(grep -c ' SAMPLE ' out.txt) -eq $n ] && tail -n 1 out.txt | grep -q '^# no TRAILER: unfinished.data: recording did not finish'"
expect "unfinished: annotate reads it" 0 "^ebs annotate: warning: unfinished.data: recording did not finish" \
	"$EBS" annotate -i unfinished.data leaf
check "unfinished: annotate lists leaf" grep -q '^# annotate: leaf ' out.txt
nw=$(grouped "$(grep -c ' SAMPLE ' good.dump)")
expect "unfinished at a record boundary: nothing left out" 0 \
	"unfinished-whole.data: recording did not finish: $nw samples up to offset $toff$" \
	"$EBS" report -i unfinished-whole.data
expect "unfinished, through a pipe" 0 "^ebs report: warning: -: recording did not finish: $ng samples" \
	sh -c "cat unfinished.data | \"\$0\" report -i -" "$EBS"
# Finished files cut short are still refused (tests/integration/badinput.sh).
head -c $((toff + 8)) good.data >cut.data
expect "a finished file cut inside its trailer: refused" 2 "cut.data: offset $toff: truncated TRAILER" \
	"$EBS" report -i cut.data

# The real thing: ebs record killed with SIGKILL while it records.
"$EBS" record -q -e cpu-clock -F 2000 -o killed.data "$L" 20 2>killed.err &
rec=$!
tmpf=""
for _ in $(seq 300); do	# up to 30 s for the first data to reach the file
	tmpf=$(ls .killed.data.tmp.* 2>/dev/null | head -n 1)
	if [ -n "$tmpf" ] && [ "$(stat -c %s "$tmpf")" -gt 0 ]; then
		doff=$(field "$tmpf" 24 2>/dev/null || echo 0)
		[ "$doff" -gt 0 ] && [ "$(stat -c %s "$tmpf")" -gt $((doff + 4096)) ] && break
	fi
	sleep 0.1
done
kids=$(pgrep -P $rec)
kill -KILL $rec
wait $rec 2>/dev/null
[ -n "$kids" ] && kill -KILL $kids 2>/dev/null
if [ -z "$tmpf" ] || [ ! -e "$tmpf" ]; then
	fail "killed: a temporary file" "none beside killed.data"
else
	expect "killed: report reads what ebs record had written" 0 \
		"^ebs report: warning: $tmpf: recording did not finish: [0-9,]+ samples up to offset [0-9]+" \
		"$EBS" report -i "$tmpf"
	check "killed: with samples of leafloop" grep -qE ' leaf +leafloop$' out.txt
	rm -f "$tmpf"
fi

# ---- endless input ----------------------------------------------------------
# Nothing of an endless input is kept beyond what the format allows: the
# magic first, then each size the header and the records announce.  Under
# a 1 GB address-space limit (not with a sanitizer, which maps terabytes).
LIMIT=1000000
if ! (ulimit -v $LIMIT && ASAN_OPTIONS= UBSAN_OPTIONS= exec "$EBS" --version) >/dev/null 2>&1; then
	LIMIT=unlimited
	skip "endless input: under a memory limit" "$EBS does not run under ulimit -v (a sanitizer build?): the checks run without it"
fi
lim=(sh -c 'ulimit -v "$0" && exec "$@"' "$LIMIT")
doff=$(field good.data 24)
python3 - "$doff" <<'PY'
import struct, sys
doff = int(sys.argv[1])
b = bytearray(open('good.data', 'rb').read())
struct.pack_into('<I', b, 20, 1)              # EBS_FILE_STREAMED, as ebs record -o - | ...
struct.pack_into('<QQ', b, 32, 0, 0)          # and so no trailer offset
h = bytearray(b[:96])
struct.pack_into('<Q', h, 24, 1 << 40)      # a data offset of 1 TiB
open('hugehdr.bin', 'wb').write(h)
rec = struct.pack('<HHI', 16, 0, (16 << 20) + 8)  # a SAMPLE of 16 MiB + 8 bytes
open('hugerec.bin', 'wb').write(b[:doff] + rec)
open('header.bin', 'wb').write(b[:doff])
PY
expect "endless: report -i /dev/zero" 2 "^ebs report: /dev/zero: offset 0: not an ebs.data file" \
	"${lim[@]}" "$EBS" report -i /dev/zero
expect "endless: report -i - </dev/zero" 2 "^ebs report: -: offset 0: not an ebs.data file" \
	"${lim[@]}" sh -c '"$0" report -i - </dev/zero' "$EBS"
expect "endless: report --dump -i /dev/zero" 2 "offset 0: not an ebs.data file" \
	"${lim[@]}" "$EBS" report --dump -i /dev/zero
expect "endless: annotate -i /dev/zero" 2 "offset 0: not an ebs.data file" \
	"${lim[@]}" "$EBS" annotate -i /dev/zero
expect "endless: a valid header, then zeros" 2 "^ebs report: -: offset $doff: bad record size 0" \
	"${lim[@]}" sh -c 'cat header.bin /dev/zero | "$0" report -i -' "$EBS"
expect "endless: a header announcing 1 TiB of header records, then zeros" 2 \
	"^ebs report: -: offset 24: data offset 1099511627776: header records of more than" \
	"${lim[@]}" sh -c 'cat hugehdr.bin /dev/zero | "$0" report -i -' "$EBS"
expect "endless: a record of 16 MiB + 8, then zeros" 2 \
	"^ebs report: -: offset $doff: SAMPLE record of 16777224 bytes: more than the 16777216" \
	"${lim[@]}" sh -c 'cat hugerec.bin /dev/zero | "$0" report -i -' "$EBS"

# ---- files that change while they are read ----------------------------------
# report --dump writes into a FIFO that this script reads one line of: it
# then blocks with the pipe full, long before the end of the first part of
# the file it read (the pipe holds 64 KiB of output, some 40 KiB of
# records as SAMPLE records, or a few KiB packed; the reader reads 1 MiB at
# a time, and the file is some 5 MiB).  The file changes, then the
# rest of the FIFO is read.  Deterministic: no timing involved.
awk 'BEGIN {
	print "event cpu-clock cpu-clock 1000"
	print "comm 100 100 big"
	print "mmap 100 400000 100000 0 /big"
	for (i = 0; i < 1000000; i++) printf "sample 0 100 100 %x 1\n", 0x400000 + (i % 4096) * 16
}' | "$MKDATA" big.data || fail "mkdata big.data" "cannot write it"
mkfifo fifo
# paced NAME FILE CHANGE...: dump FILE into the FIFO, read a line, run CHANGE, read the rest
paced() {
	local name=$1 file=$2 first
	shift 2
	timeout -s KILL 60 "$EBS" report --dump -i "$file" >fifo 2>paced.err &
	local pid=$!
	exec 3<fifo
	read -r first <&3
	"$@"
	cat <&3 >paced.out
	exec 3<&-
	wait $pid
}
cp big.data shrink.data
paced shrink shrink.data truncate -s 2000000 shrink.data
rc=$?
if [ $rc -ne 2 ] || [ "$(wc -l <paced.err)" -ne 1 ] ||
   ! grep -qE "^ebs report: shrink.data: offset [0-9]+: the file shrank while it was read \([0-9]+ bytes when opened, 2000000 now\)$" paced.err; then
	fail "a file truncated while report --dump reads it: one line, status 2" "status $rc ($( [ $rc -gt 128 ] && kill -l $((rc - 128)) )), stderr: $(head -c 300 paced.err)"
else
	pass "a file truncated while report --dump reads it: one line, status 2"
fi
# An unfinished recording still being written: read up to its size at open.
# (the samples of the whole records before the cut: SAMPLES records count theirs)
before=$(python3 - <<'PY'
import struct
b = bytearray(open('big.data', 'rb').read())
doff, toff = struct.unpack_from('<Q', b, 24)[0], struct.unpack_from('<Q', b, 40)[0]
struct.pack_into('<QQ', b, 32, 0, 0)
off, cut, n = doff, toff // 2 // 8 * 8 + 8, 0
while True:
	typ, _, size = struct.unpack_from('<HHI', b, off)
	if off + size > cut:
		break
	n += struct.unpack_from('<I', b, off + 8)[0] if typ == 24 else typ == 16
	off += size
cut = off + 8  # some records, the last one cut
open('growing.data', 'wb').write(b[:cut])
open('growing.more', 'wb').write(b[cut:toff])
print(n)
PY
)
paced grow growing.data sh -c 'cat growing.more >>growing.data'
rc=$?
check "an unfinished recording that grows while it is read: status 0 ($rc)" [ $rc -eq 0 ]
check "...read up to its size when opened: $before samples" \
	grep -q "recording did not finish: $(grouped "$before") samples up to offset" paced.err
check "...the records appended after it are not read" \
	sh -c "[ \$(grep -c ' SAMPLE ' paced.out) -eq $before ]"

# ---- 100,000 mappings ---------------------------------------------------------
# One process maps 100,000 pages of two libraries in turn and takes a sample
# in each; then 1,000 of them are mapped again from a third library, and
# 1,000 pages from a fourth over them in one map, each with samples after;
# and 7 samples fall in no mapping.  Every sample goes to the map that
# covered its address at its time: the newest at or before it.
awk 'BEGIN {
	print "event cpu-clock cpu-clock 1000"
	print "comm 100 100 many"
	base = 0x10000000
	for (i = 0; i < 100000; i++) printf "mmap 100 %x 1000 0 /many/lib%d.so\n", base + i * 4096, i % 2
	for (i = 0; i < 100000; i++) printf "sample 0 100 100 %x 1\n", base + i * 4096 + 16
	for (i = 0; i < 1000; i++) printf "mmap 100 %x 1000 0 /many/lib2.so\n", base + i * 4096
	for (i = 0; i < 1000; i++) printf "sample 0 100 100 %x 1\n", base + i * 4096 + 32
	printf "mmap 100 %x %x 0 /many/lib3.so\n", base + 2000 * 4096, 1000 * 4096
	for (i = 0; i < 500; i++) printf "sample 0 100 100 %x 1\n", base + (2000 + i * 2) * 4096
	printf "sample 0 100 100 %x 7\n", base + 100000 * 4096
}' | "$MKDATA" many.data || fail "mkdata many.data" "cannot write it"
timeout -s KILL 300 "$EBS" report -i many.data -s dso --json >many.json 2>many.err
rc=$?
check "100,000 mappings: report exits 0 ($rc)" [ $rc -eq 0 ]
got=$(json many.json "' '.join('%s=%d' % (r['dso'], r['samples']) for r in sorted(j['rows'], key=lambda r: r['dso']))" 2>/dev/null)
check "100,000 mappings: every sample to its map ($got)" \
	[ "$got" = "[unknown]=7 lib0.so=50000 lib1.so=50000 lib2.so=1000 lib3.so=500" ]

# ---- annotate FILE:LINE --------------------------------------------------------
# LINE is a whole number from 1 to the file's last line; anything else after
# FILE's last ':' that begins like a number is refused, one line, status 2.
src=$(grep -c '' "$TOP/tests/workloads/leafloop.c")
for bad in 99999999999 4294967296 -1 0 +3 3x; do
	expect "annotate leafloop.c:$bad: refused" 2 "^ebs annotate: leafloop.c:${bad/+/\\+}: no line '${bad/+/\\+}': LINE is a whole number from 1 to the file's last line$" \
		"$EBS" annotate -i good.data "leafloop.c:$bad"
done
expect "annotate leafloop.c:$((src + 1)): past its last line, refused" 2 \
	"^ebs annotate: leafloop.c:$((src + 1)): no line $((src + 1)): .*leafloop.c has $src lines$" \
	"$EBS" annotate -i good.data "leafloop.c:$((src + 1))"
check "annotate leafloop.c:$src: its last line, listed" quiet "$EBS" annotate -i good.data "leafloop.c:$src"
