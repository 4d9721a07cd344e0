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
echo "EBS-GUEST-START $(uname -r)"

pass() { echo "PASS: kmod: $1"; }
fail() { echo "FAIL: kmod: $1"; }
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }

if insmod /ebs.ko; then pass "insmod ebs.ko"; else fail "insmod ebs.ko"; fi
# From here the kernel's warnings and hung-task reports reach the console
# too; and a task blocked for 60 s (a deadlock: nothing here waits that
# long) panics the guest at once, with its stack, instead of the host's
# guard ending it without one.
echo 7 >/proc/sys/kernel/printk
echo 60 >/proc/sys/kernel/hung_task_timeout_secs
echo 1 >/proc/sys/kernel/hung_task_panic
check "/dev/ebs exists" [ -c /dev/ebs ]
echo "    $(dmesg | grep -i ebs | tail -n 3 | tr '\n' ' ')"

check "/dev/ebs is mode 0600, root's" sh -c "[ \"\$(stat -c '%a %u' /dev/ebs)\" = '600 0' ]"

# Leak accounting (Debian's kernel has no kmemleak: CONFIG_DEBUG_KMEMLEAK is
# not set).  With slub_debug=U on the command line every slab cache keeps
# its live objects' allocation sites in debugfs: the module's own sites
# ([ebs]) and the live objects of the caches whose objects the module holds
# references to (perf counters, mm_structs, user_structs, pids, tasks),
# and ebs.ko's vmalloc areas (/proc/vmallocinfo).  leaks prints them.
mount -t debugfs none /sys/kernel/debug 2>/dev/null

# msr mode's NMI handler takes no kprobe (NOKPROBE_SYMBOL, as perf marks
# perf_event_nmi_handler()): the kprobe blacklist names both of its
# functions, and kprobe_events refuses a probe on either while it takes
# one on ebs_ioctl (the control: the module's functions can be probed).
KPBL=/sys/kernel/debug/kprobes/blacklist
KPEV=/sys/kernel/tracing/kprobe_events
mount -t tracefs none /sys/kernel/tracing 2>/dev/null
if [ -r $KPBL ] && [ -w $KPEV ]; then
	kprobe_ok() { # FUNCTION: a kprobe on it is taken (and removed again)
		echo "p:ebs_probe $1" >>$KPEV 2>/dev/null && echo '-:ebs_probe' >>$KPEV
	}
	nbl=$(grep -cE '[[:space:]](ebs_msr_handler|ebs_msr_nmi)( |$)' $KPBL)
	check "kprobes: the blacklist names ebs_msr_handler and ebs_msr_nmi ($nbl of 2)" [ "$nbl" -eq 2 ]
	if kprobe_ok ebs_ioctl; then pass "kprobes: a probe on ebs_ioctl is taken"; else fail "kprobes: a probe on ebs_ioctl is taken"; fi
	for f in ebs_msr_handler ebs_msr_nmi; do
		if kprobe_ok $f; then fail "kprobes: a probe on $f is refused"; else pass "kprobes: a probe on $f is refused"; fi
	done
else
	echo "SKIP: kmod: kprobes: no $KPBL or $KPEV (CONFIG_KPROBES, debugfs, tracefs)"
fi
SLAB=/sys/kernel/debug/slab
leaks() {
	sync
	sleep 1	# RCU frees (tasks, pids, perf counters) after a grace period
	for c in perf_event mm_struct uid_cache pid task_struct; do
		printf '%s %s ' $c "$(awk '{ n += $1 } END { print n + 0 }' $SLAB/$c/alloc_traces 2>/dev/null)"
	done
	# objects allocated by ebs.ko itself (the entry's first line names the
	# call site; the stacks below it also name ebs.ko where a CONFIG made
	# the kernel allocate what outlives the session: a target task's perf
	# context, lazily freed vmalloc areas)
	printf 'ebs-sites %s ' "$(cat $SLAB/*/alloc_traces 2>/dev/null |
		awk '/^ *[0-9]+ [^ ]+ \[ebs\]/ { n += $1 } END { print n + 0 }')"
	printf 'ebs-vmalloc %s\n' "$(grep -c '\[ebs\]' /proc/vmallocinfo)"
}
if [ -r $SLAB/perf_event/alloc_traces ]; then
	LEAK0=$(leaks)
	echo "    live objects before: $LEAK0"
