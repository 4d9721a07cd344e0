#!/usr/bin/env bash
# record.sh - ebs record of the leafloop workload: the leaf dominates, the
# summary line, the file handling (temporary name, FILE.old), the fallback
# from a hardware event that cannot be opened, --no-fallback, and -o -.
. "$(dirname "$0")/../lib.sh"

# leafloop: leaf() does ~99% of the work; parent() and main() almost none.
"$EBS" record -e cpu-clock -F 2000 -o leaf.data "$WORKLOADS/leafloop" 0.4 2>rec.err
rc=$?
check "exit status 0" [ "$rc" -eq 0 ]
check "summary line" grep -qE '^ebs record: [0-9]+ samples written, [0-9]+ lost, [0-9]+ throttle events, leaf.data \([0-9]+ bytes\)$' rec.err
check "nothing but the summary on stderr" one_line rec.err
"$EBS" report -i leaf.data --json >leaf.json
"$EBS" report -i leaf.data --dump >leaf.dump
read -r n total < <(share leaf.json leaf)
read -r _ user < <(ushare leaf.json leaf)
# 0.4 s of CPU at 2000 Hz is 800 periods of 0.5 ms (the kernel turns -F of
# a clock event into that period); how many become samples depends on the
# machine's timer (lib.sh), never more than the counters counted.
check "-F 2000 of cpu-clock: every sample's period is 500000 ns" \
	bash -c "grep -q SAMPLE leaf.dump && ! grep SAMPLE leaf.dump | grep -qv 'period 500000 '"
periods_bound "cpu-clock -F 2000" leaf.dump
# leaf has ~99% of leafloop's user-space time (groundtruth.sh)
if enough "leaf's share" "$user" 200; then
	check "leaf has >= 90% of user space ($n of $user)" [ $((n * 100)) -ge $((user * 90)) ]
fi
check "leaf is the first row" [ "$(json leaf.json "j['rows'][0]['function']")" = leaf ]
check "leaf's dso is leafloop" [ "$(json leaf.json "j['rows'][0]['dso']")" = leafloop ]
samples_line=$(sed -nE 's/^ebs record: ([0-9]+) samples.*/\1/p' rec.err)
check "summary count equals the report's" [ "$samples_line" = "$total" ]
# where KASLR put the kernel (symbolize/'s kallsyms__stext, handed to the
# recorder): in the header whenever /proc/kallsyms shows it to us
stext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
if [ -n "$stext" ] && [ "$stext" != 0000000000000000 ]; then
	check "the header holds the kernel's _stext ($stext)" \
		grep -qx "# kernel-stext: $stext" leaf.dump
else
	skip "kernel _stext" "/proc/kallsyms hides kernel addresses from this user"
fi

# The file is renamed into place; no temporary file is left; the old one is kept.
check "no temporary file left" [ -z "$(ls -A | grep '\.tmp\.')" ]
old_size=$(stat -c %s leaf.data)
record leaf.data -e cpu-clock -F 500 "$WORKLOADS/leafloop" 0.1
check "second run keeps the first as leaf.data.old" [ "$(stat -c %s leaf.data.old 2>/dev/null)" = "$old_size" ]

# A hardware event that cannot be opened falls back to cpu-clock, saying so.
if "$EBS" list | grep -qE '^cycles +hardware +available '; then
	skip "fallback" "this machine has a PMU: cycles opens, nothing to fall back from"
else
	"$EBS" record -e cycles -F 500 -o fb.data "$WORKLOADS/leafloop" 0.1 2>fb.err
	check "fallback: exit 0" [ $? -eq 0 ]
	check "fallback: one notice naming both events" \
		[ "$(grep -c "event 'cycles' cannot be opened: .*; sampling 'cpu-clock' instead" fb.err)" -eq 1 ]
	check "fallback: notice plus summary, nothing else" [ "$(wc -l <fb.err)" -eq 2 ]
	"$EBS" report -i fb.data --json >fb.json
	check "fallback: recorded in the file (event)" [ "$(json fb.json "j['event']")" = cpu-clock ]
	check "fallback: recorded in the file (asked)" [ "$(json fb.json "j['asked']")" = cycles ]
	check "fallback: recorded in the file (why)" [ "$(json fb.json "len(j.get('fallback', '')) > 0")" = 1 ]
	"$EBS" report -i fb.data | head -1 >fb.head
	check "fallback: report header says so" grep -q 'cpu-clock (asked for cycles' fb.head
	rm -f nofb.data
	"$EBS" record --no-fallback -e cycles -o nofb.data "$WORKLOADS/leafloop" 0.1 2>nofb.err
	rc=$?
	check "--no-fallback: exit status 1" [ "$rc" -eq 1 ]
	check "--no-fallback: one line naming the event" \
		bash -c "[ \$(wc -l <nofb.err) -eq 1 ] && grep -q \"event 'cycles'\" nofb.err"
	check "--no-fallback: no output file" [ ! -e nofb.data ]
