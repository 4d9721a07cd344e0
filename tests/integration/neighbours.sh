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
	names_run annotate annotate -i names.data --no-pager
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