else
	LEAK0=
	echo "SKIP: kmod: leak accounting: no $SLAB/perf_event/alloc_traces (slub_debug=U not on the command line?)"
fi

# The ABI, directly (a 0666 node, so that the module's own check is what refuses nobody)
chmod 666 /dev/ebs
/kmodtest
# The ring memory cap through ebs record: a CAP_PERFMON user with
# RLIMIT_MEMLOCK 0 asks for 257-page rings, above the user's 129 pages a
# CPU (the default mlock_kb, 516 KB).
/kmodtest as perfmon 0 -- /ebs record --backend=kmod -e cpu-clock -c 1000000 -m 256 \
	-o /tmp/cap.data /leafloop 0.1 >cap.out 2>cap.err
rc=$?
cat cap.err
check "memory cap: ebs record -m 256 as a CAP_PERFMON user: exit 1 ($rc), one line naming mlock_kb, RLIMIT_MEMLOCK and what to do, no file" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l <cap.err) -eq 1 ] && grep -q 'exceed the locked-memory limit, ebs.ko.s mlock_kb (516 KB per online CPU, /sys/module/ebs/parameters/mlock_kb) plus RLIMIT_MEMLOCK (0 KB): use a smaller -m, raise .ulimit -l., or have root raise mlock_kb' cap.err && [ ! -e /tmp/cap.data ]"
/kmodtest as perfmon 0 -- /ebs record --backend=kmod -e cpu-clock -c 1000000 -m 64 \
	-o /tmp/cap.data /leafloop 0.1 >cap.out 2>cap.err
rc=$?
cat cap.err
check "memory cap: ... -m 64 (65 pages a CPU) is within it: exit 0 ($rc)" [ $rc -eq 0 -a -s /tmp/cap.data ]
chmod 600 /dev/ebs

# kptr_restrict 2 hides kernel addresses from everyone: ebs record, as root,
# falls back to user mode, saying so, and no sample is the kernel's.
kptr0=$(cat /proc/sys/kernel/kptr_restrict)
echo 2 >/proc/sys/kernel/kptr_restrict
/ebs record --backend=kmod -e cpu-clock -c 1000000 -o /tmp/u.data /leafloop 0.2 2>u.err
rc=$?
echo $kptr0 >/proc/sys/kernel/kptr_restrict
cat u.err
check "kptr_restrict 2: ebs record --backend=kmod: exit 0 ($rc), user mode only, said once" \
	sh -c "[ $rc -eq 0 ] && [ \$(grep -c \"may not sample kernel code here (kernel.kptr_restrict is 2: ebs.ko hides kernel addresses from this user, kernel code is not sampled); sampling 'cpu-clock:u' instead\" u.err) -eq 1 ]"
