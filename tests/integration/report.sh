#!/usr/bin/env bash
# report.sh - golden outputs of ebs report and ebs annotate.  The recording
# is made by mkdata from tests/report/golden.script, over a program
# assembled from tests/report/golden.s (fixed addresses, hand-written DWARF
# with one inlined call), so every count, percentage, interval and
# instruction in tests/report/expected/ is known in advance and was checked
# by hand when it was written; any change to the output shows as a diff.
# This run's directory and the checkout's are replaced by @TMP@ and @TOP@.
#
# After an intended change of output: UPDATE=1 make test TESTS=report
# rewrites the expected files, each reported as SKIP ("regenerated, not
# compared": nothing was checked); review them with git diff before committing.
. "$(dirname "$0")/../lib.sh"

MKDATA=$(dirname "$EBS")/tests/tools/mkdata
GOLD=$TOP/tests/report
EXPECTED=$GOLD/expected
# The JIT map's pid: above the largest pid_max (4194304), so never a live
# process's, and this run's own, so that runs at once (two checkouts, the
# sanitizer half beside the plain one) do not share /tmp/perf-PID.map.  Of
# the same seven digits and ending in 99 as 4194999, the pid of the expected
# listings, which it is replaced by (norm): the columns and elisions match.
JITMAP=
for _ in $(seq 100); do
	JITPID=$((4200000 + (RANDOM * 32768 + RANDOM) % 57000 * 100 + 99))
	# noclobber: created here, or another run's, and another pid is tried
	if (set -C && cat "$GOLD/jit.map" >"/tmp/perf-$JITPID.map") 2>/dev/null; then
		JITMAP=/tmp/perf-$JITPID.map
		break
	fi
done
trap '[ -z "$JITMAP" ] || rm -f "$JITMAP"; cleanup' EXIT
[ -n "$JITMAP" ] || { fail "the JIT map" "cannot create /tmp/perf-PID.map for a free PID"; exit 0; }

if ! as --64 -o golden.o "$GOLD/golden.s" 2>as.err ||
   ! ld -o golden -Ttext=0x401000 --build-id=none -e work golden.o 2>>as.err; then
	fail "build the golden program" "$(head -n 1 as.err)"
	exit 0
fi
mkdir src && cp "$GOLD/golden.c" src/
SRCMAP=/build/ebs-golden/a-long-source-directory=$TMP/src	# where DWARF says it is
sed -e "s|@GOLDEN@|$TMP/golden|; s|@JITPID@|$JITPID|g" "$GOLD/golden.script" |
	"$MKDATA" ebs.data || { fail "mkdata" "cannot write ebs.data"; exit 0; }

norm() { sed -i "s|$TMP|@TMP@|g; s|$TOP|@TOP@|g; s|\b$JITPID\b|4194999|g" "$1"; }

# golden NAME CMD...: CMD's stdout (paths normalised) equals expected/NAME.
golden() {
	local name=$1
	shift
	if ! "$@" >"$name.out" 2>"$name.err"; then
		fail "$name" "($*) exited nonzero: $(head -n 1 "$name.err")"
		return
	fi
	norm "$name.out"
	if [ -n "${UPDATE:-}" ]; then
		# nothing was compared: a rewritten file must not count as a pass
		if cp "$name.out" "$EXPECTED/$name"; then
			skip "$name" "regenerated, not compared"
		else
			fail "$name" "cannot rewrite tests/report/expected/$name"
		fi
	elif diff -u "$EXPECTED/$name" "$name.out" >"$name.diff"; then
		pass "$name"
	else
		keep "$name.out"
		fail "$name" "differs from tests/report/expected/$name: $(sed -n '4,12p' "$name.diff" | tr '\n' '|')"
	fi
}
# agolden: golden for a listing of instructions; a skip where ebs decodes none
agolden() {
	if [ -n "$NOASM" ]; then skip "$1" "$NOASM"; else golden "$@"; fi
}
R() { "$EBS" report --kallsyms "$GOLD/kallsyms" "$@"; }
# the kernel of the recording: the test's kallsyms, and no memory to read
A() { "$EBS" annotate --source-dir "$SRCMAP" --kallsyms "$GOLD/kallsyms" --kcore "$GOLD/no-kcore" "$@"; }

