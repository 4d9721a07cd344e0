#!/bin/busybox sh
# tests/kmod/guest-init.sh - /init of the QEMU guest that tests ebs.ko for
# real (tests/integration/kmod.sh builds the initramfs and boots it).  Every
# check prints PASS/FAIL/SKIP lines on the console; the host collects them.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /tmp && mount -t tmpfs tmp /tmp
cd /tmp || exit 1
echo "EBS-GUEST-START"

pass() { echo "PASS: kmod: $1"; }
fail() { echo "FAIL: kmod: $1"; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }

if insmod /ebs.ko; then pass "insmod ebs.ko"; else fail "insmod ebs.ko"; fi
check "/dev/ebs exists" [ -c /dev/ebs ]
echo "    $(dmesg | grep -i ebs | tail -n 3 | tr '\n' ' ')"

# The ABI, directly (a 0666 node, so that the module's own check is what refuses nobody)
chmod 666 /dev/ebs
/kmodtest
chmod 600 /dev/ebs

# ebs record --backend=kmod on a ground-truth workload: leafloop, 1 s of CPU
# time, one sample per 1 ms of cpu-clock (at most about 1000 samples), leaf ~99%.
/ebs record --backend=kmod -e cpu-clock -c 1000000 -o /tmp/k.data /leafloop 1.0 2>rec.err
rc=$?
cat rec.err
check "ebs record --backend=kmod: exit 0" [ $rc -eq 0 ]
n=$(sed -n 's/^ebs record: \([0-9]*\) samples written.*/\1/p' rec.err)
# No sample count follows from 1 s at 1 ms: the guest's timers lag under
# TCG, more on a loaded host (330..1013 of 1000 seen), and the kernel skips
# the periods it was late for.  What holds on any host: some samples, and
# never more than one per ms of the CPU time the process used: leafloop
# stops once its thread used 1.0 s (checked every few microseconds), its
# exec and start take well under 0.2 s even under TCG.
check "samples ${n:-none} in 1..1200 (at most one per ms of ~1 s of CPU)" \
	[ "${n:-0}" -ge 1 -a "${n:-0}" -le 1200 ]
/ebs report -i /tmp/k.data --dso leafloop --top 3 >rep.txt 2>rep.err
cat rep.txt
# a row: samples, percent, [low, high], function, dso
top=$(awk '$1 ~ /^[0-9]+$/ {for (i = 3; i < NF; i++) if ($i ~ /\]$/) {print $(i + 1), $2; exit}}' rep.txt)
# leaf is ~99% of leafloop's own time by construction (its parent only
# calls it); of leafloop's samples, whatever the guest's interrupts cost
check "leafloop's top function is leaf with >= 80% of its samples ($top)" \
	sh -c "echo '$top' | awk '{p = \$2; sub(\"%\", \"\", p); exit !(\$1 == \"leaf\" && p + 0 >= 80)}'"
check "the report names the kmod backend" sh -c "/ebs report -i /tmp/k.data --dump | grep -q '^# backend: kmod (perf-kernel)'"
check "samples are period 1000000 of event 0" sh -c "! /ebs report -i /tmp/k.data --dump | grep SAMPLE | grep -qv 'period 1000000 event 0 '"

# Losses: a one-page ring (128 records) at 10 kHz while ebs is stopped (SIGSTOP):
# the module drops what does not fit, ebs stores the drops as LOST records.
/ebs record --backend=kmod -e cpu-clock -c 100000 -m 1 -o /tmp/l.data /leafloop 1.0 2>l.err &
lpid=$!
# stop ebs only once the workload runs (a sanitizer build starts slowly)
for i in $(seq 50); do pidof leafloop >/dev/null && break; sleep 0.1; done
sleep 0.1
kill -STOP $lpid
sleep 0.5
kill -CONT $lpid
wait $lpid
check "full rings: exit 0" [ $? -eq 0 ]
cat l.err
lost=$(sed -n 's/^ebs record: [0-9]* samples written, \([0-9]*\) lost.*/\1/p' l.err)
recs=$(/ebs report -i /tmp/l.data --dump | awk '$2 == "LOST" {s += $6} END {print s + 0}')
check "full rings: samples were dropped and reported ($lost)" [ "${lost:-0}" -gt 0 ]
check "full rings: the LOST records hold the module's count ($recs = $lost)" [ "$recs" = "$lost" ]