nk=$(/ebs report -i /tmp/u.data --dump | awk '$2 == "SAMPLE" && $NF != 2' | wc -l)
nu=$(/ebs report -i /tmp/u.data --dump | awk '$2 == "SAMPLE" && $NF == 2' | wc -l)
check "kptr_restrict 2: $nu user-mode samples, $nk others" [ "$nu" -gt 0 -a "$nk" -eq 0 ]

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
# The workload runs 2 s and ebs is stopped for 1 s of it: with 1.0 and 0.5
# a guest slowed by a loaded host once dropped nothing (6.12, CI).
/ebs record --backend=kmod -e cpu-clock -c 100000 -m 1 -o /tmp/l.data /leafloop 2.0 2>l.err &
lpid=$!
# stop ebs only once the workload runs (a sanitizer build starts slowly)
for i in $(seq 50); do pidof leafloop >/dev/null && break; sleep 0.1; done
sleep 0.1
kill -STOP $lpid
sleep 1.0
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
# QEMU's default CPU (qemu64) says AuthenticAMD: the line says msr mode is Intel's
vendor=$(sed -n 's/^vendor_id[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
if [ "$vendor" != GenuineIntel ]; then
	check "msr mode: one line naming the CPU's vendor ($vendor)" sh -c "[ \$(wc -l <msr.err) -eq 1 ] && grep -q \"this CPU is $vendor's\" msr.err"
fi
# The module does not read perf's sysctls: ebs passes them in CONFIG
# (ebs_config.limits, docs/kmod.md section 6.7), seen through a preloaded
# ioctl that logs each CONFIG; the module takes them (-ENODEV, not -EINVAL).
# A sanitizer build's runtime wants to come first: the preload may not.
rate0=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
pct0=$(cat /proc/sys/kernel/perf_cpu_time_max_percent)
echo 12345 >/proc/sys/kernel/perf_event_max_sample_rate
echo 7 >/proc/sys/kernel/perf_cpu_time_max_percent
EBS_IOCTL_LOG=/tmp/cfg.log LD_PRELOAD=/ebsioctl.so ASAN_OPTIONS=verify_asan_link_order=0 \
	/ebs record --backend=kmod --kmod-mode=msr -c 100000 -o /tmp/m.data /leafloop 0.1 2>msr.err
rc=$?
echo "$rate0" >/proc/sys/kernel/perf_event_max_sample_rate
echo "$pct0" >/proc/sys/kernel/perf_cpu_time_max_percent
echo "    $(cat /tmp/cfg.log 2>/dev/null)"
check "msr mode: ebs passes kernel.perf_event_max_sample_rate 12345 and perf_cpu_time_max_percent 7 in CONFIG, which the module takes (exit $rc, CPUID leaf 0xA named)" \
	sh -c "[ $rc -eq 1 ] && [ \$(grep -c '^CONFIG mode 1 .* rate 12345 percent 7\$' /tmp/cfg.log) -eq 1 ] && grep -q 'CPUID leaf 0xA' msr.err"
EBS_IOCTL_LOG=/tmp/cfg.log LD_PRELOAD=/ebsioctl.so ASAN_OPTIONS=verify_asan_link_order=0 \
	/ebs record --backend=kmod -e cpu-clock -c 1000000 -o /tmp/m.data /leafloop 0.1 2>pk.err
rc=$?
check "perf-kernel mode: ebs passes no limits, as perf applies its sysctls itself (exit $rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q '^CONFIG mode 0 .* limits 0 ' /tmp/cfg.log"
rm -f /tmp/m.data

# Attach to a running process, and all CPUs.  The sleeper runs until killed
# (30 s is only a bound): a sanitizer build of ebs under TCG on a loaded
# host took over 2.5 s to attach, after a 3 s sleeper had gone.
/sleeper 30 >sleeper.pid &
spid=$!
sleep 0.5
/ebs record --backend=kmod -e cpu-clock -c 1000000 -o /tmp/p.data -p "$(cat sleeper.pid)" 2>p.err &
rpid=$!
# 2 s of recording from when ebs has the device open: under TCG on a
# loaded host a sanitizer build took over 2 s just to get there
n=0
while [ $n -lt 300 ] && ! ls -l /proc/$rpid/fd 2>/dev/null | grep -q /dev/ebs; do
	sleep 0.1
	n=$((n + 1))
done
echo "    -p: ebs had /dev/ebs open after $n tenths of a second"
sleep 2
kill -INT $rpid
wait $rpid
rc=$?
cat p.err
check "-p then Ctrl-C: exit 0" [ $rc -eq 0 ]
kill $spid
/ebs report -i /tmp/p.data --top 3 >p.rep 2>&1
check "-p: leaf resolved from /proc's maps" grep -q ' leaf ' p.rep
grep -q ' leaf ' p.rep || sed 's/^/    /' p.rep
wait
# the sleeper runs until killed (30 s is only a bound): on a loaded host a
# sanitizer build of ebs may take seconds to start under TCG
/sleeper 30 >/dev/null &
spid=$!
sleep 0.3
/ebs record --backend=kmod -e cpu-clock -c 1000000 -a -o /tmp/a.data -- sleep 1 2>a.err
check "-a: exit 0" [ $? -eq 0 ]
kill $spid
cat a.err
check "-a: the separately running sleeper's leaf is seen" sh -c "/ebs report -i /tmp/a.data | grep -q ' leaf '"
wait

# ebs calibrate --backend=kmod.  ebs.ko samples and cannot count, so the
# counting pass is a run at N = 10000000 ns of cpu-clock whose overflows x N
# stand for the count; then cost runs at about 1000 and 4000/s, N solved
# for --rate 500 (--overhead 90, so that the rate cap binds) and a verifying
# run, kept with -o.  leafloop stops once it used 0.3 s of CPU time, so each
# of the 5 to 7 runs takes about that.
CT=0.3
/ebs calibrate --backend=kmod -e cpu-clock --rate 500 --overhead 90 --min-samples 100 --json \
	-o /tmp/cal.data -- /leafloop $CT >cal.json 2>cal.err
rc=$?
cat cal.err cal.json
check "calibrate --backend=kmod: exit 0 ($rc), one JSON line" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l <cal.json) -eq 1 ]"
# jv KEY: KEY's value, its last occurrence: the one event's (the notes hold no '"KEY":')
jv() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,}\"]*\).*/\1/p" cal.json; }
# the time basis and the counting pass's time: the top level's, its first keys
tb=$(sed -n 's/^{"command":"[^"]*","time":"\([a-z]*\)","runs":[0-9]*,"base_seconds":\([0-9.]*\),.*/\1 \2/p' cal.json)
n=$(jv sample_after) eps=$(jv events_per_sec) ev=$(jv events) bound=$(jv bound)
exp=$(jv expected_samples) got=$(jv achieved_samples) met=$(jv met) tries=$(jv retries)
lost=$(jv lost) thr=$(jv throttled) rate=$(jv achieved_rate)
echo "    N $n, $eps events/s, $ev events, bound $bound, $got samples ($exp expected), met $met, $tries retries, basis ${tb:-?}"
# fcmp EXPR [VAR=VALUE...]: awk (busybox's) decides EXPR
fcmp() { local e=$1; shift; awk "$@" "function abs(x) { return x < 0 ? -x : x } BEGIN { exit !($e) }"; }
# r125 E R: N by calib_solve's rule: E events/s / R samples/s, up, then up
# to 1, 2 or 5 x 10^k, a value within 2% below counting
r125() {
	awk -v e="$1" -v r="$2" 'function up(x) { return x == int(x) ? x : int(x) + 1 }
	BEGIN { n = up(up(e / r) / 1.02); if (n < 1) n = 1
		for (d = 1; ; d *= 10) for (m = 1; m <= 5; m += m == 2 ? 3 : 1)
			if (m * d >= n) { printf "%.0f\n", m * d; exit } }'
}
# the counting pass: K overflows at N = 10000000 in a run of about 0.3 s of
# CPU time: at least one (else calibrate refuses), at most one per 10 ms of
# CPU time (leafloop stops at 0.3 s, checked every few us; its exec and
# start take well under 0.2 s even under TCG), and the count is K x N
k=$(sed -n 's/.*overflows at N = 10000000 (\([0-9]*\)).*/\1/p' cal.json)
check "calibrate kmod: the count is the counting pass's overflows x 10000000 (${k:-no note} x 1e7 = ${ev:-?})" \
	fcmp "k >= 1 && k <= (t + 0.2) * 100 && ev == k * 10000000" -v k="${k:-0}" -v t=$CT -v ev="${ev:-0}"
