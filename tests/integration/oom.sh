#!/usr/bin/env bash
# oom.sh - out of memory: an allocation-failure injector (tests/tools/
# failmalloc.c, an LD_PRELOAD built here) fails the Nth allocation of a
# whole `ebs report`, `report --sort line`, `annotate`, `diff --sort line`
# (a file against itself) and a whole short `ebs record`, for N swept
# over each run's allocations: every N up to
# 100 (the setup: options, the file's header, the first tables), then 100
# more drawn (seeded, printed) from the rest of the run.
#
# What each run may do: go on (status 0) with the same output as without
# the failure, or with a warning on stderr; or stop with a message on
# stderr and a nonzero status below 128.  Never a signal death, never a
# nonzero exit without a word, never a changed output without a warning;
# record never leaves a file under the final name (the previous one stays
# as it was) nor a temp file when it fails, but for what a failure while
# collecting keeps (docs/security.md: NAME.partial, or its temporary name
# when a .partial is there already), which the message names and which
# reads back; and what it leaves on success reads back.
#
# Debian 12's libdwarf (20210528) is not safe when its own allocations
# fail (it frees a half-built line table twice in dwarf_srclines_b):
# that is libdwarf's, and ebs cannot fix it, so the sweep spares
# allocations made directly by libdwarf (EBS_FAIL_SPARE: the next
# allocation outside it fails instead).
. "$(dirname "$0")/../lib.sh"

# one policy: uthash only through util/hash.h (HASH_NONFATAL_OOM)
direct=$(cd "$TOP" && grep -rln --include='*.[ch]' '^#[[:space:]]*include[[:space:]]*<uthash.h>' \
	util sampler data symbolize report cli include kmod | grep -v '^util/hash.h$')
check "uthash is included through util/hash.h only (direct: ${direct:-none})" [ -z "$direct" ]

SO=$TMP/failmalloc.so
if ! cc -shared -fPIC -O2 -o "$SO" "$TOP/tests/preload/failmalloc.c" -ldl 2>cc.err; then
	skip "injector" "cannot build tests/preload/failmalloc.c: $(head -n 1 cc.err)"
	exit 0
fi
if [ -n "${SAN:-}" ] || ldd "$EBS" | grep -q 'libasan\|libubsan'; then
	# the sanitizers' allocator replaces malloc; LD_PRELOAD cannot come first
	skip "sweep" "a sanitizer build: its allocator is not interposable (the plain build runs this)"
	exit 0
fi

SEED=${OOM_SEED:-$RANDOM}
echo "oom: seed $SEED (OOM_SEED=$SEED to repeat)"
RANDOM=$SEED

"$EBS" record -q -F 1000 -o ref.data -- "$WORKLOADS/demo" >/dev/null 2>&1 ||
	fail "reference recording" "ebs record of demo failed"

# count CMD...: the allocations CMD makes
count() {
	EBS_FAIL_COUNT=$TMP/n LD_PRELOAD=$SO "$@" >/dev/null 2>&1
	cat "$TMP/n"
}

# points TOTAL: 1..100, then 100 drawn from 101..TOTAL
points() {
	local total=$1 i
	seq 1 $((total < 100 ? total : 100))
	if [ "$total" -gt 100 ]; then
		for i in $(seq 1 100); do
			echo $((101 + (RANDOM * 32768 + RANDOM) % (total - 100)))
		done | sort -n | uniq
	fi
}

# verdict NAME N RC: a run's status (its stderr in got.err).  A signal
# death or a nonzero exit without a message is said and counted in the
# caller's crash or silent, and returns 2; a nonzero exit with a message
# is counted in stopped and returns 1; status 0 returns 0.
verdict() {
	if [ "$3" -ge 128 ]; then
		crash=$((crash + 1)); echo "oom: $1: N=$2: status $3"; return 2
	elif [ "$3" -ne 0 ] && [ ! -s got.err ]; then
		silent=$((silent + 1)); echo "oom: $1: N=$2: status $3 without a message"; return 2
	elif [ "$3" -ne 0 ]; then
		stopped=$((stopped + 1)); return 1
	fi
	return 0
}

