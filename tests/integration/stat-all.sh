#!/usr/bin/env bash
# stat-all.sh - ebs stat -a: every CPU counted, while a command runs or
# until Ctrl-C.  Context switches of yielding threads and the CPU time of
# a workload (each at least what the workload did, whichever event comes
# first), cpu-clock of every CPU for a sleep (the idle time counts too),
# perf stat -a on the same workloads, -I's intervals, -r, an unprivileged
# user, and the combinations refused.
. "$(dirname "$0")/../lib.sh"

# stat OUT ARGS...: ebs stat ARGS, its counts (stderr) into OUT, stdout into
# OUT.stdout, status into OUT.rc
stat_() {
	local out=$1
	shift
	"$EBS" stat "$@" >"$out.stdout" 2>"$out"
	echo $? >"$out.rc"
}

# count FILE NAME: the count of event NAME in a --json output
count() { json "$1" "[e['count'] for e in j['events'] if e['name'] == '$2'][0]"; }

# The CPUs ebs counts on: the online ones (it reads the same file).
NCPU=$(getconf _NPROCESSORS_ONLN)
ONE=$(python3 -c 'import os; print(min(os.sched_getaffinity(0)))')

# Two threads on one CPU, each sched_yield()ing N times: >= N switches on that
# CPU.  It prints its own CPU time (user and system, ns): what cpu-clock of
# every CPU must hold at least.
N=2000
cat >yield.c <<EOF
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
static void *yielder(void *arg)
{
	for (int i = 0; i < $N; i++)
		sched_yield();
	return arg;
}
int main(void)
{
	pthread_t a, b;
	struct timespec ts;
	pthread_create(&a, NULL, yielder, NULL);
	pthread_create(&b, NULL, yielder, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
EOF
if ! cc -O2 -pthread -o yield yield.c 2>cc.err; then
	fail "yield.c" "$(head -n 1 cc.err)"
	exit 0
fi

# ---- known counts, in both orders of the events -------------------------------------
# Before the fix, every event after the first of an -a session counted 0:
# each order puts the other event second.
for order in cpu-clock,context-switches context-switches,cpu-clock; do
	stat_ y-$order.json --json -a -e $order -- taskset -c "$ONE" ./yield
	busy=$(cat y-$order.json.stdout)
	cs=$(count y-$order.json context-switches)
	cc=$(count y-$order.json cpu-clock)
	check "-a -e $order: exit 0 ($(cat y-$order.json.rc))" [ "$(cat y-$order.json.rc)" = 0 ]
	check "-a -e $order: context-switches of two threads yielding $N times each on one CPU: >= $N ($cs)" \
		at_least "$cs" $N
	check "-a -e $order: cpu-clock of every CPU >= the workload's CPU time ($cc >= $busy ns)" \
		at_least "$cc" "$busy"
done

# ---- a sleep: every CPU's clock, idle or not --------------------------------------------
# cpu-clock counts the idle task's time too: all CPUs x the time counted.
# Tolerance 20% either way (a counter that missed a CPU would be 1/NCPU off;
# on one CPU, a counter that ran 0.8 of the time would be missed).
stat_ s.json --json -a -e cpu-clock,task-clock -- sleep 0.5
ratio=$(json s.json "[e['count'] for e in j['events'] if e['name'] == 'cpu-clock'][0] / 1e9 / j['elapsed_s'] / $NCPU")
check "-a -- sleep 0.5: cpu-clock / ($NCPU CPUs x the elapsed $(json s.json "j['elapsed_s']") s) in [0.8, 1.2] ($ratio)" \
	within "$ratio" 1 0.2
check "-a -- sleep 0.5: the elapsed time is the command's (0.5 s to 5 s: $(json s.json "j['elapsed_s']"))" \
	jtrue s.json "0.5 <= j['elapsed_s'] < 5"
check "-a: cpu-clock's CPUs utilized about the number of CPUs ($(json s.json "j['events'][0]['derived']"))" \
	jtrue s.json "abs(float(j['events'][0]['derived'].split()[0]) - $NCPU) <= 0.2 * $NCPU"
check "-a: task-clock counted too, about cpu-clock (within 20%)" \
	jtrue s.json "abs(j['events'][1]['count'] - j['events'][0]['count']) <= 0.2 * j['events'][0]['count']"

stat_ s.txt -a -e cpu-clock -- sleep 0.2
check "-a, text: the header names every CPU and the command" \
	grep -q "^ Counts for every CPU, while 'sleep 0.2' ran:" s.txt
stat_ ex.txt -a -e cpu-clock -- "$WORKLOADS/exitcode" 7
check "-a: the exit status is the command's (7: $(cat ex.txt.rc))" [ "$(cat ex.txt.rc)" = 7 ]

# ---- perf stat -a on the same workloads --------------------------------------------------
if perf stat -a -x, -e cpu-clock -- true >/dev/null 2>perf.err; then
	perf stat -a -x, -e cpu-clock,context-switches -- taskset -c "$ONE" ./yield \
		>/dev/null 2>py.csv
	pcs=$(awk -F, '$3 == "context-switches" { print $1 }' py.csv)
	check "perf stat -a, the same yielding threads: context-switches >= $N too (perf $pcs, ebs $(count y-cpu-clock,context-switches.json context-switches))" \
		at_least "${pcs:-0}" $N
	# every CPU's clock counts for as long as perf counts: at least the
	# sleep, at most the wall time perf ran (longer on a loaded machine)
	t0=$(date +%s.%N)
	perf stat -a -x, -e cpu-clock -- sleep 0.5 >/dev/null 2>ps.csv
	t1=$(date +%s.%N)
	pcc=$(awk -F, '$3 == "cpu-clock" { print $1 }' ps.csv)
	check "perf stat -a -- sleep 0.5: cpu-clock between 0.8 x $NCPU x 0.5 s and $NCPU x perf's wall time too (perf $pcc ms in $(python3 -c "print(round($t1 - $t0, 3))") s, ebs $(count s.json cpu-clock) ns)" \
		python3 -c "import sys; c = ${pcc:-0} / 1e3; sys.exit(not (0.8 * $NCPU * 0.5 <= c <= $NCPU * ($t1 - $t0) * 1.01))"
	keep py.csv
	keep ps.csv
else
	skip "perf stat -a" "perf cannot count every CPU here: $(head -n 1 perf.err)"
fi

# ---- -I: intervals of every CPU ------------------------------------------------------------
stat_ iv.json --json -a -I 100 -e cpu-clock,context-switches -- sleep 0.5
check "-a -I 100: intervals, summing to the total within 1% ($(json iv.json "len(j['intervals'])") intervals)" \
	jtrue iv.json "len(j['intervals']) >= 2 and abs(sum(i['counts']['cpu-clock'] for i in j['intervals']) - j['events'][0]['count']) <= 0.01 * j['events'][0]['count']"
check "-a -I 100: context-switches in the intervals too, summing to the total" \
	jtrue iv.json "sum(i['counts']['context-switches'] for i in j['intervals']) == j['events'][1]['count'] > 0"

# ---- -r: the command again, every CPU each time ------------------------------------------
stat_ r.json --json -a -r 3 -e cpu-clock -- sleep 0.1
check "-a -r 3: three runs, statistics consistent" \
	jtrue r.json "j['runs'] == 3 and j['events'][0]['min'] <= j['events'][0]['count'] <= j['events'][0]['max']"

# ---- -a alone: until Ctrl-C ---------------------------------------------------------------
"$EBS" stat -a --json -e cpu-clock,context-switches 2>int.json &
pid=$!
wait_polling $pid	# counting: ebs waits in poll(2) for the end
kill -INT $pid
wait $pid
rc=$?
check "-a alone, Ctrl-C: exit 0 ($rc) and the counts so far" \
	sh -c "[ $rc -eq 0 ] && grep -q context-switches int.json"
ratio=$(json int.json "j['events'][0]['count'] / 1e9 / j['elapsed_s'] / $NCPU")
check "-a alone: cpu-clock / ($NCPU CPUs x its $(json int.json "j['elapsed_s']") s) in [0.8, 1.2] ($ratio)" \
	within "$ratio" 1 0.2

# ---- unprivileged -----------------------------------------------------------------------
P=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(id -u)" -ne 0 ]; then
	skip "-a as nobody" "needs root to drop privileges"
elif [ "$P" -le 0 ]; then
	skip "-a as nobody" "kernel.perf_event_paranoid is $P: anyone may count every CPU here"
else
	expect "-a as nobody (perf_event_paranoid $P): one line naming -a and the level it needs, exit 2" \
		2 "^ebs stat: cannot open event 'cpu-clock' on all CPUs, cpu [0-9]+: Permission denied: .*counting all CPUs \(-a\) needs 0 or less" \
		$NOBODY "$(for_nobody "$EBS")" stat -a -e cpu-clock,context-switches -- true
fi

# ---- refused: one line, exit 2 ----------------------------------------------------------
expect "-a with -p" 2 "^ebs stat: -p and -a exclude each other" "$EBS" stat -a -p $$
expect "-p with -a" 2 "^ebs stat: -p and -a exclude each other" "$EBS" stat -p $$ -a -- true
expect "-a alone with -r 2" 2 "^ebs stat: -r repeats a command's run: not with -p, nor -a alone" \
	"$EBS" stat -a -r 2
expect "-a alone with --all-events" 2 "^ebs stat: --all-events runs a command again and again" \
	"$EBS" stat -a --all-events
