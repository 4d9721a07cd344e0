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
as_nobody sh -c "cp '$WORKLOADS/leafloop' '$SHARED/rp.nob' && chmod 755 '$SHARED/rp.nob'"
# path, then the reason each must be refused for (an extended regex)
rp_cases=(
	"/dev/zero" "is a character device, not a regular file"
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
			check "recorded paths: $cmd: $p: one line saying it $why (got: $(grep -F -- "$p" rp.$cmd.err | head -c 300))" \
				bash -c '[ "$(grep -cF -- "$1:" "$3")" -eq 1 ] && grep -F -- "$1:" "$3" | grep -qE -- "$1: $2"' \
				sh "$p" "$why" rp.$cmd.err
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
