#!/usr/bin/env bash
# timeout: 1200
# neighbours.sh - root runs ebs on a machine shared with a hostile user
# (nobody, uid 65534), who can write into a world-writable sticky directory
# ($SHARED, as /tmp) and owns programs that root's `record -a` samples
# (docs/security.md, "Hostile neighbours").  Each part plays that user
# against one door:
#  outputs:  a FIFO, a symbolic link (to a file of root's, to a device), a
#            device and a file of nobody's at each output path root writes,
#            or a link on the way to it; two recorders into one name at once;
#            nobody's NAME.old, a FIFO put at the name during the recording,
#            the directory's lock held;
#  ...       (the parts below say what they cover)
# Every check here failed on the code before issue 28's fixes.
. "$(dirname "$0")/../lib.sh"

can_play_nobody "all" "to play root against nobody (uid 65534)" || exit 0

# The shared directory: world-writable and sticky, as /tmp ($TMP is 0755).
SHARED=$TMP/shared
mkdir -m 1777 "$SHARED"

# as_nobody CMD...: run CMD as uid/gid 65534 with no groups.  What nobody
# runs or reads of the checkout's (ebs, a workload, a script), it gets from
# for_nobody: the checkout may be out of its reach.
as_nobody() { $NOBODY "$@"; }

# ---- outputs ----
# Each command that writes a file, run by root into $SHARED, where nobody
# has put, before it ran:
#  fifo       a FIFO of nobody's, with nobody reading it;
#  link-fifo  a symbolic link to a FIFO in nobody's own directory;
#  link-dev   a symbolic link to a device (/dev/full: every write fails);
#  file       a file of nobody's.
# Each is refused before anything is written: exit 1, one line naming the
# name and its owner; nobody's reader gets nothing, and what nobody put
# there is as it was.  (Before: the FIFOs got the whole recording, the
# device was written through the link, nobody's file was replaced.)
L="$WORKLOADS/leafloop"
record good.data -e cpu-clock -F 1000 "$L" 0.05
PERFDATA=
if command -v perf >/dev/null &&
   perf record -q -e cpu-clock -F 1000 -o "$TMP/perf.data" -- "$L" 0.05 >/dev/null 2>perf.err; then
	PERFDATA=$TMP/perf.data
fi
NBDIR=$TMP/nb
mkdir -m 700 "$NBDIR" && chown 65534:65534 "$NBDIR"
# READER FIFO GOT READY DONE: nobody's reader, open before ebs runs (READY
# made then), keeping what comes through FIFO in GOT until DONE appears
READER='
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
got = open(sys.argv[2], "wb")
open(sys.argv[3], "w").close()
while True:
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        b = None
    if b:
        got.write(b)
    elif os.path.exists(sys.argv[4]):
        break
    else:
        time.sleep(0.01)
'

while IFS='|' read -r what cmd; do
	if [ "${cmd#convert}" != "$cmd" ] && [ -z "$PERFDATA" ]; then
		skip "outputs: $what" "no perf to write a perf.data: $(head -n 1 perf.err 2>/dev/null)"
		continue
	fi
	for plant in fifo link-fifo link-dev file; do
		rm -f "$SHARED/out" "$NBDIR/fifo" "$TMP/got"
		fifo=
		case $plant in
		fifo)
			as_nobody mkfifo -m 622 "$SHARED/out"
			fifo=$SHARED/out kind="a FIFO" ;;
		link-fifo)
			as_nobody mkfifo -m 600 "$NBDIR/fifo"
			as_nobody ln -s "$NBDIR/fifo" "$SHARED/out"
			fifo=$NBDIR/fifo kind="a symbolic link" ;;
		link-dev)
			as_nobody ln -s /dev/full "$SHARED/out"
			kind="a symbolic link" ;;
		file)
			as_nobody sh -c 'echo theirs >"$1"' sh "$SHARED/out"
			kind="a file" ;;
		esac
		before=$(stat -c '%F %U %s %i' "$SHARED/out")
		reader=
		if [ -n "$fifo" ]; then
			rm -f "$TMP/done" "$NBDIR/ready"
			as_nobody /usr/bin/python3 -c "$READER" "$fifo" "$NBDIR/got" "$NBDIR/ready" \
				"$TMP/done" &
			reader=$!
			while [ ! -e "$NBDIR/ready" ] && kill -0 $reader 2>/dev/null; do sleep 0.01; done
			[ -e "$NBDIR/ready" ] || fail "outputs: $what, $plant: nobody's reader" "did not start"
		fi
		eval "expect \"outputs: \$what, \$plant: refused, exit 1, one line naming it and nobody\" 1 \
			\"^ebs [a-z]+: (--?[a-z]+ )?\$SHARED/out: not written: \$kind owned by nobody \\(uid 65534\\), in a directory others can write\" \
			\"\$EBS\" ${cmd//@OUT@/\"\$SHARED/out\"}"
		if [ -n "$reader" ]; then
			touch "$TMP/done"
			wait "$reader"
			check "outputs: $what, $plant: nobody's reader got nothing" [ ! -s "$NBDIR/got" ]
		fi
		check "outputs: $what, $plant: what nobody put there is as it was" \
			[ "$(stat -c '%F %U %s %i' "$SHARED/out")" = "$before" ]
		check "outputs: $what, $plant: no temporary file left" \
			[ -z "$(ls -A "$SHARED" | grep -v '^out$')" ]
	done
done <<'EOT'
record -o|record -q -e cpu-clock -F 1000 -o @OUT@ "$L" 0.05
record -a -o|record -a -q -e cpu-clock -F 100 -o @OUT@ -- "$L" 0.05
convert -o|convert -q -i "$PERFDATA" -o @OUT@
annotate --html|annotate -i "$TMP/good.data" --html @OUT@
flamegraph -o|flamegraph -i "$TMP/good.data" -o @OUT@
export -o|export -i "$TMP/good.data" --format pprof -o @OUT@
stat -o|stat -e task-clock -o @OUT@ true
stat --plot|stat -e task-clock -o "$TMP/stat.txt" --plot @OUT@ true
monitor --csv|monitor --csv @OUT@ -e task-clock -- true
calibrate -o|calibrate -q -e task-clock -o @OUT@ -- "$L" 0.05
EOT

# Root's own things in the shared directory are root's to write: a FIFO of
# root's is written in place, a file of root's replaced (kept as .old).
rm -f "$SHARED/out"
mkfifo -m 600 "$SHARED/rootfifo"
"$EBS" report -i "$SHARED/rootfifo" --json >rootfifo.json 2>rootfifo.err &
reader=$!
(cd "$SHARED" && "$EBS" record -q -e cpu-clock -F 1000 -o rootfifo "$L" 0.05)
check "outputs: a FIFO of root's in the shared directory: written in place (exit $?)" \
	[ $? -eq 0 ]
wait $reader
check "outputs: ... and read back through it" jtrue rootfifo.json "j['rows'][0]['function'] == 'leaf'"
rm -f "$SHARED/rootfifo"

# Two recorders into one name at once: neither is lost.  Each recording is
# told by its command line (true A7, true B7); every one that exited 0 is
# under the name or kept as NAME.old (the other came after it), and every
# one that did not says where it is, one line, exit 1.  (Before: both exit
# 0, one recording gone, 3 trials in 40.)
lost=0 beside=0 trials=${TRIALS:-40}
for t in $(seq 1 "$trials"); do
	rm -f "$SHARED"/same.data*
	for w in A B; do
		(cd "$SHARED" && "$EBS" record -q -e cpu-clock -F 100 -o same.data -- true "$w$t" \
			2>"$TMP/$w.err"; echo $? >"$TMP/$w.rc") &
	done
	wait
	for w in A B; do
		rc=$(cat "$TMP/$w.rc")
		if [ "$rc" -eq 0 ]; then
			where="$SHARED/same.data $SHARED/same.data.old"
		else
			where=$SHARED/$(sed -n 's/.*this one is in \(.*\)$/\1/p' "$TMP/$w.err")
			beside=$((beside + 1))
			one_line "$TMP/$w.err" || where=
		fi
		found=
		for f in $where; do
			"$EBS" report -i "$f" --dump 2>/dev/null | grep -q "^# cmdline: .* -- true $w$t\$" && found=$f
		done
		if [ -z "$found" ]; then
			lost=$((lost + 1))
			echo "    trial $t: $w's recording (exit $rc: $(cat "$TMP/$w.err")) is not where it should be"
			ls -la "$SHARED" | sed 's/^/    /'
		fi
	done
done
check "outputs: two recorders into one name, $trials times: no recording lost ($beside kept beside, told so)" \
	[ "$lost" -eq 0 ]
rm -f "$SHARED"/same.data*

# A symbolic link of nobody's as a directory on the way to the name: not
# followed (before: root's recording went where the link led, and replaced
# a file of root's there, kept as .old).
mkdir -m 700 "$TMP/rootdir"
echo precious >"$TMP/rootdir/x.data"
as_nobody ln -s "$TMP/rootdir" "$SHARED/results"
expect "outputs: a link of nobody's on the way to the name: refused, exit 1, naming the link" 1 \
	"^ebs record: $SHARED/results/x\.data: not written: $SHARED/results is a symbolic link owned by nobody \(uid 65534\), in a directory others can write; ebs does not follow it$" \
	"$EBS" record -q -e cpu-clock -F 100 -o "$SHARED/results/x.data" -- true
check "outputs: ... the file where it led untouched, nothing beside it" \
	[ "$(cat "$TMP/rootdir/x.data")" = precious -a "$(ls -A "$TMP/rootdir")" = x.data ]
# root's own link there is root's: followed (a link to a file is replaced, as anywhere)
ln -s "$TMP/rootdir/own.data" "$SHARED/ownlink"
check "outputs: root's own link in the shared directory: written (a link to a file replaced)" \
	sh -c '"$1" record -q -e cpu-clock -F 100 -o "$2" -- true && [ -f "$2" ] && [ ! -L "$2" ]' \
	sh "$EBS" "$SHARED/ownlink"
rm -f "$SHARED/results" "$SHARED/ownlink"

