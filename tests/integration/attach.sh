#!/usr/bin/env bash
# attach.sh - -p attaches to a running process (its existing mappings come
# from /proc, so its code resolves) and stops when it exits; -a samples every
# CPU and sees a process started separately; CMD only bounds -a's duration.
. "$(dirname "$0")/../lib.sh"

# sleeper is leafloop timed by the wall clock; it prints its pid first.
"$WORKLOADS/sleeper" 1.5 >sleeper.pid &
spid=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s sleeper.pid ] && break; sleep 0.05; done
sleep 0.2	# well inside leaf's loop, long after its mappings were made
record p.data -e cpu-clock -F 1000 -p "$spid"
rc=$?
wait "$spid"
check "-p: exit status 0 when the process exits" [ "$rc" -eq 0 ]
"$EBS" report -i p.data --json >p.json
read -r k total < <(share p.json leaf)
check "-p: leaf resolved from the synthesized maps, >= 90% ($k of $total)" [ $((k * 100)) -ge $((total * 90)) ]
check "-p: about 1.3 s at 1000 Hz (>= 600 samples: $total)" [ "$total" -ge 600 ]
"$EBS" report -i p.data --dump >p.dump
check "-p: synthesized MMAP of the sleeper" grep -q 'MMAP .*/sleeper (synthesized)' p.dump
check "-p: header names the target" grep -q "^# target: pid $spid" p.dump

# -p of several pids: two sleepers, both sampled.
"$WORKLOADS/sleeper" 1 >s1.pid &
p1=$!
"$WORKLOADS/sleeper" 1 >s2.pid &
p2=$!
sleep 0.2
record pp.data -e cpu-clock -F 500 -p "$p1,$p2"
wait
"$EBS" report -i pp.data --dump >pp.dump
for p in $p1 $p2; do
	check "-p A,B: samples of pid $p" grep -q "SAMPLE .* pid $p " pp.dump
done

# -p of a process that exits but stays unreaped (a zombie) ends too.
bash -c '"$1" 0.5 >/dev/null & exec sleep 2' _ "$WORKLOADS/sleeper" &
zparent=$!
sleep 0.2
zpid=$(pgrep -P $zparent sleeper)
start=$(date +%s%N)
record z.data -e cpu-clock -F 500 -p "$zpid"
took=$((($(date +%s%N) - start) / 1000000))
check "-p of a process that becomes a zombie: ebs stops (after ${took} ms, before its parent exits at ~1800)" [ "$took" -lt 1500 ]
wait $zparent

# -p of a multi-threaded process: every thread is sampled.
"$WORKLOADS/threads" 0.3 &
tpid=$!
sleep 0.2
record t.data -e cpu-clock -F 1000 -p "$tpid"
wait $tpid
"$EBS" report -i t.data --json --no-inline >t.json
for i in 0 1 2 3; do
	read -r k total < <(share t.json thread_fn_$i)
	check "-p of threads: thread_fn_$i sampled ($k of $total)" [ $((k * 100)) -ge $((total * 10)) ]
done

# -a: a sleeper runs on its own; ebs records every CPU for 0.8 s.
"$WORKLOADS/sleeper" 1.5 >a.pid &
apid=$!
sleep 0.2
record a.data -e cpu-clock -F 500 -a -- sleep 0.8
rc=$?
kill "$apid" 2>/dev/null
wait "$apid" 2>/dev/null
check "-a: exit status of sleep (0)" [ "$rc" -eq 0 ]
"$EBS" report -i a.data --json >a.json
read -r k total < <(share a.json leaf)
# 0.8 s on 2 CPUs at 500 Hz is ~800 samples; the sleeper keeps one CPU busy.
check "-a: the separately started sleeper's leaf is seen ($k of $total)" [ "$k" -ge 200 ]
check "-a: leaf in sleeper" [ "$(json a.json "[r['dso'] for r in j['rows'] if r['function'] == 'leaf'][0]")" = sleeper ]
"$EBS" report -i a.data --dump >a.dump
check "-a: samples from more than one pid" [ "$(grep -o 'SAMPLE .* pid [0-9]*' a.dump | awk '{print $NF}' | sort -u | wc -l)" -ge 2 ]
check "-a: header says system-wide" grep -q '^# target: system-wide' a.dump