fi

# A frequency above the kernel's limit is lowered to it, with a notice.  Of
# page faults: a clock event at the limit (100 kHz by default) would spend
# all its time in timer interrupts where they cost tens of microseconds.
# The kernel lowers the limit itself when sampling interrupts take too long
# (any recording on the machine may do so), so the limit ebs reads is
# between the values read before and after it runs.
max=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
"$EBS" record -e page-faults -F $((max + 1)) -o fmax.data "$WORKLOADS/leafloop" 0.01 2>fmax.err
check "-F above the limit: exit 0" [ $? -eq 0 ]
max2=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
used=$(sed -nE "s/^ebs record: -F $((max + 1)) is above kernel.perf_event_max_sample_rate; sampling at ([0-9]+) Hz instead$/\1/p" fmax.err)
check "-F above the limit: one notice with the limit ($used, between $max2 and $max)" \
	[ "${used:-0}" -gt 0 -a "${used:-0}" -le "$max" -a "${used:-0}" -ge "$max2" ]
check "-F above the limit: the file says the frequency used" \
	bash -c "'$EBS' report -i fmax.data | grep -q '^# sampling: frequency $used Hz'"

# -o - streams the file; report -i - reads it back.
"$EBS" record -q -e cpu-clock -F 1000 -o - "$WORKLOADS/leafloop" 0.2 2>pipe.err | "$EBS" report -i - --json >pipe.json
check "-o - | report -i -: exit 0" [ "${PIPESTATUS[0]}${PIPESTATUS[1]}" = 00 ]
check "-o - | report -i -: leaf first" [ "$(json pipe.json "j['rows'][0]['function']")" = leaf ]
"$EBS" record -q -e cpu-clock -F 1000 -o - "$WORKLOADS/leafloop" 0.1 >stream.data 2>/dev/null
check "-o - to a regular file reads back" quiet "$EBS" report -i stream.data --top 1
: >append.data
"$EBS" record -q -e cpu-clock -F 1000 -o - "$WORKLOADS/leafloop" 0.1 >>append.data 2>/dev/null
check "-o - appending (>>) to an empty file reads back" quiet "$EBS" report -i append.data --top 1
printf 'prefix!!' >offset.data
( exec 3<>offset.data; exec >&3; read -r -n 8 <&3; "$EBS" record -q -e cpu-clock -F 1000 -o - "$WORKLOADS/leafloop" 0.1 2>/dev/null )
tail -c +9 offset.data >offset.tail
check "-o - to a file opened at offset 8 writes a valid stream there" quiet "$EBS" report -i offset.tail --top 1
# devices and FIFOs are written in place, as streams: never renamed over
check "-o /dev/null: exit 0" quiet "$EBS" record -q -e cpu-clock -F 1000 -o /dev/null "$WORKLOADS/leafloop" 0.05
check "-o /dev/null: /dev/null is still a character device" [ -c /dev/null ]
check "-o /dev/null: no temporary file left in /dev" [ -z "$(ls -A /dev | grep -E '^\.null\.tmp')" ]
"$EBS" record -q -e cpu-clock -F 1000 -o /dev/stdout "$WORKLOADS/leafloop" 0.1 >devstdout.data 2>/dev/null
check "-o /dev/stdout: reads back, /dev/stdout still a link" \
	sh -c '[ -L /dev/stdout ] && "$1" report -i devstdout.data --top 1 >/dev/null' sh "$EBS"
mkfifo rec.fifo
"$EBS" report -i rec.fifo --json >fifo.json 2>fifo.err &
reader=$!
"$EBS" record -q -e cpu-clock -F 1000 -o rec.fifo "$WORKLOADS/leafloop" 0.2 2>/dev/null
wait $reader
check "-o FIFO | report -i FIFO: the leaf first" [ "$(json fifo.json "j['rows'][0]['function']")" = leaf ]
check "-o FIFO: still a FIFO" [ -p rec.fifo ]

# ebs list: probes every event.
"$EBS" list >list.out
check "list: cpu-clock available" grep -qE '^cpu-clock +software +available' list.out
check "list: names every event" [ "$(grep -cE '^(cycles|instructions|branches|branch-misses|cache-references|cache-misses|cpu-clock|task-clock|page-faults|context-switches) ' list.out)" -eq 10 ]
if grep -qE '^cycles +hardware +unavailable ' list.out; then
	check "list: says why cycles is unavailable" grep -qE '^cycles .*unavailable.*: .+' list.out
