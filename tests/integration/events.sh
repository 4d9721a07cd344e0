#!/usr/bin/env bash
# events.sh - several events in one run, :u and :k, -c (sample after N),
# raw events, and samples outside the program: the vdso and the kernel
# (resolved through /proc/kallsyms, or [kernel] without it).
. "$(dirname "$0")/../lib.sh"

# Two events, one group: every sample names its event; both are reported.
record two.data -e cpu-clock,task-clock -c 1000000 "$WORKLOADS/leafloop" 0.3
check "two events: record exit 0" [ $? -eq 0 ]
"$EBS" report -i two.data --dump >two.dump
check "two events: two EVENT headers" [ "$(grep -c '^# event [01]: ' two.dump)" -ge 2 ]
c0=$(grep -c 'SAMPLE .* event 0 ' two.dump)
c1=$(grep -c 'SAMPLE .* event 1 ' two.dump)
# -c 1000000 of a nanosecond clock over 0.3 s of CPU time: 300 periods each.
# How many of them become samples depends on the machine's timer (lib.sh),
# so: some samples of each (the hrtimer of a period fires, if late, while
# leafloop runs), never more than the counters counted.
check "two events: samples of event 0 (cpu-clock): $c0" [ "$c0" -gt 0 ]
check "two events: samples of event 1 (task-clock): $c1" [ "$c1" -gt 0 ]
periods_bound "two events: event 0" two.dump 0
periods_bound "two events: event 1" two.dump 1
check "two events: every sample's period is 1000000" \
	bash -c "! grep 'SAMPLE' two.dump | grep -qv 'period 1000000 '"
"$EBS" report -i two.data >two.txt
check "two events: text report has a table per event" \
	bash -c "grep -q '^# event: cpu-clock$' two.txt && grep -q '^# event: task-clock$' two.txt"
check "two events: -c shown as the sample-after value" grep -q '^# sampling: one sample after every 1000000 events' two.txt
"$EBS" report -i two.data --event task-clock --json >tc.json
check "--event task-clock: JSON of that event" [ "$(json tc.json "j['event']")" = task-clock ]
check "--event task-clock: period 1000000" [ "$(json tc.json "j['period']")" = 1000000 ]
check "--event task-clock: its sample count" [ "$(json tc.json "j['samples']")" = "$c1" ]
check "--event task-clock: the events list" [ "$(json tc.json "','.join(j['events'])")" = cpu-clock,task-clock ]
"$EBS" report -i two.data --event nosuch >/dev/null 2>ev.err
check "--event nosuch: exit 2" [ $? -eq 2 ]
check "--event nosuch: one line naming it" bash -c "one_line() { [ \$(wc -l <\$1) -eq 1 ]; }; one_line ev.err && grep -q \"no event 'nosuch'\" ev.err"

# -c N of a software event: one sample per N events, each standing for N.
# memtouch 64 2 writes once into each 4 KiB page of a fresh anonymous 64 MiB
# mapping, twice: 32768 write faults, one each (MADV_NOHUGEPAGE rules out
# huge and multi-size THP folios; fault-around is for file pages only), on
# any kernel.  Its start-up (ld.so, libc) adds a few hundred user-mode
# faults (:u), far below the 1000 more that a 35th sample would need.
record pf.data -e page-faults:u -c 1000 "$WORKLOADS/memtouch" 64 2
"$EBS" report -i pf.data --dump >pf.dump
n=$(grep -c 'SAMPLE' pf.dump)
# Each counter (one per CPU) counts toward its own period, so when the
# process migrates each CPU's remainder is lost: the samples are exactly the
# sum over the COUNT records of floor(value / 1000), 31..34 in all.
faults=$(awk '$2 == "COUNT" { for (i = 3; i < NF; i++) if ($i == "value") t += $(i + 1) } END { print t + 0 }' pf.dump)
want=$(awk '$2 == "COUNT" { for (i = 3; i < NF; i++) if ($i == "value") t += int($(i + 1) / 1000) } END { print t + 0 }' pf.dump)
check "page-faults -c 1000: 32768 faults and start-up counted, below 34000 ($faults)" \
	[ "$faults" -ge 32768 -a "$faults" -lt 34000 ]
check "page-faults -c 1000: one sample per 1000 faults on each CPU's counter: $want ($n)" \
	[ "$n" -eq "$want" -a "$n" -ge 31 -a "$n" -le 34 ]
check "page-faults -c 1000: every sample stands for 1000" bash -c "! grep SAMPLE pf.dump | grep -qv 'period 1000 '"