golden report.txt R
golden report-line.txt R -s line -e cycles
golden report-line.json R -s line -e cycles --json
golden report-line-func.txt R -s line,func -e cycles
golden report-no-inline.txt R -s line -e cycles --no-inline
golden report-dso-comm-pid.txt R -s dso,comm,pid -e cpu-clock
golden report-event.txt R -s event
golden report-width.txt R -s func,tid -e cycles --width 80 --min-percent 3
# an 80-column terminal: the interval off, or chosen columns only; the DSO
# column narrows before the function's
golden report-no-ci.txt R -s func,tid -e cycles --width 80 --no-ci
golden report-fields.txt R -e cycles --width 60 --fields percent,func
# too narrow for names and the interval: the interval goes, and says so
golden report-narrow-line.txt R -s line -e cycles --width 72
golden report-width-line.txt R -s line -e cycles --width 90 --min-percent 1
golden report-filter.txt R --pid 100 --tid 100 --comm golden --dso golden -e cycles
golden report-top.txt R -n 2 -e cycles
golden report-func.txt R --func work,jit_stub -e cycles -s func,tid
golden report-top-min.txt R -e cycles -n 20 --min-percent 3
golden report.json R --json -e cycles -s line

# ebs-report(1)'s examples of this recording are what ebs prints today
# (its --top 2 example once showed 1239 samples where the recording has 1251)
n=0
while IFS='	' read -r args mode shown; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the options are words
	R $args >man-$n.out 2>&1
	norm man-$n.out
	if [ "$mode" = json ]; then
		check "ebs-report(1)'s example $n (report $args) is its JSON" \
			[ "$(tr -d ' \t\n' <man-$n.out)" = "$(printf '%s' "$shown" | tr -d ' \t\n')" ]
	else
		printf '%s\n' "$shown" | tr '\t' '\n' >man-$n.shown
		check "ebs-report(1)'s example $n (report $args): its every line printed" \
			sh -c 'while IFS= read -r l; do grep -Fxq -- "$l" "$0" || { echo "not printed: $l"; exit 1; }; done <"$1"' \
			man-$n.out man-$n.shown
	fi
done <<EOF
$(python3 "$TOP/tests/tools/manexamples.py" "$TOP/docs/ebs-report.1")
EOF
check "ebs-report(1) has its examples of this recording (9)" [ "$n" -eq 9 ]

# the last line's hint is true: the options it names, added, show every row
# (--top 1 --min-percent 50 once said "--top 0 shows all", which still hid 7)
for opts in "-n 1 --min-percent 50" "-n 0 --min-percent 50" "-n 2" "--min-percent 10" \
	"-n 5 --min-percent 1" "-n 7 --min-percent 0.5"; do
	# shellcheck disable=SC2086 # the options are words
	hint=$(R -e cycles $opts | sed -n 's/^  ([0-9]* more rows\{0,1\}; \(.*\) shows all)$/\1/p')
	# shellcheck disable=SC2086
	check "report $opts: its hint ($hint) shows every row" \
		sh -c '[ -n "$1" ] && ! "$0" report --kallsyms "$2" -e cycles $3 $1 | grep -q "more row"' \
		"$EBS" "$hint" "$GOLD/kallsyms" "$opts"
done
golden report-color.txt R -e task-clock --color always
golden report-mux.json R --json -e task-clock

# --color auto (the default): colour on a terminal, none in a pipe or file
R -e task-clock >auto-pipe.out
check "--color auto in a pipe: no escape sequences" not grep -q $'\033' auto-pipe.out
script -qec "$EBS report --kallsyms $GOLD/kallsyms -e task-clock" /dev/null >auto-tty.out 2>&1
check "--color auto on a terminal: the percent coloured" grep -q $'\033\[31m  83.33%' auto-tty.out
golden annotate-work.txt A work
# a function inlined into itself (recursion): one function, its own lines
golden annotate-twice.txt A twice
golden annotate-no-inline.txt A work --no-inline
golden annotate-inlined.txt A helper
agolden annotate-asm.txt A work --asm
agolden annotate-skid.txt A work --asm --skid-adjust
agolden annotate-skid-source.txt A work --skid-adjust
agolden annotate-hottest.txt A -n 3 -C 1
# without kernel symbols, kernel samples are said in the closing line
golden annotate-nokallsyms.txt A -n 1 -C 0 --kallsyms /dev/null
golden annotate-file.txt A golden.c -C 1
golden annotate-file-line.txt A golden.c:13 -C 2
agolden annotate-file-asm.txt A golden.c --asm -C 0
golden annotate-file-no-inline.txt A golden.c --no-inline -C 0
golden annotate-color.txt A cold --color always
golden annotate-func.txt A --func cold,helper -C 0
golden annotate-html.html A work --html -
agolden annotate-html-asm.html A work --asm --html -
# the HTML view names whose other lines are, as the text view does
A work --no-inline --html - >html-owner.out
check "--html: another function's line named, as in text ([helper])" \
	grep -q 'helper.s own line \*/</pre><span class="inl">\[helper\]</span>' html-owner.out
