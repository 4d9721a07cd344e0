#!/usr/bin/env bash
# groundtruth.sh - workloads whose time split is known: split (3:1 between
# two identical functions), four threads, fork+exec, a shared and a dlopen()ed
# library, and the same program built PIE and non-PIE.
. "$(dirname "$0")/../lib.sh"

# split: split_a runs 3 iterations for each of split_b's, with identical
# bodies at the same alignment, so split_a's share of the two is 0.75 on any
# CPU.  near's 5 sd tolerance (~0.04 at the ~2400 samples of 1.2 s of CPU
# time) plus 0.01 for the calls, returns and the clock read between rounds,
# which fall unevenly; at 400 samples or more a wrong split (an attribution
# to the wrong one of the two, 0.5 or 0.25) is far outside it.
record split.data -e cpu-clock -F 2000 "$WORKLOADS/split" 1.2
"$EBS" report -i split.data --json >split.json
read -r a total < <(share split.json split_a)
read -r b _ < <(share split.json split_b)
n=$((a + b))
if enough "split: split_a's share" "$n" 400; then
	near "split: split_a's share of split_a and split_b" "$a" "$n" 0.75
fi

# The 95% interval ebs prints for split_a among the two (--func) holds 75%.
# A calibrated 95% interval misses 5% of the time, so a miss is retried
# with a new recording, up to 3 in all: a false alarm then needs three
# misses in a row, 0.05^3 = 1 in 8000 runs.  The interval must also be the
# Wilson score interval of the printed counts (recomputed here); with 800
# samples or more it is narrower than +-3.1 points, or "holds 75%" would say
# little.
ci_ok=0
for try in 1 2 3; do
	[ "$try" -gt 1 ] && record split.data -e cpu-clock -F 2000 "$WORKLOADS/split" 1.2
	"$EBS" report -i split.data --func split_a,split_b --json >pair.json
	n=$(json pair.json "j['samples']")
	[ "$n" -ge 800 ] || break
	read -r lo pct hi wlo whi < <(json pair.json "' '.join('%.4f' % v for v in (lambda r, n: (
		r['ci95'][0], r['percent'], r['ci95'][1],
		*(lambda p, z: ((p + z*z/(2*n) - z*((p*(1-p)/n + z*z/(4*n*n)) ** 0.5)) / (1 + z*z/n) * 100,
				(p + z*z/(2*n) + z*((p*(1-p)/n + z*z/(4*n*n)) ** 0.5)) / (1 + z*z/n) * 100))(r['samples'] / n, 1.959964)))(
		[r for r in j['rows'] if r['function'] == 'split_a'][0], j['samples']))")
	if within "$lo" "$wlo" 0.01 && within "$hi" "$whi" 0.01 &&
	   at_least 75 "$lo" && at_least "$hi" 75; then
		ci_ok=1
		break
	fi
	echo "split: try $try: split_a $pct% [$lo, $hi] (Wilson: [$wlo, $whi])" >>ci-tries.log
done
if enough "split: the printed 95% interval" "$n" 800; then
	check "split: the printed 95% interval of split_a holds 75% (try $try: $pct% [$lo, $hi])" [ $ci_ok = 1 ]
fi

# threads: each of the four threads spins in its own function until its own
# CPU clock has advanced 0.06 s (overshooting by one inner loop, under a
# millisecond), so each has a quarter of the samples of the four, whatever
# the load; 0.01 more for that overshoot.
record threads.data -e cpu-clock -F 2000 "$WORKLOADS/threads" 0.06
# (--no-inline: the spin loop is inlined into each thread's function)
"$EBS" report -i threads.data --json --no-inline >threads.json
n=$(json threads.json "sum(r['samples'] for r in j['rows'] if r['function'].startswith('thread_fn_'))")
if enough "threads: shares" "$n" 200; then
	for i in 0 1 2 3; do
		read -r k _ < <(share threads.json thread_fn_$i)
		near "threads: thread_fn_$i's share of the four" "$k" "$n" 0.25
	done
fi