# The default event (cycles) has no PMU here: falls back to cpu-clock, saying so.
/ebs record --backend=kmod -o /tmp/c.data /leafloop 0.2 2>fb.err
rc=$?
cat fb.err
check "cycles: exit 0" [ $rc -eq 0 ]
check "cycles: one notice naming cycles and cpu-clock" grep -q "event 'cycles' cannot be opened: .*sampling 'cpu-clock' instead" fb.err

# msr mode: CPUID leaf 0xA reports no architectural perfmon in QEMU
/ebs record --backend=kmod --kmod-mode=msr -c 100000 -o /tmp/m.data /leafloop 0.1 2>msr.err
rc=$?
cat msr.err
check "msr mode: exit 1 with CPUID leaf 0xA named" sh -c "[ $rc -eq 1 ] && grep -q 'CPUID leaf 0xA' msr.err"
check "msr mode: no output file" [ ! -e /tmp/m.data ]

# Attach to a running process, and all CPUs.
/sleeper 3 >sleeper.pid &
sleep 0.5
/ebs record --backend=kmod -e cpu-clock -c 1000000 -o /tmp/p.data -p "$(cat sleeper.pid)" 2>p.err &
rpid=$!
sleep 1
kill -INT $rpid
wait $rpid
rc=$?
cat p.err
check "-p then Ctrl-C: exit 0" [ $rc -eq 0 ]
check "-p: leaf resolved from /proc's maps" sh -c "/ebs report -i /tmp/p.data --top 1 | grep -q ' leaf '"
wait
/sleeper 2 >/dev/null &
sleep 0.3
/ebs record --backend=kmod -e cpu-clock -c 1000000 -a -o /tmp/a.data -- sleep 1 2>a.err
check "-a: exit 0" [ $? -eq 0 ]
cat a.err
check "-a: the separately running sleeper's leaf is seen" sh -c "/ebs report -i /tmp/a.data | grep -q ' leaf '"
wait

# annotate of a kernel function: its instructions from /proc/kcore, which
# Debian's kernel has (the host's may not), read as root in the same boot.
/ebs record -e cpu-clock -F 1000 -o /tmp/kc.data -- dd if=/dev/zero of=/dev/null bs=1 count=100000 2>kc.err
kf=$(/ebs report -i /tmp/kc.data --dso '[kernel]' --top 1 --fields func 2>/dev/null | awk '!/^#/ && NF { print $1; exit }')
if [ -z "$kf" ]; then
	fail "annotate of a kernel function: no kernel function in the recording ($(tail -n 1 kc.err))"
else
	/ebs annotate -i /tmp/kc.data "$kf" --color never >kann.txt 2>&1
	rc=$?
	head -n 12 kann.txt | sed 's/^/    /'
	check "annotate $kf: exit 0, instructions from /proc/kcore" \
		sh -c "[ $rc -eq 0 ] && grep -q 'its instructions are from /proc/kcore' kann.txt"
	first=$(awk '/  [0-9a-f]+:  / { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:$/) { sub(":", "", $i); print $i; exit } }' kann.txt)
	want=$(awk -v f="$kf" '$3 == f { print $1; exit }' /proc/kallsyms | sed 's/^0*//')
	check "annotate $kf: the first instruction at its kallsyms address ($first = $want)" [ "$first" = "$want" ]
	n=$(sed -n 's/^# event: .*: \([0-9]*\) samples* in it.*/\1/p' kann.txt)
	sum=$(awk '/  [0-9a-f]+:  / { if ($1 ~ /^[0-9]+$/ && $2 ~ /\./) s += $1 } END { print s + 0 }' kann.txt)
	check "annotate $kf: its ${n:-?} samples on its instructions ($sum)" [ "$sum" = "${n:-x}" ]
fi

exec 3</dev/ebs
check "rmmod while a session is open is refused (module refcount)" sh -c "! rmmod ebs 2>/dev/null"
exec 3<&-
if rmmod ebs; then pass "rmmod ebs"; else fail "rmmod ebs"; fi
check "/dev/ebs is gone" [ ! -e /dev/ebs ]
dmesg >dmesg.txt
# the kernel's own words for them ("loops_per_jiffy" must not count as an oops)
if grep -E "Oops:|BUG:|WARNING:|Call Trace|kmemleak|memory leak" dmesg.txt; then
	fail "dmesg: no oops, BUG, WARN or leak report"
else
	pass "dmesg: no oops, BUG, WARN or leak report"
fi
echo "EBS-GUEST-END"
poweroff -f
