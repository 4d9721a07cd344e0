#!/usr/bin/env bash
# bench/limits.sh - how ebs report's memory and time grow with a recording
# (issue 11, "Limits").  Prints figures; asserts nothing (not part of make test).
#
#   1. recordings of 625,000, 2,500,000 and 10,000,000 samples (1x, 4x,
#      16x; SIZES= to change) of a 200-function program, 1,600 distinct
#      addresses, made by mkdata: ebs report's peak RSS, its CPU time (best
#      of RUNS, default 3), and the exponent E of time ~ samples^E fitted by
#      least squares over the sizes (1 is linear);
#   2. the same peak RSS with the largest file read from a pipe (-i -);
#   3. a file of 100,000 mappings of one process with a sample in each:
#      the report's CPU time (OLD=/path/to/an/older/ebs: that one's too).
#
# BUILD names the build dir (default build); the files go to BUILD/bench-limits
# (about 650 MB for the default sizes).
set -u
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
SIZES=${SIZES:-625000 2500000 10000000}
TOP=$PWD
EBS="$TOP/$BUILD/ebs"
MKDATA="$TOP/$BUILD/tests/tools/mkdata"
OUT="$TOP/$BUILD/bench-limits"

make -s BUILD="$BUILD" all "$BUILD/tests/tools/mkdata" || exit 1
mkdir -p "$OUT"
cd "$OUT" || exit 1

# measure CMD...: "cpu_seconds wall_seconds peak_rss_kb status" of one run
measure() {
	python3 - "$@" <<'PY'
import os, sys, time
t0 = time.monotonic()
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
print('%.3f %.3f %d %d' % (ru.ru_utime + ru.ru_stime, time.monotonic() - t0, ru.ru_maxrss,
                           os.waitstatus_to_exitcode(status)))
PY
}

# best CMD...: "cpu wall rss": the least CPU time and wall time, the largest RSS, of RUNS runs
best() {
	local i cpu wall rss st bc="" bw="" br=0
	for i in $(seq "$RUNS"); do
		read -r cpu wall rss st < <(measure "$@")
		if [ "$st" -ne 0 ]; then
			echo "bench: $* exited with status $st" >&2
			exit 1
		fi
		if [ -z "$bc" ] || awk "BEGIN { exit !($cpu < $bc) }"; then bc=$cpu; fi
		if [ -z "$bw" ] || awk "BEGIN { exit !($wall < $bw) }"; then bw=$wall; fi
		[ "$rss" -gt "$br" ] && br=$rss
	done
	echo "$bc $bw $br"
}

if [ ! -x prog ] || [ "$TOP/bench/gen.py" -nt prog ]; then
	python3 "$TOP/bench/gen.py" 200 prog.c && gcc -O2 -g -no-pie -o prog prog.c || exit 1
fi
# 8 addresses in each of the 200 functions, and the mapping of the whole file at 0x400000
nm -S --defined-only prog | python3 -c '
import re, sys
for l in sys.stdin:
    w = l.split()
    if len(w) == 4 and w[2] in "tT" and re.fullmatch("f[0-9]+", w[3]):
        a, s = int(w[0], 16), int(w[1], 16)
        for k in range(8):
            print("%x" % (a + s * k // 8))' >ips.txt
len=$(( ($(stat -c %s prog) + 4095) / 4096 * 4096 ))

echo "== ebs report by function: peak RSS and CPU time against the number of samples"
printf '  %12s %9s %12s %9s %9s\n' samples "file MB" "peak RSS MB" "cpu s" "wall s"
fit=""
for n in $SIZES; do
	f=samples-$n.data
	if [ ! -s "$f" ]; then
		awk -v n="$n" -v len="$len" -v prog="$OUT/prog" '
		BEGIN { print "event cpu-clock cpu-clock 1000000"; print "comm 4242 4242 prog" }
		{ ip[nip++] = $1 }
		END {
			printf "mmap 4242 400000 %x 0 %s\n", len, prog
			# 16 samples a line, the addresses in turn
			for (i = 0; i < n / 16; i++) printf "sample 0 4242 4242 %s 16\n", ip[i % nip]
		}' ips.txt | "$MKDATA" "$f" || exit 1
	fi
	read -r cpu wall rss < <(best "$EBS" report -i "$f" --no-pager)
	printf '  %12s %9.1f %12.1f %9s %9s\n' "$(printf "%'d" "$n" 2>/dev/null || echo "$n")" \
		"$(awk "BEGIN { print $(stat -c %s "$f") / 1048576 }")" \
		"$(awk "BEGIN { print $rss / 1024 }")" "$cpu" "$wall"
	fit="$fit $n $cpu"
	last=$f
done
python3 - $fit <<'PY'
import math, sys
v = list(map(float, sys.argv[1:]))
xs = [math.log(v[i]) for i in range(0, len(v), 2)]
ys = [math.log(v[i + 1]) for i in range(0, len(v), 2)]
n = len(xs)
mx, my = sum(xs) / n, sum(ys) / n
e = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
steps = ', '.join('x%.0f: time x%.2f' % (math.exp(xs[i] - xs[0]), math.exp(ys[i] - ys[0]))
                  for i in range(1, n))
print('  time ~ samples^%.2f (least squares over %d sizes; %s)' % (e, n, steps))
PY

echo
echo "== the largest file through a pipe (ebs report -i -)"
read -r cpu wall rss < <(RUNS=1 best sh -c 'cat "$1" | "$0" report -i - --no-pager' "$EBS" "$last")
printf '  peak RSS %.1f MB (of ebs and the shell around it), cpu %s s\n' \
	"$(awk "BEGIN { print $rss / 1024 }")" "$cpu"

echo
echo "== 100,000 mappings of one process, a sample in each: ebs report -s dso"
if [ ! -s maps.data ]; then
	awk 'BEGIN {
		print "event cpu-clock cpu-clock 1000"
		print "comm 100 100 many"
		for (i = 0; i < 100000; i++) printf "mmap 100 %x 1000 0 /many/lib%d.so\n", 0x10000000 + i * 4096, i % 2
		for (i = 0; i < 100000; i++) printf "sample 0 100 100 %x 1\n", 0x10000000 + i * 4096 + 16
	}' | "$MKDATA" maps.data || exit 1
fi
read -r cpu wall rss < <(best "$EBS" report -i maps.data -s dso --no-pager)
printf '  %-40s cpu %7s s  wall %7s s  peak RSS %.1f MB\n' "$EBS" "$cpu" "$wall" \
	"$(awk "BEGIN { print $rss / 1024 }")"
if [ -n "${OLD:-}" ]; then
	read -r cpu wall rss < <(RUNS=1 best "$OLD" report -i maps.data -s dso --no-pager)
	printf '  %-40s cpu %7s s  wall %7s s  peak RSS %.1f MB\n' "$OLD" "$cpu" "$wall" \
		"$(awk "BEGIN { print $rss / 1024 }")"
fi
