#!/usr/bin/env bash
# names.sh - the command names of ebs report: pid 0 is swapper, a process
# forked during the recording has its parent's name until it execs or
# renames itself, a renamed process its new name from the rename on, a
# kernel thread started during an -a recording its own name (the kernel
# reports none: ebs record reads it from /proc), an unknown name is :PID,
# and --comm with any name the comm column shows selects exactly the
# samples of its row.
. "$(dirname "$0")/../lib.sh"

MKDATA=$(dirname "$EBS")/tests/tools/mkdata

# rows FILE [NAME...]: "SAMPLES<tab>COMM" per row of a --sort comm --json
# report, COMM as the text report shows it (a null comm as ??); with NAMEs,
# only their rows and those of unknown names (":PID", ??).
rows() {
	python3 -c 'import json,sys
for r in json.load(open(sys.argv[1]))["rows"]:
	c = "??" if r["comm"] is None else r["comm"]
	if len(sys.argv) == 2 or c in sys.argv[2:] or c.startswith(":") or c == "??":
		print("%d\t%s" % (r["samples"], c))' "$@"
}

# named FILE: no row of the --json report has a null comm or ??.
named() { ! grep -qE '"comm":(null|"\?\?")' "$1"; }

# total: the samples of the --json report on stdin (its first "samples"
# key is the report's own, before the rows).  No python: each python3 start
# costs a second on a busy machine.
total() { grep -o '"samples":[0-9]*' | head -n 1 | cut -d: -f2; }

# names_select FILE [NAME...]: for each row of --sort comm (or those that
# rows picks), --comm with its text selects as many samples as the row has;
# prints the rows that do not.  Fails when there is no row to check.
names_select() {
	local file=$1 n name got bad=0 seen=0
	shift
	"$EBS" report -i "$file" --sort comm --json >"$file.comm.json" 2>/dev/null || return 1
	while IFS=$'\t' read -r n name; do
		seen=1
		got=$("$EBS" report -i "$file" --comm "$name" --json 2>/dev/null | total)
		if [ "$got" != "$n" ]; then
			echo "--comm '$name': $got samples, its row has $n"
			bad=1
		fi
	done < <(rows "$file.comm.json" "$@")
	[ $seen = 1 ] && return $bad
}

# 1. A written file, so that every rule is checked whatever the machine
# does.  Every record is 1000 ns after the one before it, in script order.
cat >syn.script <<'S'
meta 8 system-wide
event cpu-clock cpu-clock 1000000
comm 2 2 kthreadd
comm 300 300 app
comm 300 301 app-worker
sample 0 0 0 ffffffff81000000 11 k
sample 0 300 301 401000 2
fork 400 300 400 300
sample 0 400 400 401000 3
comm 400 400 renamed
sample 0 400 400 401000 4
fork 500 2 500 2
sample 0 500 500 ffffffff81000000 6 k
fork 600 2 600 2
comm 600 600 kworker/u8:3
sample 0 600 600 ffffffff81000000 7 k
comm 700 701 lonely-thread
sample 0 700 701 401000 8
sample 0 800 800 401000 9
fork 900 2 900 2
sample 0 900 900 ffffffff81000000 1 k
comm 900 900 oldkern
sample 0 900 900 ffffffff81000000 1 k
S
# pid 0: swapper.  300's thread 301: the process's name, not the thread's.
# 400, forked by 300: app (3), then renamed (4).  500, a kernel thread with
# no COMM (a file of an older ebs on Linux 6.4+): not kthreadd but :500.
# 600, a kernel thread as ebs record now writes it: its name.  700 has no
# name, its thread 701 has one.  800: nothing known.  900: a kernel thread
# named by a later COMM (kernels before 6.4), also for the sample before it.
want='11	swapper
9	:800
8	lonely-thread
7	kworker/u8:3
6	:500
5	app
4	renamed
2	oldkern'
if "$MKDATA" syn.data <syn.script; then
	"$EBS" report -i syn.data --sort comm --json >syn.json
	got=$(rows syn.json)
	check "written file: the names by rule (swapper, inherited, renamed, kernel threads, :PID)" \
		[ "$got" = "$want" ]
	[ "$got" = "$want" ] || printf 'got:\n%s\n' "$got"
	check "written file: --comm with every shown name selects exactly its row's samples" \
		names_select syn.data
	check "written file: no name is unknown (null) or ??" named syn.json
else
	fail "written file" "mkdata failed"
fi

# 2. A real -a recording of a program that forks (no exec), runs a thread
# named by pthread_setname_np, renames itself with prctl, then sleeps (idle
# time, for pid 0).  Each phase spins in its own function for 60 ms of its
# own CPU time: about 30 samples at one per 2 ms of cpu-clock, whatever the
# load, so every phase has samples.
cat >names-wl.c <<'C'
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one busy function per phase: a sample's function says its phase */
#define SPIN(name)                                                  \
	__attribute__((noinline, noipa)) void name(double s)        \
	{                                                           \
		double end = cpu_now() + s;                         \
		unsigned long x = sink;                             \
		do {                                                \
			for (int i = 0; i < 100000; i++) {          \
				x = x * 6364136223846793005UL + 1;  \
				__asm__ volatile("" : "+r"(x));     \
			}                                           \
		} while (cpu_now() < end);                          \
		sink = x;                                           \
	}
