#!/usr/bin/env bash
# timeout: 1200
# neighbours.sh - root runs ebs on a machine shared with a hostile user
# (nobody, uid 65534), who can write into a world-writable sticky directory
# ($SHARED, as /tmp) and owns programs that root's `record -a` samples
# (docs/security.md, "Hostile neighbours").  Each part plays that user
# against one door:
#  outputs:  a FIFO, a symbolic link (to a file of root's, to a device), a
#            device and a file of nobody's at each output path root writes;
#            two recorders into one name at once;
#  ...       (the parts below say what they cover)
# Every check here failed on the code before issue 28's fixes.
. "$(dirname "$0")/../lib.sh"

if [ "$(id -u)" -ne 0 ]; then
	skip "all" "needs root, to play root against nobody (uid 65534)"
	exit 0
fi
if ! $NOBODY true 2>/dev/null; then
	skip "all" "setpriv cannot drop to uid 65534 here"
	exit 0
fi

# The shared directory: world-writable and sticky, as /tmp ($TMP is 0755).
SHARED=$TMP/shared
mkdir -m 1777 "$SHARED"

# as_nobody CMD...: run CMD as uid/gid 65534 with no groups.
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
if ! as_nobody env PATH=/usr/bin:/bin python3 "$TOP/tests/tools/xxforge.py" "$dc_nb/genuine" \
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
