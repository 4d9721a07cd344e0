#!/usr/bin/env bash
# lost.sh - a ring too small for the sample rate: the kernel drops samples
# and says so with LOST records; ebs stores them, counts them in the
# trailer, prints the same count, and the report header shows it.
. "$(dirname "$0")/../lib.sh"

# One sample per page fault (-c 1), ~32 K faults in a few milliseconds, and
# a one-page ring (-m 1, room for about 80 samples): the reader cannot keep up.
"$EBS" record -e page-faults -c 1 -m 1 -o lost.data "$WORKLOADS/memtouch" 64 2 2>lost.err
check "record exit 0" [ $? -eq 0 ]
printed=$(sed -nE 's/^ebs record: [0-9]+ samples written, ([0-9]+) lost.*/\1/p' lost.err)
samples=$(sed -nE 's/^ebs record: ([0-9]+) samples written.*/\1/p' lost.err)
"$EBS" report -i lost.data --dump >lost.dump
from_records=$(awk '$2 == "LOST" {s += $6} END {print s + 0}' lost.dump)
in_trailer=$(awk '$2 == "TRAILER" {print $8}' lost.dump)
check "samples were lost ($printed)" [ "${printed:-0}" -gt 0 ]
check "printed count = sum of the kernel's LOST records ($printed = $from_records)" [ "$printed" = "$from_records" ]
check "trailer count = the LOST records ($in_trailer)" [ "$in_trailer" = "$from_records" ]
# 64 MiB twice is 32768 faults; samples + lost must account for them (and a
# few hundred of the program's own start-up faults).
check "samples + lost = the faults ($samples + $printed)" [ $((samples + printed)) -ge 32768 -a $((samples + printed)) -le 34000 ]
"$EBS" report -i lost.data --json >lost.json
check "report JSON's lost" [ "$(json lost.json "j['lost']")" = "$printed" ]
check "report header's lost" bash -c "'$EBS' report -i lost.data | grep -q '^# samples: $samples, lost: $printed,'"
check "touch_pages is the hot function" [ "$(json lost.json "j['rows'][0]['function']")" = touch_pages ]
