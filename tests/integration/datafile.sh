#!/usr/bin/env bash
# datafile.sh - format 2.0 as ebs record writes it and every reader reads it:
#
#   1. packed samples: a cpu-clock recording takes at most 12 bytes a sample
#      in all (48 as SAMPLE records), and its report --dump hands out every
#      sample the trailer counts; datacheck.py (a reader independent of
#      ebs's) walks the file and unpacks every SAMPLES record;
#   2. KSYMS: a recording with kernel samples carries the kernel symbols
#      they hit; its report opens no /proc/kallsyms, names the same kernel
#      functions as a report through /proc/kallsyms, and still names them
#      when /proc/kallsyms shows another boot's layout (a mount namespace in
#      which it is a copy with every address moved, as after a reboot with
#      KASLR); --kallsyms still wins;
#   3. backward reading: tests/data/v1.2-sysloop.data, recorded by ebs
#      37a0604 (format 1.2, SAMPLE records), reads as it did then: its
#      report --dump and --sort dso equal that ebs's, byte for byte; and
#      tests/data/v3.0-calltree-{fp,dwarf}.data, -g recordings of ebs
#      3c16a09 (format 3.0, SAMPLES_CG records), read as that ebs read them
#      (report --dump, --sort dso, the digest of every record it handed
#      out, stacks included: tests/tools/recopy.c), and written again as
#      4.0 (SAMPLES_CGZ) they read back the same records, byte for byte,
#      and give the same reports and scripts.
. "$(dirname "$0")/../lib.sh"

CHECK="$TOP/tests/tools/datacheck.py"
DATA=$TOP/tests/data

has_cgz() {	# FILE: it holds a SAMPLES_CGZ record (type 28) among its data records
	python3 -c "
import struct, sys
b = open(sys.argv[1], 'rb').read()
off, n = struct.unpack_from('<Q', b, 24)[0], 0
while off + 8 <= len(b):
	t, _, size = struct.unpack_from('<HHI', b, off)
	n += t == 28
	if t == 31 or size < 8: break
	off += size
sys.exit(0 if n else 1)" "$1"
}

# ---- 1. packed samples --------------------------------------------------------
t0=$(date +%s%N)
"$EBS" record -q -e cpu-clock -F 2000 -o p.data "$WORKLOADS/leafloop" 0.5 >/dev/null 2>p.err
check "record leafloop: status 0" [ $? -eq 0 ]
ms=$((($(date +%s%N) - t0) / 1000000))
"$EBS" report -i p.data --json >p.json 2>/dev/null
n=$(json p.json 'j["samples"]')
size=$(stat -c %s p.data)
check "a cpu-clock recording: ${size} bytes for ${n:-?} samples, at most 12 a sample" \
	[ "${n:-0}" -gt 200 -a "$size" -le $(( ${n:-0} * 12 + 16384 )) ]
check "every SAMPLES record unpacks, every byte checked (datacheck.py)" \
	sh -c "python3 '$CHECK' p.data | grep -q '^ok: finished, .*, $n samples$'"
"$EBS" report --dump -i p.data >p.dump 2>&1
check "report --dump hands out every sample as a SAMPLE ($n)" \
	[ "$(grep -c ' SAMPLE ' p.dump)" -eq "${n:-0}" ]
# a SAMPLES record a read of the ring buffers, at least every 200 ms (each
# 200 ms begun counts: 6 records in 788 ms were seen under load): a
# loaded machine stretches the 0.5 s of CPU over more wall time, and reads
recs=$(awk '$2 == "SAMPLE" { print $1 }' p.dump | sort -u | wc -l)
check "...at their SAMPLES records' offsets: $recs records for ${n:-0} samples in $ms ms, packed (10 a record at least), one a read (at most 2 + one per 200 ms begun)" \
	[ $((recs * 10)) -le "${n:-0}" -a "$recs" -le $((2 + (ms + 199) / 200)) ]

check "a recording is mode 0600, as perf.data: it holds samples, stacks, kernel addresses ($(stat -c %a p.data))" \
	[ "$(stat -c %a p.data)" = 600 ]
check "a recording without call graphs is written as format 2.0 (2.0 readers read it)" \
	grep -q '^# ebs.data version 2\.0,' p.dump

