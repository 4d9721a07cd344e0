#!/usr/bin/env bash
# monitor.sh - ebs monitor: rates of task-clock and page-faults (exact on
# any machine: task-clock is a CPU's nanoseconds a second while it runs,
# about 1e9, and 0 asleep).  Without a terminal: a line of numbers an
# interval, --csv, --ratio, the exit status, the default events' fallback
# and bad input.  On a terminal, under tmux (send-keys, capture-pane): the
# graph and its scale labels, the phases workload (busy, idle, busy...) as
# a trace that rises and falls, space freezing the screen, + changing the
# interval in the header, e equal scales, g the grid, an unknown key
# ignored, q, the command's end, Ctrl-C and SIGTERM each ending it with
# the terminal restored, an unknown TERM getting the lines.
# The screen with the rising and falling trace is kept as the artefact
# monitor-screen.txt.  No timing is asserted: waits poll with a limit, and
# the phases are CPU time, so load only stretches them.
. "$(dirname "$0")/../lib.sh"

PH=$WORKLOADS/phases
EV=task-clock,page-faults

# ---- bad input -------------------------------------------------------------------
expect "--ratio with one event" 2 "^ebs monitor: --ratio divides the first event by the second" \
	"$EBS" monitor --ratio -e task-clock -- true
expect "-i 10: below 50 ms" 2 "^ebs monitor: -i wants a whole number from 50 to 2000, not '10'" \
	"$EBS" monitor -i 10 -e $EV -- true
expect "-i 5000: above 2 s" 2 "^ebs monitor: -i wants a whole number from 50 to 2000" \
	"$EBS" monitor -i 5000 -e $EV -- true
expect "an unknown event" 2 "^ebs monitor: unknown event 'bogus'" "$EBS" monitor -e task-clock,bogus -- true
expect "nothing to monitor" 2 "^ebs monitor: nothing to monitor" "$EBS" monitor -e $EV
expect "-p and -a" 2 "^ebs monitor: -p and -a exclude each other" "$EBS" monitor -a -p $$
expect "--duration 0" 2 "^ebs monitor: --duration wants a number above 0" "$EBS" monitor --duration 0 -a
expect "--csv into no directory, with the default events: exit 1 (the system's)" 1 \
	"^ebs monitor: --csv /nonexistent/m.csv: cannot write" "$EBS" monitor --csv /nonexistent/m.csv -- true
expect "a command that cannot run: 127, with the default events" 127 \
	"^ebs monitor: cannot run '/nonexistent/cmd'" "$EBS" monitor -- /nonexistent/cmd
check "a command that cannot run: no header printed before the error" test ! -s out.txt
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" -ge 1 ] 2>/dev/null; then
	expect "-a unprivileged: refused (exit 2)" 2 "^ebs monitor: cannot open event 'task-clock' on all CPUs" \
		$NOBODY "$(for_nobody "$EBS")" monitor -e $EV -a --duration 0.3
	check "-a unprivileged: no header printed before the error" test ! -s out.txt
else
	skip "-a unprivileged" "kernel.perf_event_paranoid is below 1: anyone may count all CPUs here"
fi

# ---- without a terminal: lines -------------------------------------------------------
timeout -s KILL 60 "$EBS" monitor -e $EV --csv m.csv -- "$PH" 4 0.3 0.3 >lines.txt 2>err.txt
rc=$?
keep lines.txt
check "lines: exit 0, nothing on stderr" sh -c "[ $rc -eq 0 ] && [ ! -s err.txt ]"
check "lines: a header naming the rates, the clock's unit said" \
	grep -qx '# time_s task-clock_ns/s page-faults/s' lines.txt