# :u samples only user space, :k only the kernel.  sysloop's kernel_phase
# spends its 0.15 s of CPU time making system calls: some of it in the
# kernel on any machine, so :k has samples.
record u.data -e cpu-clock:u -F 2000 "$WORKLOADS/sysloop" 0.3
"$EBS" report -i u.data --sort dso --json >u.json
check ":u: no kernel samples" [ "$(json u.json "sum(r['samples'] for r in j['rows'] if r['dso'] == '[kernel]')")" = 0 ]
record k.data -e cpu-clock:k -F 2000 "$WORKLOADS/sysloop" 0.3
"$EBS" report -i k.data --sort dso --json >k.json
check ":k: only kernel samples" [ "$(json k.json "all(r['dso'] == '[kernel]' for r in j['rows']) and j['samples'] > 0")" = 1 ]

# The vdso (its image is copied into the file) and the kernel resolve by
# name.  How the time splits inside the vdso and the kernel depends on their
# build (6.18's vdso spends most of clock_gettime in an unnamed static
# helper; mitigations and paravirt hooks fill a kernel profile), so what is
# checked is what ebs promises, sample by sample: a vdso sample whose
# link-time address a symbol of the recorded image covers is named by that
# symbol (as readelf lists the image's symbols; aliases and extents by the
# rules of docs/symbolize.md, section 3), the others are rows "[unknown]
# [vdso]+0xSTART", START the start of the FDE that covers them (else the
# address itself); a kernel sample is named by /proc/kallsyms (section 7).
# The expected rows and counts are computed here from the raw samples of
# --dump and must equal the report's: a sample misnamed, dropped or
# counted twice shows as a difference.
record sys.data -e cpu-clock -F 2000 "$WORKLOADS/sysloop" 0.4
"$EBS" report -i sys.data --json >sys.json
"$EBS" report -i sys.data --dump >sys.dump