# nobody's NAME.old beside root's recording: not replaced; the recording is
# kept as NAME.1, said in one line with its counts, exit 1 (before: root
# removed nobody's FIFO and put its old recording there).
record "$SHARED/o.data" -e cpu-clock -F 100 -- true
as_nobody mkfifo -m 622 "$SHARED/o.data.old"
expect "outputs: nobody's NAME.old: the recording kept as NAME.1, one line, exit 1" 1 \
	"^ebs record: $SHARED/o\.data: cannot keep the old file as $SHARED/o\.data\.old: a FIFO owned by nobody \(uid 65534\) is there, in a directory others can write; this one is in $SHARED/o\.data\.1 \([0-9]+ samples, [0-9]+ lost\)$" \
	"$EBS" record -q -e cpu-clock -F 100 -o "$SHARED/o.data" -- true
check "outputs: ... nobody's FIFO as it was, NAME.1 a whole recording" \
	sh -c '[ -p "$1.old" ] && [ "$(stat -c %U "$1.old")" = nobody ] && "$2" report -i "$1.1" >/dev/null' \
	sh "$SHARED/o.data" "$EBS"
rm -f "$SHARED"/o.data*

# Something nobody puts at the name while root records: not replaced, and
# the line says what it is (not "another recording")
rm -f "$TMP/go"
(
	cd "$SHARED" && "$EBS" record -q -e cpu-clock -F 100 -o d.data -- \
		sh -c 'while [ ! -e "$1" ]; do sleep 0.02; done' sh "$TMP/go" 2>"$TMP/d.err"
	echo $? >"$TMP/d.rc"
) &
for i in $(seq 1 3000); do
	ls -A "$SHARED" | grep -q '^\.d\.data\.tmp\.' && break
	sleep 0.02
done
as_nobody mkfifo -m 622 "$SHARED/d.data"
touch "$TMP/go"
wait
check "outputs: a FIFO put at the name during the recording: kept as NAME.1, the line says what is there ($(cat "$TMP/d.err"))" \
	sh -c '[ "$(cat "$1/d.rc")" = 1 ] && one_line() { [ "$(wc -l <"$1")" -eq 1 ]; } && one_line "$1/d.err" &&
		grep -q "^ebs record: d\.data: a FIFO owned by nobody (uid 65534) was put at this name while this recording ran: not replaced; this one is in d\.data\.1 (" "$1/d.err" &&
		[ -p "$2/d.data" ] && [ -f "$2/d.data.1" ]' sh "$TMP" "$SHARED"
rm -f "$SHARED"/d.data*

# nobody holds the directory's lock: root's recording waits 10 s, then is
# kept as NAME.1, not under its temporary name, which a later record would
# call unfinished and --clean would remove (before: both)
as_nobody flock -x "$SHARED" sleep 15 &
locker=$!
for i in $(seq 1 500); do
	flock -n -x "$SHARED" true 2>/dev/null || break
	sleep 0.02
done
expect "outputs: the directory locked by nobody: kept as NAME.1 after 10 s, one line, exit 1" 1 \
	"^ebs record: $SHARED/l\.data: its directory stays locked \(flock\) by another process for over 10 s; this one is in $SHARED/l\.data\.1 " \
	"$EBS" record -q -e cpu-clock -F 100 -o "$SHARED/l.data" -- true
kill $locker 2>/dev/null
wait $locker 2>/dev/null
"$EBS" record --clean -o "$SHARED/l.data" >/dev/null 2>clean.err
check "outputs: ... a later --clean neither names nor removes it" \
	sh -c '[ ! -s "$1" ] && [ -f "$2.1" ]' sh clean.err "$SHARED/l.data"
rm -f "$SHARED"/l.data*

# A file of root's in the sticky directory, as nobody: refused before any
# work, saying why (before: recorded, then 'Operation not permitted')
record "$SHARED/r.data" -e cpu-clock -F 100 -- true
expect "outputs: nobody over root's file in a sticky directory: refused at once, why said" 1 \
	"^ebs record: $SHARED/r\.data: not written: a file owned by root \(uid 0\), in a sticky directory, where only its owner may replace it; write elsewhere$" \
	$NOBODY "$(for_nobody "$EBS")" record -q -e cpu-clock:u -F 100 -o "$SHARED/r.data" -- sh -c ': >"$1"' sh "$SHARED/nbran"
check "outputs: ... the command did not run" [ ! -e "$SHARED/nbran" ]
rm -f "$SHARED"/r.data*

# ---- the DWARF cache ----
# Root's cache of decoded DWARF (docs/symbolize.md, "The cache of decoded
# DWARF") against nobody's programs (issue 28, defects 2 and 6):
#  a. nobody's forged copy of root's hotline: one function renamed in
#     .debug_str, one 32-byte stripe of a DW_AT_producer solved so that its
#     build-id, size and XXH64 are the genuine file's (tests/tools/xxforge.py).
#     nobody runs it under root's `record -a`; root reports that, which fills
#     root's cache; root's report of a recording of its own hotline names
#     inl_helper, not nobody's name (entries are found by the SHA-256 of what
#     decoding reads, symbolize/digest.c);
#  b. nobody's exact copy of root's hotline, rewritten by nobody with the
#     forgery at the worst moment (after root's report hashed it, before
#     libdwarf reads it: played on time by tests/preload/swapdwarf.c in
#     root's ebs): the entry holds what was hashed, root's own report is right;
#  c. nobody's program (its DWARF compressed, -gz, for the inflated copy)
#     with a sparse hole of HOLE (default 16G) appended, under root's
#     `record -a`: root's reports, cold and warm, read (rchar,
#     tests/tools/readbytes.py) under 256 MiB, not the hole, and print what
#     --no-cache prints.  (The code before read all of it, twice when cold.)
dc_cache=$TMP/dc-xdg	# root's cache for this part
dc_ebs() { XDG_CACHE_HOME=$dc_cache "$EBS" "$@"; }
dc_root=$TMP/dc-root	# root's programs
dc_nb=$TMP/dc-nobody	# nobody's, as in its home
mkdir -m 755 "$dc_root" "$dc_nb"
chown 65534:65534 "$dc_nb"
cp "$WORKLOADS/hotline" "$dc_root/hotline"
# dc_report NAME DATA [OPTION...]: root's report of DATA through its cache
# into NAME.out, and without it into NAME.want.  (Of a recording of -a, only
# nobody's program's samples, --comm: the machine's other processes may
# change between two reports.)
dc_report() {
	local name=$1 data=$2
	shift 2
	dc_ebs report -i "$data" "$@" >"$name.out" 2>"$name.err"
	"$EBS" report -i "$data" --no-cache "$@" >"$name.want" 2>"$name.want.err"
}

# a. the forged entry (the system's python3: root's PATH may lead where nobody may not go)
as_nobody cp "$dc_root/hotline" "$dc_nb/genuine"
if ! as_nobody env PATH=/usr/bin:/bin python3 "$(for_nobody "$TOP/tests/tools/xxforge.py")" "$dc_nb/genuine" \
	"$dc_nb/nbforged" inl_helper=nobodys_fn >forge.out 2>&1; then
	fail "cache a. forgery" "xxforge.py: $(tail -n 1 forge.out)"
else
	as_nobody chmod 755 "$dc_nb/nbforged"
	bid() { readelf -n "$1" | awk '/Build ID/ { print $3 }'; }
	check "cache a. nobody's forgery has root's build-id, size and XXH64 ($(cat forge.out)), other bytes" \
		eval '[ "$(bid "$dc_nb/nbforged")" = "$(bid "$dc_root/hotline")" ] &&
		      [ "$(stat -c %s "$dc_nb/nbforged")" = "$(stat -c %s "$dc_root/hotline")" ] &&
		      not cmp -s "$dc_nb/nbforged" "$dc_root/hotline"'
	record dc-nb.data -a -e cpu-clock -F 1000 -- $NOBODY "$dc_nb/nbforged" 0.3 ||
		fail "cache a. record -a" "$(tail -n 1 dc-nb.data.err)"
	rm -rf "$dc_cache"
	dc_report dc-nb dc-nb.data --comm nbforged
	check "cache a. root's report of nobody's program names what its DWARF says (nobodys_fn), as --no-cache does" \
		eval 'grep -q "nobodys_fn (inlined into hot_loop)" dc-nb.out && cmp -s dc-nb.out dc-nb.want'
	record dc-g.data -e cpu-clock -F 1000 "$dc_root/hotline" 0.3 ||
		fail "cache a. record" "$(tail -n 1 dc-g.data.err)"
	dc_report dc-g dc-g.data
	check "cache a. then root's report of its own hotline: inl_helper, nothing of nobody's, as --no-cache" \
		eval 'grep -q "inl_helper (inlined into hot_loop)" dc-g.out && not grep -q nobodys_fn dc-g.out &&
		      cmp -s dc-g.out dc-g.want'
fi

# b. the file rewritten between the digest and libdwarf's reading
if [ ! -f "$dc_nb/nbforged" ]; then
	skip "cache b" "no forgery (a.)"
elif ! cc -shared -fPIC -O1 -I/usr/include/libdwarf -o swapdwarf.so \
	"$TOP/tests/preload/swapdwarf.c" -ldl 2>cc.err; then
	skip "cache b" "cannot build tests/preload/swapdwarf.c: $(head -n 1 cc.err)"
else
	as_nobody cp "$dc_root/hotline" "$dc_nb/nbtwin"
	record dc-twin.data -a -e cpu-clock -F 1000 -- $NOBODY "$dc_nb/nbtwin" 0.3 ||
		fail "cache b. record -a" "$(tail -n 1 dc-twin.data.err)"
	rm -rf "$dc_cache"
	SWAP_SIZE=$(stat -c %s "$dc_nb/nbtwin") SWAP_CMD="$NOBODY cp $dc_nb/nbforged $dc_nb/nbtwin" \
		LD_PRELOAD=$PWD/swapdwarf.so ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0" \
		dc_ebs report -i dc-twin.data --comm nbtwin >dc-twin.out 2>dc-twin.err
	check "cache b. nobody rewrote its copy while root's report read it" \
		cmp -s "$dc_nb/nbtwin" "$dc_nb/nbforged"
	dc_report dc-g2 dc-g.data
	check "cache b. ... root's report of its own hotline after it: inl_helper, nothing of nobody's" \
		eval 'grep -q "inl_helper (inlined into hot_loop)" dc-g2.out && not grep -q nobodys_fn dc-g2.out &&
		      cmp -s dc-g2.out dc-g.want'
