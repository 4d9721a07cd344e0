#!/usr/bin/env bash
# top.sh - ebs top: live hotspots.  Bad input (a pid that does not exist,
# -a for an unprivileged user, a bad -d: one line, exit 2).  Without a
# terminal: one table per interval (a header line with the interval's time
# and samples, the columns, the rows, a blank line), -n intervals, leafloop's
# leaf the hottest of each; SQLite (sqlwork, a real program), its hottest
# functions as perf report finds them.  On a terminal, under tmux
# (send-keys, capture-pane, polling the screen): rows that appear and
# update, s sorting by name, f freezing the screen, a opening annotate of
# the selected function and coming back, k showing kernel and user, user
# only, kernel only (sysloop's system calls), c the cumulative table once
# the command has ended, and q restoring the terminal (the alternate screen
# off, the prompt back).  The screens are kept as artefacts.  No timing is
# asserted: waits poll with a limit.
. "$(dirname "$0")/../lib.sh"

LL=$WORKLOADS/leafloop
SYS=$WORKLOADS/sysloop

# ---- bad input -------------------------------------------------------------------
expect "a pid that does not exist" 2 "^ebs top: pid 2147483600: no such process" \
	"$EBS" top -p 2147483600 -n 1
expect "-d 0" 2 "^ebs top: -d wants a number above 0" "$EBS" top -d 0 -n 1
expect "-d 0.05: below 0.1 s" 2 "^ebs top: -d wants 0.1 seconds or more" "$EBS" top -d 0.05 -n 1
expect "-p and -a" 2 "^ebs top: -p and -a exclude each other" "$EBS" top -a -p $$
expect "a command that cannot run: 127" 127 "^ebs top: cannot run '/nonexistent/cmd'" \
	"$EBS" top -- /nonexistent/cmd
if [ "$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)" -ge 1 ] 2>/dev/null; then
	if can_play_nobody "-a unprivileged" "to drop to nobody"; then
		expect "-a unprivileged: refused in one line (exit 2)" 2 \
			"^ebs top: cannot open event '[a-z-]+' on all CPUs" \
			$NOBODY "$(for_nobody "$EBS")" top -a -n 1
		check "-a unprivileged: no table printed" test ! -s out.txt
	fi
else
	skip "-a unprivileged" "kernel.perf_event_paranoid is below 1: anyone may sample all CPUs here"
fi

# ---- without a terminal: tables ---------------------------------------------------------
# TABLES_PY FILE N FUNC: N tables, each "# interval I: S-E s, N samples (K kernel), L lost",
# the columns' line, rows of samples, percent, [lo, hi], function, dso, then a
# blank line; the intervals numbered 1.. with increasing times; FUNC the first row of each
TABLES_PY='
import re, sys
text = open(sys.argv[1]).read()
tables = text.split("\n\n")
if tables and tables[-1] == "":
    tables.pop()
ok = len(tables) == int(sys.argv[2]) and text.endswith("\n\n")
end = 0.0
for i, t in enumerate(tables):
    lines = t.split("\n")
    m = re.fullmatch(r"# interval (\d+): (\d+\.\d{3})-(\d+\.\d{3}) s, (\d+) samples \((\d+) kernel\), (\d+) lost", lines[0])
    ok &= m is not None and lines[1].split() == ["#", "samples", "percent", "95%", "interval", "function", "dso"]
    if not m:
        print("bad header: %r" % lines[0], file=sys.stderr)
        break
    ok &= int(m.group(1)) == i + 1 and float(m.group(2)) >= end and float(m.group(3)) > float(m.group(2))
    end = float(m.group(3))
    rows = [re.fullmatch(r" *(\d+) +(\d+\.\d\d)% +\[ *(\d+\.\d), +(\d+\.\d)\] +(\S.*?) +(\S+)", l) for l in lines[2:]]
    ok &= len(rows) > 0 and all(rows) and rows[0].group(5) == sys.argv[3]
    ok &= sum(int(r.group(1)) for r in rows if r) <= int(m.group(4))
    ok &= all(float(r.group(3)) <= float(r.group(2)) <= float(r.group(4)) for r in rows if r)
sys.exit(0 if ok else 1)'
timeout -s KILL 60 "$EBS" top -n 2 -d 0.5 -- "$LL" 5 >tables.txt 2>tables.err
rc=$?
keep tables.txt
check "tables: -n 2 ends it (the command gets SIGINT: 130)" test $rc = 130
check "tables: two, each a header line, the columns, rows with their interval, a blank line; leaf the hottest" \
	python3 -c "$TABLES_PY" tables.txt 2 leaf
