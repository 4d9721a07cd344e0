#!/usr/bin/env bash
# buildid-cache.sh - the build-id cache (docs/symbolize.md, "The build-id
# cache"): ebs record keeps a copy of each file sampled, by build-id, in
# $XDG_CACHE_HOME/ebs/buildid; a report finds a file there once it is
# rebuilt or gone.
#  a. a program and its own shared library (stripped, its debug file
#     beside it through .gnu_debuglink) recorded, then both rebuilt in
#     place with a change (other build-ids, other code): the old recording's
#     report (functions and lines) is row for row the one made before the
#     rebuild, --stats names the cache; without the cache (a fresh
#     XDG_CACHE_HOME, or EBS_BUILDID_CACHE_MAX=0) the old "not the file
#     recorded" result, so that the test can fail;
#  b. --no-buildid-cache keeps nothing;
#  c. the cap (EBS_BUILDID_CACHE_MAX): two programs over it, the one
#     recorded first goes;
#  d. a cache directory not ours (nobody made it in a shared place),
#     group-writable, or a symbolic link: refused with one line by record
#     and by report, nothing written into it;
#  e. a file in the cache with another build-id (planted): refused, the
#     samples left unresolved rather than named wrongly;
#  f. real programs nobody here wrote: the SQLite driver (tests/real,
#     with its DWARF), and Debian's gzip copied, each recorded, then
#     replaced by another program: the report is the one made before.
# Never the real cache: XDG_CACHE_HOME and HOME are the test's.
. "$(dirname "$0")/../lib.sh"

export XDG_CACHE_HOME=$TMP/xdg HOME=$TMP/home
unset EBS_BUILDID_CACHE_MAX
CACHE=$XDG_CACHE_HOME/ebs/buildid

command -v gcc >/dev/null && command -v objcopy >/dev/null ||
	{ skip "all" "gcc and objcopy are needed to build the programs"; exit 0; }

# build VARIANT: prog and libbh.so (its debug file libbh.so.debug beside it) in
# $TMP/app, VARIANT changing a constant, and so the code and the build-ids
mkdir -p app
cat >app/bh.c <<'EOF'
volatile unsigned long bh_sink;
__attribute__((noinline)) unsigned long lib_hot(unsigned long n)
{
	unsigned long s = 0, i;
	for (i = 0; i < n; i++)
		s += i * VARIANT ^ (s >> 3);
	bh_sink = s;
	return s;
}
EOF
cat >app/prog.c <<'EOF'
#include <stdlib.h>
#include <time.h>
unsigned long lib_hot(unsigned long n);
volatile unsigned long sink;
__attribute__((noinline)) static unsigned long prog_hot(unsigned long n)
{
	unsigned long s = sink, i; /* a volatile read: no call is hoisted out of main's loop */
	for (i = 0; i < n; i++)
		s = s * (VARIANT + 6364136223846793005ul) + i;
	return s;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3;
	struct timespec t;
	do {
		sink += prog_hot(200000) + lib_hot(200000);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec + t.tv_nsec / 1e9 < secs);
	return 0;
}
EOF
build() {
	(cd app && gcc -O1 -g -fPIC -shared -Wl,-soname,libbh.so -DVARIANT="$1" -o libbh.so.new bh.c &&
		objcopy --only-keep-debug libbh.so.new libbh.so.debug.new &&
		objcopy --strip-debug --remove-section=.gnu_debuglink libbh.so.new &&
		mv libbh.so.debug.new libbh.so.debug &&
		objcopy --add-gnu-debuglink=libbh.so.debug libbh.so.new &&
		gcc -O1 -g -DVARIANT="$1" -o prog.new prog.c ./libbh.so.new -Wl,-rpath,'$ORIGIN' &&
		mv libbh.so.new libbh.so && mv prog.new prog)
}
buildid() { readelf -n "$1" 2>/dev/null | sed -n 's/.*Build ID: //p'; }
# entry FILE [SUFFIX]: where the cache keeps FILE (by its build-id now)
entry() { local b; b=$(buildid "$1"); echo "$CACHE/.build-id/${b:0:2}/${b:2}${2:-}"; }

build 3 || { fail "build" "gcc or objcopy failed"; exit 0; }
old_prog=$(entry app/prog) old_lib=$(entry app/libbh.so) old_dbg=$(entry app/libbh.so .debug)

# ---- a. record, rebuild, report -------------------------------------------
record r1.data -e cpu-clock -F 997 "$TMP/app/prog" 0.3 ||
	{ fail "a. record" "$(tail -n 3 r1.data.err)"; exit 0; }