A work --html /dev/stdout >html-stdout.out
norm html-stdout.out
check "--html /dev/stdout: the page, and /dev/stdout still a link" \
	sh -c '[ -L /dev/stdout ] && cmp -s html-stdout.out "$1"' sh "$EXPECTED/annotate-html.html"
A work --html page.html >/dev/null
norm page.html
check "--html FILE: the page, no temporary file left" \
	sh -c 'cmp -s page.html "$1" && ! ls -A | grep -q "^\.page\.html\."' sh "$EXPECTED/annotate-html.html"

# sources elsewhere: said so without --source-dir, found through a
# directory (by file name) as well as through OLD=NEW
agolden annotate-nosource.txt "$EBS" annotate cold
golden annotate-source-dir.txt "$EBS" annotate cold --source-dir "$GOLD"

# Samples standing for far fewer events than the counters counted (what
# -F 100000 gives when each interrupt costs more than its period) are said
# to be too few, with why: 10 samples of 100000 against 10,000,000 counted.
cat >few.script <<EOF2
event cpu-clock cpu-clock 100000
comm 100 100 golden
mmap 100 401000 1000 1000 $TMP/golden
$(for i in 1 2 3 4 5 6 7 8 9 10; do echo "sample 0 100 100 40100c 1"; done)
count 0 10000000 100000000 100000000 0 100
EOF2
"$MKDATA" few.data <few.script
R -i few.data >few.out 2>&1
check "report: samples standing for 10% of the counted events say so, and why" \
	grep -q '^# events: about 1000000 .*approximate: the samples stand for 10% of the counted events: the kernel took fewer samples than asked (throttled, or the interrupts cost more' few.out
R -i few.data --json >few.json
check "report --json: the same reason in estimate.why" \
	[ "$(json few.json "j['estimate']['approximate'] and 'stand for 10%' in j['estimate']['why']")" = 1 ]
# A run of a few samples: 4 of 1000000 against 4,600,000 counted (87%) is
# each thread's last period, cut short, not throttling: no such reason.
cat >short.script <<EOF2
event cpu-clock cpu-clock 1000000
comm 100 100 golden
mmap 100 401000 1000 1000 $TMP/golden
$(for i in 1 2 3 4; do echo "sample 0 100 100 40100c 1"; done)
count 0 4600000 100000000 100000000 0 100
EOF2
"$MKDATA" short.data <short.script
R -i short.data >short.out 2>&1
check "report: 4 samples standing for 87% of the counted events (a short run's cut period) are not said to be throttled" \
	not grep -q 'stand for' short.out

# Counting's one rule (count/rule.h): a task-clock counter that ran 950 us
# of its thread's 1 ms is its own total alone (a group of software events
# only, as ebs stat, calibrate and libebs count it), and scaled to 1052632
# in a group with a PMU event (instructions), which the kernel multiplexes
# whole (tests/unit/test-countmod.c holds the four readers to one number).
for group in alone with-pmu; do
	{
		[ $group = with-pmu ] && echo "event instructions instructions 1000000"
		echo "event task-clock task-clock 250000"
		echo "comm 100 100 golden"
		echo "mmap 100 401000 1000 1000 $TMP/golden"
		ev=0
		[ $group = with-pmu ] && ev=1
		echo "sample $ev 100 100 40100c 4"
		echo "count $ev 600000 1000000 500000 0 100"
		echo "count $ev 400000 1000000 450000 1 100"
	} >mux-$group.script
	"$MKDATA" mux-$group.data <mux-$group.script
	R -i mux-$group.data -e task-clock >mux-$group.out 2>&1
	R -i mux-$group.data -e task-clock --json >mux-$group.json 2>&1
done
check "report: a software group's counter that ran 95% of the time: its own total" \
	grep -qx "# counted: 1000000 (the counters' own total)" mux-alone.out
