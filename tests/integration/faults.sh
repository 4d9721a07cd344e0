#!/usr/bin/env bash
# faults.sh - faults that must lose nothing.
#
#  * ebs record killed by SIGINT, SIGTERM, SIGHUP and SIGPIPE at random
#    moments (20 trials each; the seed is printed, EBS_FAULT_SEED=N repeats
#    a run): each trial ends with the previous file untouched and nothing
#    left behind, or with a complete new file (and the previous one as .old).
#  * kill -9 of ebs record: the temporary file stays, holding whole records;
#    the command dies with ebs; the next ebs record names every leftover in
#    one line, and --clean removes them.
#  * a full disk (a small tmpfs in a private mount namespace) and a file
#    size limit (RLIMIT_FSIZE): one line, status 1, the part recorded kept
#    as NAME.partial (whole records up to the last), never under NAME.
#  * programs that crash, fork 1,000 children, exec in a loop, churn
#    threads: ebs survives, every process's samples are attributed, the
#    exit status is the program's.
#
# Files are checked by tests/tools/datacheck.py, a reader of the format
# independent of ebs's own.  Outcomes are tallied on "TALLY:" lines (also
# kept in the artefacts as faults-tally.txt).  Sampling stays at 500 Hz (2 kHz
# of CPU time for the short-lived processes and threads).
. "$(dirname "$0")/../lib.sh"

ulimit -c 0	# chaos segv: no core file
CHECK="$TOP/tests/tools/datacheck.py"
L="$WORKLOADS/leafloop"
C="$WORKLOADS/chaos"
TALLY="$ARTEFACTS/faults-tally.txt"
: >"$TALLY"
tally() { echo "TALLY: $*"; echo "$*" >>"$TALLY"; }

SEED=${EBS_FAULT_SEED:-$(( $(date +%s) % 1000000 ))}
RANDOM=$SEED
echo "faults: seed $SEED (EBS_FAULT_SEED=$SEED repeats these trials)"

# alive PID: PID exists and is not a zombie (a killed process whose parent
# died waits as a zombie for init to reap it).
alive() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	[ "${s%% *}" != Z ] && [ "${s%% *}" != X ]
}

# gone PID: wait until PID is no longer alive; false after 20 s (the
# sleepers it waits for run 300 s unless something kills them).
gone() {
	local i
	for i in $(seq 200); do
		alive "$1" || return 0
		sleep 0.1
	done
	return 1
}

# is_ebs PID: PID runs ebs now (exec'd).  The signals go to ebs only then:
# bash's forked child would run this script's EXIT trap (rm -rf $TMP) if a
# signal caught it before its exec.  False after 10 s (a hang guard only).
EBS_REAL=$(readlink -f "$EBS")
is_ebs() {
	local i
	for i in $(seq 10000); do
		[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$EBS_REAL" ] && return 0
		[ -d "/proc/$1" ] || return 1
	done
	return 1
}

# leftovers NAME: what a recording into NAME may leave beside it.
leftovers() { ls -A | grep -E "^\.$1\.tmp\.|^$1\.partial\$"; }

# ---- signals at random moments ---------------------------------------------
# A quarter of the moments fall in the first 5 ms after ebs's exec (ebs
# starting up, maybe before it handles signals), the rest anywhere in the
# run (leafloop: 0.05 s of CPU time) or after it.  Complete files are checked all at once at the end.
record prev.data -e cpu-clock -F 500 "$L" 0.05
cp prev.data prev.ref
for sig in INT TERM HUP PIPE; do
	untouched=0 after=0 before=0 bad=0 why="" done_files="" after_files=" "
	for i in $(seq 20); do
		rm -f t.data t.data.old t.data.partial .t.data.tmp.*
		cp prev.ref t.data
		if [ $((RANDOM % 4)) -eq 0 ]; then delay=$((RANDOM % 5)); else delay=$((RANDOM % 100)); fi
		"$EBS" record -e cpu-clock -F 500 -o t.data "$L" 0.05 >/dev/null 2>t.err &
		epid=$!
		is_ebs $epid
		[ $delay -gt 0 ] && sleep "$(printf '0.%03d' $delay)"
		kill -$sig $epid 2>/dev/null
		wait $epid
		rc=$?
		left=$(leftovers t.data)
		if [ -z "$left" ] && cmp -s t.data prev.ref && [ ! -e t.data.old ]; then
			untouched=$((untouched + 1))
		elif [ -z "$left" ] && cmp -s t.data.old prev.ref &&
		     quiet "$EBS" report -i t.data --dump; then
			mv t.data "t-$sig-$i.data"
			done_files="$done_files t-$sig-$i.data"
			if grep -q "^ebs record: SIG$sig: passed on to the command" t.err; then
				after=$((after + 1))
				after_files="$after_files t-$sig-$i.data "
			else
				before=$((before + 1))	# ebs was done before the signal came
			fi
		else
			bad=$((bad + 1))
			why="$why; trial $i (${delay} ms, status $rc): left '$left', $(head -c 200 t.err)"
			keep t.data
		fi
	done
	if [ -n "$done_files" ] && ! python3 "$CHECK" $done_files >t.chk; then
		for f in $(grep -v ': ok: ' t.chk | cut -d: -f1); do
			bad=$((bad + 1))
			case "$after_files" in
			*" $f "*) after=$((after - 1)) ;;
			*) before=$((before - 1)) ;;
			esac
		done
		why="$why; $(grep -v ': ok: ' t.chk | head -n 3)"
	fi
	tally "SIG$sig x20 at 0-99 ms: $untouched previous file untouched, $after complete (signal passed on to the command), $before complete (signal after the end), $bad bad"
	check "SIG$sig at 20 random moments: previous file untouched or a complete new file, nothing left behind" \
		[ $bad -eq 0 ] || echo "    $why"
