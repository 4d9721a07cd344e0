#!/usr/bin/env bash
# serial: sets /proc/sys/kernel/perf_event_paranoid, which other tests read
# unpriv.sh - ebs run by an unprivileged user (nobody), under each
# kernel.perf_event_paranoid level that matters: the kernel's reason and the
# setting to change in one line, or (level 2) user-space-only sampling with a
# notice, as perf does; never a crash.  The level is restored afterwards.
. "$(dirname "$0")/../lib.sh"

P=/proc/sys/kernel/perf_event_paranoid
if [ "$(id -u)" -ne 0 ]; then
	skip "all" "needs root to change $P and to drop to nobody"
	exit 0
fi
orig=$(cat $P)
if ! echo "$orig" >$P 2>/dev/null; then
	skip "all" "$P is not writable here"
	exit 0
fi
trap 'echo "$orig" >$P; cleanup' EXIT
chmod 777 "$TMP"
# nobody's copies (for_nobody: the checkout may be out of nobody's reach)
L=$(for_nobody "$WORKLOADS/leafloop") && CT=$(for_nobody "$WORKLOADS/calltree") &&
	for_nobody "$EBS" >/dev/null || { fail "all" "cannot stage the programs for nobody"; exit 0; }

echo 2 >$P
nobody_ebs record -e cpu-clock -F 1000 -o u2.data "$L" 0.2 2>u2.err
check "paranoid 2, cpu-clock: records user space (exit 0)" [ $? -eq 0 ]
check "paranoid 2, cpu-clock: one notice naming the setting" \
	grep -q "event 'cpu-clock' may not sample kernel code here (kernel.perf_event_paranoid is 2.*sampling 'cpu-clock:u' instead" u2.err
# root reads nobody's recording in a directory others can write only when
# told to (docs/security.md, "Recordings others put at the name")
"$EBS" report -i u2.data --json >u2.json 2>u2r.err
check "paranoid 2: root's report of nobody's recording here is refused without --force ($(head -c 160 u2r.err))" \
	grep -q "u2.data: not read: a file owned by nobody (uid 65534), in a directory others can write (use --force" u2r.err
"$EBS" report -i u2.data --force --json >u2.json
check "paranoid 2: the file says cpu-clock:u, asked cpu-clock" \
	[ "$(json u2.json "j['event'] + ' ' + j['asked']")" = "cpu-clock:u cpu-clock" ]
# cpu-clock:u: user space only, where leaf has ~99% (groundtruth.sh)
check "paranoid 2: leaf dominates" [ "$(json u2.json "j['rows'][0]['function']")" = leaf ]

# the default event (cycles): without a PMU the fall-back to cpu-clock:u
# says both why :u (the paranoid level) and why cpu-clock (no counter)
nobody_ebs record -F 1000 -o ud.data "$L" 0.2 2>ud.err
rc=$?
check "paranoid 2, default event: exit 0 ($rc), one notice naming the paranoid level ($(head -c 200 ud.err | tr '\n' ' '))" \
	[ $rc -eq 0 -a "$(grep -c 'kernel.perf_event_paranoid is 2: kernel code is not sampled' ud.err)" -eq 1 ]
check "paranoid 2, default event: the notice names cycles as asked (not the cycles:u retried), then cpu-clock:u or cycles:u" \
	grep -Eq "^ebs record: event 'cycles' (cannot be opened: .*; sampling 'cpu-clock:u' instead \(kernel\.perf_event_paranoid is 2|may not sample kernel code here .*; sampling 'cycles:u' instead)" ud.err
if grep -q "cannot be opened" ud.err; then
	"$EBS" report -i ud.data --force 2>/dev/null | head -n 1 >ud.head
	check "paranoid 2, no PMU: the file's reasons in the notice's order, why not cycles, then why :u ($(cut -c1-120 ud.head))" \
		grep -Eq "asked for cycles: [^;]*no hardware counter.*; kernel\.perf_event_paranoid is 2" ud.head
fi
check "paranoid 2, default event: the file's event is user space only" \
	jtrue <("$EBS" report -i ud.data --force --json) "j['event'].endswith(':u')"

# call chains of one's own process: user registers and stack may be copied
for mode in fp dwarf; do
	nobody_ebs record -q --call-graph $mode -e cpu-clock:u -F 1000 -o g$mode.data \
		"$CT" 0.2 2>g$mode.err
	check "paranoid 2, --call-graph $mode of one's own command: exit 0, quiet" \
		[ $? -eq 0 -a ! -s g$mode.err ]
	nobody_ebs report -i g$mode.data --children --json >g$mode.json 2>g$mode.rerr
	check "paranoid 2, --call-graph $mode: tree_left in the chains, read as nobody" \
		jtrue g$mode.json "any(r['function'] == 'tree_left' and r['children'] > 0 for r in j['rows'])"
