# tests/lib.sh - sourced by every integration test (tests/integration/*.sh).
#
# Each test prints "PASS: name", "FAIL: name: why" or "SKIP: name: why"
# lines, which tests/run.sh counts.  The environment comes from run.sh:
# EBS (the binary), WORKLOADS (built workloads), ARTEFACTS, TOP.
#
# Sampling rates stay at a few kHz and workloads at a fraction of a second:
# interrupts are expensive in the VMs this runs on.
set -u
: "${EBS:?run through tests/run.sh}" "${WORKLOADS:?}" "${ARTEFACTS:?}"

T=$(basename "$0" .sh)
TMP=$(mktemp -d "/tmp/ebs-test-$T.XXXXXX")
chmod 755 "$TMP"
trap cleanup EXIT
cd "$TMP" || exit 1

pass() { echo "PASS: $T: $1"; }
fail() { local n=$1; shift; echo "FAIL: $T: $n: $*"; FAILED=1; }

# cleanup: at the end (the EXIT trap; a test that sets its own calls it
# last): $TMP removed, unless KEEP is set; after a failure its files (each
# below 50 MB) are kept first, in $TEST_LOGS/$T.files/ beside the test's
# log (tests/run.sh sets TEST_LOGS: build/test-logs), and named.
cleanup() {
	if [ -n "${FAILED:-}" ] && [ -n "${TEST_LOGS:-}" ] && [ -d "$TMP" ]; then
		local dst=$TEST_LOGS/$T.files
		mkdir -p "$dst" &&
			(cd "$TMP" && find . -type f -size -50M -exec cp --parents -t "$dst" {} + 2>/dev/null)
		echo "# $T failed: its files are kept in $dst"
	fi
	[ -n "${KEEP:-}" ] || rm -rf "$TMP"
}
skip() { local n=$1; shift; echo "SKIP: $T: $n: $*"; }

# check NAME CMD...: pass when CMD succeeds.
check() {
	local name=$1
	shift
	if "$@"; then pass "$name"; else fail "$name" "($*) failed"; fi
}

# NOASM: why this ebs decodes no instructions (built without capstone:
# NO_CAPSTONE=1 or no libcapstone-dev), "" when it does.  acheck NAME CMD...:
# a check of decoded instructions, a skip saying why in such a build.
NOASM=$("$EBS" annotate -i /nonexistent --asm 2>&1 | grep -o 'this ebs was built without a disassembler.*')
acheck() {
	if [ -n "$NOASM" ]; then skip "$1" "$NOASM"; else check "$@"; fi
}

# quiet CMD...: run CMD with its output thrown away (for check's CMD).
quiet() { "$@" >/dev/null 2>&1; }

# not CMD...: succeed when CMD fails (for check's CMD).
not() { ! "$@"; }

# Keep a file for whoever reads the test artefacts.
keep() { cp -f "$1" "$ARTEFACTS/$T-$(basename "$1")" 2>/dev/null; }

# json FILE EXPR: evaluate a Python expression over the JSON object j in FILE.
json() {
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
r = eval(sys.argv[2])
print(r if not isinstance(r, bool) else int(r))' "$1" "$2"
}

# jtrue FILE EXPR: succeed when EXPR (over the JSON object j) is true (for check).
jtrue() { [ "$(json "$1" "bool($2)")" = 1 ]; }

# share FILE FUNCTION: samples of FUNCTION in a --json report, and the total,
# as "samples total".
share() {
	json "$1" "'%d %d' % (sum(r['samples'] for r in j['rows'] if r.get('function') == '$2'), j['samples'])"
}

# ushare FILE FUNCTION: samples of FUNCTION in a --json report, and the
# samples in user space (all but the rows of [kernel] and of [MODULE]s), as
# "samples user_total".  A user-space workload's kernel share is mostly what
# the machine's interrupts cost (the sampling timer's own among them: 1-2%
# on a KVM guest, 5-10% under QEMU's emulation), not the workload's doing.
ushare() {
	json "$1" "'%d %d' % (sum(r['samples'] for r in j['rows'] if r.get('function') == '$2'), j['samples'] - sum(r['samples'] for r in j['rows'] if r['dso'] == '[kernel]' or (r['dso'].startswith('[') and r['dso'] not in ('[vdso]', '[vsyscall]', '[unknown]'))))"
}

# within GOT WANT TOL: |GOT - WANT| <= TOL (floating point).
within() {
	python3 -c 'import sys; g, w, t = map(float, sys.argv[1:4]); sys.exit(0 if abs(g - w) <= t else 1)' "$1" "$2" "$3"
}

# at_least GOT MIN (floating point).
at_least() {
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= float(sys.argv[2]) else 1)' "$1" "$2"
}

