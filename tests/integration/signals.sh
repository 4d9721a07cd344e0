#!/usr/bin/env bash
# signals.sh - Ctrl-C (SIGINT) and SIGTERM during a recording: the signal is
# passed to the command, collection stops, and the file is complete and
# reports; the command's exit status (or 128+signal) becomes ebs's.
. "$(dirname "$0")/../lib.sh"

# stopped SIG HZ CPU: record sleeper at HZ into SIG.data, send SIG to ebs
# once the command has had CPU seconds of CPU time (whatever the load), and
# check ebs's status (the command's, left in want) and that the command is gone.
stopped() {
	local sig=$1 epid rc
	"$EBS" record -e cpu-clock -F "$2" -o $sig.data "$WORKLOADS/sleeper" 20 >$sig.pid 2>$sig.err &
	epid=$!
	wait_line $sig.pid
	wait_cpu "$(cat $sig.pid)" "$3"
	kill -$sig "$epid"
	wait "$epid"
	rc=$?
	want=$((128 + $(kill -l $sig)))
	check "SIG$sig: ebs exits with the command's status $want (got $rc)" [ "$rc" -eq "$want" ]
	check "SIG$sig: the command is gone" bash -c "! kill -0 $(cat $sig.pid) 2>/dev/null"
}

for sig in INT TERM; do
	stopped $sig 1000 0.5	# 500 periods of its CPU time
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

# Every other signal that would end ebs does what SIGINT does: passed on to
# the command, one line saying so, the file finished, the command's status.
# (Before, each of these ended ebs at once: no message, no file, the
# temporary file left, the command running on unprofiled.)  Some of them
# dump core by default: none here.
ulimit -c 0
CHECK="$TOP/tests/tools/datacheck.py"
for sig in HUP QUIT USR1 USR2 ALRM PIPE XFSZ XCPU; do
	stopped $sig 500 0.1
	check "SIG$sig: one line says so, then the summary" \
		bash -c "[ \$(wc -l <$sig.err) -eq 2 ] && grep -qx 'ebs record: SIG$sig: passed on to the command (pid $(cat $sig.pid)); the recording ends when it exits' $sig.err && tail -n 1 $sig.err | grep -q '^ebs record: [0-9]* samples written'"
	check "SIG$sig: the file is complete" bash -c "python3 '$CHECK' $sig.data | grep -q '^ok: finished'"
	"$EBS" report -i $sig.data --dump | tail -n 2 | head -n 1 >$sig.trailer
	check "SIG$sig: trailer stores the exit status" grep -q "exit $want\$" $sig.trailer
	check "SIG$sig: no temporary file left" [ -z "$(ls -A | grep '\.tmp\.')" ]
done

# -p: a signal stops the recording, is not passed on, and ebs exits 0.
"$WORKLOADS/sleeper" 20 >p.pid &
spid=$!
wait_line p.pid
"$EBS" record -e cpu-clock -F 500 -p $spid -o p.data 2>p.err &
epid=$!
wait_polling $epid
kill -HUP $epid
wait $epid
rc=$?
check "-p, SIGHUP: ebs exits 0 (got $rc)" [ $rc -eq 0 ]
check "-p, SIGHUP: one line says so, then the summary" \
	bash -c "[ \$(wc -l <p.err) -eq 2 ] && grep -qx 'ebs record: SIGHUP: recording stopped' p.err"
check "-p, SIGHUP: the file is complete" bash -c "python3 '$CHECK' p.data | grep -q '^ok: finished'"
check "-p, SIGHUP: the process attached to runs on" kill -0 $spid
kill $spid
wait $spid 2>/dev/null

# Under nohup (SIGHUP ignored when ebs starts) a hangup stops neither ebs
# nor the command; SIGINT still does.
( trap '' HUP; exec "$EBS" record -e cpu-clock -F 500 -o nohup.data "$WORKLOADS/sleeper" 20 >nohup.pid 2>nohup.err ) &
epid=$!
wait_line nohup.pid
wait_cpu "$(cat nohup.pid)" 0.05
kill -HUP $epid "$(cat nohup.pid)"
sleep 0.3	# the signals were sent: had they not been ignored, both would end now
check "nohup: SIGHUP ignored by ebs" kill -0 $epid
check "nohup: SIGHUP ignored by the command" kill -0 "$(cat nohup.pid)"
kill -INT $epid
wait $epid
rc=$?
check "nohup: SIGINT still ends it, with the command's status 130 (got $rc)" [ $rc -eq 130 ]
check "nohup: the file is complete" bash -c "python3 '$CHECK' nohup.data | grep -q '^ok: finished'"

# ebs's own output closed (-o - into a pipe whose reader quits): the write
# fails with EPIPE (its SIGPIPE is no request to stop), one line, status 1,
# and the command is not left running unprofiled.
"$EBS" record -e cpu-clock -F 500 -o - "$WORKLOADS/leafloop" 19.25 2>epipe.err | head -c 100 >/dev/null
rc=${PIPESTATUS[0]}
check "output pipe closed: status 1 (got $rc)" [ "$rc" -eq 1 ]
check "output pipe closed: one line naming the broken pipe" \
	bash -c "[ \$(wc -l <epipe.err) -eq 1 ] && grep -q '^ebs record: standard output: write failed: Broken pipe' epipe.err"
check "output pipe closed: the command is not left running" \
	bash -c "! pgrep -f '$WORKLOADS/[l]eafloop 19.25' >/dev/null"
