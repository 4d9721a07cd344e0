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
# -c 1000000 of a nanosecond clock: 1000 samples a second each, ~300 in 0.3 s.
check "two events: samples of event 0 (cpu-clock): $c0 in 150..450" [ "$c0" -ge 150 -a "$c0" -le 450 ]
check "two events: samples of event 1 (task-clock): $c1 in 150..450" [ "$c1" -ge 150 -a "$c1" -le 450 ]
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
# memtouch 64 2 makes 32768 page faults in user space: 32 or 33 samples.
record pf.data -e page-faults:u -c 1000 "$WORKLOADS/memtouch" 64 2
"$EBS" report -i pf.data --dump >pf.dump
n=$(grep -c 'SAMPLE' pf.dump)
check "page-faults -c 1000: 32768 faults give 32..34 samples ($n)" [ "$n" -ge 32 -a "$n" -le 34 ]
check "page-faults -c 1000: every sample stands for 1000" bash -c "! grep SAMPLE pf.dump | grep -qv 'period 1000 '"

# :u samples only user space, :k only the kernel (sysloop spends ~40% there).
record u.data -e cpu-clock:u -F 2000 "$WORKLOADS/sysloop" 0.3
"$EBS" report -i u.data --sort dso --json >u.json
check ":u: no kernel samples" [ "$(json u.json "sum(r['samples'] for r in j['rows'] if r['dso'] == '[kernel]')")" = 0 ]
record k.data -e cpu-clock:k -F 2000 "$WORKLOADS/sysloop" 0.3
"$EBS" report -i k.data --sort dso --json >k.json
check ":k: only kernel samples" [ "$(json k.json "all(r['dso'] == '[kernel]' for r in j['rows']) and j['samples'] > 0")" = 1 ]

# The vdso (its image is copied into the file) and the kernel resolve by name.
record sys.data -e cpu-clock -F 2000 "$WORKLOADS/sysloop" 0.4
"$EBS" report -i sys.data --json >sys.json
check "vdso: __vdso_clock_gettime in [vdso] has >= 20%" \
	[ "$(json sys.json "sum(r['percent'] for r in j['rows'] if r['dso'] == '[vdso]' and 'clock_gettime' in r['function']) >= 20")" = 1 ]
if [ "$(awk 'NR == 1 {print $1; exit}' /proc/kallsyms)" = 0000000000000000 ]; then
	skip "kernel symbols" "/proc/kallsyms shows zero addresses to this user"
else
	check "kernel: >= 20% of samples in named kernel functions" \
		[ "$(json sys.json "sum(r['percent'] for r in j['rows'] if r['dso'] == '[kernel]' and not r['function'].startswith('[unknown]')) >= 20")" = 1 ]
	check "kernel: the getppid system call is named" \
		[ "$(json sys.json "any('getppid' in r['function'] or 'task_pid_nr' in r['function'] for r in j['rows'])")" = 1 ]
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