done

nobody_ebs record --no-fallback -e cpu-clock -o nf.data "$L" 0.1 2>nf.err
check "paranoid 2, --no-fallback: exit 1" [ $? -eq 1 ]
check "paranoid 2, --no-fallback: one line: reason, level and the sysctl" \
	bash -c "[ \$(wc -l <nf.err) -eq 1 ] && grep -q 'Permission denied.*kernel.perf_event_paranoid is 2.*sysctl kernel.perf_event_paranoid=1' nf.err"

nobody_ebs record -a -e cpu-clock -o a.data -- sleep 0.1 2>a.err
check "paranoid 2, -a: exit 1" [ $? -eq 1 ]
check "paranoid 2, -a: one line naming -a and the level it needs" \
	bash -c "[ \$(wc -l <a.err) -eq 1 ] && grep -q 'all CPUs.*Permission denied.*-a) needs 0 or less' a.err"
check "paranoid 2, -a: no output file" [ ! -e a.data ]

# -p of a process the user may not trace (root's), alive until killed below
# (300 s is only a bound): the checks in between may take long on a busy
# machine.
"$WORKLOADS/sleeper" 300 >s.pid &
spid=$!
wait_line s.pid
nobody_ebs record -e cpu-clock:u -p $spid -o p.data 2>p.err
check "unprivileged -p of root's process: exit 1" [ $? -eq 1 ]
check "unprivileged -p of root's process: one line naming the pid and why" \
	bash -c "[ \$(wc -l <p.err) -eq 1 ] && grep -q 'pid $spid.*no permission to trace' p.err"
nobody_ebs record -e cpu-clock -p $spid -o p2.data 2>p2.err
check "unprivileged -p of root's process without :u: one line, no :u fallback notice" \
	bash -c "[ \$(wc -l <p2.err) -eq 1 ] && grep -q 'pid $spid.*no permission to trace' p2.err"
echo 1 >$P
nobody_ebs record -e cpu-clock:k -o k.data "$L" 0.1 2>k.err
check "paranoid 1, :k: sampling the kernel is allowed" [ $? -eq 0 ]
echo 2 >$P
nobody_ebs record -e cpu-clock:k -o k.data "$L" 0.1 2>k.err
check "paranoid 2, :k: one line, needs 1, no advice to add :u" \
	bash -c "[ \$(wc -l <k.err) -eq 1 ] && grep -q 'sampling kernel code needs 1 or less' k.err && ! grep -q 'add :u' k.err"
kill $spid 2>/dev/null
wait $spid 2>/dev/null

# Level 3 forbids everything on kernels with Debian's patch; elsewhere it acts as 2.
echo 3 >$P
nobody_ebs record -e cpu-clock:u -o u3.data "$L" 0.1 2>u3.err
rc=$?
if [ $rc -eq 0 ]; then
	skip "paranoid 3" "this kernel treats level 3 like 2 (no Debian patch): user space may be sampled"
else
	check "paranoid 3: exit 1" [ $rc -eq 1 ]
	check "paranoid 3: one line with the sysctl to run" \
		bash -c "[ \$(wc -l <u3.err) -eq 1 ] && grep -q 'kernel.perf_event_paranoid is 3.*sysctl kernel.perf_event_paranoid=2' u3.err"
fi

# Reading: report and annotate as nobody, of a file nobody may read and of
# one it may (u2.data is nobody's own).
chmod 600 u2.data && chown root u2.data
nobody_ebs report -i u2.data >ur.out 2>ur.err
rc=$?
check "report of an unreadable file as nobody: exit nonzero, one line naming it" \
	bash -c "[ $rc -ne 0 ] && [ \$(wc -l <ur.err) -eq 1 ] && grep -q 'u2.data.*[Pp]ermission denied' ur.err && [ ! -s ur.out ]"
nobody_ebs annotate -i u2.data leaf >ua.out 2>ua.err
rc=$?
check "annotate of an unreadable file as nobody: exit nonzero, one line naming it" \
	bash -c "[ $rc -ne 0 ] && [ \$(wc -l <ua.err) -eq 1 ] && grep -q 'u2.data.*[Pp]ermission denied' ua.err && [ ! -s ua.out ]"
chmod 644 u2.data
nobody_ebs annotate -i u2.data leaf --color never >ua2.out 2>ua2.err
check "annotate as nobody of a readable file: leaf's source" grep -q '^# annotate: leaf ' ua2.out