done

# ---- kill -9 -----------------------------------------------------------------
# The command dies with ebs (PR_SET_PDEATHSIG); the temporary file stays,
# whole records up to its end; the next run names each leftover.
rm -f k.data*
cp prev.ref k.data
nine=0 orphans=0 whole=0 samples=0
for i in 1 2 3 4 5; do
	"$EBS" record -q -e cpu-clock -F 500 -o k.data "$WORKLOADS/sleeper" 300 >k.pid 2>k.err &
	epid=$!
	if ! wait_line k.pid || ! wait_cpu "$(cat k.pid)" 0.02; then
		fail "kill -9: trial $i" "the recording did not start: $(head -c 300 k.err)"
		continue
	fi
	sleep 0.25	# time for ebs to write some samples out (it does at least every 0.2 s)
	kill -9 $epid
	wait $epid 2>/dev/null
	nine=$((nine + 1))
	gone "$(cat k.pid)" || { orphans=$((orphans + 1)); kill -9 "$(cat k.pid)"; }
	rm -f k.pid
done
n=$(ls -A | grep -c '^\.k\.data\.tmp\.')
check "kill -9 x$nine: the command died with ebs every time ($orphans left running)" [ $orphans -eq 0 ]
check "kill -9 x$nine: $n temporary files left (one per kill)" [ "$n" -eq "$nine" ]
check "kill -9: the previous file untouched" cmp -s k.data prev.ref
for f in .k.data.tmp.*; do
	[ -e "$f" ] || continue
	if python3 "$CHECK" --unfinished "$f" >k.chk && grep -q '^ok: unfinished' k.chk; then
		whole=$((whole + 1))
		samples=$((samples + $(sed -nE 's/.* ([0-9]+) samples.*/\1/p' k.chk)))
	else
		fail "kill -9: $f is whole records" "$(cat k.chk)"
	fi
done
tally "kill -9 x$nine: $n leftovers, $whole of whole records ($samples samples in all), $orphans commands orphaned"
check "kill -9: every leftover is whole records up to its end, with samples" \
	[ "$whole" -eq "$n" -a "$samples" -gt 0 ]
left=$(ls -A | grep '^\.k\.data\.tmp\.' | head -n 1)
if [ -z "$left" ]; then
	fail "kill -9: report reads a leftover" "no leftover to read"
elif "$EBS" report -i "$left" >k.rep 2>&1 && grep -q '^# samples: [1-9]' k.rep; then
	pass "kill -9: report reads a leftover"