# expect NAME STATUS PATTERN CMD...: CMD exits with STATUS within 60 s (a
# hang guard: it is killed after that) and prints exactly one line on
# stderr, matching the extended regex PATTERN; its stdout goes to out.txt.
expect() {
	local name=$1 want=$2 pat=$3 rc
	shift 3
	timeout -s KILL 60 "$@" >out.txt 2>err.txt
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name" "exit status $rc, want $want; stderr: $(head -c 300 err.txt)"
	elif [ "$(wc -l <err.txt)" -ne 1 ]; then
		fail "$name" "want one line on stderr, got $(wc -l <err.txt): $(head -c 300 err.txt)"
	elif ! grep -qE -e "$pat" err.txt; then
		fail "$name" "stderr '$(cat err.txt)' does not match '$pat'"
	else
		pass "$name"
	fi
}

# expect_code NAME STATUS CODE CMD...: as expect, run with EBS_ERROR_CODES=1,
# the one line on stderr ending with " [CODE]": the failure's code from
# util/error.h's table (EBS_E_NOT_EBS_DATA...), whatever its words say.
expect_code() {
	local name=$1 want=$2 code=$3
	shift 3
	EBS_ERROR_CODES=1 expect "$name" "$want" " \[$code\]\$" "$@"
}

# coded NAME FILE CODE: FILE (stderr of a command run with
# EBS_ERROR_CODES=1) is exactly one line, a warning of code CODE.
coded() {
	check "$1: one warning line, code $3 (got '$(head -c 300 "$2")')" \
		bash -c '[ "$(wc -l <"$1")" -eq 1 ] && grep -qE -e "^ebs [a-z0-9]+: warning: .* \[$2\]\$" "$1"' \
		sh "$2" "$3"
}

# one_line FILE: the file holds exactly one line.
one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }

# Record quietly into $1, the rest being ebs record arguments; stderr into $1.err.
record() {
	local out=$1
	shift
	"$EBS" record -q -o "$out" "$@" 2>"$out.err"
}

# perf_rec OUT ARGS...: perf record (the oracle) into OUT, up to 3 tries;
# its error in OUT.err.  perf 6.1 now and then aborts ("assertion failed at
# util/build-id.c:1010") under load, seen in linkers and merge; -N: no
# build-id cache (~/.debug), which concurrent runs share.
perf_rec() {
	local out=$1 i
	shift
	for i in 1 2 3; do
		perf record -q -N -o "$out" "$@" >/dev/null 2>"$out.err" && return 0
	done
	return 1
}

# sqlite_build [NAME]: SQLWORK, the path of tests/real's SQLite driver, built
# by tests/real/build-sqlite.sh (SQLite's sources and sqlite3.o beside it in
# build/real-cache), and true; else one SKIP line (no SQLite to fetch) or
# FAIL line saying why, named NAME (default: "all", and "build"), and false.
sqlite_build() {
	local rc
	SQLWORK=$("$TOP/tests/real/build-sqlite.sh" 2>build.err)
	rc=$?
	sed 's/^/    /' build.err
	if [ $rc -eq 77 ]; then
		skip "${1:-all}" "no SQLite to build: $(tail -n 1 build.err)"
	elif [ $rc -ne 0 ] || [ ! -x "$SQLWORK" ]; then
		fail "${1:-build}" "tests/real/build-sqlite.sh failed: $(tail -n 1 build.err)"
	else
		return 0
	fi
	return 1
}

# The user that unprivileged tests drop to.
NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
# can_play_nobody WHAT WHY: whether this run can drop to nobody; else one
# SKIP line for WHAT (WHY: what root is needed for) and false
can_play_nobody() {
	if [ "$(id -u)" -ne 0 ]; then
		skip "$1" "needs root, $2"
		return 1
	fi
	if ! $NOBODY true 2>/dev/null; then
		skip "$1" "setpriv cannot drop to uid 65534 here"
		return 1
	fi
}

