#!/usr/bin/env bash
# signals.sh - Ctrl-C (SIGINT) and SIGTERM during a recording: the signal is
# passed to the command, collection stops, and the file is complete and
# reports; the command's exit status (or 128+signal) becomes ebs's.
. "$(dirname "$0")/../lib.sh"

for sig in INT TERM; do
	"$EBS" record -e cpu-clock -F 1000 -o $sig.data "$WORKLOADS/sleeper" 20 >$sig.pid 2>$sig.err &
	epid=$!
	wait_line $sig.pid
	wait_cpu "$(cat $sig.pid)" 0.5	# 500 periods of its CPU time, whatever the load
	kill -$sig "$epid"
	wait "$epid"
	rc=$?
	want=$((128 + $(kill -l $sig)))
	check "SIG$sig: ebs exits with the command's status $want (got $rc)" [ "$rc" -eq "$want" ]
	check "SIG$sig: the command is gone" bash -c "! kill -0 $(cat $sig.pid) 2>/dev/null"
	check "SIG$sig: summary line still printed" grep -q '^ebs record: [0-9]* samples written' $sig.err
	"$EBS" report -i $sig.data --json >$sig.json 2>$sig.rerr
	check "SIG$sig: the file reports" [ $? -eq 0 ]
	read -r k user < <(ushare $sig.json leaf)
	# leaf has ~99% of the sleeper's user-space time (groundtruth.sh)
	if enough "SIG$sig: leaf's share" "$user" 200; then
		check "SIG$sig: leaf dominates the 0.5 s of CPU recorded, >= 90% of user space ($k of $user)" \
			[ $((k * 100)) -ge $((user * 90)) ]
	fi
	"$EBS" report -i $sig.data --dump | tail -n 2 | head -n 1 >$sig.trailer
	check "SIG$sig: trailer stores the exit status" grep -q "exit $want\$" $sig.trailer
	check "SIG$sig: no temporary file left" [ -z "$(ls -A | grep '\.tmp\.')" ]
done

# Exit statuses pass through.
record ec.data -e cpu-clock -F 500 "$WORKLOADS/exitcode" 7
check "exit status 7 passes through" [ $? -eq 7 ]
"$EBS" record -q -e cpu-clock -F 500 -o kill.data -- sh -c 'sleep 0.3; kill -KILL $$' 2>/dev/null
check "a command killed by SIGKILL: ebs exits 137" [ $? -eq 137 ]
check "the killed command's file reports" quiet "$EBS" report -i kill.data --top 1