# vdso_rows DATA DUMP JSON: prints "named unknown total" of the vdso samples
# and, where the report differs from the recorded image's symbols, each row
# that differs; false then.
vdso_rows() {
	python3 - "$@" <<'PY'
import collections, json, re, struct, subprocess, sys

data = open(sys.argv[1], 'rb').read()
hsize = struct.unpack_from('<I', data, 16)[0]
doff = struct.unpack_from('<Q', data, 24)[0]
off, img = hsize, None
while off < doff:	# header records (docs/format.md): the DSO_IMAGE of [vdso]
    typ, _, size = struct.unpack_from('<HHI', data, off)
    if typ == 3 and data[off + 40:off + 72].split(b'\0')[0] == b'[vdso]':
        img = data[off + 72:off + 72 + struct.unpack_from('<Q', data, off + 8)[0]]
    off += size
if img is None:
    sys.exit('no DSO_IMAGE record of [vdso] in ' + sys.argv[1])
open('vdso.img', 'wb').write(img)

def readelf(*args):
    return subprocess.run(['readelf', '-W', *args, 'vdso.img'], capture_output=True,
                          text=True, check=True).stdout

loads = [(int(m[1], 16), int(m[2], 16), int(m[3], 16)) for m in
         re.finditer(r'^\s*LOAD\s+(0x\S+)\s+(0x\S+)\s+\S+\s+(0x\S+)', readelf('-l'), re.M)]
tables, cur = {}, None	# table name -> [(value, size, binding, name)]
for line in readelf('-s').splitlines():
    m = re.match(r"Symbol table '(\S+)'", line)
    if m:
        cur = tables.setdefault(m[1], [])
        continue
    f = line.split()
    if cur is None or len(f) < 8 or not f[0].endswith(':'):
        continue
    if f[3] in ('FUNC', 'IFUNC') and f[6] != 'UND':
        cur.append((int(f[1], 16), int(f[2], 0), f[4], f[7].split('@')[0]))
# .symtab when it has a function, else .dynsym; aliases: GLOBAL, then WEAK,
# then LOCAL, then the shorter name, then table order; the largest size
syms = tables.get('.symtab') or tables.get('.dynsym') or []
rank = {'GLOBAL': 0, 'UNIQUE': 0, 'WEAK': 1}
best = {}
for i, (v, sz, b, n) in enumerate(syms):
    key = (rank.get(b, 2), len(n), i)
    old = best.get(v)
    if not old or key < old[0]:
        old = (key, n, old[2] if old else 0)
    best[v] = (old[0], old[1], max(old[2], sz))
starts = sorted(best)

# code no symbol covers is one row per function as its CFI bounds it: the
# start of the FDE (.eh_frame first, as readelf lists it) that covers it
fdes = [(int(m[1], 16), int(m[2], 16)) for m in
        re.finditer(r' FDE .*pc=([0-9a-f]+)\.\.([0-9a-f]+)', readelf('--debug-dump=frames'))]

def unknown(a):
    lo = next((lo for lo, hi in fdes if lo <= a < hi), a)
    return '[unknown] [vdso]+0x%x' % lo

def name_of(a):	# the last symbol starting at or below a that covers it
    hit = None
    for k, v in enumerate(starts):
        end = v + best[v][2] if best[v][2] else (starts[k + 1] if k + 1 < len(starts) else v + 1)
        if v <= a < end:
            hit = best[v][1]
    return hit

# The mappings first, then the samples: records of different CPUs come in
# batches (docs/format.md, section 7), so a sample may stand before the
# MMAP or FORK of its process in the file.
maps, want = {}, collections.Counter()
lines = [l for l in open(sys.argv[2]) if len(l.split()) >= 3]
for line in lines:
    f = line.split()
    if f[1] == 'MMAP' and f[-1] == '[vdso]':
        m = re.search(r' pid (\d+) .*\[0x([0-9a-f]+)\+0x([0-9a-f]+)\] pgoff 0x([0-9a-f]+) ', line)
        maps[m[1]] = (int(m[2], 16), int(m[3], 16), int(m[4], 16))
    elif f[1] == 'FORK':
        kv = dict(zip(f[2::2], f[3::2]))
        if kv.get('ppid') in maps:
            maps[kv['pid']] = maps[kv['ppid']]
for line in lines:
    f = line.split()
    kv = dict(zip(f[2::2], f[3::2]))
    if f[1] == 'SAMPLE' and kv['pid'] in maps:
        start, length, pgoff = maps[kv['pid']]
        ip = int(kv['ip'], 16)
        if start <= ip < start + length:
            o = ip - start + pgoff	# the file offset, then the link-time address
            a = next((o - po + va for po, va, fs in loads if po <= o < po + fs), o)
            want[name_of(a) or unknown(a)] += 1
got = collections.Counter()
for r in json.load(open(sys.argv[3]))['rows']:
    if r['dso'] == '[vdso]':
        got[r['function']] += r['samples']
unk = sum(c for n, c in want.items() if n.startswith('[unknown]'))
print(sum(want.values()) - unk, unk, sum(want.values()), end=' ')
diff = ['%s: ebs %d, the image %d' % (n, got[n], want[n])
        for n in sorted(set(got) | set(want)) if got[n] != want[n]]
print('; '.join(diff[:5]) + ('; %d more' % (len(diff) - 5) if len(diff) > 5 else ''))
sys.exit(got != want)
PY
}
if ! grep -q 'MMAP .* \[vdso\]$' sys.dump; then
	skip "vdso" "sysloop had no vdso mapped (booted with vdso=0?)"
else
	out=$(vdso_rows sys.data sys.dump sys.json)
	rc=$?
	read -r named unknown total rest <<<"$out"
	cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
	if [ "${total:-0}" = 0 ] && [ $rc = 0 ] &&
	   ! [[ "$cs" =~ ^(tsc|kvm-clock|hyperv_clocksource_tsc_page)$ ]]; then
		# only these clocksources are read in the vdso; with another, clock_gettime
		# is a system call made from the vdso and the vdso's share is tiny
		skip "vdso" "no sample in the vdso: clocksource $cs is not read there"
	else
		# with a clocksource read in the vdso, sysloop's vdso_phase (0.2 s of CPU)
		# is nearly all vdso code: hundreds of periods, some samples on any machine
		check "vdso: $total samples in [vdso]" [ "${total:-0}" -gt 0 ]
		check "vdso: rows as the recorded image's symbols name them ($named named, $unknown in [unknown] rows)${rest:+: $rest}" [ $rc = 0 ]
	fi
fi