# the expected samples: events/s x the run's time / N, which without a
# retry is the count / N; a retry measures events/s again (a slow guest
# needs one now and then), so the rule holds by events/s (6 digits: 1e-5)
check "calibrate kmod: the expected samples are events/s x time / N (${exp:-?} = ${eps:-?} x ${tb#* } / ${n:-?}; the count ${ev:-?} without retries)" \
	fcmp "n >= 1 && x > 0 && abs(x - e * t / n) <= 1e-5 * x + 1e-3 && (r != 0 || abs(x - ev / n) < 1e-3)" \
	-v n="${n:-0}" -v x="${exp:-0}" -v e="${eps:-0}" -v t="${tb#* }" -v ev="${ev:-0}" -v r="${tries:-1}"
# a clock's events per CPU-second: at most 1e9, as its overflows cannot
# outrun the CPU time the task used (10% for the counter's enabled time
# against rusage's CPU time), more than 0; the guest's timers lag (see
# above), so no lower bound
check "calibrate kmod: cpu-clock's events/s in (0, 1.1e9] (${eps:-?})" \
	fcmp "e > 0 && e <= 1.1e9" -v e="${eps:-0}"
# The cap: 500/s, or 0.9 / cost a second if lower (the overhead budget;
# the cost used is the fit's, or its bound when not measured: the fit's
# + its 95% half-width, the JSON's spread, and at least the half-width).  With runs that each stop at
# 0.3 s of CPU time the rate binds, but the check does not rely on it.
cap=$(awk -v c="$(jv cost_us_per_sample)" -v s="$(jv cost_us_spread)" -v m="$(jv cost_measured)" \
	'BEGIN { u = m == "true" ? c : (c > 0 ? c : 0) + s; u = u > 0 ? u * 1e-6 : 0
		if (u > 0 && 0.9 / u < 500) printf "%.9g overhead\n", 0.9 / u; else print "500 rate" }')