# fork+exec: the child execs leafloop for 0.3 s of CPU time, leaf ~99% of
# it; the parent works 0.03 s.  In user space (ushare in lib.sh) leaf has
# 0.3 * 0.99 / (0.33 + the start-ups' few ms) ~ 0.89 on any machine: >= 70%
# is 9 sd below at 200 samples.  Among leaf and the parent's work, the
# parent has 0.03 / (0.03 + 0.297) = 0.092 (0.01 more for start-up and for
# parent()'s share of leafloop).
record fe.data -e cpu-clock -F 2000 "$WORKLOADS/forkexec" 0.3
check "forkexec: exit status 0" [ $? -eq 0 ]
"$EBS" report -i fe.data --json >fe.json
read -r leaf user < <(ushare fe.json leaf)
read -r par _ < <(share fe.json forkexec_parent_work)
if enough "forkexec: shares" "$user" 200; then
	check "forkexec: the exec'd child's leaf has >= 70% of user space ($leaf of $user)" [ $((leaf * 100)) -ge $((user * 70)) ]
	near "forkexec: the parent's work among it and leaf" "$par" $((par + leaf)) 0.092
fi
check "forkexec: leaf resolved in leafloop" [ "$(json fe.json "[r['dso'] for r in j['rows'] if r['function'] == 'leaf'][0]")" = leafloop ]

# Shared libraries: shlib_hot (linked) and dl_hot (dlopen()ed, then
# dlclose()d before exit) run 9 parts of each round each, main_work 2, all
# three the same loop, compiled alike and aligned to 64 bytes, so they cost
# the same per iteration on any CPU: 0.45, 0.45 and 0.10 of their samples
# (0.01 more for the calls and the clock read between rounds).
record shlib.data -e cpu-clock -F 2000 "$WORKLOADS/shlib" 0.4
"$EBS" report -i shlib.data --json >shlib.json
read -r hot total < <(share shlib.json shlib_hot)
read -r dl _ < <(share shlib.json dl_hot)
read -r mw _ < <(share shlib.json main_work)
n=$((hot + dl + mw))
if enough "shlib: shares" "$n" 200; then
	near "shlib: shlib_hot's share of the three" "$hot" "$n" 0.45
	near "shlib: dl_hot's share of the three" "$dl" "$n" 0.45
	near "shlib: main_work's share of the three" "$mw" "$n" 0.10
fi
check "shlib: shlib_hot in libebshot.so" [ "$(json shlib.json "[r['dso'] for r in j['rows'] if r['function'] == 'shlib_hot'][0]")" = libebshot.so ]
check "shlib: dl_hot in libebsdl.so" [ "$(json shlib.json "[r['dso'] for r in j['rows'] if r['function'] == 'dl_hot'][0]")" = libebsdl.so ]
"$EBS" report -i shlib.data --sort dso --json >dso.json
check "shlib: --sort dso has both libraries" [ "$(json dso.json "len([r for r in j['rows'] if r['dso'] in ('libebshot.so', 'libebsdl.so')])")" = 2 ]
check "shlib: --sort dso rows have no function" [ "$(json dso.json "any('function' in r for r in j['rows'])")" = 0 ]

# PIE and non-PIE builds of leafloop resolve alike.  In user space leaf has
# ~99% (ld.so's start-up a few ms of the 0.2 s): >= 90% is a false alarm
# about once in a million runs at 200 samples.
for v in pie nopie; do
	record $v.data -e cpu-clock -F 2000 "$WORKLOADS/leafloop-$v" 0.2
	"$EBS" report -i $v.data --json >$v.json
	read -r k user < <(ushare $v.json leaf)
	if enough "leafloop-$v: leaf's share" "$user" 200; then
		check "leafloop-$v: leaf >= 90% of user space ($k of $user)" [ $((k * 100)) -ge $((user * 90)) ]
	fi
done
check "leafloop-pie is PIE, leafloop-nopie is not" \
	bash -c "readelf -h '$WORKLOADS/leafloop-pie' | grep -q 'DYN' && readelf -h '$WORKLOADS/leafloop-nopie' | grep -q 'EXEC'"