# ---- 1b. samples with their parts packed (3.0), then compressed (4.0) ----------------
for cg in fp dwarf,2048; do
	f=cg-${cg%%,*}.data
	"$EBS" record -q -e cpu-clock -F 1000 --call-graph $cg -o $f "$WORKLOADS/calltree" 0.4 >/dev/null 2>$f.err
	n=$(python3 "$CHECK" $f | sed -n 's/^ok: finished, .*, \([0-9]*\) samples$/\1/p')
	"$EBS" report --dump -i $f >$f.dump 2>&1
	check "--call-graph $cg: written as format 4.0" grep -q '^# ebs.data version 4\.0,' $f.dump
	check "--call-graph $cg: its samples in SAMPLES_CGZ records" has_cgz $f
	check "--call-graph $cg: every SAMPLES_CGZ record decompresses and unpacks, every byte checked (datacheck.py: ${n:-?} samples)" \
		[ "${n:-0}" -gt 100 ]
	check "--call-graph $cg: report --dump hands out each sample with its parts" \
		[ "$(grep ' SAMPLE ' $f.dump | grep -c 'chain\|stack')" -eq "${n:-0}" ]
	echo "# --call-graph $cg: $(stat -c %s $f) bytes for ${n:-?} samples"
done

# a -g recording killed (SIGKILL) leaves its temporary file whole records
# up to its end, SAMPLES_CGZ ones among them (each record stands alone),
# which report reads as an unfinished recording
"$EBS" record -q -e cpu-clock -F 1000 -g -o kg.data "$WORKLOADS/calltree" 30 >/dev/null 2>kg.err &
epid=$!
n=0
for _ in $(seq 100); do	# until samples are out (ebs writes at least every 0.2 s), 10 s at most
	sleep 0.1
	tmpf=$(ls -A | grep '^\.kg\.data\.tmp\.' | head -n 1)
	[ -n "$tmpf" ] || continue
	n=$(python3 "$CHECK" --unfinished "$tmpf" 2>/dev/null | sed -nE 's/^ok: unfinished, .* ([0-9]+) samples.*/\1/p')
	[ "${n:-0}" -gt 300 ] && break
done
kill -9 $epid
wait $epid 2>/dev/null
python3 "$CHECK" --unfinished "$tmpf" >kg.chk 2>&1
check "-g, killed by SIGKILL: the temporary file is whole records, $(sed -nE 's/.* ([0-9]+) samples.*/\1/p' kg.chk) samples ($(head -n 1 kg.chk))" \
	grep -q '^ok: unfinished, .* [1-9][0-9]* samples' kg.chk
check "...SAMPLES_CGZ records among them" has_cgz "$tmpf"
"$EBS" report -i "$tmpf" --children >kg.rep 2>&1
check "...report --children reads it as an unfinished recording" \
	sh -c "grep -q 'recording did not finish' kg.rep && grep -q '^# samples: [1-9]' kg.rep"
rm -f "$tmpf"

# ---- 2. KSYMS ---------------------------------------------------------------------
"$EBS" record -q -e cpu-clock -F 2000 -o k.data "$WORKLOADS/sysloop" 0.4 >/dev/null 2>k.err
check "record sysloop (kernel samples): status 0, no warning" [ $? -eq 0 -a ! -s k.err ]
check "the file carries a KSYMS record" grep -q ' KSYMS symbols [1-9]' <("$EBS" report --dump -i k.data 2>&1)
check "...datacheck.py finds it well formed" \
	sh -c "python3 '$CHECK' k.data | grep -q '^ok: finished'"
krows() {	# the kernel rows of a report: samples and function
	"$@" --dso '[kernel]' --top 0 --no-inline --json 2>/dev/null | python3 -c '
import json, sys
for r in json.load(sys.stdin)["rows"]:
	print(r["samples"], r["function"])'
}
krows "$EBS" report -i k.data >k.file
krows "$EBS" report -i k.data --kallsyms /proc/kallsyms >k.proc
check "kernel functions named from the file: $(wc -l <k.file) rows" \
	grep -qv unknown k.file
check "...the same rows as through /proc/kallsyms" diff -q k.file k.proc
kfn=$(awk '$2 != "[unknown]" { print $2; exit }' k.file)
"$EBS" annotate -i k.data "$kfn" >ka.txt 2>ka.err
check "annotate $kfn: its header names the recording as where its symbol is from" \
	grep -q "^# annotate: $kfn (\[kernel\], k.data)" ka.txt
if command -v strace >/dev/null; then
	# LeakSanitizer stops the world with ptrace, which strace already holds
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -e trace=open,openat -o k.strace "$EBS" report -i k.data >/dev/null 2>&1
	check "report of a recording with KSYMS opens no kallsyms" not grep -q kallsyms k.strace
else
	skip "report of a recording with KSYMS opens no kallsyms" "strace is not installed"
fi
# another boot: /proc/kallsyms with every address 16 MiB on, in a private mount namespace
if [ "$(id -u)" -ne 0 ]; then
	skip "after a reboot" "needs root to bind-mount over /proc/kallsyms (unshare -m)"
elif ! unshare -m true 2>unshare.err; then
	skip "after a reboot" "unshare -m is not permitted here: $(head -n 1 unshare.err)"