check "calibrate kmod: N set by the lower cap ($bound; $cap)" [ "$bound" = "${cap#* }" ]
# The rule, from the counting pass's events/s: the JSON's events_per_sec
# (6 digits) without retries (a retry measures it again), else the count
# over the pass's CPU time; 1e-5 relative covers the printed digits.
eps0=
if [ "${tries:-x}" = 0 ]; then
	eps0=$eps
elif [ "${tb%% *}" = cpu ]; then
	eps0=$(awk -v ev="${ev:-0}" -v s="${tb#* }" 'BEGIN { printf "%.9g\n", ev / s }')
fi
first=$n
[ "${tries:-0}" != 0 ] && first=$(grep -o 'N [0-9]* -> [0-9]*' cal.json | head -n 1 | cut -d' ' -f2)
if [ -z "$eps0" ]; then
	echo "SKIP: kmod: calibrate kmod: N solved by the rule: times are wall time and a retry re-measured events/s"
else
	lo=$(r125 "$(awk -v e="$eps0" 'BEGIN { printf "%.9g\n", e * (1 - 1e-5) }')" "${cap%% *}")
	hi=$(r125 "$(awk -v e="$eps0" 'BEGIN { printf "%.9g\n", e * (1 + 1e-5) }')" "${cap%% *}")
	check "calibrate kmod: N solved ${first:-?} is $eps0 events/s / ${cap%% *}, up to 1-2-5 ($lo)" \
		sh -c "[ '$first' = '$lo' ] || [ '$first' = '$hi' ]"
	# the cost runs: N = events/s / 1000 and / 4000, truncated
	c1=$(sed -n 's/^ebs calibrate: cost of cpu-clock: N = \([0-9]*\),.*/\1/p' cal.err | head -n 1)
	c2=$(sed -n 's/^ebs calibrate: cost of cpu-clock: N = \([0-9]*\),.*/\1/p' cal.err | sed -n 2p)
	check "calibrate kmod: cost runs at 1000/s and 4000/s (N ${c1:-?}, ${c2:-?} of $eps0 events/s)" \
		fcmp "c1 > 0 && c2 > 0 && abs(c1 - e / 1000) <= 1 + 1e-5 * e / 1000 && abs(c2 - e / 4000) <= 1 + 1e-5 * e / 4000" \
		-v c1="${c1:-0}" -v c2="${c2:-0}" -v e="$eps0"