# kernel_rows KALLSYMS DUMP JSON: prints "named unknown total" of the kernel
# samples and, where the report differs from KALLSYMS, each row that
# differs; false then.
kernel_rows() {
	python3 - "$@" <<'PY'
import bisect, collections, json, sys

best, dsos = {}, {'[kernel]'}	# address -> (rank, name, DSO); the DSOs
stext = None	# unknown kernel code is shown from _stext, never at its address
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 3 or f[1] not in ('t', 'T', 'w', 'W'):
        continue
    a = int(f[0], 16)
    if f[2] == '_stext' and stext is None:
        stext = a
    dso = f[3] if len(f) > 3 and f[3].startswith('[') else '[kernel]'	# [MODULE]
    dsos.add(dso)
    key = (f[1] not in 'TW', len(f[2]), f[2])	# T or W, then shorter, then strcmp
    if a not in best or key < best[a][0]:
        best[a] = (key, f[2], dso)
starts = sorted(best)
want = collections.Counter()
for line in open(sys.argv[2]):
    f = line.split()
    if len(f) < 4 or f[1] != 'SAMPLE':
        continue
    kv = dict(zip(f[2::2], f[3::2]))
    if kv.get('mode') != '1':	# EBS_CPUMODE_KERNEL
        continue
    ip = int(kv['ip'], 16)
    i = bisect.bisect_right(starts, ip)	# up to the next symbol; the last one 4096 bytes
    if i == 0 or (i == len(starts) and ip - starts[-1] >= 4096):
        off = ip - stext if stext else 0
        name = ('[unknown] [kernel]+0x%x' % off if off > 0 else
                '[unknown] [kernel]-0x%x' % -off if off < 0 else '[unknown] [kernel]')
        want[(name, '[kernel]')] += 1
    else:
        want[best[starts[i - 1]][1:]] += 1
got = collections.Counter()
for r in json.load(open(sys.argv[3]))['rows']:
    if r['dso'] in dsos:
        got[(r['function'], r['dso'])] += r['samples']
unk = sum(c for k, c in want.items() if k[0].startswith('[unknown]'))
print(sum(want.values()) - unk, unk, sum(want.values()), end=' ')
diff = ['%s %s: ebs %d, kallsyms %d' % (k[0], k[1], got[k], want[k])
        for k in sorted(set(got) | set(want)) if got[k] != want[k]]
print('; '.join(diff[:5]) + ('; %d more' % (len(diff) - 5) if len(diff) > 5 else ''))
sys.exit(got != want)
PY
}
if [ "$(awk 'NR == 1 {print $1; exit}' /proc/kallsyms)" = 0000000000000000 ]; then
	skip "kernel symbols" "/proc/kallsyms shows zero addresses to this user"
else
	out=$(kernel_rows /proc/kallsyms sys.dump sys.json)
	rc=$?
	read -r named unknown total rest <<<"$out"
	# kernel_phase's 0.2 s of CPU making system calls: some of it in the kernel
	check "kernel: $total samples in the kernel" [ "${total:-0}" -gt 0 ]
	check "kernel: rows as /proc/kallsyms names them ($named named, $unknown in [unknown] rows)${rest:+: $rest}" [ $rc = 0 ]
fi
"$EBS" report -i sys.data --kallsyms /dev/null --json >nok.json 2>nok.err
check "no kallsyms: kernel samples grouped as [unknown] in [kernel]" \
	[ "$(json nok.json "all(r['function'].startswith('[unknown]') for r in j['rows'] if r['dso'] == '[kernel]') and any(r['dso'] == '[kernel]' for r in j['rows'])")" = 1 ]
check "no kallsyms: one warning naming the file" bash -c "[ \$(grep -c '/dev/null' nok.err) -eq 1 ]"

# Raw events are hardware events: parsed, and here (no PMU) fallen back from.
record raw.data -e r01c2:cmask=1:inv:u -F 500 "$WORKLOADS/leafloop" 0.1
check "raw event: records (exit 0)" [ $? -eq 0 ]
"$EBS" report -i raw.data --json >raw.json
check "raw event: asked name kept" [ "$(json raw.json "j['asked']")" = r01c2:cmask=1:inv:u ]
if grep -q 'cannot be opened:' raw.data.err; then
	check "raw event: fell back to cpu-clock:u" [ "$(json raw.json "j['event']")" = cpu-clock:u ]
fi

# Each modifier may be given once: ":inv:inv" does not cancel out and a
# second ":cmask=" would silently replace the first, so a repeated one is
# refused before anything runs, in one line naming the event (status 2),
# and no file is written.  (tests/fuzz/fuzz-events.c checks the rule over
# any text.)
twice() {	# EVENT
	"$EBS" record -e "$1" -o twice.data "$WORKLOADS/leafloop" 0.01 >twice.out 2>twice.err
	local rc=$?
	[ "$rc" -eq 2 ] && one_line twice.err && grep -qF "event '$1': modifier" twice.err &&
		grep -q 'given twice' twice.err && [ ! -e twice.data ]
}
for ev in r00c0:inv:inv r01c2:cmask=1:cmask=2 r01c2:edge:u:edge cpu-clock:u:u task-clock:k:k; do
	check "modifier twice: $ev refused in one line naming it" twice "$ev"
done