else
	awk '{ printf "%016x %s %s%s\n", strtonum("0x" $1) ? strtonum("0x" $1) + 16777216 : 0, $2, $3, NF > 3 ? " " $4 : "" }' \
		/proc/kallsyms >moved.kallsyms 2>/dev/null
	cat >moved.sh <<'EOF'
mount --bind moved.kallsyms /proc/kallsyms || exit 9
krows "$EBS" report -i k.data >k.moved
krows "$EBS" report -i k.data --kallsyms /proc/kallsyms >k.moved-proc
EOF
	{ declare -f krows; cat moved.sh; } >moved2.sh
	EBS=$EBS unshare -m bash moved2.sh
	rc=$?
	check "after a reboot (kallsyms moved 16 MiB): status 0 ($rc)" [ $rc -eq 0 ]
	check "...the kernel functions as recorded" diff -q k.file k.moved
	check "...and --kallsyms of the moved table wins: names differ" not diff -q k.file k.moved-proc
fi

# ---- 3. reading format 1.2 -----------------------------------------------------------
"$EBS" report --dump -i "$DATA/v1.2-sysloop.data" >old.dump 2>&1
check "a 1.2 file: report --dump as ebs 37a0604 printed it" diff -q "$DATA/v1.2-sysloop.dump" old.dump
"$EBS" report -i "$DATA/v1.2-sysloop.data" --sort dso >old.dso 2>/dev/null
check "a 1.2 file: report --sort dso as ebs 37a0604 printed it" diff -q "$DATA/v1.2-sysloop.dso" old.dso
check "a 1.2 file: datacheck.py reads it" \
	sh -c "python3 '$CHECK' '$DATA/v1.2-sysloop.data' | grep -q '^ok: finished'"
# the version check: 5.0 is refused, naming offset 12
python3 -c "
import sys
b = bytearray(open(sys.argv[1], 'rb').read()); b[12] = 5
open('v5.data', 'wb').write(b)" p.data
expect "a future major version (5.0) is refused" 2 "^ebs report: v5.data: offset 12: format version 5.0; this ebs reads versions 1.x to 4.x" \
	"$EBS" report -i v5.data

# ---- 3b. reading format 3.0, and the same samples written as 4.0 -------------------------
RECOPY=$(dirname "$EBS")/tests/tools/recopy
for cg in fp dwarf; do
	old=$DATA/v3.0-calltree-$cg
	"$EBS" report --dump -i "$old.data" >v3-$cg.dump 2>&1
	check "a 3.0 file (-g $cg): report --dump as ebs 3c16a09 printed it" diff -q "$old.dump" v3-$cg.dump
	"$EBS" report -i "$old.data" --sort dso >v3-$cg.dso 2>/dev/null
	check "a 3.0 file (-g $cg): report --sort dso as ebs 3c16a09 printed it" diff -q "$old.dso" v3-$cg.dso
	"$RECOPY" "$old.data" v4-$cg.data >v3-$cg.digest 2>v4-$cg.err
	check "a 3.0 file (-g $cg): every record, stacks included, as ebs 3c16a09 read it ($(cat v3-$cg.digest))" \
		diff -q "$old.digest" v3-$cg.digest
	"$EBS" report --dump -i v4-$cg.data >v4-$cg.dump 2>&1
	check "...written again: format 4.0, in SAMPLES_CGZ records" \
		sh -c "grep -q '^# ebs.data version 4\.0,' v4-$cg.dump && python3 '$CHECK' v4-$cg.data | grep -q '^ok: finished'"
	check "...with SAMPLES_CGZ records in it" has_cgz v4-$cg.data
	check "...in fewer bytes ($(stat -c %s "$old.data") -> $(stat -c %s v4-$cg.data))" \
		[ "$(stat -c %s v4-$cg.data)" -lt "$(stat -c %s "$old.data")" ]
	"$RECOPY" v4-$cg.data >v4-$cg.digest
	check "...reads back every record byte for byte (the same digest)" diff -q "$old.digest" v4-$cg.digest
	# the records' offsets and the record count differ: the samples are packed anew
	check "...report --dump prints the same records" \
		diff -q <(grep -v '^# ebs.data version\|TRAILER' "$old.dump" | cut -d' ' -f2-) \
		<(grep -v '^# ebs.data version\|TRAILER' v4-$cg.dump | cut -d' ' -f2-)
	for args in "script" "report --children --sort func" "report --sort func,line --top 0"; do
		# shellcheck disable=SC2086
		"$EBS" $args -i "$old.data" >v3-$cg.out 2>&1
		# shellcheck disable=SC2086
		"$EBS" $args -i v4-$cg.data 2>&1 | sed "s|v4-$cg\.data|$old.data|g" >v4-$cg.out
		check "...ebs $args: the same output ($(wc -l <v3-$cg.out) lines)" diff -q v3-$cg.out v4-$cg.out
	done
done