fi
# every retry says so: one note "N a -> b" per retry, each from the last, the last to N
chain=$(grep -o 'N [0-9]* -> [0-9]*' cal.json | awk -v n="$n" '
	{ if ($2 != prev && NR > 1) bad = 1; prev = $4; c++ }
	END { if (c && prev != n) bad = 1; print c + 0, (bad ? "broken" : "ok") }')
check "calibrate kmod: $tries retries, each noted ($chain)" [ "$chain" = "${tries:-x} ok" ]
# the verifying run: calibrate's own 20% when it says met (the rate within
# 20% of events/s / N, no loss, no throttling, at most 20% above the rate
# asked), else a note; and never more than one sample per N ns of the
# run's CPU time (as above: 0.3 s and at most 0.2 s of start)
if [ "$met" = true ]; then
	check "calibrate kmod: met: ${rate:-?}/s within 20% of $eps / $n, none lost or throttled, <= 600/s" \
		fcmp "a > 0 && abs(a - e / n) <= 0.2 * e / n && l == 0 && h == 0 && a <= 600" \
		-v e="${eps:-0}" -v n="${n:-1}" -v l="${lost:-1}" -v h="${thr:-1}" -v a="${rate:-0}"
else
	check "calibrate kmod: not met ($met), and a note says what was missed" \
		sh -c "[ '$met' = false ] && grep -qE 'targets still missed after 2 retries|targets missed, and the caps' cal.json"
fi
check "calibrate kmod: $got samples at N = $n: 1 to one per N ns of ~$CT s of CPU" \
	fcmp "n > 0 && g >= 1 && g <= (t + 0.2) * 1e9 / n" -v g="${got:-0}" -v n="${n:-0}" -v t=$CT
# the kept file: the verifying run at N, its samples, its CALIBRATION record
/ebs report --dump -i /tmp/cal.data >cal.dump 2>&1
/ebs report -i /tmp/cal.data >cal.rep 2>&1
grep '^# \(event 0\|calibration\|backend\)' cal.dump
grep '^# sampling' cal.rep
check "calibrate kmod -o: the kept run is ebs.ko's, at N = $n" sh -c \
	"grep -q '^# backend: kmod' cal.dump && grep -q '^# event 0: cpu-clock .* period $n ' cal.dump"
check "calibrate kmod -o: it holds the verifying run's $got samples" \
	[ "$(grep -c ' SAMPLE ' cal.dump)" = "$got" ]
cr=$(sed -n "s/^# calibration of event 0: sample_after $n rate_hz 500 events_per_sec \([0-9]*\) target_samples 100 overhead_ppm [0-9]* budget_ppm 900000\$/\1/p" cal.dump)
check "calibrate kmod -o: the CALIBRATION record: N, 500/s, 100 samples, 90%, events/s (${cr:-none})" \
	fcmp "c > 0 && abs(c - e) <= 1e-5 * e + 1" -v c="${cr:-0}" -v e="${eps:-0}"
# ebs.ko writes no counter totals (COUNT records), so report has no running
# time to give an achieved rate by: that part may be absent
check "calibrate kmod -o: report's sampling line says it was calibrated" \
	grep -qE "^# sampling: one sample after every $n events \\(calibrated: 500/s asked(, [0-9]+/s achieved)?, [0-9.]+% overhead\\)\$" cal.rep
check "calibrate kmod -o: no run left beside it" sh -c "! ls -A /tmp | grep -q '^\.ebs-calibrate'"

# bad input through the kmod backend: one line, exit 2, no file
/ebs calibrate --backend=kmod -e cpu-clock,task-clock -o /tmp/bad.data -- /leafloop 0.1 >bad.out 2>bad.err
rc=$?
cat bad.err
check "calibrate --backend=kmod with two events: exit 2 ($rc), one line naming them, no file" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <bad.err) -eq 1 ] && grep -q 'cpu-clock,task-clock' bad.err && [ ! -e /tmp/bad.data ] && [ ! -s bad.out ]"

# ebs stat --backend=kmod: ebs.ko's counting sessions (EBS_CFG_COUNT,
# EBS_IOC_READ) against perf_event_open's counts of the same work: the page
# faults of 8 MiB of fresh pages (2,048 of 4 KiB, and the program's own few
# dozen), and the task-clock of a loop that runs 0.5 s of its CPU time.
stat_pair() { # NAME EVENT CMD...: ebs stat of EVENT through both backends, -x, into NAME.kmod/.perf
	n=$1 ev=$2
	shift 2
	/ebs stat --backend=kmod -x, -e "$ev" -o "$n.kmod" -- "$@" 2>"$n.kerr"
	echo "$?" >"$n.krc"
	/ebs stat --backend=perf -x, -e "$ev" -o "$n.perf" -- "$@" 2>"$n.perr"
	echo "$?" >"$n.prc"
}
value_of() { awk -F, -v e="$2" '$3 == e { print $1 }' "$1"; }
stat_pair pf page-faults /memtouch 8 1
kpf=$(value_of pf.kmod page-faults)
ppf=$(value_of pf.perf page-faults)
cat pf.kerr pf.perr
echo "    stat page-faults of memtouch 8 MiB: kmod ${kpf:-none}, perf ${ppf:-none}"
check "stat --backend=kmod: exit 0 ($(cat pf.krc)), and perf's ($(cat pf.prc))" \
	sh -c "[ \"\$(cat pf.krc)\" = 0 ] && [ \"\$(cat pf.prc)\" = 0 ]"