fi

# c. a sparse hole of HOLE
HOLE=${HOLE:-16G}
if ! gcc -O2 -g -gz -I"$TOP/tests/workloads" -o "$dc_nb/nbsparse" "$TOP/tests/workloads/hotline.c" 2>cc.err; then
	skip "cache c" "cannot build hotline.c with -gz: $(head -n 1 cc.err)"
else
	chown 65534:65534 "$dc_nb/nbsparse"
	as_nobody truncate -s "+$HOLE" "$dc_nb/nbsparse"
	record dc-sp.data -a -e cpu-clock -F 1000 -- $NOBODY "$dc_nb/nbsparse" 0.3 ||
		fail "cache c. record -a" "$(tail -n 1 dc-sp.data.err)"
	rm -rf "$dc_cache"
	XDG_CACHE_HOME=$dc_cache python3 "$TOP/tests/tools/readbytes.py" cold.bytes \
		"$EBS" report -i dc-sp.data --comm nbsparse >dc-sp.cold 2>&1
	XDG_CACHE_HOME=$dc_cache python3 "$TOP/tests/tools/readbytes.py" warm.bytes \
		"$EBS" report -i dc-sp.data --comm nbsparse >dc-sp.warm 2>&1
	"$EBS" report -i dc-sp.data --comm nbsparse --no-cache >dc-sp.want 2>&1
	size=$(stat -c %s "$dc_nb/nbsparse")
	check "cache c. a program of $size bytes (a hole of $HOLE): root's cold report read $(cat cold.bytes) bytes, the warm one $(cat warm.bytes): both under 256 MiB" \
		eval '[ "$(cat cold.bytes)" -lt $((256 << 20)) ] && [ "$(cat warm.bytes)" -lt $((256 << 20)) ]'
	if cmp -s dc-sp.cold dc-sp.want && cmp -s dc-sp.warm dc-sp.want &&
		grep -q "inl_helper (inlined into hot_loop) *nbsparse" dc-sp.want; then
		pass "cache c. ... their output as --no-cache's, hot_loop and inl_helper named"
	else
		fail "cache c. ... their output as --no-cache's, hot_loop and inl_helper named" \
			"$(diff dc-sp.want dc-sp.cold | head -c 300) $(diff dc-sp.want dc-sp.warm | head -c 300)"
	fi
fi

# ---- recorded paths ----
# A recording names the files it mapped; whatever is at those paths when
# root reads it is nobody's choice: a device (opening one runs its driver:
# a watchdog arms, a terminal is taken), a FIFO (opening it for reading
# wakes a writer waiting on it), a socket, a file of nobody's in a shared
# directory.  report, annotate, script and addr2line must open none of them
# for reading (strace: every open of those paths is O_PATH; a FIFO's
# writer still waits) and say each one's own reason in one line.
MKDATA=$(dirname "$EBS")/tests/tools/mkdata
rp_tty=/dev/tty
[ -c /dev/console ] && rp_tty=/dev/console
rp_blk=$(find /dev -maxdepth 1 -type b 2>/dev/null | sort | head -n 1)
mkfifo -m 666 "$TMP/rp.fifo"
as_nobody mkfifo -m 666 "$SHARED/rp.sfifo"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$TMP/rp.sock"
as_nobody sh -c "cp '$(for_nobody "$WORKLOADS/leafloop")' '$SHARED/rp.nob' && chmod 755 '$SHARED/rp.nob'"
# path, then the reason each must be refused for (an extended regex);
# NOFILE: a mapping that is no file (a /dev/zero mapping is anonymous
# memory, as a memfd's is): never looked for, nothing said
rp_cases=(
	"/dev/urandom" "is a character device, not a regular file"
	"/dev/zero" "NOFILE"
	"$rp_tty" "is a character device, not a regular file"
	"$TMP/rp.fifo" "is a FIFO, not a regular file"
	"$SHARED/rp.sfifo" "is a FIFO, not a regular file"
	"$TMP/rp.sock" "is a socket, not a regular file"
	"$SHARED/rp.nob" "is owned by [^ ]* ?\\(uid 65534\\) in a directory others can write: not trusted"
)
if [ -n "$rp_blk" ]; then
	rp_cases+=("$rp_blk" "is a block device, not a regular file")
else
	skip "recorded paths: a block device" "this machine has no block device in /dev"