fi

# COUNT records: one per counter (CPU and thread).  A thread's counter on
# one CPU is enabled while it runs on any CPU, so summing enabled times
# over CPUs looked like multiplexing; software events never multiplex.
# ebs opens a counter on every online CPU (/sys/devices/system/cpu/online).
online=$(awk -F, '{ for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } } END { print n }' /sys/devices/system/cpu/online)
start=$(date +%s%N)
record mux.data -e cpu-clock -F 1000 "$WORKLOADS/threads" 0.05
wall=$(($(date +%s%N) - start))
"$EBS" report -i mux.data --dump >mux.dump
check "COUNT: one record per counter, with cpu and tid ($online online CPUs)" \
	[ "$(awk '$2 == "COUNT" && / cpu [0-9]+ tid [0-9]+$/' mux.dump | wc -l)" -eq "$online" ]
"$EBS" report -i mux.data --json >mux.json
check "cpu-clock over 4 threads on $online CPUs: not called multiplexed" \
	[ "$(json mux.json "'counted_scaled' not in j and 'multiplexed' not in j['estimate'].get('why', '')")" = 1 ]
# What cpu-clock counts is the threads' running time: at least the 4 x 0.05 s
# of CPU time the threads spin for (their own clocks, which leave out
# interrupt and steal time that cpu-clock counts: >=, not =), at most the
# wall time of the run on each CPU.  A total counted twice or scaled up
# falls outside; a CPU's counter left out does when the threads ran on
# more than one CPU (and periods_bound then finds more samples than counts).
read -r _ _ _ counted _ _ < <(dumpcount mux.dump)
check "cpu-clock: the report's counted is the COUNT records' sum ($counted)" [ "$(json mux.json "j['counted']")" = "$counted" ]
check "cpu-clock: counted $counted ns is between 4 x 0.05 s and $online x the $wall ns run" \
	[ "$counted" -ge 200000000 -a "$counted" -le $((online * wall)) ]
periods_bound "cpu-clock over 4 threads" mux.dump

# No stale byte in the file: every reserved and unused field and every
# padding byte is zero (tests/tools/datacheck.py walks each record).  The
# record buffers are first filled with a poison byte (EBS_DEBUG_POISON, a
# debug aid of the sampler and the writer), so that a byte the sampler
# leaves unwritten shows, whatever the buffer held before.  The perf
# backend once zeroed 64 of an MMAP record's 104 bytes: an earlier
# record's build-id or name landed in ino_generation and the build-id
# fields.  Recordings: a command that forks and execs, one with shared and
# dlopen()ed libraries, threads, -p (MMAP and COMM read from /proc), -a
# (every process), -o - (a stream), and one without poison.
CHECK="$TOP/tests/tools/datacheck.py"
poisoned() {	# NAME ebs-record-arguments...
	local name=$1
	shift
	EBS_DEBUG_POISON=0xa5 "$EBS" record -q -e cpu-clock -F 500 -o "$name.data" "$@" >/dev/null 2>"$name.err"
}
poisoned z-forkexec "$WORKLOADS/forkexec" 0.05
poisoned z-shlib "$WORKLOADS/shlib"
poisoned z-threads "$WORKLOADS/threads" 0.02
"$WORKLOADS/sleeper" 20 >z.pid &
spid=$!
wait_line z.pid
EBS_DEBUG_POISON=0xa5 "$EBS" record -q -e cpu-clock -F 500 -p $spid -o z-pid.data 2>z-pid.err &
epid=$!
wait_polling $epid
kill -INT $epid
wait $epid
kill $spid
wait $spid 2>/dev/null
poisoned z-all -a sleep 0.2
EBS_DEBUG_POISON=0xa5 "$EBS" record -q -e cpu-clock -F 500 -o - "$WORKLOADS/leafloop" 0.02 >z-stream.data 2>/dev/null
"$EBS" record -q -e cpu-clock -F 500 -o z-plain.data "$WORKLOADS/shlib" 2>/dev/null
for f in z-forkexec z-shlib z-threads z-pid z-all z-stream z-plain; do
	if python3 "$CHECK" $f.data >$f.chk; then
		pass "no stale bytes: $f ($(cat $f.chk))"
	else
		fail "no stale bytes: $f" "$(cat $f.chk)"
		keep $f.data
	fi
done
check "no stale bytes: the MMAP records of -p were read from /proc" \
	bash -c "'$EBS' report -i z-pid.data --dump | grep -q ' MMAP .*sleeper'"