# ROWS_PY FILE FIELDS: every row after the header (less a "# partial: N ms"
# mark) is FIELDS fixed-format numbers: the time with 3 decimals, the
# rates whole (CSV: 3 decimals), a ratio with 4, or "-" (CSV: empty) over 0;
# never an exponent or nan
ROWS_PY='
import sys, re
csv = sys.argv[1].endswith(".csv")
rate = r"\d+\.\d{3}" if csv else r"\d+"
rows = [l.split("#")[0].strip().split("," if csv else None) for l in open(sys.argv[1])][1:]
def good(r):
    return (len(r) == int(sys.argv[2]) and re.fullmatch(r"\d+\.\d{3}", r[0]) and
            all(re.fullmatch(rate, x) for x in r[1:3]) and
            all(re.fullmatch(r"\d+\.\d{4}|" + ("" if csv else "-"), x) for x in r[3:]))
bad = [r for r in rows if not good(r)]
print("rows not in the formats: %s" % bad[:3], file=sys.stderr) if bad else None
t = [float(r[0]) for r in rows]
sys.exit(0 if len(rows) >= 4 and not bad and t == sorted(t) else 1)'
check "lines: one line of numbers an interval, times increasing" python3 -c "$ROWS_PY" lines.txt 3
check "csv: a header (the clock's unit said), then the same rows" \
	sh -c "head -n 1 m.csv | grep -qx 'time_s,task-clock_ns_per_s,page-faults_per_s' &&
	       [ \$(wc -l <m.csv) -eq \$(wc -l <lines.txt) ] && python3 -c '$ROWS_PY' m.csv 3"
# busy phases near a CPU (1e9 ns/s), idle ones 0: at least one interval
# above a tenth of a CPU (a loaded 2-CPU machine here gave the busy phases
# 0.3 of one: the rate is what the machine gives them) and one below a
# tenth of the highest, none above one CPU by more than 10% (the rates are
# over the time between two readings, either a little late)
PHASES_PY='
import sys
v = [float(l.split(",")[1]) for l in open(sys.argv[1]).readlines()[1:]]
print("task-clock rates: %s" % " ".join("%.2g" % x for x in v), file=sys.stderr)
sys.exit(0 if max(v) > 0.1e9 and min(v) < 0.1 * max(v) and max(v) < 1.1e9 else 1)'
check "csv: the phases rise above a tenth of a CPU and fall below a tenth of that" \
	python3 -c "$PHASES_PY" m.csv
"$EBS" monitor -e $EV -- "$WORKLOADS/exitcode" 5 >/dev/null 2>&1
check "the command's exit status" test $? -eq 5
"$EBS" monitor -e $EV --ratio -- "$PH" 2 0.2 0.2 >ratio.txt 2>/dev/null
RATIO_PY='
import sys
rows = [l.split("#")[0].split() for l in open(sys.argv[1]).readlines()[1:]]
ok = len(rows) > 0
for t, a, b, r in rows:
    a, b = float(a), float(b)
    # the rates are printed rounded to units: r within their rounding (and its 4 decimals)
    ok &= (r == "-" and b == 0) or (b > 0 and abs(float(r) - a / b) <= (0.5 / b + (0.5 / a if a else 0)) * a / b + 5e-5 + 1e-9)
sys.exit(0 if ok else 1)'
check "--ratio: E1/E2 a column (within the rates' rounding), - where E2 is 0" \
	sh -c "head -n 1 ratio.txt | grep -qx '# time_s task-clock_ns/s page-faults/s task-clock/page-faults' &&
	       python3 -c '$RATIO_PY' ratio.txt"
# the last, partial interval: kept, its rates over its real length, marked
# with that length (unless the end fell within half a 25 ms tick of an
# interval's end: a whole interval then)
"$EBS" monitor -e $EV -i 200 -- sleep 0.7 >part.txt 2>/dev/null
PART_PY='
import sys
rows = [l.split() for l in open(sys.argv[1]).readlines()[1:]]
t = [float(r[0]) for r in rows]
marked = [i for i, r in enumerate(rows) if "#" in r]
last = rows[-1] if rows else []
if last and "#" in last:
    ms = float(last[last.index("#") + 2])
    ok = marked == [len(rows) - 1] and len(rows) >= 2 and abs((t[-1] - t[-2]) * 1e3 - ms) <= 1.5 and ms < 200