check "stat --backend=kmod: page faults of 2,048 fresh pages within 10% (${kpf:-none})" \
	sh -c "[ \"${kpf:-0}\" -ge 2048 ] && [ \"${kpf:-0}\" -le 2252 ]"
check "stat: kmod's page faults within 2% of perf's (${kpf:-none}, ${ppf:-none})" \
	awk -v k="${kpf:-0}" -v p="${ppf:--1}" 'BEGIN { d = k - p; if (d < 0) d = -d; exit !(p > 0 && d <= 0.02 * p) }'
# leafloop stops once it has had 0.5 s of CPU, reading its clock every
# 1,000 calls: under TCG on a loaded host a run overshoots by up to 0.2 s
# (0.59 s and 0.68 s seen), so each backend's task-clock is held to the
# CPU time that run's main itself says it took (WL_CPU_OUT): at least that
# less 20 ms, at most 200 ms more (the exec, loading and exit before and
# after main, which TCG stretches).
cpu_of() { sed -n 's/^leafloop: cpu \([0-9]*\) ns$/\1/p' "$1"; }
# +200 ms: a host loaded twice over stretched them to +91 ms once; what
# this guards against (a session counted twice, or half lost) is 0.5 s
near() { awk -v c="${1:-0}" -v o="${2:-0}" 'BEGIN { exit !(o > 0 && c >= o - 20e6 && c <= o + 200e6) }'; }
export WL_CPU_OUT=1
stat_pair tc task-clock /leafloop 0.5
unset WL_CPU_OUT
ktc=$(value_of tc.kmod task-clock)
ptc=$(value_of tc.perf task-clock)
kcpu=$(cpu_of tc.kerr)
pcpu=$(cpu_of tc.perr)
echo "    stat task-clock of leafloop 0.5: kmod ${ktc:-none} ns (its run's CPU ${kcpu:-none}), perf ${ptc:-none} ns (${pcpu:-none})"
check "stat --backend=kmod: task-clock of a 0.5 s loop, at least 0.5 s (${ktc:-none} ns)" \
	awk -v k="${ktc:-0}" 'BEGIN { exit !(k >= 0.5e9) }'
check "stat --backend=kmod: task-clock within -20/+200 ms of its run's CPU time (${ktc:-none}, ${kcpu:-none})" near "$ktc" "$kcpu"
check "stat: perf's the same way (${ptc:-none}, ${pcpu:-none}): both count one thing" near "$ptc" "$pcpu"
# the default events, as a user sees them: one run per event that can be counted
/ebs stat --backend=kmod -- /leafloop 0.2 >kdef.out 2>&1
rc=$?
sed 's/^/    /' kdef.out
check "stat --backend=kmod, default events: exit 0 ($rc), one run per event said, each row's run named, no PMU said" \
	sh -c "[ $rc -eq 0 ] && grep -q 'counts one event a run (ebs.ko has one counter a session): 4 runs of the command' kdef.out && grep -q 'task-clock .*\\[run 1\\]' kdef.out && grep -q 'page-faults .*\\[run 4\\]' kdef.out && grep -q 'cycles .*not supported' kdef.out"