fi
{
	echo "event cpu-clock cpu-clock 100000"
	echo "comm 4242 4242 victim"
	for ((i = 0; i < ${#rp_cases[@]}; i += 2)); do
		printf 'mmap 4242 %x 10000 0 %s\n' $((0x400000 + i * 0x100000)) "${rp_cases[i]}"
		printf 'sample 0 4242 4242 %x 3\n' $((0x400010 + i * 0x100000))
	done
} >rp.script
if ! "$MKDATA" rp.data <rp.script; then
	fail "recorded paths" "mkdata cannot write rp.data"
elif ! command -v strace >/dev/null; then
	skip "recorded paths" "strace is not installed (apt-get install strace)"
else
	echo "ffffffff81000000 T _stext" >rp.kallsyms
	# rp_strace TRACE CMD...: CMD's opens into TRACE, a hang guard of 60 s;
	# LeakSanitizer stops the world with ptrace, which strace already holds
	rp_strace() {
		local out=$1
		shift
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
			timeout -s KILL 60 strace -f -qq -e trace=open,openat -o "$out" "$@"
	}
	# A writer waiting on each FIFO: it goes on only if someone opens it to read.
	for f in "$TMP/rp.fifo" "$SHARED/rp.sfifo"; do
		$NOBODY timeout 600 sh -c "echo woken >'$f'" >/dev/null 2>&1 &
		eval "rp_writer_${f//[^a-z]/_}=$!"
	done
	for cmd in report annotate script addr2line; do
		if [ $cmd = addr2line ]; then
			# the same paths given to addr2line, one run each
			: >rp.$cmd.err
			: >rp.$cmd.trace
			for ((i = 0; i < ${#rp_cases[@]}; i += 2)); do
				[ "${rp_cases[i]}" = "$SHARED/rp.nob" ] && continue # (named by the user: read)
				[ "${rp_cases[i + 1]}" = NOFILE ] && continue
				rp_strace rp.t "$EBS" addr2line -e "${rp_cases[i]}" 0x400010 >/dev/null 2>>rp.$cmd.err
				cat rp.t >>rp.$cmd.trace
			done
		else
			rp_strace rp.$cmd.trace "$EBS" $cmd -i rp.data --kallsyms rp.kallsyms >/dev/null 2>rp.$cmd.err
		fi
		keep rp.$cmd.err
		for ((i = 0; i < ${#rp_cases[@]}; i += 2)); do
			p=${rp_cases[i]} why=${rp_cases[i + 1]}
			[ $cmd = addr2line ] && [ "$p" = "$SHARED/rp.nob" ] && continue
			[ $cmd = addr2line ] && [ "$why" = NOFILE ] && continue
			if [ "$why" = NOFILE ]; then
				check "recorded paths: $cmd: $p: a mapping of no file, nothing said ($(grep -F -- "$p" rp.$cmd.err | head -c 300))" \
					not grep -qF -- "$p:" rp.$cmd.err
			else
			check "recorded paths: $cmd: $p: one line saying it $why (got: $(grep -F -- "$p" rp.$cmd.err | head -c 300))" \
				bash -c '[ "$(grep -cF -- "$1:" "$3")" -eq 1 ] && grep -F -- "$1:" "$3" | grep -qE -- "$1: $2"' \
				sh "$p" "$why" rp.$cmd.err
			fi
			b=$(basename "$p")
			check "recorded paths: $cmd: $p: never opened but with O_PATH ($(grep -E "\"([^\"]*/)?$b\"" rp.$cmd.trace | grep -v O_PATH | head -n 1))" \
				not grep -qE "open(at)?\\(.*\"([^\"]*/)?$b\", [^)]*" <(grep -v O_PATH rp.$cmd.trace)
		done
	done
	for f in "$TMP/rp.fifo" "$SHARED/rp.sfifo"; do
		eval "w=\$rp_writer_${f//[^a-z]/_}"
		check "recorded paths: $f: its writer still waits (no one opened it to read)" \
			kill -0 "$w"
		kill "$w" 2>/dev/null
	done
	wait 2>/dev/null
fi

# ---- annotate's sources ----
# A program's DWARF names its source files, and its owner wrote the DWARF:
# nobody's program built with `#line 1 "SECRET"` names a file of root's
# that nobody cannot read.  Root's annotate of it (text, --html, a file
# listing, --source-dir leading to the secret) must show none of the
# secret and say why; nobody's own source is still shown; a link nobody
# planted in the shared directory is not followed, whoever's binary names
# it.  Nor is a source on /proc: nobody's `#line 3 "/proc/kallsyms"`,
# `"/proc/self/maps"` and `"/proc/self/cmdline"` would show root's view of
# them (kernel addresses, root's memory map and command line), whatever
# their modes say.
as_src=$TMP/as.secret
printf 'TOPSECRET-line-%s\n' 1 2 3 4 5 6 >"$as_src"
chmod 600 "$as_src"
as_nobody ln -s "$as_src" "$SHARED/as-planted.c"
as_nobody sh -c "cat >'$SHARED/as-prog.c'" <<ASEOF
#include <time.h>
void own_spin(void), secret_spin(void), planted_spin(void);
void kallsyms_spin(void), maps_spin(void), cmdline_spin(void);
static double cpu(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(void)
{
	double end = cpu() + 0.3;

	while (cpu() < end) {
		own_spin();
		secret_spin();
		planted_spin();
		kallsyms_spin();
		maps_spin();
		cmdline_spin();
	}
	return 0;
}
volatile unsigned long sink;
__attribute__((noinline)) void own_spin(void)
{
	for (int i = 0; i < 100000; i++) /* OWN-MARKER */
		sink += i;
}
#line 1 "$as_src"
__attribute__((noinline)) void secret_spin(void) { for (int i = 0; i < 100000; i++) sink += i * 3; }
#line 1 "$SHARED/as-planted.c"
__attribute__((noinline)) void planted_spin(void) { for (int i = 0; i < 100000; i++) sink += i * 5; }
#line 3 "/proc/kallsyms"
__attribute__((noinline)) void kallsyms_spin(void) { for (int i = 0; i < 100000; i++) sink += i * 7; }
#line 5 "/proc/self/maps"
__attribute__((noinline)) void maps_spin(void) { for (int i = 0; i < 100000; i++) sink += i * 9; }
#line 1 "/proc/self/cmdline"
__attribute__((noinline)) void cmdline_spin(void) { for (int i = 0; i < 100000; i++) sink += i * 11; }
ASEOF
# the secret's text in FILE, or nothing
secret_in() { grep -q TOPSECRET "$1"; }
if ! as_nobody gcc -O1 -g -o "$SHARED/as-prog" "$SHARED/as-prog.c" 2>as.gcc.err; then
	fail "annotate's sources" "gcc as nobody failed: $(head -c 300 as.gcc.err)"
elif ! record as.data -e cpu-clock -F 2000 -- $NOBODY "$SHARED/as-prog"; then
	fail "annotate's sources" "ebs record failed: $(head -c 300 as.data.err)"
else
	"$EBS" annotate -i as.data secret_spin >as.secret.txt 2>as.secret.err
	keep as.secret.txt
	check "annotate's sources: nobody's secret_spin: none of the secret's text" not secret_in as.secret.txt
	check "annotate's sources: ... the listing says why ($(grep '^# note' as.secret.txt | head -c 300))" \
		grep -qE "^# note: $as_src is not shown: it may not be read by the binary's owner, [^ ]* ?\\(uid 65534\\): its mode is 0600; its instructions instead" as.secret.txt
	check "annotate's sources: ... and one warning line says it ($(head -c 300 as.secret.err))" \
		bash -c '[ "$(wc -l <"$1")" -eq 1 ] && grep -qE "warning: $2: may not be read by the binary.s owner.*its source lines are not shown" "$1"' \
		sh as.secret.err "$as_src"
	"$EBS" annotate -i as.data secret_spin --html as.secret.html 2>/dev/null
	check "annotate's sources: --html: none of the secret's text" not secret_in as.secret.html
	check "annotate's sources: --html: the page says why" \
		grep -q "is not shown: it may not be read by the binary&#39;s owner\\|is not shown: it may not be read by the binary's owner" as.secret.html
	"$EBS" annotate -i as.data "$as_src" >as.file.txt 2>/dev/null
	check "annotate's sources: the secret's file listing: none of its text" not secret_in as.file.txt
	"$EBS" annotate -i as.data secret_spin --source-dir "$TMP" >as.dir.txt 2>/dev/null
	check "annotate's sources: --source-dir leading to the secret: none of its text" not secret_in as.dir.txt
	"$EBS" annotate -i as.data secret_spin --source-dir "$TMP=$TMP" >as.map.txt 2>/dev/null
	check "annotate's sources: --source-dir OLD=NEW onto it: none of its text" not secret_in as.map.txt
	"$EBS" annotate -i as.data planted_spin >as.planted.txt 2>as.planted.err
	check "annotate's sources: a link planted in the shared directory: not followed ($(grep '^# note' as.planted.txt | head -c 200))" \
		bash -c '! grep -q TOPSECRET "$1" && grep -q "is a symbolic link in a directory others can write: not followed" "$1"' \
		sh as.planted.txt
	# /proc's files: root's view of them, whoever's binary names them
	# pseudo_leak FILE: what root's view of /proc/kallsyms (an address),
	# of its maps (an address range) or of its command line (ebs's
	# arguments: its first, ebs's path, up to a NUL) would put in FILE
	pseudo_leak() {
		grep -qiE '[0-9a-f]{8,16} [tTdDbBrRwW] |[0-9a-f]{8,}-[0-9a-f]{8,} [r-][w-][x-][ps]' "$1" ||
			grep -qF -- "$EBS" "$1"
	}
	for pf in kallsyms:/proc/kallsyms maps:/proc/self/maps cmdline:/proc/self/cmdline; do
		fn=${pf%%:*}_spin path=${pf#*:}
		"$EBS" annotate -i as.data "$fn" >as.$fn.txt 2>as.$fn.err
		"$EBS" annotate -i as.data "$fn" --html as.$fn.html 2>/dev/null
		keep as.$fn.txt
		check "annotate's sources: nobody's $fn (#line in $path): none of root's view of it, text and --html" \
			eval 'not pseudo_leak as.$fn.txt && not pseudo_leak as.$fn.html && [ -s as.$fn.html ]'
		check "annotate's sources: ... the listing says why ($(grep '^# note' as.$fn.txt | head -n 1 | head -c 200))" \
			grep -qF "# note: $path is not shown: it is on /proc, whose contents depend on who reads them" as.$fn.txt
		check "annotate's sources: ... so does the page" \
			grep -qF "$path is not shown: it is on /proc, whose contents depend on who reads them" as.$fn.html
	done
	"$EBS" annotate -i as.data own_spin >as.own.txt 2>as.own.err
	check "annotate's sources: nobody's own source, nobody's own binary: shown" \
		grep -q 'OWN-MARKER' as.own.txt
	# root's copy of the program: its DWARF is root's, its secret root's to see;
	# the planted link is still not followed
	cp "$SHARED/as-prog" "$TMP/as-rootprog"
	if record as-root.data -e cpu-clock -F 2000 -- "$TMP/as-rootprog"; then
		"$EBS" annotate -i as-root.data secret_spin >as.root.txt 2>/dev/null
		check "annotate's sources: root's own binary naming root's file: shown" \
			secret_in as.root.txt
		"$EBS" annotate -i as-root.data kallsyms_spin >as.rootkallsyms.txt 2>/dev/null
		check "annotate's sources: root's own binary naming /proc/kallsyms: not shown either" \
			eval 'not pseudo_leak as.rootkallsyms.txt && grep -qF "# note: /proc/kallsyms is not shown: it is on /proc" as.rootkallsyms.txt'
		"$EBS" annotate -i as-root.data planted_spin >as.rootplanted.txt 2>/dev/null
		check "annotate's sources: root's binary, a link nobody planted in the shared directory: not followed" \
			bash -c '! grep -q TOPSECRET "$1" && grep -q "is a symbolic link in a directory others can write: not followed" "$1"' \
			sh as.rootplanted.txt
	else
		fail "annotate's sources: root's copy" "ebs record failed: $(head -c 300 as-root.data.err)"
	fi
fi

# A real program nobody here wrote, as nobody's: SQLite's driver copied by
# nobody into the shared directory names root's sqlite3.c (0644, in
# directories anyone may search): its owner could read it, so root's
# annotate shows it, as it does for root's own copy.  (Not where the
# checkout, and build/real-cache with it, is out of nobody's reach.)
if ! sqlite_build "annotate's sources: SQLite"; then
	:	# its SKIP or FAIL line said why
elif as_src_sq=$(dirname "$SQLWORK")/sqlite-src/sqlite3.c && ! as_nobody test -r "$as_src_sq"; then
	skip "annotate's sources: SQLite" "nobody may not read $as_src_sq (a checkout out of its reach): its owner could not read the source either"
else
	as_nobody cp "$(for_nobody "$SQLWORK")" "$SHARED/as-sqlwork"
	if record as-sq.data -e cpu-clock -F 2000 -- $NOBODY "$SHARED/as-sqlwork" 50000 &&
	   record as-sqroot.data -e cpu-clock -F 2000 -- "$SQLWORK" 50000; then
		"$EBS" annotate -i as-sq.data sqlite3VdbeExec >as.sq.txt 2>as.sq.err
		"$EBS" annotate -i as-sqroot.data sqlite3VdbeExec >as.sqroot.txt 2>/dev/null
		check "annotate's sources: SQLite as nobody's: sqlite3.c shown, as for root's copy ($(grep -m1 '^# note' as.sq.txt))" \
			bash -c '! grep -q "^# note: .*not shown" "$1" && grep -qE "^ +[0-9]+  .*sqlite3VdbeExec\(" "$1" && grep -qE "^ +[0-9]+  .*sqlite3VdbeExec\(" "$2"' \
			sh as.sq.txt as.sqroot.txt
	else
		fail "annotate's sources: SQLite" "ebs record failed: $(head -c 300 as-sq.data.err as-sqroot.data.err)"
	fi
fi

# A user's private source in root's page: uid 1234 ("alice") builds a
# program in a 0700 directory of hers from a 0600 source; root records it
# and writes annotate's --html page in the shared directory.  Root may see
# the source, and so may the page, but not everyone: it is written 0600,
# one line on standard error saying so (it was 0644: nobody read alice's
# source through it).  A page of a source everyone may read stays 0644,
# nothing said.
ALICE="setpriv --reuid=1234 --regid=1234 --clear-groups"
ap_dir=$TMP/alice
mkdir -m 700 "$ap_dir" && chown 1234:1234 "$ap_dir"
$ALICE sh -c "umask 077; cat >'$ap_dir/secret_algo.c'" <<'APEOF'
#include <time.h>
volatile unsigned long sink;
__attribute__((noinline)) void secret_algo(void)
{
	for (int i = 0; i < 100000; i++)
		sink += i * 13; /* ALICE-SECRET-ALGORITHM */
}
int main(void)
{
	struct timespec t;

	do {
		secret_algo();
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec == 0 && t.tv_nsec < 300000000);
	return 0;
}
APEOF
if ! $ALICE gcc -O1 -g -o "$ap_dir/secret" "$ap_dir/secret_algo.c" 2>ap.gcc.err; then
	fail "a private source in root's page" "gcc as uid 1234 failed: $(head -c 300 ap.gcc.err)"
elif ! record ap.data -e cpu-clock -F 2000 -- $ALICE "$ap_dir/secret"; then
	fail "a private source in root's page" "ebs record failed: $(head -c 300 ap.data.err)"
else
	(cd "$SHARED" && "$EBS" annotate -i "$TMP/ap.data" secret_algo --html a.html 2>"$TMP/ap.err")
	keep ap.err
	check "a private source in root's page: the page shows it to root" \
		grep -q ALICE-SECRET-ALGORITHM "$SHARED/a.html"
	check "a private source in root's page: written 0600 ($(stat -c %a "$SHARED/a.html"))" \
		[ "$(stat -c %a "$SHARED/a.html")" = 600 ]
	check "a private source in root's page: nobody cannot read it" \
		eval 'not as_nobody cat "$SHARED/a.html" 2>/dev/null'
	check "a private source in root's page: one line says so ($(head -c 300 ap.err))" \
		eval 'one_line ap.err && grep -qxF "ebs annotate: a.html: written 0600: it shows $ap_dir/secret_algo.c, which not everyone may read" ap.err'
	"$EBS" annotate -i "$TMP/ap.data" secret_algo --asm --html "$SHARED/a-asm.html" 2>/dev/null
	check "a private source in root's page: --asm's page, its lines above the instructions: 0600 too" \
		eval 'grep -q ALICE-SECRET-ALGORITHM "$SHARED/a-asm.html" && [ "$(stat -c %a "$SHARED/a-asm.html")" = 600 ]'
	rm -f "$SHARED/a.html" "$SHARED/a-asm.html"
	if [ -s as.data ]; then
		(cd "$SHARED" && "$EBS" annotate -i "$TMP/as.data" own_spin --html own.html 2>"$TMP/ap.own.err")
		check "a private source in root's page: a page of a source everyone may read: 0644, nothing said ($(head -c 200 ap.own.err))" \
			eval 'grep -q OWN-MARKER "$SHARED/own.html" && [ "$(stat -c %a "$SHARED/own.html")" = 644 ] && [ ! -s ap.own.err ]'
		rm -f "$SHARED/own.html"
	fi
fi

# ---- kernel addresses ----
# A recording with kernel samples holds kernel addresses, which give away
# where KASLR put the kernel this boot: it is 0600.  What ebs makes of it to
# be shown (exports, flame graphs, report --json: 0644) names kernel code
# and gives offsets from _stext, never an address: pprof's Locations, and
# every "[unknown] [kernel]+0x..." (all of them, with a kallsyms of _stext
# alone).  script and report --dump print the recording as it is.
ka_stext=$(awk '$3 == "_stext" { print $1; exit }' /proc/kallsyms)
# kaddr_in FILE: a kernel address (the upper half: 0xffff8... and above)
# in FILE, as hex or as a decimal JSON number
kaddr_in() { grep -qiE '(0x)?ffff[89a-f][0-9a-f]{11}|1844674[0-9]{12}' "$1"; }
if [ -z "$ka_stext" ] || [ "$ka_stext" = 0000000000000000 ]; then
	skip "kernel addresses" "/proc/kallsyms shows no _stext here"
elif ! record ka.data -a -g -e cpu-clock -F 1000 -- "$WORKLOADS/sysloop" 0.3; then
	fail "kernel addresses" "ebs record -a -g failed: $(head -c 300 ka.data.err)"
else
	echo "$ka_stext T _stext" >ka.kallsyms
	"$EBS" export -i ka.data --format pprof -o ka.pb.gz 2>ka.pprof.err
	# every Location's address and Mapping's range, and every string
	python3 - ka.pb.gz >ka.pb.txt <<'PY'
import gzip, os, sys
sys.path.insert(0, os.path.join(os.environ['TOP'], 'tests', 'tools'))
from protobuf import fields
for f, v in fields(gzip.open(sys.argv[1]).read()):
    if f == 4:	# Location: address
        print(' '.join('address 0x%x' % x for g, x in fields(v) if g == 3))
    elif f == 3:	# Mapping: memory_start, memory_limit
        print(' '.join('mapping 0x%x' % x for g, x in fields(v) if g in (2, 3)))
    elif f == 6:
        print('string', v.decode('utf-8', 'replace'))
PY
	check "kernel addresses: pprof: read back ($(head -c 200 ka.pprof.err))" \
		grep -q '^string \[kernel\]$' ka.pb.txt
	check "kernel addresses: pprof: no kernel address in a Location, Mapping or string ($(grep -iE 'ffff[89a-f][0-9a-f]{11}' ka.pb.txt | head -n 2 | tr '\n' ' '))" \
		not kaddr_in ka.pb.txt
	if command -v go >/dev/null; then
		go tool pprof -raw ka.pb.gz >ka.raw 2>ka.raw.err
		check "kernel addresses: go tool pprof reads it, no kernel address in -raw ($(grep -E 'ffff[89a-f]' ka.raw | head -n 1))" \
			bash -c '[ -s ka.raw ] && ! grep -qiE "0xffff[89a-f][0-9a-f]{11}" ka.raw'
	else
		skip "kernel addresses: go tool pprof" "go is not installed"
	fi
	for fmt in speedscope folded pprof; do
		"$EBS" export -i ka.data --format $fmt -o ka.few.$fmt --kallsyms ka.kallsyms 2>/dev/null
	done
	"$EBS" flamegraph -i ka.data -o ka.few.svg --kallsyms ka.kallsyms 2>/dev/null
	"$EBS" report -i ka.data --json --kallsyms ka.kallsyms >ka.few.json 2>/dev/null
	zcat ka.few.pprof >ka.few.pb 2>/dev/null
	check "kernel addresses: kallsyms of _stext alone: unknown kernel code in speedscope, as offsets" \
		grep -qE '"\[unknown\] \[kernel\][+-]0x[0-9a-f]+"' ka.few.speedscope
	for f in ka.few.speedscope ka.few.folded ka.few.pb ka.few.svg ka.few.json; do
		check "kernel addresses: kallsyms of _stext alone: no kernel address in $f ($(grep -oaiE '.{0,30}(ffff[89a-f][0-9a-f]{11}|1844674[0-9]{12})' "$f" | head -n 1))" \
			not kaddr_in "$f"
	done
fi

# ---- names ----
# Names nobody chooses, printed by root (docs/ebs.1, NAMES): nobody builds a
# program in a directory of its own under $SHARED whose path (directory and
# file names) and whose functions' symbols (renamed with objcopy) hold ESC,
# BEL, CSI (a raw 0x9b byte, and U+009B in UTF-8) and a newline, and runs
# it; root records it (-p, -g).  Every listing of it (report, --dump,
# --sort line, --sort comm,dso, --children, --stats, --json, script,
# annotate and its HTML, flamegraph, export folded, speedscope and pprof's
# strings, diff, addr2line) and every line on standard error holds no
# control character but tab and newline, the SVG is well-formed XML, the
# names show with '?', and the warning once the program is gone and an
# error naming its path are one line each.

# names_controls FILE...: "FILE: offset N: CONTEXT" for each FILE that holds
# a control character but tab and newline (C0, DEL, U+0080-U+009F, or a raw
# byte 0x80-0x9f outside UTF-8), or, for an .svg, that is not well-formed
# XML; nothing when all are clean.
names_controls() {
	python3 - "$@" <<'PY'
import sys, xml.etree.ElementTree as ET
for name in sys.argv[1:]:
    b = open(name, 'rb').read()
    t = b.decode('utf-8', 'surrogateescape')
    for i, c in enumerate(t):
        o = ord(c)
        if (o < 0x20 and c not in '\t\n') or 0x7f <= o <= 0x9f or 0xdc80 <= o <= 0xdc9f:
            print('%s: offset %d: %r;' % (name, i, t[max(0, i - 30):i + 10]))
            break
    if name.endswith('.svg'):
        try:
            ET.fromstring(b)
        except ET.ParseError as e:
            print('%s: not well-formed XML: %s;' % (name, e))
PY
}

# names_pprof FILE.pb.gz: the string table of a pprof profile, one a line.
names_pprof() {
	python3 - "$1" <<'PY'
import gzip, sys
b = gzip.open(sys.argv[1]).read()
def varint(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80:
            return v, i
i, out = 0, []
while i < len(b):
    key, i = varint(i)
    field, wire = key >> 3, key & 7
    if wire == 0:
        _, i = varint(i)
    elif wire == 2:
        n, i = varint(i)
        if field == 6:	# Profile.string_table
            out.append(b[i:i + n])
        i += n
    else:
        i += 8 if wire == 1 else 4
sys.stdout.buffer.write(b''.join(s + b'\n' for s in out))
PY
}

# one_clean_line FILE: FILE is one line without a control character but its newline.
one_clean_line() { one_line "$1" && [ -z "$(names_controls "$1")" ]; }

NDIR=$SHARED/names/d$'\e]0;pwn\a\x9b\xc2\x9b\nX'	# shown d?]0;pwn?????X
NSRC=s$'\e[1m\a'.c					# shown s?[1m?.c
NPROG=p$'\e[31m\x9b\xc2\x9b\n'				# shown p?[31m????, its comm too
NFN=fn$'\e]0;pwn\a\x9b\xc2\x9b\nY'			# shown fn?]0;pwn?????Y
NCALLER=caller$'\e[2J\x9b'				# shown caller?[2J?
cat >names.c <<'C'
#include <stdio.h>
#include <unistd.h>
static volatile unsigned long sink;
__attribute__((noinline)) void hostile_fn(void)
{
	unsigned long x = sink;

	for (int i = 0; i < 1000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}
__attribute__((noinline)) void hostile_caller(void)
{
	for (;;)
		hostile_fn();
}
int main(void)
{
	printf("%d\n", (int)getpid());
	fflush(stdout);
	hostile_caller();
	return 0;
}
C
chmod 644 names.c
names_rc=""
if ! command -v gcc >/dev/null || ! command -v objcopy >/dev/null; then
	skip "names" "gcc and objcopy are needed to build nobody's program"
elif ! as_nobody bash -c 'mkdir -p "$1" && cp "$4" "$1/$2" && cd "$1" &&
		gcc -g -O1 -fno-omit-frame-pointer -o "$3" "$2" &&
		objcopy --redefine-sym "hostile_fn=$5" --redefine-sym "hostile_caller=$6" "$3"' \
		_ "$NDIR" "$NSRC" "$NPROG" "$TMP/names.c" "$NFN" "$NCALLER" 2>names.build.err; then
	fail "names" "nobody could not build the program: $(head -c 300 names.build.err)"
else
	# nobody's shell execs the program once ebs is attached to it, so that
	# its mapping comes from the kernel, the path as it is (/proc/PID/maps,
	# which -p reads for what is mapped already, shows a newline as \012)
	mkfifo names.go
	chmod 666 names.go
	as_nobody bash -c 'echo $$; read -r _ <"$2"; exec "$1"' _ "$NDIR/$NPROG" "$TMP/names.go" \
		>names.pid 2>names.prog.err &
	nsh=$!	# as_nobody's subshell; the pid printed is the shell's, then the program's
	wait_line names.pid
	npid=$(head -n 1 names.pid)
	"$EBS" record -q -g -e cpu-clock -F 1000 -o names.data -p "$npid" 2>names.rec.err &
	epid=$!
	wait_polling $epid
	echo go >names.go
	for _ in $(seq 3000); do [ "$(wc -l <names.pid)" -ge 2 ] && break; sleep 0.1; done
	wait_cpu "$npid" 0.3
	kill "$npid"
	wait "$nsh" 2>/dev/null
	wait "$epid"
	names_rc=$?
fi
if [ -n "$names_rc" ] && [ "$names_rc" -ne 0 ]; then
	fail "names" "ebs record -p of nobody's program: status $names_rc: $(head -c 300 names.rec.err)"
elif [ -n "$names_rc" ]; then
	# names_run NAME ARGS...: ebs ARGS, its stdout into n/NAME, its stderr into n/NAME.err
	names_run() {
		local out=$1
		shift
		"$EBS" "$@" >"n/$out" 2>"n/$out.err"
	}
	mkdir n
	names_run report report -i names.data --no-pager
	names_run dump report -i names.data --dump
	names_run line report -i names.data --sort line --no-pager
	names_run comm report -i names.data --sort comm,dso --no-pager
	names_run children report -i names.data --children --no-pager
	names_run stats report -i names.data --stats --no-pager
	names_run json report -i names.data --sort comm,dso --json
	names_run script script -i names.data
	names_run annotate annotate -i names.data -n 1 --no-pager
	names_run annotate2 annotate -i names.data -n 1 --no-pager	# (the cache warm now)
	names_run html annotate -i names.data -n 1 --html n/html.html
	names_run svg flamegraph -i names.data -o n/svg.svg
	names_run folded export -i names.data --format folded
	names_run speedscope export -i names.data --format speedscope -o n/speedscope.json
	names_run pprof export -i names.data --format pprof -o n/pprof.pb.gz
	names_run diff diff names.data names.data --no-pager
	# hostile_fn's address, from nm's line of the renamed symbol ("fn" and its bytes)
	nm "$NDIR/$NPROG" | awk '$2 == "T" && index($3, "fn") == 1 { print $1; exit }' >n/addr
	names_run addr2line addr2line -e "$NDIR/$NPROG" <n/addr
	names_pprof n/pprof.pb.gz >n/pprof.strings
	rm -f n/pprof.pb.gz	# binary: its strings are n/pprof.strings
	for f in n/*; do cp "$f" "$ARTEFACTS/$T-names-$(basename "$f")"; done
	bad=$(names_controls n/*)
	check "names: no control character but tab and newline in any of $(ls n | wc -l) listings of nobody's program and their standard error${bad:+: $bad}" \
		[ -z "${bad:+x}" ]
	missing=""
	while IFS='|' read -r file want; do
		grep -qF -- "$want" "$file" || missing="$missing $file: '$want';"
	done <<'WANT'
n/report|fn?]0;pwn?????Y
n/report|p?[31m????
n/comm|p?[31m????
n/dump|/d?]0;pwn?????X/p?[31m????
n/dump| p?[31m???? (exec)
n/line|/s?[1m?.c:
n/children|caller?[2J?
n/stats|/d?]0;pwn?????X/p?[31m????
n/script|fn?]0;pwn?????Y+0x
n/annotate|# annotate: fn?]0;pwn?????Y (p?[31m????, 
n/svg.svg|fn?]0;pwn?????Y
n/html.html|fn?]0;pwn?????Y
n/speedscope.json|fn?]0;pwn?????Y
n/folded|caller?[2J?;fn?]0:pwn?????Y
n/pprof.strings|/d?]0;pwn?????X/p?[31m????
n/diff|fn?]0;pwn?????Y
n/addr2line|/d?]0;pwn?????X/s?[1m?.c:
WANT
	# (folded's frames are separated by ';': one in a name is ':' there)
	check "names: shown with '?' for each of ESC, BEL, CSI, U+009B's 2 bytes, newline${missing:+: not found:$missing}" \
		[ -z "${missing:+x}" ]
	# the source is opened by its real name, shown by its cleaned one (it
	# said "... is not there to read (give --source-dir)", false and useless)
	for f in n/annotate n/annotate2 n/html.html; do
		check "names: $f: the source whose path holds control characters is shown ($(grep -m1 '^# note' "$f"))" \
			eval 'grep -q "x = x \* 6364136223846793005UL" "$f" && not grep -q "not there to read" "$f"'
	done
	check "names: annotate: the source's path as shown, with '?'" \
		grep -qF "# source: $SHARED/names/d?]0;pwn?????X/s?[1m?.c" n/annotate
	check "names: --json is UTF-8 JSON, the command name p?[31m???? in it" \
		python3 -c 'import json, sys
j = json.load(open(sys.argv[1], encoding="utf-8"))
sys.exit(0 if any(r.get("comm") == "p?[31m????" for r in j["rows"]) else 1)' n/json
	# nobody takes the program away: the warning names its path, in one line
	as_nobody mv "$SHARED/names" "$SHARED/gone"
	"$EBS" report -i names.data --no-pager >gone.out 2>gone.err
	rc=$?
	keep gone.err
	check "names: the warning of a program gone is one line, its path with '?' (status $rc)" \
		eval '[ $rc -eq 0 ] && one_clean_line gone.err &&
			grep -qxF "ebs report: warning: $SHARED/names/d?]0;pwn?????X/p?[31m????: No such file or directory" gone.err'
	"$EBS" report -i "$NDIR/ebs.data" >miss.out 2>miss.err
	rc=$?
	keep miss.err
	check "names: an error naming nobody's path is one line, the path with '?' (status $rc)" \
		eval '[ $rc -eq 2 ] && one_clean_line miss.err && grep -qF "/d?]0;pwn?????X/ebs.data" miss.err'
fi

# ---- memfd ----
# Code that nobody runs from a memfd (memfd_create, the code written into
# it, mapped PROT_EXEC: what JITs do) is no file on disk.  Root's report of
# it names its samples after the mapping, as perf does ("/memfd:NAME
# (deleted)"), and warns about nothing (it said "/memfd:ebs-jit (deleted):
# No such file or directory", and showed "memfd:ebs-jit (deleted)").
cat >memfd.c <<'C'
#define _GNU_SOURCE
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>
/* x86-64: ecx = 1 << 20; do ecx-- while not zero; ret */
static const unsigned char code[] = {0xb9, 0x00, 0x00, 0x10, 0x00, 0xff, 0xc9, 0x75, 0xfc, 0xc3};
int main(void)
{
	int fd = memfd_create("ebs-jit", MFD_CLOEXEC);
	void (*fn)(void);
	void *p;

	if (fd < 0 || write(fd, code, sizeof(code)) != (ssize_t)sizeof(code) || ftruncate(fd, 4096))
		return 1;
	p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	fn = (void (*)(void))p;
	printf("%d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		fn();
}
C
if [ "$(uname -m)" != x86_64 ] || ! command -v gcc >/dev/null; then
	skip "memfd" "needs x86-64 (the code written into the memfd) and gcc"
elif ! gcc -O1 -o memfd memfd.c 2>memfd.build.err; then
	fail "memfd" "the program does not build: $(head -c 300 memfd.build.err)"
else
	as_nobody ./memfd >memfd.pid 2>memfd.prog.err &
	msh=$!
	mpid=""
	wait_line memfd.pid && mpid=$(cat memfd.pid)
	if [ -z "$mpid" ]; then
		fail "memfd" "nobody's program did not start: $(head -c 300 memfd.prog.err)"
	else
		"$EBS" record -q -e cpu-clock -F 1000 -o memfd.data -p "$mpid" 2>memfd.rec.err &
		epid=$!
		wait_polling $epid
		wait_cpu "$mpid" 0.3
		kill "$mpid"
		wait "$msh" 2>/dev/null
		wait "$epid"
		"$EBS" report -i memfd.data --json >memfd.json 2>memfd.err
		rc=$?
		keep memfd.err
		check "memfd: report says nothing (status $rc): $(head -c 200 memfd.err)" \
			[ $rc -eq 0 -a ! -s memfd.err ]
		read -r k user < <(json memfd.json "'%d %d' % (sum(r['samples'] for r in j['rows'] if r['dso'] == '/memfd:ebs-jit (deleted)' and r['function'].startswith('[unknown] /memfd:ebs-jit (deleted)+0x')), j['samples'] - sum(r['samples'] for r in j['rows'] if r['dso'] == '[kernel]'))")
		# the memfd's loop is all the program does but start: >= 90% of user space
		if enough "memfd: share" "$user" 100; then
			check "memfd: the samples are the mapping's, [unknown] /memfd:ebs-jit (deleted)+0xOFFSET ($k of $user in user space)" \
				[ $((k * 100)) -ge $((user * 90)) ]
		fi
	fi
fi

# ---- exited ----
# -p of nobody's process that has exited but is not reaped (a zombie: its
# parent never waits): record, stat and monitor say so in one line naming
# the pid, status 2 (they said "cannot open event 'cpu-clock' on pid N,
# cpu 0: No such process: no such process"; stat and monitor with 1).
# The child is killed once its parent has become sleep (exec'd: no shell
# left to reap it).
as_nobody bash -c 'sleep 300 & echo $!; exec sleep 300' >zombie.pid 2>/dev/null &
zsh=$!
zpid=""
wait_line zombie.pid && zpid=$(cat zombie.pid)
for _ in $(seq 3000); do
	zparent=$(ps -o ppid= -p "$zpid" 2>/dev/null | tr -d ' ')
	[ -n "$zparent" ] && [ "$(cat "/proc/$zparent/comm" 2>/dev/null)" = sleep ] && break
	sleep 0.1
done
kill -KILL "$zpid" 2>/dev/null
for _ in $(seq 3000); do
	[ "$(awk '{ print $3 }' "/proc/$zpid/stat" 2>/dev/null)" = Z ] && break
	sleep 0.1
done
if [ "$(awk '{ print $3 }' "/proc/$zpid/stat" 2>/dev/null)" != Z ]; then
	fail "exited" "no zombie to attach to (pid '$zpid')"
else
	gone="pid $zpid: no such process \(it exited before ebs could attach to it\)$"
	expect "exited: record -p of a zombie" 2 "^ebs record: $gone" \
		"$EBS" record -e cpu-clock -o zombie.data -p "$zpid"
	expect "exited: stat -p of a zombie" 2 "^ebs stat: $gone" \
		"$EBS" stat -e task-clock -p "$zpid"
	expect "exited: monitor -p of a zombie" 2 "^ebs monitor: $gone" \
		"$EBS" monitor -e task-clock -p "$zpid" --duration 1
fi
kill "${zparent:-}" 2>/dev/null	# its parent, nobody's sleep
wait "$zsh" 2>/dev/null || true	# 143, from that sleep's SIGTERM

# ---- DWARF that hangs the decoder ----
# nobody's program, in nobody's own directory, profiled by root, then
# rewritten in place by nobody (the same inode and build-id: the file
# recorded, as far as anything tells) with one byte of a DIE's
# DW_AT_sibling changed so that it points at the DIE itself, in a DIE that
# libdwarf passes through on its way past its parent
# (tests/tools/dwsiblings.py).  Debian 12's libdwarf went round for ever
# inside dwarf_siblingof_b on it: root's report, annotate and addr2line
# hung.  Each must end, exit 0, and say once which unit and DIE of the
# file are bad.
DW_HOME=$TMP/dwarf-home
mkdir -m 0755 "$DW_HOME" && chown 65534:65534 "$DW_HOME"
as_nobody cp "$(for_nobody "$WORKLOADS/inlmany")" "$DW_HOME/inlmany"
if ! record nb-dwarf.data -e cpu-clock -F 2000 $NOBODY "$DW_HOME/inlmany" 0.2; then
	fail "dwarf: root records nobody's inlmany" "$(head -n 1 nb-dwarf.data.err)"
elif ! pick=$(python3 "$TOP/tests/tools/dwsiblings.py" pick "$DW_HOME/inlmany"); then
	fail "dwarf: a DIE libdwarf passes through in inlmany" "none found (gcc's DWARF changed?)"
else
	read -r die _ unit _ <<<"$pick"
	ino=$(stat -c %i "$DW_HOME/inlmany")
	python3 "$TOP/tests/tools/dwsiblings.py" set "$DW_HOME/inlmany" nb-dwarf.mutant "$die" "$die"
	chmod 644 nb-dwarf.mutant
	as_nobody sh -c 'cat "$1" >"$2"' sh nb-dwarf.mutant "$DW_HOME/inlmany"
	check "dwarf: nobody rewrote inlmany in place (inode $ino)" \
		bash -c '[ "$(stat -c %i "$1")" = "$2" ] && ! cmp -s "$1" "$3"' sh "$DW_HOME/inlmany" "$ino" "$WORKLOADS/inlmany"
	bad="$DW_HOME/inlmany: the unit at \.debug_info offset $(printf '%#x' "$unit"): the DW_AT_sibling of the DIE at $(printf '%#x' "$die") points at the DIE itself"
	expect "dwarf: root's report of nobody's rewritten inlmany ends, one warning" 0 \
		"^ebs report: warning: $bad" "$EBS" report -i nb-dwarf.data --no-pager
	# (its sources from copies nobody may read: where the checkout is out of
	# nobody's reach, a second line would say the owner may not read them)
	for_nobody "$TOP/tests/workloads/inlmany.c" >/dev/null &&
		for_nobody "$TOP/tests/workloads/workload.h" >/dev/null
	expect "dwarf: root's annotate caller_a of it ends, one warning" 0 \
		"^ebs annotate: warning: $bad" "$EBS" annotate -i nb-dwarf.data --no-pager caller_a \
		--source-dir "$TOP/tests/workloads=$TMP/for-nobody"
	nm "$DW_HOME/inlmany" | awk '$2 ~ /^[tT]$/ {print $1}' >nb-dwarf.addrs
	expect "dwarf: root's addr2line of it ends, one warning" 0 \
		"^ebs addr2line: warning: $bad" "$EBS" addr2line --no-cache -e "$DW_HOME/inlmany" $(cat nb-dwarf.addrs)
fi

# ---- JIT maps ----
# Four JITs under root's `record -a` (tests/workloads/jit: each writes
# /tmp/perf-PID.map naming its code): root's alpha_fn and beta_fn at one
# address (0x200000000), nobody's nobody_a there too and nobody's nobody_b
# wherever mmap puts it.  A JIT map belongs to its process (perf reads
# /tmp/perf-PID.map per process), and the trust rule holds per map: root's
# report names each of root's processes from its own map; nobody's maps
# (nobody's files in /tmp) are refused, each warned about once and listed
# by --stats under its own path with why, and no sample is named from
# them.  (Before: all anonymous memory shared the symbol table of the
# first map loaded: both of root's processes alpha_fn, or beta_fn, or
# nothing; no warning, or one, for nobody's two maps; every //anon
# sample under one map in --stats.)  Then perf's own recording of the
# same four, read by perf script and by ebs script: root's processes'
# samples named alike, each from its own map (perf uses nobody's maps
# too; ebs does not; -N: nothing of nobody's copied into root's ~/.debug).
JIT_PIDS=""	# the JITs' pids: their /tmp/perf-PID.map files are removed at exit
trap 'for p in $JIT_PIDS; do rm -f "/tmp/perf-$p.map"; done; cleanup' EXIT
cp "$WORKLOADS/jit" "$TMP/jit" && chmod 755 "$TMP/jit"
# jits PREFIX RECORDER...: the four JITs run under RECORDER, each one's
# pid written into PREFIX-NAME.pid as it starts (its map's name, to
# remove); false unless RECORDER and all four succeeded
jits() {
	local pre=$1 n rc
	shift
	"$@" bash -c '
		"$1" 0.3 alpha_fn 200000000 >/dev/null & echo $! >"$2-alpha_fn.pid"
		"$1" 0.3 beta_fn 200000000 >/dev/null & echo $! >"$2-beta_fn.pid"
		'"$NOBODY"' "$1" 0.3 nobody_a 200000000 >/dev/null & echo $! >"$2-nobody_a.pid"
		'"$NOBODY"' "$1" 0.3 nobody_b >/dev/null & echo $! >"$2-nobody_b.pid"
		for p in $(cat "$2"-*.pid); do wait $p || exit 1; done' sh "$TMP/jit" "$pre" \
		>"$pre.out" 2>&1
	rc=$?
	for n in alpha_fn beta_fn nobody_a nobody_b; do
		[ -s "$pre-$n.pid" ] && JIT_PIDS="$JIT_PIDS $(cat "$pre-$n.pid")"
	done
	return $rc
}
# jit_names PREFIX: "PID NAME" per line of each JIT (its function's name)
jit_names() {
	local n
	for n in alpha_fn beta_fn nobody_a nobody_b; do echo "$(cat "$1-$n.pid") $n"; done
}
if [ "$(uname -m)" != x86_64 ]; then
	skip "jit" "the JIT workload writes x86-64 code"
elif ! jits jm "$EBS" record -q -a -e cpu-clock -F 1000 -o jm.data --; then
	fail "jit: root's record -a of four JITs" "$(tail -n 3 jm.out)"
else
	jit_names jm >jm.names
	"$EBS" report -i jm.data --sort pid,dso,func --json >jm.json 2>jm.err
	"$EBS" report -i jm.data --stats --json >jm-stats.json 2>/dev/null
	"$EBS" script -i jm.data -F pid,sym,dso >jm.script 2>/dev/null
	keep jm.err
	# per JIT: "NAME rows: [(dso, function, samples)...] of its anonymous memory"
	python3 - jm.names jm.json jm-stats.json jm.script >jm.check <<'PY'
import json, re, sys
names = dict(l.split() for l in open(sys.argv[1]))
rows = json.load(open(sys.argv[2]))['rows']
stats = {s['dso']: s for s in json.load(open(sys.argv[3]))['stats']}
bad = []
anon = lambda r: r['dso'] == '//anon' or r['dso'].startswith('perf-')
for pid, name in names.items():
    mine = [r for r in rows if str(r['pid']) == pid and anon(r)]
    n = sum(r['samples'] for r in mine)
    if n < 20:
        bad.append('%s: %d samples in its JIT code' % (name, n))
    elif name.startswith('nobody'):
        # not named, the mapping's own name; --stats: its map, refused
        if any(r['dso'] != '//anon' or not r['function'].startswith('[unknown] //anon+0x') for r in mine):
            bad.append('%s: %s' % (name, mine[:3]))
        st = stats.get('/tmp/perf-%s.map' % pid)
        if not st or st['samples'] != n or 'not trusted' not in st['note']:
            bad.append('%s: --stats %s, want %d samples, not trusted' % (name, st, n))
    else:
        if any(r['dso'] != 'perf-%s.map' % pid or r['function'] != name for r in mine):
            bad.append('%s: %s' % (name, mine[:3]))
        st = stats.get('/tmp/perf-%s.map' % pid)
        if not st or st['samples'] != n or st['with_function'] != n:
            bad.append('%s: --stats %s, want %d samples, all named' % (name, st, n))
# script: each of root's JIT samples named from its own map, none from nobody's
for line in open(sys.argv[4]):
    f = line.split()
    if len(f) >= 3 and f[0] in names and f[-1] == '(//anon)':
        name = names[f[0]]
        if f[1] != ('[unknown]' if name.startswith('nobody') else name):
            bad.append('script: %s' % line.strip())
            break
if any(r['function'] in ('nobody_a', 'nobody_b') for r in rows):
    bad.append('a row names nobody\'s function')
print('; '.join(bad[:4]) or 'ok')
PY
	check "jit: root's two JITs at one address each named from its own map, nobody's two not named, --stats per map ($(head -c 400 jm.check))" \
		[ "$(cat jm.check)" = ok ]
	w=0
	for n in nobody_a nobody_b; do
		p=$(cat "jm-$n.pid")
		[ "$(grep -c "^ebs report: warning: /tmp/perf-$p.map: is owned by nobody (uid 65534) in a directory others can write: not trusted$" jm.err)" = 1 ] && w=$((w + 1))
	done
	check "jit: each of nobody's two maps warned about once ($w of 2)" [ $w = 2 ]
fi
if [ "$(uname -m)" != x86_64 ]; then
	:
elif ! command -v perf >/dev/null; then
	skip "jit: as perf" "no perf"
elif ! jits jp perf record -q -N -e cpu-clock -F 1000 -o jp.data --; then
	skip "jit: as perf" "perf record failed: $(tail -n 1 jp.out)"
else
	jit_names jp >jp.names
	perf script -i jp.data -F pid,ip,sym 2>/dev/null | awk '{print $1, $3}' | sort | uniq -c >jp.perf
	"$EBS" script -i jp.data -F pid,sym 2>jp.err | awk '{sub(/\+0x[0-9a-f]+$/, "", $2); print $1, $2}' |
		sort | uniq -c >jp.ebs
	keep jp.perf
	keep jp.ebs
	ok=0
	for n in alpha_fn beta_fn; do
		p=$(cat "jp-$n.pid")
		# the same samples of the same file: as many named from the process's map
		# (the kernel's names are another matter: perf's alias rules are its own)
		k=$(awk -v p="$p" -v n="$n" '$2 == p && $3 == n {print $1}' jp.perf)
		if [ "${k:-0}" -ge 20 ] &&
		   [ "$k" = "$(awk -v p="$p" -v n="$n" '$2 == p && $3 == n {print $1}' jp.ebs)" ]; then
			ok=$((ok + 1))
		fi
	done
	check "jit: perf's recording: root's two JITs named as perf script names them, each from its own map ($ok of 2)" \
		[ $ok = 2 ]
	check "jit: perf's recording: nothing of ebs's named from nobody's maps" \
		not grep -Eq ' nobody_[ab]$' jp.ebs
fi
for p in $JIT_PIDS; do rm -f "/tmp/perf-$p.map"; done
JIT_PIDS=""

# ---- recordings others put at the name ----
# Root reads recordings in the shared directory ($SHARED, as /tmp), at a
# name nobody may have taken first.  Each command that reads one (report,
# report --dump, annotate, script, flamegraph, export, diff, convert),
# given $SHARED/rd, where nobody has put, before it ran:
#  file      a recording of nobody's own program (root's report showed it
#            as root's, without a word);
#  fifo      a FIFO of nobody's, a writer of nobody's waiting on it
#            (report and annotate hung for ever);
#  link-dev  a symbolic link to /dev/zero (the device was opened through it).
# Each is refused before it is opened: exit 2, one line naming the path and
# its owner, with the hint to --force; no hang (expect's guard), nobody's
# writer still waits, and under strace nothing but O_PATH reaches the name
# and no descriptor is /dev/zero's (strace -y).  --force reads nobody's recording.  Root's
# own FIFO in the shared directory still blocks until its writer comes.
# (perf refuses a perf.data neither the user's nor root's alike:
# "File perf.data not owned by current user or root (use -f to override)".)
RD=$SHARED/rd
as_nobody sh -c "cd '$SHARED' && '$(for_nobody "$EBS")' record -q -e cpu-clock -F 1000 -o nb.data '$(for_nobody "$L")' 0.05" \
	2>rd.rec.err || fail "recordings: nobody records" "$(head -c 300 rd.rec.err)"
rd_nbperf=
if [ -n "$PERFDATA" ]; then
	as_nobody cp "$PERFDATA" "$SHARED/nb.perf" 2>/dev/null || cp "$PERFDATA" "$SHARED/nb.perf"
	chown 65534:65534 "$SHARED/nb.perf" && chmod 644 "$SHARED/nb.perf" && rd_nbperf=$SHARED/nb.perf
fi
rd_strace=
command -v strace >/dev/null && rd_strace=1
while IFS='|' read -r what cmd; do
	for plant in file fifo link-dev; do
		rm -f "$RD" rd.trace
		writer=
		case $plant in
		file)
			src=$SHARED/nb.data
			[ "$what" = convert ] && src=${rd_nbperf:-$SHARED/nb.data}
			as_nobody cp "$src" "$RD"
			kind="a file" ;;
		fifo)
			as_nobody mkfifo -m 666 "$RD"
			$NOBODY timeout 600 sh -c "cat '$SHARED/nb.data' >'$RD'" >/dev/null 2>&1 &
			writer=$!
			kind="a FIFO" ;;
		link-dev)
			as_nobody ln -s /dev/zero "$RD"
			kind="a symbolic link" ;;
		esac
		pre=
		[ $plant = link-dev ] && [ -n "$rd_strace" ] &&
			pre="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -y -e trace=open,openat -o $TMP/rd.trace"
		eval "expect \"recordings: \$what, \$plant: refused, exit 2, one line naming it and nobody\" 2 \
			\"^ebs [a-z]+: \$RD: not read: \$kind owned by nobody \\(uid 65534\\), in a directory others can write \\(use --force to read it anyway\\)\$\" \
			$pre \"\$EBS\" ${cmd//@IN@/\"\$RD\"}"
		if [ -n "$writer" ]; then
			check "recordings: $what, $plant: nobody's writer still waits (no one opened the FIFO to read)" \
				kill -0 "$writer"
			kill "$writer" 2>/dev/null
			wait "$writer" 2>/dev/null
		fi
		if [ $plant = link-dev ] && [ -n "$rd_strace" ]; then
			check "recordings: $what, $plant: /dev/zero never reached through the link ($(grep -F '</dev/zero' rd.trace | head -n 1))" \
				not grep -qF '</dev/zero' rd.trace
			check "recordings: $what, $plant: the name opened with O_PATH only ($(grep -E "\"[^\"]*/rd\"" rd.trace | grep -v O_PATH | head -n 1))" \
				not grep -qE "\"([^\"]*/)?rd\", [^)]*" <(grep -v O_PATH rd.trace)
		fi
		if [ $plant = file ] && { [ "$what" != convert ] || [ -n "$rd_nbperf" ]; }; then
			eval "timeout -s KILL 60 \"\$EBS\" ${cmd//@IN@/\"\$RD\"} --force" >rd.force.out 2>rd.force.err
			rc=$?
			check "recordings: $what --force: reads nobody's recording (exit $rc: $(head -c 200 rd.force.err))" \
				[ $rc -eq 0 ]
		fi
	done
done <<'EOT'
report|report -i @IN@ --no-pager
report --dump|report -i @IN@ --dump
annotate|annotate -i @IN@ --no-pager
script|script -i @IN@ --no-pager
flamegraph|flamegraph -i @IN@ -o "$TMP/rd.svg"
export|export -i @IN@ --format folded -o "$TMP/rd.folded"
diff|diff @IN@ "$TMP/good.data" --no-pager
convert|convert -q -i @IN@ -o "$TMP/rd.conv.data"
EOT
rm -f "$RD"
check "recordings: --force: report shows nobody's recording's leaf" \
	eval '"$EBS" report -i "$SHARED/nb.data" --force --json >rd.force.json 2>/dev/null &&
	      jtrue rd.force.json "j[\"rows\"][0][\"function\"] == \"leaf\""'
# the default name: root's report in the shared directory, nobody's ebs.data there
as_nobody cp "$SHARED/nb.data" "$SHARED/ebs.data"
(cd "$SHARED" && expect "recordings: report of the default ebs.data, nobody's: refused" 2 \
	"^ebs report: ebs.data: not read: a file owned by nobody \(uid 65534\), in a directory others can write \(use --force to read it anyway\)$" \
	"$EBS" report --no-pager)
rm -f "$SHARED/ebs.data" "$SHARED"/out.txt "$SHARED"/err.txt
# a link of root's own in the shared directory to nobody's recording: what
# it leads to must be root's too; to root's own recording: read
ln -s "$SHARED/nb.data" "$SHARED/rootlink"
expect "recordings: root's link to nobody's recording: refused" 2 \
	"^ebs report: $SHARED/rootlink: not read: a symbolic link to a file owned by nobody \(uid 65534\), in a directory others can write \(use --force to read it anyway\)$" \
	"$EBS" report -i "$SHARED/rootlink" --no-pager
ln -sf "$TMP/good.data" "$SHARED/rootlink"
check "recordings: root's link to root's recording: read" \
	eval '"$EBS" report -i "$SHARED/rootlink" --no-pager >/dev/null 2>&1'
rm -f "$SHARED/rootlink"
# root's own FIFO: the reader's open waits for its writer, as it should
for cmd in annotate script; do
	mkfifo -m 600 "$SHARED/rootfifo"
	timeout -s KILL 120 "$EBS" $cmd -i "$SHARED/rootfifo" --no-pager >rd.fifo.out 2>rd.fifo.err &
	reader=$!
	(cd "$SHARED" && timeout -s KILL 120 "$EBS" record -q -e cpu-clock -F 1000 -o rootfifo "$L" 0.05)
	wait $reader
	rc=$?
	check "recordings: $cmd of root's FIFO in the shared directory: waits for its writer, reads it (exit $rc: $(head -c 200 rd.fifo.err))" \
		eval '[ $rc -eq 0 ] && grep -q leaf rd.fifo.out'
	rm -f "$SHARED/rootfifo"
done