else:
    ok = bool(rows) and not marked and abs(t[-1] / 0.2 - round(t[-1] / 0.2)) * 200 <= 13
sys.exit(0 if ok and t[-1] >= 0.7 else 1)'
check "lines: the last, partial interval kept and marked with its length" python3 -c "$PART_PY" part.txt
# the default events: cycles and instructions where they can be counted,
# else task-clock and page-faults with one line that says so
"$EBS" monitor --duration 0.3 -a >def.txt 2>def.err
rc=$?
if grep -q 'cycles/s instructions/s' def.txt; then
	check "default events: cycles and instructions, nothing said" sh -c "[ $rc -eq 0 ] && [ ! -s def.err ]"
else
	check "default events: the fallback in one line, what was asked and what is used" \
		sh -c "[ $rc -eq 0 ] && [ \$(wc -l <def.err) -eq 1 ] &&
		       grep -q \"^ebs monitor: cycles,instructions asked (the default), but '[a-z]*' cannot be counted here: .*; monitoring task-clock,page-faults instead\$\" def.err &&
		       grep -qx '# time_s task-clock_ns/s page-faults/s' def.txt"
	expect "-e cycles without a PMU: refused" 2 "^ebs monitor: event 'cycles' cannot be counted here" \
		"$EBS" monitor -e cycles,instructions -- true
fi
"$PH" 1000 0.2 0.2 &
BG=$!
timeout -s KILL 30 "$EBS" monitor -e $EV -p $BG --duration 0.5 >pid.txt 2>pid.err
rc=$?
check "-p with --duration: ends by itself, exit 0, the process left running" \
	sh -c "[ $rc -eq 0 ] && [ \$(wc -l <pid.txt) -ge 3 ] && kill -0 $BG"

# ---- on a terminal, under tmux ---------------------------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
	skip "terminal" "no tmux here (Debian's tmux; scripts/deps.sh installs it)"
	kill $BG 2>/dev/null
	exit 0
fi
tmux_session mon 100 30
trap '$TM kill-server 2>/dev/null; kill $BG 2>/dev/null; cleanup' EXIT

# gone ERE: a capture with the header but without the ERE; wait_gone ERE [TENTHS]: polled
gone() { cap screen.now && grep -q every screen.now && ! grep -qE -e "$1" screen.now; }
wait_gone() { poll "${2:-100}" gone "$1"; }
# run CMD: in the pane, with the terminal's settings before and after, and the exit status
run() {
	rm -f rc.txt st1 st2
	# rc.txt last: the tests wait for it, then read st2
	$TM send-keys -t mon "stty -g >st1; $*; rc=\$?; stty -g >st2; echo \$rc >rc.txt" Enter
}
# ended STATUS: the run ended with STATUS, the terminal's settings as before, the normal screen
ended() {
	[ "$(cat rc.txt 2>/dev/null)" = "$1" ] && [ -s st2 ] && cmp -s st1 st2 &&
		[ "$($TM display -p -t mon '#{alternate_on}')" = 0 ]
}

# graph FILE: the screen has a graph (its left axis at column 8) with 1, 2
# or 5 times a power of ten at its top (task-clock's: in CPUs), 0 at its bottom, the second
# event's labels on the right, and task-clock's trace (o) both on its
# bottom row and at 40% of its height or more: a trace that rises and
# falls (the scale is the 1-2-5 value at or above the highest rate on
# screen, at most 2.5 times it: 2.01 to 5)
GRAPH_PY='
import re, sys
rows = open(sys.argv[1]).read().split("\n")
g = [i for i, r in enumerate(rows) if len(r) > 9 and r[8] == "|"]
if len(g) < 6:
    sys.exit(1)
top, bot = g[0], g[-1]
h = bot - top
ok = re.fullmatch(r" *(0\.0*)?[125](00|0)?[KMG]?", rows[top][:8]) is not None and rows[bot][:8].strip() == "0"
right = rows[top].rfind("|")
ok &= re.fullmatch(r"[0-9.]+[KMG]?", rows[top][right + 1:].strip()) is not None
hi = [i for i in g if "o" in rows[i][9:right]]
ok &= bool(hi) and bot in hi and bot - min(hi) >= 0.4 * h
sys.exit(0 if ok else 1)'
graph() { python3 -c "$GRAPH_PY" "$1"; }