else
	fail "kill -9: report reads a leftover" "$(head -n 1 k.rep)"
fi
# a file of the temporary name pattern that is not an ebs.data file: not ours
printf 'important\n' >.k.data.tmp.AAAAAA
record k.data -e cpu-clock -F 500 "$L" 0.02
rc=$?
check "after kills: ebs record still records (status $rc)" [ $rc -eq 0 ]
check "after kills: one line per leftover, naming it and how to read it" \
	[ "$(grep -cE "^ebs record: \./\.k\.data\.tmp\.[A-Za-z0-9]{6}: left by a recording that did not finish \([0-9]+ bytes, last written [-0-9: ]+\): read it with 'ebs report -i \./\.k\.data\.tmp\.[A-Za-z0-9]{6}', remove it with 'ebs record --clean -o k\.data'\$" k.data.err)" -eq "$nine" -a "$(wc -l <k.data.err)" -eq "$nine" ]
"$EBS" record --clean -o k.data 2>clean.err
rc=$?
check "--clean alone: status 0, one line per file removed" [ $rc -eq 0 -a "$(grep -c '^ebs record: removed \./\.k\.data\.tmp\.' clean.err)" -eq "$nine" ]
check "--clean: no temporary file left but the one that is not an ebs.data file" \
	[ "$(ls -A | grep '^\.k\.data\.tmp\.')" = .k.data.tmp.AAAAAA -a "$(cat .k.data.tmp.AAAAAA)" = important ]
rm -f .k.data.tmp.AAAAAA
check "--clean: the recording itself kept" quiet "$EBS" report -i k.data --top 1
# a running recording's temporary file is not a leftover
"$EBS" record -q -e cpu-clock -F 500 -o r.data "$WORKLOADS/sleeper" 300 >r.pid 2>/dev/null &
epid=$!
if wait_line r.pid && wait_cpu "$(cat r.pid)" 0.05; then
	"$EBS" record --clean -o r.data 2>rclean.err
	check "--clean leaves a running recording's temporary file alone" \
		[ ! -s rclean.err -a -n "$(ls -A | grep '^\.r\.data\.tmp\.')" ]
else
	fail "--clean leaves a running recording's temporary file alone" "the recording did not start"
fi
kill -INT $epid
wait $epid
check "the running recording then finishes" bash -c "python3 '$CHECK' r.data | grep -q '^ok: finished'"

# --clean without -o: the leftovers of every output here (a killed
# `record -o x.data` left .x.data.tmp.*, which plain --clean once kept)
"$EBS" record -q -e cpu-clock -F 500 -o x.data "$WORKLOADS/sleeper" 300 >x.pid 2>x.err &
epid=$!
if wait_line x.pid && wait_cpu "$(cat x.pid)" 0.02; then
	kill -9 $epid
	wait $epid 2>/dev/null
	gone "$(cat x.pid)" || kill -9 "$(cat x.pid)"
	printf 'important\n' >.y.data.tmp.BBBBBB
	"$EBS" record --clean 2>xclean.err
	rc=$?
	check "--clean without -o: status 0, x.data's leftover removed and said" \
		[ $rc -eq 0 -a "$(grep -c '^ebs record: removed \./\.x\.data\.tmp\.' xclean.err)" -eq 1 \
		-a -z "$(ls -A | grep '^\.x\.data\.tmp\.')" ]
	check "--clean without -o: a file of the pattern that is not ebs.data kept" \
		[ "$(cat .y.data.tmp.BBBBBB)" = important ]
	rm -f .y.data.tmp.BBBBBB
else
	fail "--clean without -o" "the recording did not start: $(head -c 300 x.err)"
fi

