#!/usr/bin/env bash
# lost.sh - a ring too small for the sample rate: the kernel drops samples
# and says so with LOST records; ebs stores them, counts them in the
# trailer, prints the same count, and the report header shows it.
. "$(dirname "$0")/../lib.sh"

# The workload runs as "sh -c SCRIPT memtouch" under ebs record -e
# page-faults -c 1 -m 1 (one sample per fault, a one-page ring: room for
# under 100 samples).  Every step waits for an event, never for a time:
# SCRIPT says it runs (its counter is then enabled) by writing its pid to
# the FIFO "ready", waits for a line on "go" before each burst of faults,
# and may write to "done" after one.  Meanwhile ebs is stopped (SIGSTOP),
# so the ring overflows whatever the machine's speed.  The test's ends of
# the FIFOs are opened read-write, which never blocks; reads time out
# after 300 s (a hang guard only).
CPU=$(taskset -pc $$ | sed 's/.*: //; s/[-,].*//')	# the first CPU we may run on
rm -f ready go done
mkfifo ready go done
exec 3<>ready 4<>go 5<>done

# start OUT SCRIPT: ebs recording SCRIPT into OUT, its pid in epid; returns
# once SCRIPT runs, with its pid in wpid.  On one CPU (taskset), so that
# every fault goes into the same per-CPU ring.
start() {
	"$EBS" record -e page-faults -c 1 -m 1 -o "$1" -- \
		taskset -c "$CPU" sh -c "$2" "$WORKLOADS/memtouch" 2>"$1.err" &
	epid=$!
	read -r -t 300 -u 3 wpid
}

# stop PID: SIGSTOP, and wait until PID is stopped.
stop() {
	kill -STOP "$1"
	for _ in $(seq 3000); do
		[ "$(awk '{ print $3 }' "/proc/$1/stat")" = T ] && return 0
		sleep 0.1
	done
}

# switches PID: the voluntary context switches PID has made.
switches() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }

# The kernel reports a ring's losses when it next writes a sample to that
# ring after ebs has made room: memtouch 64 2 while ebs is stopped, then ebs
# runs until it has drained the ring and waits in poll(2) again (two more
# voluntary context switches: a wait can only end in a drain, each poll
# lasts at most 200 ms), then the small memtouch 1 1, whose first fault
# brings the LOST record.
start lost.data 'echo $$ >ready; read x <go; "$0" 64 2; echo >done; read x <go; "$0" 1 1'
stop $epid
echo >&4
read -r -t 300 -u 5 _
n=$(switches $epid)
kill -CONT $epid
for _ in $(seq 3000); do [ "$(switches $epid)" -ge $((n + 2)) ] && break; sleep 0.1; done
echo >&4
wait $epid
check "record exit 0" [ $? -eq 0 ]
printed=$(sed -nE 's/^ebs record: [0-9]+ samples written, ([0-9]+) lost.*/\1/p' lost.data.err)
samples=$(sed -nE 's/^ebs record: ([0-9]+) samples written.*/\1/p' lost.data.err)
"$EBS" report -i lost.data --dump >lost.dump
from_records=$(awk '$2 == "LOST" {s += $6} END {print s + 0}' lost.dump)
in_trailer=$(awk '$2 == "TRAILER" {print $8}' lost.dump)
check "samples were lost ($printed)" [ "${printed:-0}" -gt 0 ]
check "printed count = sum of the kernel's LOST records ($printed = $from_records)" [ "$printed" = "$from_records" ]
check "trailer count = the LOST records ($in_trailer)" [ "$in_trailer" = "$from_records" ]
# 64 MiB twice and 1 MiB once are 33024 faults (one per fresh anonymous
# page written, events.sh); samples + lost must account for them, and for
# the start-up faults of taskset, sh and the two memtouch (~150 each here;
# 2476 allowed: a bigger libc or an ASLR layout costs a few dozen more).
check "samples + lost = the faults ($samples + $printed)" [ $((samples + printed)) -ge 33024 -a $((samples + printed)) -le 35500 ]
"$EBS" report -i lost.data --json >lost.json
check "report JSON's lost" [ "$(json lost.json "j['lost']")" = "$printed" ]
check "report header's lost" bash -c "'$EBS' report -i lost.data | grep -q '^# samples: $samples, lost: $printed,'"

# Losses the kernel never reported: ebs stopped until the workload is gone
# (a zombie: exited, its counters final, unreaped while ebs is stopped), so
# no later write to the ring carries a LOST record.  The counter's own
# total still shows them, and the summary says how many: all but the ring's
# fewer than 100 samples of the 32768 faults and the start-up's.
start gone.data 'echo $$ >ready; read x <go; exec "$0" 64 2'
stop $epid
echo >&4
for _ in $(seq 3000); do [ "$(awk '{ print $3 }' "/proc/$wpid/stat")" = Z ] && break; sleep 0.1; done
kill -CONT $epid
wait $epid
undelivered=$(sed -nE 's/.*\(and ([0-9]+) more the counters counted but never delivered\).*/\1/p' gone.data.err)
check "unreported losses: the summary counts them (${undelivered:-none} >= 32768 - 100)" [ "${undelivered:-0}" -ge 32668 ]
"$EBS" report -i gone.data --dump >gone.dump
counted=$(awk '$2 == "COUNT" && $6 == 0 { s += $8 } END { print s + 0 }' gone.dump)
check "unreported losses: the file has the counter's total ($counted >= 32768)" [ "${counted:-0}" -ge 32768 ]