check "tables: the event's fallback (no PMU) said in one line, or nothing" \
	sh -c "[ ! -s tables.err ] || { [ \$(wc -l <tables.err) -eq 1 ] &&
	       grep -q \"^ebs top: event 'cycles' cannot be opened: .*; sampling 'cpu-clock' instead\" tables.err; }"
# a command that ends first: its last, partial interval, then its status
timeout -s KILL 60 "$EBS" top -n 50 -d 0.5 -- "$WORKLOADS/exitcode" 5 >short.txt 2>/dev/null
check "tables: a command's own status when it ends before -n" test $? = 5
# -p: a running process, left running
"$LL" 600 &
LLPID=$!
timeout -s KILL 60 "$EBS" top -p $LLPID -n 1 -d 0.5 >pid.txt 2>/dev/null
rc=$?
check "tables: -p PID, -n 1: one table, leaf the hottest, exit 0, the process left running" \
	sh -c "[ $rc -eq 0 ] && python3 -c '$TABLES_PY' pid.txt 1 leaf && kill -0 $LLPID"
kill $LLPID 2>/dev/null
wait $LLPID 2>/dev/null
mkdir -m 700 tmpd
TMPDIR=$TMP/tmpd timeout -s KILL 60 "$EBS" top -n 50 -d 0.5 -- "$LL" 0.3 >part.txt 2>/dev/null
rc=$?
check "tables: a command that ends within -n: the last interval's table (partial) kept" \
	sh -c "[ $rc -eq 0 ] && grep -q '^# interval 1:' part.txt && grep -qE '^ +[0-9]+ .* leaf +leafloop\$' part.txt"
check "tables: the temporary recording (in \$TMPDIR) removed at the end" \
	sh -c "[ -z \"\$(ls -A tmpd)\" ]"

# ---- a real program: SQLite, perf report as the oracle ------------------------------------
if sqlite_build sqlite; then
	timeout -s KILL 120 "$EBS" top -d 0.5 --rows 10 -- "$SQLWORK" 100000 >sq.txt 2>sq.err
	keep sq.txt
	if command -v perf >/dev/null 2>&1 &&
		perf record -q -F 1000 -o sq.perf -- "$SQLWORK" 100000 >/dev/null 2>&1; then
		perf report -i sq.perf --stdio --sort sym 2>/dev/null |
			sed -nE 's/^ +([0-9.]+)% +\[\.\] +([^ ]+).*/\2 \1/p' >sq.oracle
		# the functions summed over top's tables (each of its 10 hottest in an interval)
		SQ_PY='
import re, sys
n = {}
for l in open(sys.argv[1]):
    m = re.fullmatch(r" *(\d+) +\d+\.\d\d% +\[.*\] +(\S.*?) +(\S+)\n", l)
    if m:
        n[m.group(2)] = n.get(m.group(2), 0) + int(m.group(1))
top = sorted(n, key=n.get, reverse=True)
perf = [l.split()[0] for l in open(sys.argv[2])]
print("ebs top: %s; perf report: %s" % (top[:3], perf[:3]), file=sys.stderr)
sys.exit(0 if len(perf) >= 2 and perf[0] in top[:2] and perf[1] in top[:3] else 1)'
		check "SQLite: perf report's two hottest functions are ebs top's (its 2 and 3 hottest)" \
			python3 -c "$SQ_PY" sq.txt sq.oracle
	else
		skip "SQLite: perf as the oracle" "perf cannot record here"
	fi
fi

# ---- on a terminal, under tmux ---------------------------------------------------------
if ! command -v tmux >/dev/null 2>&1; then
	skip "terminal" "no tmux here (Debian's tmux; scripts/deps.sh installs it)"
	exit 0
fi
tmux_session top 160 30
alt() { [ "$($TM display -p -t top '#{alternate_on}')" = "$1" ]; }
# run CMD: in the pane, with the terminal's settings before and after, and the exit status
run() {
	rm -f rc.txt st1 st2
	$TM send-keys -t top "clear; stty -g >st1; $*; rc=\$?; stty -g >st2; echo \$rc >rc.txt" Enter
}
# ended STATUS: the run ended with STATUS, the terminal's settings as before, the normal
# screen, the prompt back on its last line
ended() {
	[ "$(cat rc.txt 2>/dev/null)" = "$1" ] && [ -s st2 ] && cmp -s st1 st2 && alt 0 &&
		cap end.now && [ "$(grep . end.now | tail -n 1)" = '$' ]
}
# a row: samples, percent, interval, FUNC, DSO
row() { printf '^ +[0-9]+ +[0-9.]+%% +\\[ *[0-9.]+, +[0-9.]+\\] +%s +%s *$' "$1" "$2"; }
# the header's interval ("interval 1.5-2.0 s")
interval() { grep -oE '^interval [0-9.]+-[0-9.]+ s' "$1"; }