# for_nobody FILE: prints the path of a copy of FILE that nobody may read
# and run, in $TMP/for-nobody (0755, made at the first call; $TMP is in
# /tmp, 0755 or more).  The checkout may be out of nobody's reach (a clone
# under /root, a 0700 home, `mktemp -d`), and with it $EBS, $WORKLOADS,
# build/real-cache and $TOP's scripts: whatever of those a test has nobody
# run or read, it gives nobody this copy of.  (setpriv itself may still
# exec a program nobody cannot reach, but what that program then opens or
# runs as nobody fails.)  Fails, saying why on stderr, when the copy cannot
# be made, when another file of that name was copied already, or when a
# program's copy would load a library from the checkout or find none (ebs
# links its modules statically; shlib finds libebshot.so beside it: stage
# that first).
for_nobody() {
	local dir=$TMP/for-nobody dst
	dst=$dir/$(basename "$1")
	if [ ! -e "$dst" ]; then
		{ [ -d "$dir" ] || mkdir -m 755 "$dir"; } && cp "$1" "$dst" && chmod a+rX "$dst" ||
			{ echo "for_nobody: cannot copy $1 into $dir" >&2; return 1; }
		if ldd "$dst" 2>/dev/null | grep -qF -e "$TOP/" -e "not found"; then
			echo "for_nobody: $1 loads a library nobody may not reach: $(ldd "$dst" | grep -F -e "$TOP/" -e "not found" | head -n 1)" >&2
			rm -f "$dst"
			return 1
		fi
	elif ! cmp -s "$1" "$dst"; then
		echo "for_nobody: $dst is a copy of another $(basename "$1")" >&2
		return 1
	fi
	printf '%s\n' "$dst"
}

# nobody_ebs ARG...: ebs run as nobody, the copy of $EBS that nobody may
# run (for_nobody).  A function: what runs a program (expect, timeout,
# ebs record's command) is given $NOBODY "$(for_nobody "$EBS")" instead.
nobody_ebs() {
	local e
	e=$(for_nobody "$EBS") || return 126
	$NOBODY "$e" "$@"
}

# ---- samples: counts, statistics, waiting ---------------------------------
# The rules these follow are in docs/testing.md.  In short: no sample count
# is expected from a rate times a time.  A timer interrupt that comes late
# (a loaded host, a virtual machine, a coarse clock) makes the kernel skip
# the periods it missed, so a machine may deliver far fewer samples than
# periods; no ABI promises otherwise.  What the kernel does guarantee is the
# other direction (periods_bound).  Workloads run for a given CPU time, never
# wall-clock time, so a loaded machine only makes them take longer.

# dumpcount DUMP [EVENT]: of event EVENT (default 0) in `ebs report --dump`
# output, "samples period_sum max_period counted counters tasks": the SAMPLE
# records, the sum and largest of their periods, the sum of the COUNT
# records' values, how many COUNT records, and how many distinct threads
# the file names.
dumpcount() {
	awk -v ev="${2:-0}" '
	function field(k,   i) { for (i = 3; i < NF; i++) if ($i == k) return $(i + 1); return "" }
	$2 == "SAMPLE" && field("event") == ev {
		n++; p = field("period"); sum += p; if (p + 0 > max) max = p + 0
	}
	$2 == "COUNT" && field("event") == ev { counted += field("value"); counters++ }
	$2 == "SAMPLE" || $2 == "COMM" || $2 == "FORK" || $2 == "EXIT" { tids[field("tid")] = 1 }
	END { t = 0; for (k in tids) t++; printf "%d %.0f %.0f %.0f %d %d\n", n, sum, max, counted, counters, t }' "$1"
}

# periods_bound NAME DUMP [EVENT]: the samples stand for no more events than
# the counters counted.  The kernel writes a sample when a counter has
# counted a whole period (for cpu-clock and task-clock: when the hrtimer of
# the period expires while the task runs), so each counter of each thread
# gives at most counted/period samples, plus one where its hrtimer's clock
# and the count's clock (CLOCK_MONOTONIC and sched_clock: both the TSC,
# NTP slewing at most 0.05%) differ at the edge: period_sum <= 1.01 *
# counted + tasks * counters * max_period.  This holds on any machine; the
# opposite bound (about as many samples as periods) does not.
periods_bound() {
	local s sum max counted counters tasks
	read -r s sum max counted counters tasks < <(dumpcount "$2" "${3:-0}")
	check "$1: $s samples stand for $sum events, counters counted $counted ($counters counters, $tasks threads)" \
		awk "BEGIN { exit !($s > 0 && $sum <= 1.01 * $counted + $tasks * $counters * $max) }"
}

# enough NAME N MIN: true when N >= MIN; else a SKIP line for NAME, saying
# that this machine delivered too few samples for the check to mean
# anything (its timer interrupts come late: see above), and false.
enough() {
	[ "$2" -ge "$3" ] && return 0
	skip "$1" "only $2 samples, $3 needed for this check to mean anything (this machine's timer delivered few)"
	return 1
}

# near NAME K N P [SLACK]: K of N samples is a share P, within 5 binomial
# standard deviations, 5 * sqrt(P(1-P)/N), plus SLACK (default 0.01) for
# what the workload's construction leaves uneven (named at each use).  A
# false alarm needs a 5 sd deviation: about 1 run in 1.7 million.
near() {
	local name=$1 k=$2 n=$3 p=$4 slack=${5:-0.01} tol got
	[ "$n" -gt 0 ] || n=1
	tol=$(awk "BEGIN { printf \"%.3f\", 5 * sqrt($p * (1 - $p) / $n) + $slack }")
	got=$(awk "BEGIN { printf \"%.3f\", $k / $n }")
	check "$name: $k of $n is $got, want $p +- $tol" awk "BEGIN { d = $got - $p; exit !(d <= $tol && -d <= $tol) }"
}

