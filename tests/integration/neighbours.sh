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