check "a. record -q says nothing ($(head -c 200 r1.data.err))" [ ! -s r1.data.err ]
check "a. the program kept as .build-id/xx/REST, its bytes" cmp -s app/prog "$old_prog"
check "a. its library kept" cmp -s app/libbh.so "$old_lib"
check "a. the library's debug file kept as REST.debug" cmp -s app/libbh.so.debug "$old_dbg"
check "a. the cache's directories are 0700" \
	bash -c '[ "$(stat -c %a "$1")" = 700 ] && [ "$(stat -c %a "$(dirname "$2")")" = 700 ]' sh "$CACHE" "$old_prog"
check "a. entries are 0600" [ "$(stat -c %a "$old_prog")" = 600 ]
report() { "$EBS" report -i r1.data --no-cache --color never "$@"; }
report --sort func,dso >before.func 2>before.func.err
report --sort line >before.line 2>before.line.err
report --stats >before.stats 2>&1
check "a. before: prog_hot and lib_hot resolved" \
	bash -c 'grep -q "prog_hot" before.func && grep -q "lib_hot" before.func && grep -q "bh.c:" before.line'

build 4 || { fail "rebuild" "gcc or objcopy failed"; exit 0; }
check "a. rebuilt: other build-ids" [ "$(entry app/prog)" != "$old_prog" -a "$(entry app/libbh.so)" != "$old_lib" ]
report --sort func,dso >after.func 2>after.func.err
report --sort line >after.line 2>after.line.err
report --stats >after.stats 2>&1
check "a. after the rebuild: the functions' report row for row as before ($(diff before.func after.func | head -c 300))" \
	cmp -s before.func after.func
check "a. after the rebuild: the lines' report row for row as before ($(diff before.line after.line | head -c 300))" \
	cmp -s before.line after.line
check "a. after the rebuild: no warning ($(head -c 300 after.func.err))" [ ! -s after.func.err ]
check "a. --stats: the program read from the cache" grep -qF "$old_prog" after.stats
check "a. --stats: the library's DWARF from the cache's REST.debug" grep -qF "$old_dbg" after.stats

# the same report without the cache: what it would be, so that the test can fail
XDG_CACHE_HOME=$TMP/fresh report --sort func,dso >nocache.func 2>nocache.err
check "a. without the cache (a fresh XDG_CACHE_HOME): not the file recorded, said" \
	grep -q "not the file recorded" nocache.err
check "a. without the cache: the report differs (prog_hot unresolved)" \
	bash -c '! cmp -s before.func nocache.func && ! grep -q prog_hot nocache.func'
EBS_BUILDID_CACHE_MAX=0 report --sort func,dso >off.func 2>off.err
check "a. EBS_BUILDID_CACHE_MAX=0: the cache is not read" \
	bash -c 'grep -q "not the file recorded" off.err && cmp -s nocache.func off.func'
# Record keeps what is here; it asks no debuginfod server for a debug
# file: a stripped copy of the program (no DWARF, none beside it) recorded
# with DEBUGINFOD_URLS set makes no connection (strace sees every connect)
if command -v strace >/dev/null; then
	strip -g -o app/prog.s app/prog
	# LeakSanitizer stops the world with ptrace, which strace already holds
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		DEBUGINFOD_URLS=http://127.0.0.1:9 strace -f -qq -e trace=connect -o connects.txt \
		"$EBS" record -q -e cpu-clock -F 997 -o rs.data "$TMP/app/prog.s" 0.1 2>rs.err
	check "a. record with DEBUGINFOD_URLS set asks no server ($(grep -c 'htons(9)' connects.txt) connections to it)" \
		bash -c '[ -s rs.data ] && ! grep -q "htons(9)" connects.txt'
	rm -f app/prog.s
else
	skip "a. record asks no debuginfod server" "no strace (scripts/deps.sh installs it)"
fi
# the program gone altogether: from the cache too
mv app app.gone
report --sort func,dso >gone.func 2>gone.err
check "a. the program and library removed: the report as before" cmp -s before.func gone.func
mv app.gone app

# ---- b. --no-buildid-cache ---------------------------------------------------
XDG_CACHE_HOME=$TMP/xdg-b "$EBS" record -q --no-buildid-cache -e cpu-clock -F 997 -o b.data \
	"$TMP/app/prog" 0.1 2>b.err
check "b. --no-buildid-cache: recorded ($(head -c 200 b.err))" [ -s b.data ]
check "b. --no-buildid-cache: nothing kept, no directory made" [ ! -e "$TMP/xdg-b/ebs/buildid" ]
XDG_CACHE_HOME=$TMP/xdg-b0 EBS_BUILDID_CACHE_MAX=0 "$EBS" record -q -e cpu-clock -F 997 -o b0.data \
	"$TMP/app/prog" 0.1 2>b0.err
