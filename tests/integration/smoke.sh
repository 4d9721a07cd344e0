#!/usr/bin/env bash
# smoke.sh - each command once, on a small recording of leafloop: it runs,
# exits 0 and prints what it is for.  The inner loop's check (make
# test-quick, with the unit suites); the other tests check what each
# prints.  A few seconds.
. "$(dirname "$0")/../lib.sh"

L=$WORKLOADS/leafloop
# ok NAME CMD...: CMD exits 0 within 60 s (a hang guard); its output in NAME.out
ok() {
	local name=$1 rc
	shift
	timeout -s KILL 60 "$@" >"$name.out" 2>"$name.err" </dev/null
	rc=$?
	[ $rc -eq 0 ] || { echo "    $name: status $rc: $(head -c 300 "$name.err")"; return 1; }
}

check "record: leafloop, -g" ok rec "$EBS" record -q -g -e cpu-clock -F 1000 -o l.data "$L" 0.2
check "report: leaf listed" ok rep "$EBS" report -i l.data --no-pager
check "...report lists leaf" grep -q " leaf " rep.out
check "annotate: leaf's source" ok ann "$EBS" annotate -i l.data --no-pager leaf
check "...annotate names leaf" grep -q leaf ann.out
check "stat: task-clock of leafloop" ok stat "$EBS" stat -e task-clock -- "$L" 0.05
check "...stat counts task-clock" grep -q task-clock stat.err
check "monitor: lines off a terminal, until the command ends" ok mon "$EBS" monitor -e task-clock -i 50 -- "$L" 0.1
check "...monitor prints intervals" grep -q task-clock mon.out
check "calibrate: -c fixed, --json" ok cal "$EBS" calibrate -q -e cpu-clock -c 1000000 --json -- "$L" 0.05
check "...calibrate writes JSON" jtrue cal.out "isinstance(j, dict)"
check "list: cpu-clock samples here" ok list "$EBS" list --no-pager
check "...list names cpu-clock" grep -q cpu-clock list.out
check "diff: a recording against itself" ok diff "$EBS" diff l.data l.data --json
check "...diff: nothing significant" jtrue diff.out "not any(r['significant'] for r in j['rows'])"
check "export: folded stacks" ok exp "$EBS" export -i l.data --format folded
check "...export folds leaf" grep -q 'leaf [0-9]' exp.out
check "flamegraph: an SVG" ok fg "$EBS" flamegraph -i l.data -o l.svg
check "...flamegraph writes it" grep -q '</svg>' l.svg
check "script: a line a sample" ok scr "$EBS" script -i l.data --no-pager
check "...script names leaf" grep -q leaf scr.out
if command -v perf >/dev/null && perf record -q -e cpu-clock -F 1000 -o p.data -- "$L" 0.1 >/dev/null 2>perf.err; then
	check "convert: perf.data" ok conv "$EBS" convert -q -i p.data -o c.data
	check "...convert's ebs.data reads" sh -c '"$0" report -i c.data --no-pager 2>/dev/null | grep -q " leaf "' "$EBS"
else
	skip "convert: perf.data" "no perf recording here: $(head -n 1 perf.err 2>/dev/null)"
fi
addr=$(nm "$L" | awk '$3 == "leaf" { print $1 }')
check "addr2line: leaf's address" ok a2l "$EBS" addr2line -e "$L" "0x$addr"
check "...addr2line names leaf" grep -q '^leaf' a2l.out
exit 0
