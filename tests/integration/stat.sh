#!/usr/bin/env bash
# stat.sh - ebs stat: counts against what a workload is known to do (page
# faults of fresh pages, context switches of yielding threads, the CPU time
# of a busy loop), -r's statistics with an injected outlier, -I's intervals
# summing to the total, --all-events, the output forms, the command's exit
# status, Ctrl-C, an unprivileged user, and bad input.
. "$(dirname "$0")/../lib.sh"

# stat OUT ARGS...: ebs stat ARGS, its counts (stderr) into OUT, status into OUT.rc
stat_() {
	local out=$1
	shift
	"$EBS" stat "$@" >"$out.stdout" 2>"$out"
	echo $? >"$out.rc"
}

# ---- known counts ----------------------------------------------------------------
# memtouch 32 1: 32 MiB of fresh pages written once, 8,192 pages of 4 KiB
stat_ pf.json --json -e page-faults,task-clock -- "$WORKLOADS/memtouch" 32 1
check "page-faults of 8,192 fresh pages: within 10% ($(json pf.json "j['events'][0]['count']"))" \
	jtrue pf.json "abs(j['events'][0]['count'] - 8192) <= 819.2"
check "...exit 0, and the command's own output on stdout" [ "$(cat pf.json.rc)" = 0 ]