run "$EBS top -d 0.5 -- $LL 600"
if ! wait_for "$(row leaf leafloop)" 150; then
	fail "terminal: the screen" "no leaf row in 15 s: $(head -c 600 screen.now)"
	exit 0
fi
cp screen.now screen1.txt
keep screen1.txt
check "terminal: the header (interval, event, command), the columns, leaf the hottest row" \
	sh -c "grep -qE '^ebs top   every 0\.5 s   .*command .*leafloop 600' screen1.txt &&
	       grep -qE '^interval [0-9.]+-[0-9.]+ s: [0-9]+ samples \([0-9]+ kernel\), [0-9]+ lost   sort: samples   show: kernel\+user' screen1.txt &&
	       grep -qE '^ +samples +percent +95% interval +function +dso' screen1.txt &&
	       [ \"\$(sed -n 5p screen1.txt | grep -cE '$(row leaf leafloop)')\" = 1 ] &&
	       grep -q 'q quit' screen1.txt"
first=$(interval screen1.txt)
updated() { cap screen.now && [ -n "$(interval screen.now)" ] && [ "$(interval screen.now)" != "$first" ]; }
check "terminal: the rows update (the next interval's)" poll 100 updated

# s: by name (the rows' functions in order), then by DSO, then back to samples
$TM send-keys -t top s
SORTED_PY='
import re, sys
names = [m.group(1) for m in (re.fullmatch(r" +\d+ +[\d.]+% +\[.*\] +(\S.*?) +\S+ *", l.rstrip("\n")) for l in open(sys.argv[1])) if m]
sys.exit(0 if len(names) >= 2 and names == sorted(names) else 1)'
sorted_by_name() { cap byname.txt && grep -q 'sort: name' byname.txt && python3 -c "$SORTED_PY" byname.txt; }
check "terminal: s sorts the rows by name" poll 100 sorted_by_name
$TM send-keys -t top s
check "terminal: s again: by DSO" wait_for 'sort: dso' 50
$TM send-keys -t top s
check "terminal: and by samples again" wait_for 'sort: samples' 50

# f: the screen stops changing (two captures more than an interval apart are equal)
$TM send-keys -t top f
wait_for FROZEN 50
sleep 0.3
cap frozen1.txt
sleep 1.2
cap frozen2.txt
check "terminal: f freezes the screen (two captures 1.2 s apart equal)" \
	sh -c "grep -q FROZEN frozen1.txt && cmp -s frozen1.txt frozen2.txt"
$TM send-keys -t top f
check "terminal: f again thaws it" poll 100 eval '! shown FROZEN && updated'

# a: annotate of the selected row (the hottest, leaf) through the pager, on the alternate
# screen (the normal one kept as it was for the end)
$TM send-keys -t top a
check "terminal: a opens annotate of leaf, its source lines (the alternate screen)" \
	poll 150 eval 'shown "^# annotate: leaf \(leafloop" && shown "[0-9]+ +[0-9.]+ +[0-9.]+ +(30|31) .*(for \(int i = 0; i < 1000|x = x \* 6364136223846793005UL)" && alt 1'
cp screen.now annotate.txt
keep annotate.txt
$TM send-keys -t top q
check "terminal: q in the pager comes back to top's screen" \
	poll 100 eval 'alt 1 && shown "^ebs top   every" && shown "$(row leaf leafloop)"'
$TM send-keys -t top q
wait_file rc.txt 300
check "terminal: q quits (SIGINT to the command: 130), the terminal restored, the prompt back" ended 130
check "terminal: after q, neither the pager's text nor the event's fallback on the normal screen" \
	sh -c "! grep -qE '^# annotate|^ebs top: event' end.now"

# k on a system-call workload: its kernel rows, then none (user), then only them (kernel);
# c (since the start) once it has ended, its status said
run "$EBS top -d 0.5 -- $SYS 1"
check "terminal: the command's end keeps the screen, its status said" \
	wait_for 'the command exited \(status 0\): q quits' 300
$TM send-keys -t top c
check "terminal: c: the table since the start" wait_for '^since the start,' 50
# the selection is a function, not a position: s keeps it on the one selected
fname() { sed -nE 's/^ +[0-9]+ +[0-9.]+% +\[[^]]*\] +([^ ]+).*/\1/p'; }
# (reverse video: ESC[7m, or 7 among other attributes, ESC[0;7m)
sel() { $TM capture-pane -p -e -t top | sed -n '5,$p' | grep -E "$(printf '\033')\\[([0-9]+;)*7(;[0-9]+)*m" |
	sed -E 's/\x1b\[[0-9;]*m//g' | fname; }
hot=
poll 50 eval 'hot=$(sel); [ -n "$hot" ]'
$TM send-keys -t top s
check "terminal: s: the selection stays on its function ($hot), now elsewhere" \
	poll 50 eval 'shown "sort: name" && [ -n "$hot" ] && [ "$(sel)" = "$hot" ]'
$TM send-keys -t top s s
wait_for 'sort: samples' 50
both() { cap both.txt && grep -q 'since the start' both.txt &&
	grep -qE "$(row '[a-z_0-9]*(syscall|getppid|task_pid_nr|task_tgid)[a-z_0-9]*' '\[kernel\]')" both.txt &&
	grep -qE "$(row '.*' sysloop)" both.txt; }
check "terminal: kernel rows (do_syscall_64, getppid's or its __task_pid_nr_ns) and user rows both shown" poll 50 both
cp both.txt kernel-user.txt
keep kernel-user.txt
$TM send-keys -t top k
# a kernel DSO: [kernel] or a module's [name]; [vdso] is user code
kdso='\[[a-z0-9_]+\]'
user_only() { cap user.txt && grep -q 'show: user' user.txt &&
	! grep -E "$(row '.*' "$kdso")" user.txt | grep -qv '\[vdso\] *$' &&
	grep -qE "$(row '.*' sysloop)" user.txt; }
check "terminal: k: user only, no kernel row left" poll 50 user_only
$TM send-keys -t top k
kernel_only() { cap kernel.txt && grep -q 'show: kernel$' kernel.txt &&
	! grep -E '^ +[0-9]+ +[0-9.]+% ' kernel.txt | grep -vE "$kdso *\$" | grep -q . &&
	! grep -q '\[vdso\] *$' kernel.txt &&
	grep -qE "$(row '.*' '\[kernel\]')" kernel.txt; }
check "terminal: k again: kernel only" poll 50 kernel_only
$TM send-keys -t top q
wait_file rc.txt 300
check "terminal: q after the command's end: its status (0), the terminal restored" ended 0

# annotate after the end, since the start: its total is the header's (all the samples)
run "$EBS top -d 0.5 -- $LL 1"
wait_for 'the command exited \(status 0\): q quits' 300
$TM send-keys -t top c
wait_for '^since the start,' 50
cap since.txt
keep since.txt
total=$(grep -oE '^since the start, [0-9.]+-[0-9.]+ s: [0-9]+ samples' since.txt | awk '{ print $6 }')
$TM send-keys -t top a
check "terminal: annotate's total is the header's ($total samples since the start)" \
	poll 150 eval 'shown "^# event: .* of $total\$" && [ -n "$total" ]'
cp screen.now annotate-total.txt
keep annotate-total.txt
$TM send-keys -t top q
wait_for '^ebs top   every' 100
$TM send-keys -t top q
wait_file rc.txt 300
check "terminal: q after annotate at the end: its status, the terminal restored" ended 0

# SIGTERM: passed on to the command, the screen ends with it (no "exited" screen)
run "sh -c 'echo \$\$ >top.pid; exec $EBS top -d 0.5 -- $LL 600'"
wait_for "$(row leaf leafloop)" 150
kill -TERM "$(cat top.pid)"
wait_file rc.txt 300
check "terminal: SIGTERM ends it (the command's status: 143), the terminal restored" ended 143

# a terminal ncurses does not know: the tables on it, and one line saying so
run "TERM=nosuch $EBS top -n 1 -d 0.5 -- $LL 600 2>term.err"
wait_file rc.txt 150
cap term.txt
check "terminal: an unknown TERM gets the tables, said in one line" \
	sh -c "[ \"\$(cat rc.txt)\" = 130 ] && grep -q '^# interval 1: ' term.txt &&
	       grep -q \"^ebs top: the terminal 'nosuch' cannot be drawn on (TERM?): tables instead\" term.err &&
	       [ \$(grep -vc '^ebs top: event' term.err) -eq 1 ]"

# Ctrl-C is a key (raw mode): as q
run "$EBS top -d 0.5 -- $LL 600"
wait_for "$(row leaf leafloop)" 150
$TM send-keys -t top C-c
wait_file rc.txt 300
check "terminal: Ctrl-C quits as q does, the terminal restored" ended 130
exit 0