# -I through READ while the session runs
WL_CPU_OUT=1 /ebs stat --backend=kmod -I 100 -x, -e task-clock -o ki.csv -- /leafloop 0.5 2>ki.err
rc=$?
icpu=$(cpu_of ki.err)
rows=$(grep -c ',task-clock$' ki.csv)
isum=$(awk -F, '$3 == "task-clock" { s += $2 } END { print s + 0 }' ki.csv)
# The intervals hold the loop's CPU time (0.5 s, more when TCG on a loaded
# host overshoots: see above) and the command's start and exit, which TCG
# stretches (measured: 8 ms on a quiet host, 57 ms beside two other
# tests, once more than 80 ms under CI's load): the sum within -20/+200 ms
# of the run's CPU, as above.  An interval lost takes ~100 ms away (found);
# a running total printed for a delta adds seconds (found); one interval
# counted twice adds ~100 ms, within the allowance: stat.sh holds the -I
# code both backends share (count/stat.c) to the session's total, 1%.
check "stat --backend=kmod -I 100: exit 0 ($rc), $rows intervals summing to ${isum} ns (its run's CPU ${icpu:-none} ns, -20/+200 ms)" \
	sh -c "[ $rc -eq 0 ] && [ $rows -ge 4 ] && awk -v s=$isum -v o=${icpu:-0} 'BEGIN { exit !(s >= 0.5e9 && o > 0 && s >= o - 20e6 && s <= o + 200e6) }'"
/ebs stat --backend=kmod -I 100 -e task-clock,page-faults -- /leafloop 0.1 >kbad.out 2>kbad.err
rc=$?
cat kbad.err
check "stat --backend=kmod -I with two events: exit 2 ($rc), one line" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <kbad.err) -eq 1 ] && grep -q 'give one event with -e' kbad.err"

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
	# shown as its offset from _stext: what is shown holds no kernel address (security.md)
	kaddr=$(awk -v f="$kf" '$3 == f { print $1; exit }' /proc/kallsyms)
	kstext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
	want=$(printf '%x' $((0x$kaddr - 0x$kstext)))
	check "annotate $kf: the first instruction at its kallsyms address less _stext's ($first = $want = $kaddr - $kstext)" [ "$first" = "$want" ]
	n=$(sed -n 's/^# event: .*: \([0-9]*\) samples* in it.*/\1/p' kann.txt)
	sum=$(awk '/  [0-9a-f]+:  / { if ($1 ~ /^[0-9]+$/ && $2 ~ /\./) s += $1 } END { print s + 0 }' kann.txt)
	check "annotate $kf: its ${n:-?} samples on its instructions ($sum)" [ "$sum" = "${n:-x}" ]
fi

# Kernel-side fuzz: random ioctls, mappings, polls, reopens and forks
# (tests/kmod/kfuzz.c) as root, through a descriptor root handed to a user
# without capabilities, and as a CAP_PERFMON user; then no oops, WARN, BUG
# (dmesg, below) and nothing left allocated.
N=${EBS_KFUZZ:-30000}	# from the kernel command line (kmod.sh)
chmod 666 /dev/ebs
t0=$(date +%s)
/kfuzz $((N / 2)) 1 root
/kfuzz $((N / 4)) 2 handed
/kfuzz $((N / 4)) 3 perfmon
echo "    kfuzz: $N calls asked, $(($(date +%s) - t0)) s in all"
chmod 600 /dev/ebs
check "after the fuzz: /dev/ebs opens (no session left behind)" sh -c "exec 3</dev/ebs"
if [ -n "$LEAK0" ]; then
	# the accounting sees ebs.ko's objects: an open session is one
	exec 3</dev/ebs
	open1=$(leaks)
	exec 3<&-
	check "leak accounting: an open session shows as ebs.ko's ($open1)" \
		sh -c "echo '$open1' | awk '{ exit !(\$12 >= 1) }'"
	LEAK1=$(leaks)
	echo "    live objects after:  $LEAK1"
	# perf counters, sites and vmalloc areas of ebs.ko: exactly as before.
	# The others: the guest's own processes come and go (this shell's
	# children; an idle CPU keeps the last mm it ran, lazily): a few more
	# or fewer, where a reference leaked per CONFIG would be thousands.
	check "no leak: ebs.ko's allocation sites, vmalloc areas and perf counters as before ($LEAK0 -> $LEAK1)" \
		sh -c "echo '$LEAK0 $LEAK1' | awk '{ exit !(\$2 == \$16 && \$12 == 0 && \$26 == 0 && \$14 == 0 && \$28 == 0) }'"
	check "no leak: mm_structs, user_structs, pids and tasks within 8 of before" \
		sh -c "echo '$LEAK0 $LEAK1' | awk '{ for (i = 4; i <= 10; i += 2) if (\$(i + 14) - \$i > 8) exit 1 }'"
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