run "$EBS monitor -e $EV -p $BG"
if ! wait_for 'every 100 ms' 100; then
	fail "terminal: the screen" "no header in 10 s: $(head -c 400 screen.now)"
	exit 0
fi
# a capture may catch the first screen half drawn (header, no footer yet):
# the whole screen, captured again until it is there (5 s at most)
whole() {
	cap screen.now && grep -q "^ebs monitor   every 100 ms   .* s   pid $BG" screen.now &&
		grep -q '^o task-clock' screen.now && grep -q '^+ page-faults' screen.now &&
		grep -q 'q quit' screen.now
}
check "terminal: the header names the pid and both events" poll 50 whole
check "terminal: task-clock in CPUs, page-faults per second, each with its axis" \
	sh -c "grep -qE '^o task-clock +now [0-9]+\.[0-9]+ CPUs .* scale [0-9.]+ CPUs \(left\)' screen.now &&
	       grep -qE '^\+ page-faults +now [0-9.]+[KMG]?/s .* scale [0-9.]+[KMG]?/s \(right\)' screen.now"
# a few phases on screen first (the header's time at 3 s), for the artefact
wait_for '   ([3-9]|[1-9][0-9]+)\.[0-9] s' 150
poll 100 eval 'cap screen.txt && graph screen.txt'
got=$?
keep screen.txt
check "terminal: the graph, its scale labels, the phases rising and falling (monitor-screen.txt)" test $got = 0
$TM send-keys -t mon " "
wait_for PAUSED 30
sleep 0.3
cap paused1.txt
sleep 0.6
cap paused2.txt
check "terminal: space freezes the screen (two captures equal)" \
	sh -c "grep -q PAUSED paused1.txt && cmp -s paused1.txt paused2.txt"
$TM send-keys -t mon "+"
check "terminal: + doubles the interval in the header" wait_for 'every 200 ms' 30
$TM send-keys -t mon " "
$TM send-keys -t mon "e"
check "terminal: e equates the scales" wait_for 'scale .*\(equal, (left|right)\)' 30
$TM send-keys -t mon "g"
check "terminal: g takes the grid away (no dotted line)" wait_gone '\.\.\.\.\.\.' 30
# keys are read in order: once the + after it has lengthened the interval (200 to 500 ms),
# the z has been read too
$TM send-keys -t mon "z"
$TM send-keys -t mon "+"
wait_for 'every 500 ms' 30
cap z.txt
check "terminal: an unknown key is ignored (read: the + after it was)" \
	sh -c "[ ! -e rc.txt ] && grep -q 'every 500 ms' z.txt && ! grep -q PAUSED z.txt"
# a smaller terminal: the graph redrawn to fit, its right edge at column 9 + (72 - 18)
$TM resize-window -t mon -x 72 -y 24
RIGHT_PY='
import sys
rows = open(sys.argv[1]).read().split("\n")
g = [r for r in rows if len(r) > 9 and r[8] == "|"]
sys.exit(0 if len(g) >= 6 and all(r.rfind("|") == 63 for r in g) and max(map(len, rows)) <= 72 else 1)'
check "terminal: resized, the graph redrawn to the new width" \
	poll 50 eval 'cap resized.txt && python3 -c "$RIGHT_PY" resized.txt'
$TM send-keys -t mon "q"
wait_file rc.txt 50
check "terminal: q quits (-p: exit 0), the terminal restored" ended 0
$TM resize-window -t mon -x 100 -y 30
check "terminal: q leaves the process running" kill -0 $BG

run "$EBS monitor -e $EV -- $PH 3 0.2 0.2"
wait_file rc.txt 300
check "terminal: the command's end ends it (its status), the terminal restored" ended 0