check "b. EBS_BUILDID_CACHE_MAX=0: nothing kept" [ ! -e "$TMP/xdg-b0/ebs/buildid" ]

# a recording into a FIFO is not read again (its open would wait for a writer)
mkfifo b.fifo
"$EBS" report -i b.fifo >/dev/null 2>&1 &
reader=$!
XDG_CACHE_HOME=$TMP/xdg-f timeout -s KILL 60 "$EBS" record -q -e cpu-clock -F 997 -o b.fifo \
	"$TMP/app/prog" 0.1 2>f.err
rc=$?
wait $reader
check "b. -o FIFO: record ends (exit $rc), nothing kept" [ $rc -eq 0 -a ! -e "$TMP/xdg-f/ebs/buildid" ]
XDG_CACHE_HOME=$TMP/xdg-f "$EBS" record -e cpu-clock -F 997 -o /dev/null "$TMP/app/prog" 0.1 2>null.err
check "b. -o /dev/null: no warning ($(grep -v 'samples written' null.err | head -c 200))" \
	[ -z "$(grep -v 'samples written' null.err)" ]

# ---- c. the cap ---------------------------------------------------------------
# two static programs (no library of their own to keep), the cap room for one
cat >cap.c <<'EOF'
#include <time.h>
volatile unsigned long sink;
int main(int argc, char **argv)
{
	struct timespec t;
	unsigned long i;
	do {
		/* mostly here, not in clock_gettime: the samples must hit the program */
		for (i = 0; i < 1000000; i++)
			sink += (unsigned long)argc * VARIANT;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_nsec < 100000000 && !t.tv_sec);
	return argv[0][0] == 0;
}
EOF
if gcc -O1 -static -DVARIANT=1 -o cap1 cap.c 2>cap.err && gcc -O1 -static -DVARIANT=2 -o cap2 cap.c; then
	size=$(stat -c %s cap1)
	export EBS_BUILDID_CACHE_MAX=$((size * 3 / 2))
	XDG_CACHE_HOME=$TMP/xdg-c "$EBS" record -q -e cpu-clock -F 997 -o c1.data "$TMP/cap1" 2>c1.err
	c1=$(CACHE=$TMP/xdg-c/ebs/buildid entry cap1)
	check "c. the first program kept under the cap" [ -f "$c1" ]
	XDG_CACHE_HOME=$TMP/xdg-c "$EBS" record -q -e cpu-clock -F 997 -o c2.data "$TMP/cap2" 2>c2.err
	c2=$(CACHE=$TMP/xdg-c/ebs/buildid entry cap2)
	check "c. over the cap: the one recorded first goes, the newest stays" [ ! -e "$c1" -a -f "$c2" ]
	total=$(find "$TMP/xdg-c/ebs/buildid" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')
	check "c. the cache holds $total bytes, under the cap $EBS_BUILDID_CACHE_MAX" \
		[ "$total" -le "$EBS_BUILDID_CACHE_MAX" ]
	unset EBS_BUILDID_CACHE_MAX
else
	skip "c. the cap" "no static libc to link with ($(tail -n 1 cap.err))"
fi

# ---- d. a cache directory that may not be used --------------------------------
# refused DIR NAME WHY: record and report with XDG_CACHE_HOME=DIR say one line
# matching WHY each, and leave nothing in DIR/ebs/buildid
refused() {
	local xdg=$1 name=$2 why=$3
	XDG_CACHE_HOME=$xdg "$EBS" record -e cpu-clock -F 997 -o d.data "$TMP/app/prog" 0.1 \
		2>d.rec.err
	grep -v "samples written" d.rec.err >d.rec.warn
	check "d. $name: record warns in one line ($(head -c 300 d.rec.warn))" \
		bash -c 'one_line() { [ "$(wc -l <"$1")" -eq 1 ]; }; one_line d.rec.warn && grep -qE -e "$1" d.rec.warn && grep -q "build-id cache" d.rec.warn' \
		sh "$why"
	check "d. $name: nothing written into it" \
		bash -c '[ -z "$(find "$1" -mindepth 1 -not -type d 2>/dev/null)" ]' sh "$xdg/ebs/buildid"
	XDG_CACHE_HOME=$xdg "$EBS" report -i d.data --no-cache >/dev/null 2>d.rep.err
	check "d. $name: report warns in one line ($(head -c 300 d.rep.err))" \
		bash -c '[ "$(wc -l <d.rep.err)" -eq 1 ] && grep -qE -e "$1" d.rep.err' sh "$why"
}
if can_play_nobody "d. another user's directory" "to play the other user"; then
	mkdir -m 1777 shared
	$NOBODY mkdir -p -m 0700 "$TMP/shared/ebs/buildid"
	$NOBODY chmod 0755 "$TMP/shared/ebs"
	refused "$TMP/shared" "nobody's, in a shared place" "not yours \(its owner is uid 65534\)"
	# nobody's .build-id inside a directory of ours, made before we got to it
	mkdir -p -m 0700 own/ebs/buildid
	mkdir -m 0777 own/ebs/buildid/.build-id
	chown 65534 own/ebs/buildid/.build-id
	XDG_CACHE_HOME=$TMP/own "$EBS" record -e cpu-clock -F 997 -o d2.data "$TMP/app/prog" 0.1 2>d2.err
	check "d. nobody's .build-id inside ours: one line, nothing written ($(head -c 300 d2.err))" \
		bash -c 'grep -q "\.build-id: not yours" d2.err && [ "$(grep -c warning d2.err)" -eq 1 ] && [ -z "$(ls -A own/ebs/buildid/.build-id)" ]'
fi
mkdir -p -m 0770 grp/ebs/buildid && chmod 0770 grp/ebs/buildid
refused "$TMP/grp" "group-writable" "others may write to it \(mode 770\)"
mkdir -p lnk/ebs real && chmod 0700 real && ln -s "$TMP/real" lnk/ebs/buildid
refused "$TMP/lnk" "a symbolic link" "not a directory"
check "d. a symbolic link: nothing written where it leads" [ -z "$(ls -A real)" ]

# ---- e. a file in the cache with another build-id ----------------------------
cp app/prog "$old_prog"	# the rebuilt program where the old one's copy was
report --sort func,dso >planted.func 2>planted.err
check "e. a planted file with another build-id: refused, said ($(head -c 200 planted.err))" \
	grep -q "not the file recorded" planted.err
check "e. its samples unresolved, not named by the other build" \
	bash -c '! grep -q prog_hot planted.func && grep -q lib_hot planted.func'

# ---- f. real programs: SQLite's driver, Debian's gzip -------------------------
# replaced PROG NAME ARGS...: record PROG (a copy here), report it, replace the
# copy by another program; the report is as before, and without the cache not
replaced() {
	local prog=$1 name=$2
	shift 2
	record "$name.data" -e cpu-clock -F 997 "$prog" "$@" ||
		{ fail "f. $name: record" "$(tail -n 2 "$name.data.err")"; return; }
	"$EBS" report -i "$name.data" --no-cache --sort func,dso >"$name.before" 2>"$name.before.err"
	"$EBS" report -i "$name.data" --no-cache --sort line >"$name.lbefore" 2>&1
	cp /usr/bin/true "$prog"
	"$EBS" report -i "$name.data" --no-cache --sort func,dso >"$name.after" 2>"$name.after.err"
	"$EBS" report -i "$name.data" --no-cache --sort line >"$name.lafter" 2>&1
	check "f. $name replaced: the report row for row as before ($(diff "$name.before" "$name.after" | head -c 300))" \
		cmp -s "$name.before" "$name.after"
	check "f. $name replaced: lines as before" cmp -s "$name.lbefore" "$name.lafter"
	XDG_CACHE_HOME=$TMP/fresh "$EBS" report -i "$name.data" --no-cache --sort func,dso \
		>"$name.nocache" 2>"$name.nocache.err"
	check "f. $name replaced, without the cache: not the file recorded" \
		bash -c 'grep -q "not the file recorded" "$1" && ! cmp -s "$2" "$3"' sh \
		"$name.nocache.err" "$name.before" "$name.nocache"
}
if sqlite_build "f. sqlite"; then
	cp "$SQLWORK" sqlwork
	replaced "$TMP/sqlwork" sqlite 20000
fi
if [ -x /usr/bin/gzip ]; then
	cp /usr/bin/gzip gz
	head -c 3000000 /dev/urandom >gz.in
	record gzip.data -e cpu-clock -F 997 "$TMP/gz" -9 -c gz.in >/dev/null &&
		"$EBS" report -i gzip.data --no-cache --sort func,dso >gzip.before 2>/dev/null
	cp /usr/bin/true gz
	"$EBS" report -i gzip.data --no-cache --sort func,dso >gzip.after 2>gzip.after.err
	check "f. Debian's gzip, copied, recorded, replaced: the report as before ($(diff gzip.before gzip.after | head -c 300))" \
		bash -c '[ -s gzip.before ] && cmp -s gzip.before gzip.after && grep -q "gz" gzip.after'
else
	skip "f. gzip" "no /usr/bin/gzip"
fi