check "report: the same counter in a group with a PMU event: scaled" \
	grep -qx "# counted: about 1052632 (1000000 while the counters ran, 95.0% of the time, scaled to all of it)" mux-with-pmu.out
check "report --json: scaled with a PMU event, running_fraction 0.95, not alone" \
	[ "$(json mux-with-pmu.json "j['counted_scaled'] == 1052632 and j['running_fraction'] == 0.95")$(json mux-alone.json "'counted_scaled' in j")" = "10" ]

# One file mapped under two paths (as /lib and /usr/lib are one directory
# on Debian) is one DSO: one row by DSO, one per function, one in --stats.
mkdir -p lib-a && ln -s lib-a lib-b && cp "$WORKLOADS/libebshot.so" lib-a/
hot=$(nm -D lib-a/libebshot.so | awk '$3 == "shlib_hot" { print $1 }')
{
	echo "event cpu-clock cpu-clock 1000000"
	echo "comm 300 300 one"
	echo "mmap 300 7f0000001000 1000 1000 $TMP/lib-a/libebshot.so"
	echo "sample 0 300 300 $(printf %x $((0x7f0000000000 + 0x$hot + 4))) 30"
	echo "comm 301 301 two"
	echo "mmap 301 7f0000101000 1000 1000 $TMP/lib-b/libebshot.so"
	echo "sample 0 301 301 $(printf %x $((0x7f0000100000 + 0x$hot + 4))) 20"
} | "$MKDATA" twopaths.data
R -i twopaths.data -s dso --json >twopaths.json
check "one file under two paths: one DSO row with its 50 samples" \
	[ "$(json twopaths.json "[(r['dso'], r['samples']) for r in j['rows']] == [('libebshot.so', 50)]")" = 1 ]
R -i twopaths.data --json >twopaths-func.json
check "one file under two paths: one row for its function" \
	[ "$(json twopaths-func.json "[(r['function'], r['samples']) for r in j['rows']] == [('shlib_hot', 50)]")" = 1 ]
R -i twopaths.data --stats >twopaths-stats.txt
check "one file under two paths: one DSO in --stats" \
	[ "$(grep -cE '^ +[0-9]+ +[0-9.]+% +[0-9.]+% +.*/libebshot.so$' twopaths-stats.txt)" = 1 ]

# The same file under two names (a copy: the same build-id, one DSO): the
# frames of --children, flame graphs and exports are named by their
# mapping, and a chain takes the frames an address gave before only when
# its mapping has the same name.  The processes' samples come in turn.
cp lib-a/libebshot.so lib-a/other.so
{
	echo "event cpu-clock cpu-clock 1000000"
	echo "comm 300 300 one"
	echo "mmap 300 7f0000001000 1000 1000 $TMP/lib-a/libebshot.so"
	echo "sample 0 300 300 $(printf %x $((0x7f0000000000 + 0x$hot + 4))) 30"
	echo "comm 301 301 two"
	echo "mmap 301 7f0000101000 1000 1000 $TMP/lib-a/other.so"
	echo "sample 0 301 301 $(printf %x $((0x7f0000100000 + 0x$hot + 4))) 20"
	echo "sample 0 300 300 $(printf %x $((0x7f0000000000 + 0x$hot + 4))) 5"
} | "$MKDATA" twonames.data
R -i twonames.data --children --json >twonames.json
check "one file under two names: --children, a row per name" \
	[ "$(json twonames.json "[(r['function'], r['dso'], r['samples']) for r in j['rows']]")" = "[('shlib_hot', 'libebshot.so', 35), ('shlib_hot', 'other.so', 20)]" ]

# One address sampled in runs by two processes, a thread of one, two names
# of one process and two events.  report counts a sample of an address
# already seen into the row the last one went to, for as long as its pid,
# tid, command and event are the same: the rows of each column must still
# keep them apart.
cat >runs.script <<EOF2
event cpu-clock cpu-clock 1000000
event task-clock task-clock 1000000
comm 400 400 alpha
mmap 400 401000 1000 1000 $TMP/golden
comm 401 401 beta
mmap 401 401000 1000 1000 $TMP/golden
sample 0 400 400 40100c 3
sample 0 401 401 40100c 2
sample 0 400 402 40100c 1
sample 0 400 400 40100c 1
comm 400 400 gamma
sample 0 400 400 40100c 4
sample 1 400 400 40100c 5
EOF2
"$MKDATA" runs.data <runs.script
# runs KEYS PYTHON: the rows of --sort KEYS,func --json as sorted tuples of PYTHON over r
runs() {
	R -i runs.data -s "$1",func --json >runs.json &&
		json runs.json "sorted(tuple(($2) + (r['function'], r['samples'])) for r in j['rows'])"
}
check "runs of one address: by pid, 9 and 2 samples" \
	[ "$(runs pid "r['pid'],")" = "[(400, 'work', 9), (401, 'work', 2)]" ]