SPIN(before_rename)
SPIN(child_work)
SPIN(thread_work)
SPIN(after_rename)

static void *thread_main(void *arg)
{
	pthread_setname_np(pthread_self(), "ebs-thread");
	thread_work(0.06);
	return arg;
}

int main(void)
{
	pthread_t t;
	pid_t pid;

	before_rename(0.06);
	pid = fork();
	if (pid == 0) {
		child_work(0.06);	/* a new process that never execs */
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return 1;
	if (pthread_create(&t, NULL, thread_main, NULL) || pthread_join(t, NULL))
		return 1;
	if (prctl(PR_SET_NAME, "ebs renamed"))
		return 1;
	after_rename(0.06);
	usleep(250000);
	return 0;
}
C
if ! gcc -std=gnu11 -O1 -g -pthread -o names-wl names-wl.c 2>gcc.err; then
	fail "build the workload" "$(head -n 1 gcc.err)"
elif ! record wl.data -a -e cpu-clock -c 2000000 ./names-wl; then
	skip "-a recording" "$(tail -n 1 wl.data.err)"
else
	"$EBS" report -i wl.data --sort func,comm,pid --json >wl.json 2>/dev/null
	"$EBS" report -i wl.data --sort pid,comm --json >pid.json 2>/dev/null
	keep wl.json
	# per workload function, its rows' distinct "comm/pid"; pid 0's samples
	# and names: as shell assignments, from one python3
	eval "$(python3 -c 'import json,shlex,sys
j = json.load(open(sys.argv[1]))
for f in ("before_rename", "after_rename", "thread_work", "child_work"):
	v = sorted(set("%s/%s" % (r["comm"], r["pid"]) for r in j["rows"] if r.get("function") == f))
	print("%s=%s" % (f, shlex.quote(" ".join(v))))
p = [r for r in json.load(open(sys.argv[2]))["rows"] if r["pid"] == 0]
print("idle=%d idle_names=%s" % (sum(r["samples"] for r in p),
	shlex.quote(" ".join(sorted(set(r["comm"] for r in p))))))' wl.json pid.json)"
	main_pid=${before_rename#*/}
	check "before the rename: the program's name" [ "$before_rename" = "names-wl/$main_pid" ]
	check "after prctl(PR_SET_NAME): the new name, spaces and all" \
		[ "$after_rename" = "ebs renamed/$main_pid" ]
	check "a thread named by pthread_setname_np: its process's name" \
		[ "$thread_work" = "names-wl/$main_pid" ]
	child=$child_work
	[ "${child%/*}" = names-wl ] && [ "${child#*/}" != "$main_pid" ] && child=ok
	check "a child forked during the recording (no exec): its parent's name" [ "$child" = ok ]
	check "-a: no name is unknown (null) or ??" named pid.json
	if [ "$idle" -gt 0 ]; then
		check "pid 0 is swapper" [ "$idle_names" = swapper ]
		check "--comm swapper selects the samples of pid 0 ($idle)" \
			[ "$("$EBS" report -i wl.data --comm swapper --json 2>/dev/null | total)" = "$idle" ]
	else
		skip "pid 0 is swapper" "no idle time was sampled (the machine was busy)"
	fi
	# (the workload's names, swapper, unknown ones: a report per name takes
	# seconds when the machine is busy and the recording has many programs)
	check "-a: --comm with each name of the workload, swapper, :PID selects its row's samples" \
		names_select wl.data names-wl "ebs renamed" swapper
fi

# 3. A kernel thread started during an -a recording.  Setting transparent
# hugepages to never stops khugepaged, and back on starts a new one; the
# kernel reports its FORK from kthreadd and no COMM (Linux 6.4 and later).
THP=/sys/kernel/mm/transparent_hugepage/enabled
if [ "$(id -u)" != 0 ] || [ ! -w "$THP" ]; then
	skip "a kernel thread started during -a" "needs root and $THP"
else
	orig=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP")
	on=$orig
	[ "$on" = never ] && on=madvise
	trap 'echo "$orig" >"$THP"; cleanup' EXIT
	echo never >"$THP"
	if pgrep -x khugepaged >/dev/null; then
		skip "a kernel thread started during -a" "khugepaged did not stop"
	elif ! record kt.data -a -e cpu-clock -c 4000000 sh -c "sleep 0.1; echo $on >$THP; sleep 0.2"; then
		skip "a kernel thread started during -a" "$(tail -n 1 kt.data.err)"
	else
		k=$(pgrep -x khugepaged)
		echo "$orig" >"$THP"
		"$EBS" report -i kt.data --dump >kt.dump
		keep kt.dump
		fork_t=$(awk -v k="$k" '$2 == "FORK" && $6 == k && $8 == 2 {print $4}' kt.dump)
		comm=$(awk -v k="$k" '$2 == "COMM" && $6 == k && $8 == k {print $4, $9}' kt.dump)
		check "khugepaged (${k:-none}) started during -a: its FORK from kthreadd" [ -n "$fork_t" ]
		check "khugepaged: a COMM record with its name, at its FORK's time" \
			[ "$comm" = "$fork_t khugepaged" ]
	fi
fi