# sweep NAME CMD...: CMD's stdout without failures is the reference.  The
# points are drawn here (RANDOM stays the seed's); the runs go on in the
# background, in a directory of their own, and print into NAME's .out,
# which sweeps_done shows in order: the two cores sweep two at a time.
sweeps=()
sweep() {
	local name=$1 dir total pts
	shift
	dir=sweep${#sweeps[@]}
	mkdir -p "$dir"
	sweeps+=("$dir")
	(cd "$dir" && "$@" >want.txt 2>/dev/null)
	total=$(cd "$dir" && count "$@")
	pts=$(points "$total")
	(cd "$dir" || exit; sweep_runs "$name" "$total" "$pts" "$@" >out 2>&1) &
}

# sweep_runs NAME TOTAL POINTS CMD...: the runs of one sweep
sweep_runs() {
	local name=$1 total=$2 pts=$3 n crash=0 silent=0 changed=0 same=0 warned=0 stopped=0
	shift 3
	for n in $pts; do
		EBS_FAIL_SPARE=libdwarf EBS_FAIL_AT=$n LD_PRELOAD=$SO "$@" >got.txt 2>got.err
		verdict "$name" "$n" $? || continue
		if cmp -s got.txt want.txt; then
			same=$((same + 1))
		elif [ -s got.err ]; then
			warned=$((warned + 1))
		else
			changed=$((changed + 1)); echo "oom: $name: N=$n: output changed without a warning"
		fi
	done
	echo "oom: $name: $total allocations; $((crash + silent + changed + same + warned + stopped)) runs:" \
		"$same unchanged, $warned warned, $stopped stopped with a message;" \
		"$crash crashed, $silent silent exits, $changed silent changes"
	check "$name: no crash, no silent exit, no silent change over $total allocations" \
		[ $((crash + silent + changed)) -eq 0 ]
}

# sweeps_done: wait for the sweeps, print what each said (a sweep that
# printed no verdict is a failure)
sweeps_done() {
	local d
	wait
	for d in "${sweeps[@]}"; do
		cat "$d/out"
		grep -q '^\(PASS\|FAIL\): ' "$d/out" || fail "$d" "the sweep ended without a verdict"
	done
}

sweep "report" "$EBS" report -i "$PWD/ref.data"
sweep "report --sort line" "$EBS" report --sort line -i "$PWD/ref.data"
sweep "annotate" "$EBS" annotate -i "$PWD/ref.data" hash_buffer
sweep "diff --sort line" "$EBS" diff --sort line "$PWD/ref.data" "$PWD/ref.data"

# record: the file under the final name is the old one, or a new one that
# reads back; no temp file either way
printf 'old\n' >old.data
total=$(count "$EBS" record -q -F 500 -o new.data -- "$WORKLOADS/leafloop" 0.1)
rm -f new.data
crash=0 silent=0 clobbered=0 left=0 unreadable=0 ok=0 stopped=0 named=0
for n in $(points "$total"); do
	cp old.data out.data
	EBS_FAIL_SPARE=libdwarf EBS_FAIL_AT=$n LD_PRELOAD=$SO \
		"$EBS" record -q -F 500 -o out.data -- "$WORKLOADS/leafloop" 0.1 >/dev/null 2>got.err
	verdict record "$n" $?
	v=$?
	if [ $v -eq 1 ]; then
		cmp -s out.data old.data ||
			{ clobbered=$((clobbered + 1)); echo "oom: record: N=$n: failed, and the old file changed"; }
	elif [ $v -eq 2 ]; then
		:	# said and counted by verdict
	elif "$EBS" report -i out.data >/dev/null 2>&1; then
		ok=$((ok + 1))
	else
		unreadable=$((unreadable + 1)); echo "oom: record: N=$n: status 0, the file does not read back"
	fi
	# a failure while collecting keeps what was recorded (out.data.partial, or
	# under its temporary name when a .partial is there already), named in
	# the message and readable: that is no leftover
	kept=$(sed -n "s/.* recorded so far are in \([^,]*\), unfinished.*/\1/p" got.err)
	if [ -n "$kept" ]; then
		if [ -f "$kept" ] && "$EBS" report -i "$kept" >/dev/null 2>&1; then
			named=$((named + 1))
		else
			unreadable=$((unreadable + 1)); echo "oom: record: N=$n: kept $kept does not read back"
		fi
		rm -f "$kept"
	fi
	if ls -A | grep -q '^\.out\.data\.tmp'; then
		left=$((left + 1)); echo "oom: record: N=$n: a temp file left, not named"; rm -f .out.data.tmp*
	fi
	rm -f out.data.partial
done
echo "oom: record: $total allocations; $((ok + stopped + crash + silent + unreadable)) runs: $ok recorded," \
	"$stopped stopped with a message; $crash crashed, $silent silent exits," \
	"$clobbered old files changed, $unreadable unreadable, $left temp files left;" \
	"$named kept what was recorded, named"
check "record: no crash, no silent exit, old file kept, no temp left over $total allocations" \
	[ $((crash + silent + clobbered + unreadable + left)) -eq 0 ]
sweeps_done