# ---- a full disk and a file size limit -------------------------------------
# outcome NAME DIR SHOWN LOG STATUS LIMIT: classify a recording into
# DIR/f.data (SHOWN/f.data in its messages) that may have run out of space
# (LIMIT KiB); prints complete, partial or nothing, or fails the check.
# Nothing is kept only when not even the header fits: its header records
# (the vdso's image, mostly) take the pages up to data_offset (prev.ref's,
# give or take a few bytes of command line), and a page more for the first
# records.
header_room=$(python3 -c "import struct; o = struct.unpack_from('<Q', open('prev.ref', 'rb').read(), 24)[0]; print((o + 4095) // 4096 * 4096 + 4096)")
outcome() {
	local name=$1 dir=$2 shown=$3 log=$4 rc=$5 limit=$6 lines
	lines=$(wc -l <"$log")
	if [ -n "$(ls -A "$dir" | grep '^\.f\.data\.tmp\.')" ]; then
		fail "$name" "a temporary file left: $(ls -A "$dir")"
	elif [ "$rc" -eq 3 ] && python3 "$CHECK" "$dir/f.data" | grep -q '^ok: finished'; then
		echo complete	# chaos forks exits 3
	elif [ "$rc" -ne 1 ] || [ "$lines" -ne 1 ]; then
		fail "$name" "status $rc, $lines lines: $(head -c 400 "$log")"
	elif ! cmp -s "$dir/f.data" prev.ref; then
		fail "$name" "the previous file was touched: $(head -c 300 "$log")"
	elif [ -e "$dir/f.data.partial" ]; then
		if ! grep -qE "^ebs record: $shown/f.data: write failed: .*; the [0-9]+ bytes recorded so far are in $shown/f.data.partial, unfinished \(read it with 'ebs report -i $shown/f.data.partial'\)(; the command \(pid [0-9]+\) was killed)?\$" "$log"; then
			fail "$name" "the error does not name the part kept: $(cat "$log")"
		elif ! python3 "$CHECK" --unfinished "$dir/f.data.partial" >"$log.chk" ||
		     ! grep -q '^ok: unfinished' "$log.chk"; then
			fail "$name" "the part kept is not whole records: $(cat "$log.chk")"
		else
			echo partial
		fi
	elif [ $((limit * 1024)) -ge "$header_room" ]; then
		fail "$name" "nothing kept, though the header fits in $limit KiB: $(cat "$log")"
	elif grep -qE "^ebs record: $shown/f.data: .*(No space left|File too large)" "$log"; then
		echo nothing	# the header itself did not fit: nothing recorded
	else
		fail "$name" "no part kept, and the error says nothing of space: $(cat "$log")"
	fi
}

full=""
if [ "$(id -u)" -ne 0 ]; then
	skip "disk full" "needs root for a tmpfs in a private mount namespace (unshare -m)"
elif ! unshare -m true 2>unshare.err; then
	skip "disk full" "unshare -m is not permitted here: $(head -n 1 unshare.err)"
