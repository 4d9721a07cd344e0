#!/usr/bin/env bash
# lost.sh - a ring too small for the sample rate: the kernel drops samples
# and says so with LOST records; ebs stores them, counts them in the
# trailer, prints the same count, and the report header shows it.
. "$(dirname "$0")/../lib.sh"

# starved OUT SCRIPT: record one sample per page fault (-c 1) of
# "sh -c SCRIPT memtouch" into OUT with a one-page ring (-m 1, room for about
# 80 samples), and stop ebs (SIGSTOP) from 0.2 s to 1.4 s, while the script
# has memtouch make its faults: the ring must overflow whatever the
# machine's speed.  Returns ebs's exit status.
starved() {
	local out=$1 script=$2 epid
	"$EBS" record -e page-faults -c 1 -m 1 -o "$out" -- \
		taskset -c 0 sh -c "$script" "$WORKLOADS/memtouch" 2>"$out.err" &
	epid=$!
	sleep 0.2
	kill -STOP $epid
	sleep 1.2
	kill -CONT $epid
	wait $epid
}

# The kernel reports a ring's losses when it next writes to that ring: the
# second, small memtouch, after ebs runs again, on the same CPU (taskset), so
# into the same per-CPU ring.
starved lost.data 'sleep 0.6; "$0" 64 2; sleep 1; "$0" 1 1'
check "record exit 0" [ $? -eq 0 ]
printed=$(sed -nE 's/^ebs record: [0-9]+ samples written, ([0-9]+) lost.*/\1/p' lost.data.err)
samples=$(sed -nE 's/^ebs record: ([0-9]+) samples written.*/\1/p' lost.data.err)
"$EBS" report -i lost.data --dump >lost.dump
from_records=$(awk '$2 == "LOST" {s += $6} END {print s + 0}' lost.dump)
in_trailer=$(awk '$2 == "TRAILER" {print $8}' lost.dump)
check "samples were lost ($printed)" [ "${printed:-0}" -gt 0 ]
check "printed count = sum of the kernel's LOST records ($printed = $from_records)" [ "$printed" = "$from_records" ]
check "trailer count = the LOST records ($in_trailer)" [ "$in_trailer" = "$from_records" ]
# 64 MiB twice and 1 MiB once are 33024 faults; samples + lost must account
# for them (and a few hundred start-up faults of sh, sleep and memtouch).
check "samples + lost = the faults ($samples + $printed)" [ $((samples + printed)) -ge 33024 -a $((samples + printed)) -le 35500 ]
"$EBS" report -i lost.data --json >lost.json
check "report JSON's lost" [ "$(json lost.json "j['lost']")" = "$printed" ]
check "report header's lost" bash -c "'$EBS' report -i lost.data | grep -q '^# samples: $samples, lost: $printed,'"

# Losses the kernel never reported: ebs stopped until the workload is gone,
# so no later write to the ring carries a LOST record.  The counter's own
# total still shows them, and the summary says how many.
starved gone.data 'sleep 0.6; exec "$0" 64 2'
undelivered=$(sed -nE 's/.*\(and ([0-9]+) more the counters counted but never delivered\).*/\1/p' gone.data.err)
check "unreported losses: the summary counts them (${undelivered:-none} of ~32768)" [ "${undelivered:-0}" -ge 30000 ]
"$EBS" report -i gone.data --dump >gone.dump
counted=$(awk '$2 == "COUNT" && $6 == 0 { s += $8 } END { print s + 0 }' gone.dump)
check "unreported losses: the file has the counter's total ($counted >= 32768)" [ "${counted:-0}" -ge 32768 ]