# two threads on one CPU, each sched_yield()ing 2,000 times: >= 2,000 switches
cat >yield.c <<'EOF'
#include <pthread.h>
#include <sched.h>
static void *yielder(void *arg)
{
	for (int i = 0; i < 2000; i++)
		sched_yield();
	return arg;
}
int main(void)
{
	pthread_t a, b;
	pthread_create(&a, NULL, yielder, NULL);
	pthread_create(&b, NULL, yielder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
EOF
if cc -O2 -pthread -o yield yield.c 2>cc.err; then
	one=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')
	stat_ cs.json --json -e context-switches -- taskset -c "$one" ./yield
	check "context-switches of two threads yielding 2,000 times each on one CPU: >= 2,000 ($(json cs.json "j['events'][0]['count']"))" \
		jtrue cs.json "j['events'][0]['count'] >= 2000"
else
	fail "yield.c" "$(head -n 1 cc.err)"
fi

# a 0.5 s busy loop: task-clock within 10%
stat_ tc.json --json -e task-clock -- "$WORKLOADS/leafloop" 0.5
check "task-clock of a 0.5 s busy loop: within 10% ($(json tc.json "j['events'][0]['count'] / 1e9") s)" \
	jtrue tc.json "abs(j['events'][0]['count'] / 1e9 - 0.5) <= 0.05"
check "...its CPUs utilized derived (about 1)" jtrue tc.json "'CPUs utilized' in j['events'][0]['derived']"

# ---- -r: the statistics, an outlier culled -----------------------------------------
# the third of five runs touches 64 MiB instead of 4: its page faults stand out
cat >outlier.sh <<EOF
n=\$(cat runs 2>/dev/null || echo 0); echo \$((n + 1)) >runs
if [ "\$n" = 2 ]; then exec "$WORKLOADS/memtouch" 64 1; else exec "$WORKLOADS/memtouch" 4 1; fi
EOF
rm -f runs
stat_ r5.json --json -r 5 -e page-faults,task-clock -- sh outlier.sh
check "-r 5: five runs" jtrue r5.json "j['runs'] == 5 and open('runs').read().strip() == '5'"
check "-r 5: every statistic, consistent (min <= mode <= max, min <= mean <= max, the interval around the mean)" \
	jtrue r5.json "all(e['min'] <= e['mode'] <= e['max'] and e['min'] <= e['count'] <= e['max'] and e['ci95'][0] <= e['count'] <= e['ci95'][1] and e['stddev'] >= 0 for e in j['events'])"
check "-r 5: the run with 16 times the page faults culled and counted" \
	jtrue r5.json "j['events'][0]['culled'] == 1 and j['events'][0]['max'] < 4000"
stat_ r5.txt -r 5 -e page-faults -- "$WORKLOADS/memtouch" 4 1
check "-r 5, text: +- and the statistics line" \
	sh -c 'grep -q "(5 runs)" r5.txt && grep -q "+- " r5.txt && grep -q "95% interval" r5.txt'
# the "+-" column is what perf stat prints there, the standard error of the
# mean (sd / sqrt(runs kept)) in percent of it, not the runs' spread (sd,
# on the line below): the JSON's stderr is sd / sqrt(n), and the text's +-
# is it over the mean (to its 2 decimals), sd / mean / sqrt(5) here
stat_ se.txt -r 5 -e task-clock -- "$WORKLOADS/leafloop" 0.05
se=$(sed -n 's/^ *[0-9.]* msec task-clock .*(+- \([0-9.]*\)%)$/\1/p' se.txt)
sdp=$(sed -n 's/^ *sd [0-9.]* (\([0-9.]*\)%), min .*, \([0-9]*\) runs\{0,1\} culled$/\1 \2/p' se.txt)
check "-r 5, text: +- ${se:-?}% is the mean's standard error, sd ${sdp%% *}% / sqrt(runs kept)" \
	python3 -c "import sys, math; se = float('$se'); sd, c = '$sdp'.split(); n = 5 - int(c); sys.exit(not abs(se - float(sd) / math.sqrt(n)) <= 0.011 + 0.02 * se)"
stat_ se.json --json -r 5 -e task-clock -- "$WORKLOADS/leafloop" 0.05
check "-r 5, JSON: stderr = stddev / sqrt(runs kept)" \
	jtrue se.json "abs(j['events'][0]['stderr'] - j['events'][0]['stddev'] / (5 - j['events'][0]['culled']) ** 0.5) <= 0.1"
# CPUs utilized over the runs the clock kept: a first run of a tenth of the
# others' CPU time is culled (maybe with another: the four long runs can be
# so alike that one 1% off is culled too), so the elapsed time must leave it
# out too (a one-thread command used at most 1 CPU; with the run's time in, 1.2)
cat >short1.sh <<EOF
n=\$(cat runs1 2>/dev/null || echo 0); echo \$((n + 1)) >runs1
if [ "\$n" = 0 ]; then exec "$WORKLOADS/leafloop" 0.02; else exec "$WORKLOADS/leafloop" 0.2; fi
EOF
rm -f runs1
stat_ short1.json --json -r 5 -e task-clock -- sh short1.sh
check "-r 5, the short first run culled: CPUs utilized over the kept runs' time, at most 1.05 ($(json short1.json "j['events'][0]['derived'] + ', %d culled' % j['events'][0]['culled']"))" \
	jtrue short1.json "j['events'][0]['culled'] >= 1 and float(j['events'][0]['derived'].split()[0]) <= 1.05"
# a rate per second of CPU time from cpu-clock when task-clock is not counted
stat_ pfcc.txt -e page-faults,cpu-clock -- "$WORKLOADS/memtouch" 4 1
check "page-faults per second from cpu-clock, without task-clock" grep -Eq "page-faults +# [0-9.]+ [KMG]?/sec" pfcc.txt

# the clocks count ns and are printed in msec, as perf stat prints them:
# the text's msec are the JSON's ns / 10^6 (the one run of each a different
# run, so only the form and the unit are compared, and the order of size)
stat_ ms.txt -r 3 -e task-clock,page-faults -- "$WORKLOADS/leafloop" 0.2
stat_ ms.json --json -e task-clock -- "$WORKLOADS/leafloop" 0.2
ms=$(sed -n 's/^ *\([0-9]*\.[0-9][0-9]\) msec task-clock .*/\1/p' ms.txt)
check "text: task-clock in msec, two decimals, about the JSON's ns / 10^6 (${ms:-none} msec, $(json ms.json "j['events'][0]['count']") ns)" \
	jtrue ms.json "'$ms' != '' and 0.5 < $ms * 1e6 / j['events'][0]['count'] < 2"
check "text: -r's statistics of task-clock in msec, of page-faults in counts" \
	sh -c 'grep -Eq "^ +sd [0-9]+\.[0-9]{2} \([0-9.]+%\), min [0-9]+\.[0-9]{2}, max .* msec, [0-9]+ runs? culled$" ms.txt &&
	       grep -Eq "^ +sd [0-9]+ \([0-9.]+%\), min [0-9]+, max [0-9]+, .*\], [0-9]+ runs? culled$" ms.txt'
stat_ msi.txt -I 100 -e task-clock,page-faults -- "$WORKLOADS/leafloop" 0.25
check "text: -I lines give task-clock in msec, page-faults in counts" \
	sh -c 'grep -Eq "^ +[0-9.]+ +[0-9]+\.[0-9]{2} msec task-clock$" msi.txt &&
	       grep -Eq "^ +[0-9.]+ +[0-9]+      page-faults$" msi.txt'

# ---- -I: intervals summing to the total -----------------------------------------
# the count of intervals by a run of known wall time (CPU time stretches under load)
stat_ iv.json --json -I 100 -e task-clock,context-switches -- sleep 1
# one whole interval per 100 ms of the run's wall time, +-1 (under load sleep's
# own start stretches the run: 1.32 s seen, so its elapsed time is the measure)
check "-I 100 over a 1 s run: a whole interval per 100 ms of its $(json iv.json "'%.3f' % j['elapsed_s']") s, +-1 ($(json iv.json "len(j['intervals'])") in all)" \
	jtrue iv.json "j['elapsed_s'] >= 1 and abs(sum(1 for i in j['intervals'] if abs(i['t'] * 10 - round(i['t'] * 10)) < 1e-6) - int(j['elapsed_s'] * 10)) <= 1"
stat_ ivs.json --json -I 100 -e task-clock -- "$WORKLOADS/leafloop" 0.5
check "-I 100: the intervals sum to the total within 1%" \
	jtrue ivs.json "len(j['intervals']) >= 2 and abs(sum(i['counts']['task-clock'] for i in j['intervals']) - j['events'][0]['count']) <= 0.01 * j['events'][0]['count']"
stat_ iv.csv -I 100 -x ';' -e task-clock,page-faults -- "$WORKLOADS/leafloop" 0.5
check "-I -x ';': a header, then time;count;event rows, two events an interval" \
	sh -c 'head -n 1 iv.csv | grep -qx "time_s;count;event" &&
	       [ "$(grep -c ";task-clock$" iv.csv)" -ge 4 ] && [ "$(grep -c ";page-faults$" iv.csv)" -ge 4 ]'
"$EBS" stat -I 100 --csv -o ivo.csv -e task-clock -- "$WORKLOADS/leafloop" 0.3 2>ivo.err
check "-I --csv -o FILE: the intervals only, no table after them (a CSV file throughout)" \
	awk -F, 'NR == 1 { ok = $0 == "time_s,count,event"; next } NF != 3 { ok = 0 } END { exit !(ok && NR >= 3) }' ivo.csv

# ---- --all-events ---------------------------------------------------------------
stat_ all.json --json --all-events -- "$WORKLOADS/memtouch" 4 1
check "--all-events: every software event counted" \
	jtrue all.json "all(any(e['name'] == n and 'count' in e for e in j['events']) for n in ('cpu-clock', 'task-clock', 'page-faults', 'context-switches'))"
check "--all-events: every hardware event counted or said not to be, with the run of each" \
	jtrue all.json "all(('count' in e and e['run'] >= 1) or 'not_supported' in e for e in j['events']) and any(e['name'] == 'cycles' for e in j['events'])"
stat_ all.txt --all-events -- "$WORKLOADS/memtouch" 4 1
if grep -q "not counted: cycles" all.txt; then
	check "--all-events, no PMU: one line names the hardware events not counted, and why" \
		sh -c '[ "$(grep -c "not counted:" all.txt)" -eq 1 ] && grep -q "not counted: cycles, instructions" all.txt'
else
	check "--all-events with a PMU: cycles counted, its run named" grep -q "cycles .*\[run " all.txt
fi

# ---- the output forms -------------------------------------------------------------
stat_ csv.txt --csv -e page-faults,task-clock -- "$WORKLOADS/memtouch" 4 1
check "--csv: a header and a line an event" \
	sh -c 'head -n 1 csv.txt | grep -q "^value,unit,event," && [ "$(wc -l <csv.txt)" -eq 3 ] && grep -q ",page-faults," csv.txt'
stat_ csvr.txt --csv -r 3 -e page-faults,task-clock,cycles -- "$WORKLOADS/memtouch" 4 1
check "--csv: every row has the header's 11 fields, an event not counted too" \
	awk -F, 'NR == 1 { n = NF; ok = n == 11 && $10 == "ci95_lo" && $11 == "ci95_hi"; next } NF != n { ok = 0 } END { exit !(ok && NR == 4) }' csvr.txt
check "--csv -r 3: min <= value <= max, and the 95% interval around the value, not below 0" \
	awk -F, 'NR > 1 && $1 != "<not supported>" { if (!($6 <= $1 && $1 <= $7 && $10 >= 0 && $10 <= $1 && $1 <= $11)) bad = 1; n++ } END { exit !(n == 2 && !bad) }' csvr.txt
stat_ o.err -o o.json --json -e page-faults -- "$WORKLOADS/memtouch" 4 1
check "-o FILE: the counts there, nothing on stderr" jtrue o.json "j['events'][0]['count'] > 0"
check "...stderr empty" [ ! -s o.err ]
stat_ hw.txt -e cycles,page-faults -- "$WORKLOADS/memtouch" 4 1
if grep -q "cycles .*not supported" hw.txt; then
	check "no PMU: cycles' row says not supported, page-faults still counted, exit 0" \
		sh -c 'grep -q "page-faults" hw.txt && [ "$(cat hw.txt.rc)" = 0 ]'
else
	check "with a PMU: cycles counted" grep -q "^ *[0-9][0-9]* *cycles" hw.txt
fi

# ---- exit status, Ctrl-C ------------------------------------------------------------
stat_ ex.txt -e task-clock -- "$WORKLOADS/exitcode" 7
check "the exit status is the command's (7)" [ "$(cat ex.txt.rc)" = 7 ]
"$EBS" stat -e task-clock -- sleep 10 2>int.txt &
pid=$!
wait_until 300 child_runs $pid sleep	# counting: the command runs
kill -INT $pid
wait $pid
rc=$?
check "Ctrl-C: the counts so far (status $rc: the command's 130)" \
	sh -c "[ $rc -eq 130 ] && grep -q 'seconds time elapsed' int.txt && grep -q task-clock int.txt"
# Ctrl-C in the middle of -r's runs: a run it cuts short is left out, and said
# to be; one that comes between runs (ebs stat's own handler) ends them there.
# Either way the whole runs so far are printed, and the status is a stop's.
# -r 1000: runs enough that a slow poll (a loaded machine) still sees the
# second before the last (with -r 100 all ran before it did, once).
"$EBS" stat -r 1000 -e task-clock -- sleep 0.1 2>intr.txt &
pid=$!
# a second run's command seen: the first run is whole
first=
second_run() { child_runs $pid sleep && { [ -z "$first" ] && first=$CHILD; [ "$CHILD" != "$first" ]; }; }
wait_until 300 second_run
kill -INT $pid
wait $pid
rc=$?
cut=$(sed -n 's/^ebs stat: run \([0-9]*\) of 1000 was cut short by a signal: its counts are left out, the \([0-9]*\) whole runs* follow$/\1 \2/p' intr.txt)
whole=$(sed -n "s/^ Counts for 'sleep 0.1' (\([0-9]*\) runs):$/\1/p" intr.txt)
# one whole run: its counts, headed without "(N runs)"
[ -z "$whole" ] && grep -qx " Counts for 'sleep 0.1':" intr.txt && whole=1
if [ -n "$cut" ]; then
	check "Ctrl-C during -r 1000, in a run: run ${cut% *} said cut short, the ${whole:-?} whole runs before it printed (status $rc)" \
		sh -c "[ $rc -eq 130 ] && [ \"${cut#* }\" = '${whole:-x}' ] && [ \$((${cut% *} - 1)) = '${whole:-x}' ]"
else
	check "Ctrl-C during -r 1000, between runs: the ${whole:-?} whole runs printed (status $rc)" \
		sh -c "[ $rc -eq 130 ] && [ '${whole:-0}' -ge 1 ] && [ '${whole:-1000}' -lt 1000 ]"
fi

# ---- -p: a running process, until it exits ----------------------------------------------
"$WORKLOADS/leafloop" 1 &
lp=$!
wait_until 300 runs_as $lp leafloop
stat_ p.json --json -e task-clock -p $lp
check "-p PID: counted until it exits, its CPU time after the attach (0.5-1 s: $(json p.json "j['events'][0]['count'] / 1e9") s)" \
	jtrue p.json "0.5 <= j['events'][0]['count'] / 1e9 <= 1.05"
check "-p PID: exit 0 ($(cat p.json.rc))" [ "$(cat p.json.rc)" = 0 ]
wait $lp

# ---- unprivileged -------------------------------------------------------------------
if [ "$(id -u)" -eq 0 ]; then
	chmod 755 "$TMP"
	(cd / && nobody_ebs stat -e context-switches -- true) >nbcs.out 2>nbcs.txt
	check "as nobody: context-switches counted in user space only (0) says it happens in the kernel" \
		sh -c "! grep -q 'context-switches:u' nbcs.txt || grep -q 'context-switches:u .*# only in the kernel: 0 with :u' nbcs.txt"
	nbmt=$(for_nobody "$WORKLOADS/memtouch")
	(cd / && nobody_ebs stat -e task-clock,page-faults -- "$nbmt" 4 1) >nb.out 2>nb.txt
	rc=$?
	check "as nobody: exit 0 ($rc), the counts, kernel counting said when not allowed" \
		sh -c "[ $rc -eq 0 ] && grep -q 'page-faults' nb.txt &&
		       { ! grep -q ':u' nb.txt || grep -q 'may not count the kernel' nb.txt; }"
else
	skip "as nobody" "needs root to drop privileges"
fi

# ---- bad input: one line, exit 2 ------------------------------------------------------
expect "an unknown event" 2 "^ebs stat: unknown event 'bogus'" "$EBS" stat -e bogus -- true
expect "-r 0" 2 "^ebs stat: -r wants a positive number" "$EBS" stat -r 0 -- true
expect "-I 5: below the 10 ms floor" 2 "^ebs stat: -I 5: below the floor of 10 ms" "$EBS" stat -I 5 -- true
expect "a command not found" 2 "^ebs stat: cannot run '/nonexistent/cmd'" "$EBS" stat -- /nonexistent/cmd
expect "no command" 2 "^ebs stat: no command to run" "$EBS" stat -e task-clock
expect "-I with -r" 2 "^ebs stat: -I and -r go one at a time" "$EBS" stat -I 100 -r 2 -- true
expect "-p and a command" 2 "^ebs stat: -p counts running processes; no command wanted" \
	"$EBS" stat -p $$ -- true
expect "-p of no process" 2 "^ebs stat: pid 2147483647: no such process" "$EBS" stat -p 2147483647
expect "-p with -r" 2 "^ebs stat: -r repeats a command's run: not with -p" "$EBS" stat -r 2 -p $$
expect "--csv with --json" 2 "^ebs stat: -x/--csv and --json go one at a time$" "$EBS" stat --csv --json -- true
expect "-x followed by an option (no separator given)" 2 "^ebs stat: -x '--': a separator that looks like an option" \
	"$EBS" stat -x -- true
expect "-o into a missing directory: exit 1 (the system's)" 1 "^ebs stat: -o nodir/x.txt: cannot write: No such file or directory$" \
	"$EBS" stat -o nodir/x.txt -- true
expect "--backend bogus" 2 "^ebs stat: --backend 'bogus': perf or kmod" "$EBS" stat --backend bogus -- true

# ---- --backend=kmod without ebs.ko (tests/kmod/guest-init.sh counts through it) ----
if [ ! -e /dev/ebs ]; then
	expect "--backend=kmod without the module: one line, exit 1" 1 \
		"^ebs stat: /dev/ebs: No such file or directory: the ebs.ko module is not loaded [(]make kmod, then insmod kmod/ebs.ko[)]$" \
		"$EBS" stat --backend=kmod -- true
else
	skip "--backend=kmod without the module" "/dev/ebs exists here: kmod.sh's guest tests it"
fi
# issue 34 (bench row stat_100): a counting session writes no recording, so
# ebs stat reads neither /proc/cpuinfo (the header's CPU name) nor
# /proc/self/maps (the vdso's image) for one: before, it read both on
# every run of -r
if command -v strace >/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=openat -o sink.strace "$EBS" stat -r 3 -- true 2>sink.err
	check "stat -r 3 reads neither /proc/cpuinfo nor /proc/self/maps ($(grep -c 'cpuinfo\|/proc/self/maps' sink.strace) opens)" \
		eval '[ -s sink.err ] && ! grep -q "cpuinfo\|/proc/self/maps" sink.strace'
else
	skip "stat reads no /proc/cpuinfo" "no strace (scripts/deps.sh installs it)"
fi

# issue 34 (bench row stat_100): a command's counters are its own, as perf
# stat's: one per event on CPU -1, inherited by its children, no counter
# per CPU and no ring buffer (before, one per event and CPU, each CPU's
# mapped as a ring); -p's one per event and thread.  The opens on ebs
# itself (pid 0: the probes, the held static keys) are not the command's.
# opens FILE: "PID CPU" of each perf_event_open of another process in strace FILE
opens() { sed -n 's/.*perf_event_open(.*}, \([0-9-]*\), \([0-9-]*\), [0-9-]*, [A-Z_|0]*) = [0-9].*/\1 \2/p' "$1" | awk '$1 > 0'; }
if command -v strace >/dev/null; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=perf_event_open,mmap,ioctl -o pt.strace \
		"$EBS" stat -e task-clock,page-faults,context-switches -- true 2>pt.err
	check "a command: one counter per event, on CPU -1 ($(opens pt.strace | tr '\n' ' '))" \
		eval '[ "$(opens pt.strace | wc -l)" = 3 ] && [ "$(opens pt.strace | awk "\$2 != -1" | wc -l)" = 0 ]'
	check "...no ring buffer: no shared mapping, no PERF_EVENT_IOC_SET_OUTPUT" \
		eval '! grep -q "MAP_SHARED\|SET_OUTPUT" pt.strace && grep -q "task-clock" pt.err'
	"$WORKLOADS/leafloop" 0.5 &
	lp=$!
	wait_until 300 runs_as $lp leafloop
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=perf_event_open,mmap -o pp.strace \
		"$EBS" stat -e task-clock,page-faults -p $lp 2>pp.err
	wait $lp
	check "-p: one counter per event and thread, on CPU -1, none mapped ($(opens pp.strace | tr '\n' ' '))" \
		eval '[ "$(opens pp.strace | awk -v p=$lp "\$1 == p && \$2 == -1" | wc -l)" = 2 ] &&
		      [ "$(opens pp.strace | wc -l)" = 2 ] && ! grep -q MAP_SHARED pp.strace'
else
	skip "per-task counters" "no strace (scripts/deps.sh installs it)"
fi
# the same counts as perf stat's, which counts the same way: a command
# whose two children each spin 0.2 s of CPU time (inherited counters: the
# task-clock of both, 0.4 s) within 10%, and page faults within 10% (the
# shell's and the workload's; ebs's own and perf's before exec are not
# counted: enable_on_exec in both)
pair="$WORKLOADS/leafloop 0.2 & $WORKLOADS/leafloop 0.2; $WORKLOADS/memtouch 8 1; wait"
if command -v perf >/dev/null && perf stat -x, -e task-clock,page-faults -o pf.perf -- sh -c "$pair" 2>/dev/null; then
	stat_ pair.json --json -e task-clock,page-faults -- sh -c "$pair"
	ptc=$(awk -F, '$3 == "task-clock" { print $1 * 1e6 }' pf.perf)
	ppf=$(awk -F, '$3 == "page-faults" { print $1 }' pf.perf)
	check "children inherited, as perf stat counts them: task-clock $(json pair.json "'%.0f' % (j['events'][0]['count'] / 1e6)") ms (perf ${ptc%??????}), page-faults $(json pair.json "'%.0f' % j['events'][1]['count']") (perf $ppf), each within 10%" \
		jtrue pair.json "abs(j['events'][0]['count'] - $ptc) <= 0.1 * $ptc and abs(j['events'][1]['count'] - $ppf) <= 0.1 * $ppf and j['events'][0]['count'] >= 0.38e9"
else
	skip "counts against perf stat's" "no working perf here"
fi