else
	mkdir mnt
	# each level: the free space left on a 256 KiB tmpfs before recording
	cat >full.sh <<-'EOF'
	set -u
	mount -t tmpfs -o size=256k ebs-faults mnt || { echo "MOUNT-FAILED"; exit 0; }
	for free in 4 16 64; do
		rm -rf mnt/*  mnt/.[!.]*
		cp prev.ref mnt/f.data
		fill=$(( $(stat -f -c '%a' mnt) * $(stat -f -c '%S' mnt) / 1024 - free ))
		[ $fill -gt 0 ] && dd if=/dev/zero of=mnt/fill bs=1k count=$fill 2>/dev/null
		"$EBS" record -q -e cpu-clock -F 500 -o mnt/f.data "$C" forks 200 >/dev/null 2>full-$free.err
		echo "$free $?"
		cp -a mnt "dir-$free"
	done
	EOF
	EBS=$EBS C=$C unshare -m bash full.sh >full.out 2>&1
	if grep -q MOUNT-FAILED full.out; then
		skip "disk full" "mount of a tmpfs is not permitted here: $(head -n 2 full.out)"
	else
		while read -r free rc; do
			o=$(outcome "disk full with $free KiB free" "dir-$free" mnt "full-$free.err" "$rc" "$free")
			case "$o" in
			complete|partial|nothing) pass "disk full with $free KiB free: $o"; full="$full $free KiB: $o," ;;
			*) echo "$o" ;;
			esac
		done <full.out
	fi
fi
[ -n "$full" ] && tally "disk full (256 KiB tmpfs, chaos forks 200):${full%,}"

# RLIMIT_FSIZE: the write fails with EFBIG (SIGXFSZ, which ebs's own write
# raised, is not taken for a request to stop).
fsz=""
for kib in 6 16 64; do
	rm -rf fs && mkdir fs && cp prev.ref fs/f.data
	( ulimit -f "$kib"; exec "$EBS" record -q -e cpu-clock -F 500 -o fs/f.data "$C" forks 200 ) \
		>/dev/null 2>fsz-$kib.err
	rc=$?
	o=$(outcome "ulimit -f $kib" fs fs "fsz-$kib.err" "$rc" "$kib")
	case "$o" in
	complete|partial|nothing)
		pass "ulimit -f $kib (KiB): $o"
		fsz="$fsz $kib KiB: $o,"
		[ "$o" = partial ] && check "ulimit -f $kib: the error says File too large" grep -q 'File too large' fsz-$kib.err
		;;
	*) echo "$o" ;;
	esac
done
tally "RLIMIT_FSIZE (chaos forks 200):${fsz%,}"

# ---- programs that are hard on a profiler -------------------------------------
# cpu-clock every 0.5 ms of a thread's CPU time (2 kHz while it runs): each
# process and thread counts its own periods, so one that runs less than a
# period is never sampled; the children (0.5 ms each) and threads (2 ms)
# run about one period or more.
# attributed NAME DATA FUNC: every sample is of a process ebs knows by name
# (comm), every sample's DSO is known, and FUNC has samples.
attributed() {
	local name=$1 data=$2 func=$3
	"$EBS" report -i "$data" --sort pid,comm,dso --json >"$data.json" &&
	"$EBS" report -i "$data" --no-inline --json >"$data.fn.json" || {
		fail "$name: report" "$(head -c 300 "$data.json")"
		return
	}
	check "$name: every sample's process has its name" \
		[ "$(json "$data.json" "sum(r['samples'] for r in j['rows'] if r.get('comm') != 'chaos')")" = 0 ]
	check "$name: every sample's DSO is known" \
		[ "$(json "$data.json" "sum(r['samples'] for r in j['rows'] if r['dso'] == '[unknown]')")" = 0 ]
	check "$name: $func has samples" [ "$(json "$data.fn.json" "sum(r['samples'] for r in j['rows'] if r.get('function') == '$func')")" -gt 0 ]
}

chaos() {	# NAME STATUS FUNC ARGS...
	local name=$1 want=$2 func=$3 rc
	shift 3
	"$EBS" record -e cpu-clock -c 500000 -o "$name.data" "$C" "$@" >/dev/null 2>"$name.err"
	rc=$?
	check "$name: ebs exits with the program's status $want (got $rc)" [ $rc -eq "$want" ]
	check "$name: the file is complete" bash -c "python3 '$CHECK' '$name.data' | grep -q '^ok: finished'"
	check "$name: summary line" grep -q '^ebs record: [0-9]* samples written' "$name.err"
	attributed "$name" "$name.data" "$func"
	"$EBS" report -i "$name.data" --dump >"$name.dump"
	procs=$(awk '$2 == "SAMPLE" { p[$6] = 1 } END { n = 0; for (k in p) n++; print n }' "$name.dump")
	tally "$name: status $rc, $(grep -c ' SAMPLE ' "$name.dump") samples of $procs processes, $(grep -c ' FORK ' "$name.dump") FORK, $(grep -c ' COMM .*(exec)$' "$name.dump") exec COMM records"
}
chaos segv 139 chaos_crash_work segv 0.2
chaos forks 3 chaos_child_work forks 1000
check "forks: 1000 FORK and EXIT records of the children" \
	[ "$(grep -c ' FORK ' forks.dump)" -ge 1000 -a "$(grep -c ' EXIT ' forks.dump)" -ge 1000 ]
chaos execs 4 chaos_exec_work execs 100
check "execs: 100 exec COMM records" [ "$(grep -c ' COMM .*(exec)$' execs.dump)" -ge 100 ]
chaos threads 5 chaos_thread_work threads 200
check "threads: 200 threads seen (FORK records)" [ "$(grep -c ' FORK ' threads.dump)" -ge 200 ]