check "runs of one address: by tid, the thread's 1 apart" \
	[ "$(runs tid "r['tid'],")" = "[(400, 'work', 8), (401, 'work', 2), (402, 'work', 1)]" ]
check "runs of one address: by command, the process renamed in the run" \
	[ "$(runs comm "r['comm'],")" = "[('alpha', 'work', 5), ('beta', 'work', 2), ('gamma', 'work', 4)]" ]
check "runs of one address: by event, one table" \
	[ "$(runs event "r['event'],")" = "[('cpu-clock', 'work', 11), ('task-clock', 'work', 5)]" ]
check "runs of one address: by pid, tid, command and event" \
	[ "$(runs pid,tid,comm,event "r['pid'], r['tid'], r['comm'], r['event']")" = "[(400, 400, 'alpha', 'cpu-clock', 'work', 4), (400, 400, 'gamma', 'cpu-clock', 'work', 4), (400, 400, 'gamma', 'task-clock', 'work', 5), (400, 402, 'alpha', 'cpu-clock', 'work', 1), (401, 401, 'beta', 'cpu-clock', 'work', 2)]" ]

# the JSON is JSON, and its numbers agree with the text
check "--json parses; rows sum to the samples less none" \
	[ "$(json report.json.out "sum(r['samples'] for r in j['rows']) == j['samples'] == 1251")" = 1 ]
check "--json: the hot line's interval holds its percentage" \
	[ "$(json report.json.out "j['rows'][0]['ci95'][0] < j['rows'][0]['percent'] < j['rows'][0]['ci95'][1]")" = 1 ]

# errors: one line naming the input and the target, exit status 2
A nosuch >err.out 2>err.txt
rc=$?
check "annotate of a function without samples: exit 2" [ $rc -eq 2 ]
check "annotate of a function without samples: one line naming it" \
	sh -c "[ \$(wc -l <err.txt) -eq 1 ] && grep -q \"ebs.data: no function 'nosuch' with samples (the hottest: work\" err.txt"
check "annotate of a function without samples: nothing on stdout" [ ! -s err.out ]
A nosuch.c:3 >/dev/null 2>err.txt
check "annotate of a file without samples: one line naming it" \
	sh -c "[ \$(wc -l <err.txt) -eq 1 ] && grep -q \"no source file 'nosuch.c:3' with samples\" err.txt"
R --fields pid >/dev/null 2>err.txt
rc=$?
check "report --fields of a column the table lacks: exit 2, one line naming it" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <err.txt) -eq 1 ] && grep -q 'fields pid: not a column' err.txt"
R -s line --fields percent,func >/dev/null 2>err.txt
rc=$?
check "report --fields without the --sort key's column: exit 2, one line saying why" \
	sh -c "[ $rc -eq 2 ] && [ \$(wc -l <err.txt) -eq 1 ] && grep -q 'keyed by line: without it they cannot be told apart' err.txt"
R --fields samples,nosuch >/dev/null 2>err.txt
check "report --fields with an unknown field: one line naming it" \
	sh -c "[ \$(wc -l <err.txt) -eq 1 ] && grep -q \"fields 'nosuch'\" err.txt"
R -s nokey >/dev/null 2>err.txt
check "report --sort with an unknown key: one line naming it" \
	sh -c "[ \$(wc -l <err.txt) -eq 1 ] && grep -q nokey err.txt"
A work --html /nonexistent/dir/x.html >/dev/null 2>err.txt
rc=$?
check "annotate --html into a missing directory: exit 1, one line naming the file" \
	sh -c "[ $rc -eq 1 ] && [ \$(wc -l <err.txt) -eq 1 ] && grep -q /nonexistent/dir/x.html err.txt"
for cmd in R A; do
	$cmd >/dev/full 2>err.txt
	rc=$?
	check "$cmd to a full disk (/dev/full): exit 1, one line" \
		sh -c "[ $rc -eq 1 ] && [ \$(wc -l <err.txt) -eq 1 ] && grep -q 'standard output: write failed' err.txt"
done