# cpu_ticks PID: the CPU time PID has used, in clock ticks (user + system,
# fields 14 and 15 of /proc/PID/stat; the name in field 2 may hold spaces).
cpu_ticks() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	echo $((${12} + ${13}))
}

# wait_cpu PID SECONDS: wait until PID has used SECONDS more CPU time, so
# that what it did is set by CPU time, whatever the load.  False when PID
# ends first or makes no progress for 300 s (a hang guard only).
wait_cpu() {
	local start now last want i=0
	start=$(cpu_ticks "$1") || return 1
	want=$(awk -v s="$start" -v t="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%d", s + t * hz + 0.999 }')
	last=$start
	while now=$(cpu_ticks "$1"); do
		[ "$now" -ge "$want" ] && return 0
		if [ "$now" = "$last" ]; then i=$((i + 1)); else i=0; last=$now; fi
		[ $i -ge 3000 ] && return 1
		sleep 0.1
	done
	return 1
}

# wait_polling EBSPID: wait until ebs record waits in poll(2) for samples,
# which it reaches only once its counters are open and enabled (-p, -a).
# x86-64's poll is system call 7 (ppoll: 271).  Where /proc/PID/syscall
# cannot be read (Yama's ptrace_scope 3 refuses even root), ebs holding
# perf_event descriptors and sleeping for three looks 0.1 s apart stands in.
# False when ebs is gone or after 300 s (a hang guard only).
wait_polling() {
	local i sleeping=0 sc
	for i in $(seq 3000); do
		[ -d "/proc/$1" ] || return 1
		if sc=$(cat "/proc/$1/syscall" 2>/dev/null); then
			case "$sc" in "7 "* | "271 "*) return 0 ;; esac
		elif ls -l "/proc/$1/fd" 2>/dev/null | grep -q 'perf_event' &&
		     [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = S ]; then
			sleeping=$((sleeping + 1))
			[ $sleeping -ge 3 ] && return 0
		else
			sleeping=0
		fi
		sleep 0.1
	done
	return 1
}

# wait_until SECONDS CMD...: wait until CMD succeeds, trying every 0.05 s;
# false after SECONDS (a hang guard only: minutes, many times what the
# wait takes on a loaded machine).  What a test waits for is a condition,
# never a time (docs/testing.md, rule 4).
wait_until() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.05
	done
}

# wait_line FILE: wait until FILE holds a line (a workload's pid, say); false
# after 300 s (a hang guard only).
wait_line() { wait_until 300 grep -q . "$1" 2>/dev/null; }

# runs_as PID COMM: PID is alive and its command name is COMM (it has
# exec'd COMM).  child_runs PID COMM: a child of PID runs COMM; its pid in
# CHILD.  For wait_until: a command under ebs stat or record has been
# exec'd, so ebs's counters are open and counting.
runs_as() { [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]; }
child_runs() {
	local c
	for c in $(pgrep -P "$1"); do
		runs_as "$c" "$2" && CHILD=$c && return 0
	done
	return 1
}

# ---- a terminal, under tmux (monitor.sh, top.sh) ------------------------------
# tmux_session NAME COLS ROWS: a tmux server of the test's own ($TM: tmux on
# its own socket), with one session NAME of COLS x ROWS running bash (prompt
# "$ ") in $TMP, its server killed at the end (the EXIT trap, then cleanup;
# a test that needs more there sets its own trap after this)
tmux_session() {
	TM="tmux -L ebs-$T-$$ -f /dev/null"
	PANE=$1
	trap '$TM kill-server 2>/dev/null; cleanup' EXIT
	$TM new-session -d -s "$1" -x "$2" -y "$3" "env PS1='$ ' bash --norc --noprofile"
	$TM send-keys -t "$1" "cd $TMP" Enter
}
# cap FILE: the screen of the pane into FILE
cap() { $TM capture-pane -p -t "$PANE" >"$1"; }
# poll TENTHS CMD...: CMD every 0.1 s until it succeeds, at most TENTHS times
poll() {
	local n=$1 i
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
# shown ERE: a capture (into screen.now) with the ERE; wait_for ERE [TENTHS]
# and wait_file FILE [TENTHS] (not empty): polled, 10 s by default
shown() { cap screen.now && grep -qE -e "$1" screen.now; }
wait_for() { poll "${2:-100}" shown "$1"; }
wait_file() { poll "${2:-100}" test -s "$1"; }