run "$EBS monitor -e $EV -- $PH 1000 0.2 0.2"
wait_for 'every 100 ms' 100
$TM send-keys -t mon "q"
wait_file rc.txt 50
check "terminal: q with a command: SIGINT to it, exit 130, the terminal restored" ended 130

# a command that ignores SIGINT: the first q is passed on to no effect, the second kills it
run "$EBS monitor -e $EV -- sh -c 'trap \"\" INT; exec $PH 1000 0.2 0.2'"
wait_for 'every 100 ms.*trap' 100
$TM send-keys -t mon "q"
$TM send-keys -t mon "+"
wait_for 'every 200 ms' 30
cap q1.txt
check "terminal: q to a command that ignores SIGINT: still monitoring (read: the + after it was)" \
	sh -c "[ ! -e rc.txt ] && grep -q 'every 200 ms' q1.txt"
$TM send-keys -t mon "q"
wait_file rc.txt 50
check "terminal: a second q kills it (137), the terminal restored" ended 137

run "$EBS monitor -e $EV -p $BG"
wait_for 'every 100 ms' 100
$TM send-keys -t mon C-c
wait_file rc.txt 50
check "terminal: Ctrl-C ends it (-p: exit 0), the terminal restored" ended 0

run "sh -c 'echo \$\$ >mon.pid; exec $EBS monitor -e $EV -p $BG'"
wait_for 'every 100 ms' 100
kill -TERM "$(cat mon.pid)"
wait_file rc.txt 50
check "terminal: SIGTERM ends it (-p: exit 0), the terminal restored" ended 0
# a terminal ncurses does not know: lines on it, and one line saying so
run "TERM=nosuch $EBS monitor -e $EV -- $PH 1 0.2 0.1 2>term.err"
wait_file rc.txt 150
cap term.txt
check "terminal: an unknown TERM gets the lines, said in one line" \
	sh -c "[ \"\$(cat rc.txt)\" = 0 ] && grep -q '^# time_s task-clock_ns/s page-faults/s' term.txt &&
	       [ \$(wc -l <term.err) -eq 1 ] &&
	       grep -q \"^ebs monitor: the terminal 'nosuch' cannot be drawn on\" term.err"
# issue 34 (bench row monitor_cpu): without a terminal there are no keys to
# look at every 25 ms, so the counters are read once an interval, and -a
# walks no /proc (a counting session keeps no process names or mappings).
# Before: 167 reads of a counter (24 bytes: value, enabled, running) over
# one second at -i 100 with 2 events on 2 CPUs, and 456 opens of
# /proc/PID/... (on a VM with a few hundred processes).
if command -v strace >/dev/null; then
	NCPU=$(getconf _NPROCESSORS_ONLN)
	# LeakSanitizer stops the world with ptrace, which strace already holds
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -qq -e trace=read,openat -o tick.strace \
		"$EBS" monitor -a -i 100 -e $EV --duration 1 >tick.txt 2>tick.err
	n=$(grep -c ' = 24$' tick.strace) np=$(grep -c '"/proc/[0-9]' tick.strace)
	# 10 intervals, the first and the last reading and 2 to spare, per counter
	check "lines: the counters read once an interval ($n reads of $((2 * NCPU)) counters), no walk of /proc ($np opens)" \
		eval '[ "$n" -gt 0 ] && [ "$n" -le $((14 * 2 * NCPU)) ] && [ "$np" -eq 0 ]'
	# a --duration that does not end on an interval's end still ends on time
	"$EBS" monitor -a -i 2000 -e $EV --duration 0.3 >odd.txt 2>odd.err
	check "--duration 0.3 at -i 2000: ends at 0.3 s, one partial interval" \
		python3 -c 'import sys
rows = [l.split() for l in open(sys.argv[1]).readlines()[1:]]
sys.exit(0 if len(rows) == 1 and 0.29 <= float(rows[0][0]) <= 0.45 and "#" in rows[0] else 1)' odd.txt
else
	skip "lines: the counters read once an interval" "no strace (scripts/deps.sh installs it)"
fi
kill $BG 2>/dev/null
exit 0
