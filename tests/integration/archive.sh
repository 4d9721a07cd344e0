#!/usr/bin/env bash
# archive.sh - carrying a recording to another machine (issue 32, item 3):
#  a. ebs archive of the shlib workload, copied with its two libraries, all
#     three stripped with separate debug files (--only-keep-debug, strip,
#     --add-gnu-debuglink), recorded with --call-graph dwarf: a tar + zstd
#     (tar --zstd lists it), 0600, holding ebs.data and each DSO and debug
#     file by build-id;
#  b. in a mount namespace whose copy of the program's directory is an
#     empty tmpfs, ebs report -i the archive equals the report made before,
#     row for row (functions, lines, inclusive shares); the recording alone
#     does not (the check can fail);
#  c. --symfs DIR (a copy of the program's tree) equals it too, and so does
#     the archive extracted by tar, read with --symfs DIR;
#  d. the originals deleted: the archive equals the report before, and so
#     do flamegraph, export and script;
#  e. hostile archives: a name out of the directory, links, a device, a
#     member twice, huge sizes, a truncated or damaged zstd, no ebs.data:
#     exit 2, one line naming the archive, nothing written outside the
#     private directory, which is gone after; members with other names are
#     left out with one notice; 30 corrupted copies never crash ebs;
#  f. another user's archive in a shared directory is not read (--force
#     reads it); a link of theirs at -o is not written through;
#  g. SQLite (a real program nobody here wrote) recorded, archived, its
#     binary deleted, reported from the archive as before.
# The build-id cache is off (EBS_BUILDID_CACHE_MAX=0): only the archive
# holds the files.
. "$(dirname "$0")/../lib.sh"

export EBS_BUILDID_CACHE_MAX=0
# where ebs extracts archives: checked empty after each command
export TMPDIR=$TMP/tmpdir
mkdir -m 700 "$TMPDIR"
no_leftovers() { [ -z "$(ls -A "$TMPDIR")" ]; }

REP=("$EBS" report --no-pager --top 0 --width 0 --color never)
rep() { "${REP[@]}" "$@"; }

# ---- a. the program, stripped, with separate debug files; its archive ----------
APP=$TMP/app
mkdir "$APP"
cp "$WORKLOADS/shlib" "$WORKLOADS/libebshot.so" "$WORKLOADS/libebsdl.so" "$APP/"
for f in shlib libebshot.so libebsdl.so; do
	(cd "$APP" && objcopy --only-keep-debug "$f" "$f.debug" && strip --strip-all "$f" &&
		objcopy --add-gnu-debuglink="$f.debug" "$f") || fail "strip $f" "objcopy or strip failed"
done
record rec.data -e cpu-clock -F 500 --call-graph dwarf -- "$APP/shlib" 0.4
check "record the stripped shlib (--call-graph dwarf): exit 0" [ $? -eq 0 ]
rep -i rec.data --sort func >func.before 2>func.before.err
rep -i rec.data --sort line >line.before 2>line.before.err
rep -i rec.data --children >children.before 2>children.before.err
check "before: shlib_hot, dl_hot and main_work resolve, with their lines" \
	bash -c 'grep -q "shlib_hot.*libebshot.so" func.before && grep -q "dl_hot.*libebsdl.so" func.before &&
		grep -q "main_work.*shlib" func.before && grep -q "ebs_shlib.c:[0-9]" line.before'

"$EBS" archive -i rec.data -o rec.tar.zst 2>archive.err
rc=$?
sed 's/^/    /' archive.err
check "ebs archive: exit 0 ($rc), a summary line" \
	bash -c '[ '$rc' -eq 0 ] && grep -q "^ebs archive: rec.tar.zst: ebs.data, DSOs: [0-9]*, debug files: [0-9]*; [0-9]* bytes" archive.err'
check "the archive is mode 0600" [ "$(stat -c %a rec.tar.zst)" = 600 ]
# libarchive is loaded when an archive is first read or written, not linked
# (util/dynlib.h): every other command starts without it and its ICU and
# libstdc++.  One that cannot be loaded (here a libarchive.so.13 with none
# of its functions, found first on LD_LIBRARY_PATH) is one line naming it.
check "ebs does not link libarchive" not sh -c "ldd '$EBS' | grep -q libarchive"
laso=$(strings "$EBS" | grep -m 1 '^libarchive\.so')
mkdir -p fakelib
gcc -shared -fPIC -o "fakelib/${laso:-libarchive.so}" -x c /dev/null
LD_LIBRARY_PATH=$PWD/fakelib expect "ebs archive where ${laso:-libarchive} has no functions: one line naming it" 2 \
	"^ebs archive: fake\.tar\.zst: cannot load libarchive: ${laso:-libarchive}[.0-9a-z]* has no archive_" \
	"$EBS" archive -i rec.data -o fake.tar.zst
check "... and no output file" not test -e fake.tar.zst
LD_LIBRARY_PATH=$PWD/fakelib expect "ebs report of an archive there: one line naming it" 2 \
	"^ebs report: rec\.tar\.zst: cannot load libarchive: " "$EBS" report -i rec.tar.zst
tar --zstd -tf rec.tar.zst >members.txt 2>tar.err
check "tar --zstd -tf lists it" [ -s members.txt ]
want="ebs.data"
for f in shlib libebshot.so libebsdl.so; do
	id=$(readelf -n "$APP/$f" | sed -n 's/.*Build ID: //p')
	want="$want .build-id/${id:0:2}/${id:2} .build-id/${id:0:2}/${id:2}.debug"
done
missing=$(for w in $want; do grep -qxF "$w" members.txt || printf '%s ' "$w"; done)
check "it holds ebs.data, and each DSO and its debug file by build-id (missing: ${missing:-none})" \
	[ -z "$missing" ]
check "only those names: ebs.data and .build-id/xx/REST[.debug]" \
	bash -c '! grep -vxE "ebs\.data|\.build-id/[0-9a-f]{2}/[0-9a-f]+(\.debug)?" members.txt'
"$EBS" archive -q -i rec.data 2>dflt.err
check "the default output is FILE.tar.zst, -q says nothing" \
	bash -c '[ -s rec.data.tar.zst ] && [ ! -s dflt.err ]'
check "nothing left in TMPDIR" no_leftovers

# ---- b. in a mount namespace where the program's directory is empty -------------
in_ns() {	# CMD...: CMD where $APP is an empty tmpfs
	unshare -m --propagation private -- bash -c \
		'mount -t tmpfs ebs-archive-test "$0" && [ -z "$(ls -A "$0")" ] || exit 99; exec "$@"' \
		"$APP" "$@"
}
if [ "$(id -u)" -ne 0 ]; then
	skip "mount namespace" "needs root for a tmpfs in a private mount namespace (unshare -m)"
elif ! unshare -m --propagation private true 2>unshare.err; then
	skip "mount namespace" "unshare -m is not permitted here: $(head -n 1 unshare.err)"
else
	in_ns "$EBS" report --no-pager --top 0 --width 0 --color never -i rec.data --sort func \
		>func.ns-data 2>/dev/null
	check "namespace: the recording alone leaves the program unresolved (exit $?)" \
		bash -c '! cmp -s func.before func.ns-data && grep -q samples func.ns-data &&
			! grep -q shlib_hot func.ns-data'
	for k in func line children; do
		opt=(--sort "$k")
		[ "$k" = children ] && opt=(--children)
		in_ns "$EBS" report --no-pager --top 0 --width 0 --color never -i rec.tar.zst "${opt[@]}" \
			>"$k.ns" 2>"$k.ns.err"
		check "namespace: report -i the archive ($k) equals the report before" \
			cmp "$k.before" "$k.ns"
	done
	check "nothing left in TMPDIR" no_leftovers
fi

# ---- c. --symfs: a copy of the tree; the archive extracted by tar ---------------
# the copy of the tree: the program's directory and every other file mapped
mkdir symfs
cp -a --parents "$APP" symfs/
"$EBS" report -i rec.data --dump 2>/dev/null | awk '$2 == "MMAP" && $NF ~ /^\// { print $NF }' |
	sort -u | grep -v "^$APP/" | while read -r f; do cp -L --parents "$f" symfs/; done
mkdir ext
tar --zstd -xf rec.tar.zst -C ext
check "tar --zstd -xf extracts it" [ -s ext/ebs.data ]
rm -rf "$APP"
rep -i rec.data --sort func >func.gone 2>/dev/null
check "originals deleted: the recording alone leaves the program unresolved" \
	bash -c '! cmp -s func.before func.gone && ! grep -q shlib_hot func.gone'
for k in func line; do
	rep -i rec.data --sort "$k" --symfs "$TMP/symfs" >"$k.symfs" 2>"$k.symfs.err"
	check "--symfs DIR ($k) equals the report before" cmp "$k.before" "$k.symfs"
	rep -i ext/ebs.data --sort "$k" --symfs "$TMP/ext" >"$k.ext" 2>"$k.ext.err"
	check "the archive extracted by tar, --symfs DIR ($k), equals the report before" \
		cmp "$k.before" "$k.ext"
done
# a --symfs DIR missing or not a directory: one line and exit 2, not a
# warning per DSO and a report of [unknown] rows (nor an archive of 0 DSOs)
for c in report annotate script diff flamegraph export; do
	o=(--no-pager)
	case $c in flamegraph) o=(-o symfs-bad.out) ;; export) o=(-o symfs-bad.out --format folded) ;; diff) o+=(rec.data) ;; esac
	expect "$c --symfs a missing directory: one line" 2 \
		"^ebs $c: --symfs $TMP/no-such-dir: No such file or directory\$" \
		"$EBS" "$c" $([ "$c" = diff ] || echo -i) rec.data --symfs "$TMP/no-such-dir" "${o[@]}"
done
check "flamegraph, export --symfs a missing directory: no output file" [ ! -e symfs-bad.out ]
expect "report --symfs a regular file: one line" 2 "^ebs report: --symfs rec.data: Not a directory\$" \
	"$EBS" report -i rec.data --symfs rec.data --no-pager
expect "archive --symfs a missing directory: one line" 2 \
	"^ebs archive: --symfs /no-such-dir: No such file or directory\$" \
	"$EBS" archive -i rec.data --symfs /no-such-dir -o symfs-bad.tar.zst
check "archive --symfs a missing directory: no archive" [ ! -e symfs-bad.tar.zst ]

# ---- d. the originals gone: the archive read as it is ----------------------------
for k in func line children; do
	opt=(--sort "$k")
	[ "$k" = children ] && opt=(--children)
	rep -i rec.tar.zst "${opt[@]}" >"$k.after" 2>"$k.after.err"
	check "report -i the archive ($k) equals the report before" cmp "$k.before" "$k.after"
done
# several recordings in one report, each an archive: each one's files found
cp rec.tar.zst rec2.tar.zst
rep -i rec.tar.zst -i rec2.tar.zst --sort func >func.two 2>func.two.err
check "report -i A -i B of two archives: the program resolves in both, nothing unknown of it" \
	bash -c 'grep -q "shlib_hot *libebshot.so" func.two && grep -q "dl_hot *libebsdl.so" func.two &&
		! grep -E "\[unknown\].*(shlib|libebs)" func.two && [ -z "$(ls -A "$1")" ]' sh "$TMPDIR"
rep -i - --sort func <rec.tar.zst >func.stdin 2>/dev/null
check "report -i - of the archive on standard input equals the report before" cmp func.before func.stdin
check "reading the archive warned of what the report before did, no more" \
	bash -c 'cmp func.before.err func.after.err && cmp line.before.err line.after.err'
# --stats names each DSO by its recorded path, not the archive's copy it read
rep -i rec.tar.zst --stats >stats.after 2>/dev/null
grep -E '^ +[0-9]+ +[0-9.]+% +[0-9.]+%  ' stats.after >stats.dsos
check "report --stats of the archive: the DSOs by their recorded paths ($(tr -s ' \n' ' ' <stats.dsos | cut -c1-200))" \
	bash -c 'grep -q " $1/libebshot.so\$" stats.dsos && grep -q " $1/shlib\$" stats.dsos &&
		! grep -q "build-id" stats.dsos' sh "$APP"
"$EBS" export -i rec.tar.zst --format folded -o arch.folded 2>/dev/null
check "export -i the archive: folded stacks through shlib_hot and dl_hot" \
	bash -c 'grep -q "main;.*shlib_hot " arch.folded && grep -q "main;.*dl_hot " arch.folded'
"$EBS" flamegraph -i rec.tar.zst -o arch.svg 2>/dev/null
check "flamegraph -i the archive names shlib_hot" grep -q shlib_hot arch.svg
"$EBS" script -i rec.tar.zst >arch.script 2>/dev/null
check "script -i the archive names dl_hot" grep -q dl_hot arch.script
"$EBS" annotate -i rec.tar.zst shlib_hot >arch.annotate 2>/dev/null
check "annotate -i the archive: shlib_hot's samples by line" grep -q "^# annotate: shlib_hot" arch.annotate
"$EBS" diff rec.tar.zst rec.tar.zst >arch.diff 2>arch.diff.err
check "diff of the archive with itself: exit 0" [ $? -eq 0 ]
check "nothing left in TMPDIR" no_leftovers
# what a killed command left behind: its directory, removed by a later
# extraction once a day old and its pid gone; a live pid's, a fresh one,
# another user's are not touched
sh -c 'exit 0' &
dead=$!
wait $dead
leftover() {	# NAME PID AGE: a directory as an extraction leaves it
	mkdir -p "$TMPDIR/ebs-archive.$2.$1/.build-id/ab" &&
		echo x >"$TMPDIR/ebs-archive.$2.$1/ebs.data" &&
		echo x >"$TMPDIR/ebs-archive.$2.$1/.build-id/ab/cdef" &&
		touch -d "$3" "$TMPDIR/ebs-archive.$2.$1"
}
leftover old "$dead" "2 days ago"
leftover live "$$" "2 days ago"
leftover fresh "$dead" "1 hour ago"
leftover theirs "$dead" "2 days ago"
chown -R 65534 "$TMPDIR/ebs-archive.$dead.theirs" 2>/dev/null || rm -rf "$TMPDIR/ebs-archive.$dead.theirs"
rep -i rec.tar.zst --sort func >reap.out 2>/dev/null
check "a dead command's day-old directory is removed by the next extraction" \
	[ ! -e "$TMPDIR/ebs-archive.$dead.old" ]
check "... a live command's, a fresh one, another user's are left" \
	bash -c '[ -e "$1/ebs-archive.$3.live/.build-id/ab/cdef" ] &&
		[ -e "$1/ebs-archive.$2.fresh/ebs.data" ] &&
		{ [ "$(id -u)" -ne 0 ] || [ -e "$1/ebs-archive.$2.theirs/ebs.data" ]; }' sh "$TMPDIR" "$dead" "$$"
rm -rf "${TMPDIR:?}"/ebs-archive.*
"$EBS" archive -i rec.tar.zst -o again.tar.zst 2>again.err
tar --zstd -tf again.tar.zst | sort >again.txt
check "ebs archive of an archive: the same members (its files found in it)" \
	bash -c 'sort members.txt | cmp -s - again.txt'

# ---- e. hostile archives -----------------------------------------------------------
# mk NAME MEMBERS...: NAME.tar.zst with the recording as ebs.data first, then
# the members, each KIND:NAME[:ARG] (reg: ARG bytes of data; huge: a header
# claiming ARG bytes; sym, hard: a link to ARG; chr: a device; data: the
# recording again)
cat >mk.py <<'EOF'
import io, sys, tarfile
out, members = sys.argv[1], sys.argv[2:]
rec = open("rec.data", "rb").read()
with tarfile.open(out, "w", format=tarfile.PAX_FORMAT) as t:
    def add(name, typ=tarfile.REGTYPE, data=b"", size=None, link=""):
        ti = tarfile.TarInfo(name)
        ti.type, ti.linkname, ti.mode = typ, link, 0o600
        ti.size = len(data) if size is None else size
        t.addfile(ti, io.BytesIO(data) if data else None)
    if "noebsdata" not in members:
        add("ebs.data", data=rec)
    for m in members:
        kind, _, rest = m.partition(":")
        name, _, arg = rest.partition(":")
        if kind == "reg":
            add(name, data=b"x" * int(arg or 5))
        elif kind == "huge":
            add(name, size=int(arg))
        elif kind == "sym":
            add(name, tarfile.SYMTYPE, link=arg)
        elif kind == "hard":
            add(name, tarfile.LNKTYPE, link=arg)
        elif kind == "chr":
            add(name, tarfile.CHRTYPE)
        elif kind == "dir":
            add(name, tarfile.DIRTYPE)
        elif kind == "data":
            add(name, data=rec)
EOF
hostile() {	# NAME WHAT MEMBERS...: the archive refused, nothing written out of place
	local name=$1 what=$2
	shift 2
	python3 mk.py "$name.tar" "$@" && zstd -q -f --rm "$name.tar" -o "$name.tar.zst" ||
		{ fail "$what" "cannot make $name.tar.zst"; return; }
	expect_code "$what: exit 2, one line" 2 EBS_E_BAD_ARCHIVE "${REP[@]}" -i "$name.tar.zst"
	check "$what: the line names the archive" grep -qF "$name.tar.zst" err.txt
	check "$what: nothing outside the private directory, which is gone" \
		bash -c '[ ! -e "$1/x" ] && [ ! -e /tmp/ebs-archive-test-x ] && [ -z "$(ls -A "$2")" ]' \
		sh "$TMP" "$TMPDIR"
}
hostile trav "a member ../../x" "reg:../../x"
hostile abs "a member /tmp/ebs-archive-test-x" "reg:/tmp/ebs-archive-test-x"
hostile bidtrav "a member .build-id/ab/../../../x" "reg:.build-id/ab/../../../x"
hostile symdata "ebs.data a symbolic link" noebsdata "sym:ebs.data:/etc/passwd"
hostile symbid "a build-id member a symbolic link" "sym:.build-id/ab/cdef:/etc/passwd"
hostile symother "any symbolic link" "sym:evil:/"
hostile hard "a hard link" "hard:.build-id/ab/cdef:ebs.data"
hostile chr "a device" "chr:.build-id/ab/cdef"
hostile twice "ebs.data twice" "data:ebs.data"
hostile huge "a member of 1 TiB" "huge:.build-id/ab/cdef:1099511627776"
hostile noebs "no ebs.data" noebsdata "reg:.build-id/ab/cdef:64"
head -c $(($(stat -c %s rec.tar.zst) / 2)) rec.tar.zst >cut.tar.zst
expect_code "a truncated zstd: exit 2, one line" 2 EBS_E_BAD_ARCHIVE "${REP[@]}" -i cut.tar.zst
check "a truncated zstd: the line names it" grep -qF cut.tar.zst err.txt
check "nothing left in TMPDIR" no_leftovers
head -c 4096 /dev/urandom | zstd -q >junk.tar.zst
expect_code "zstd of no tar: exit 2, one line" 2 EBS_E_BAD_ARCHIVE "${REP[@]}" -i junk.tar.zst
python3 mk.py other.tar "reg:README:10" "reg:.build-id/zz/cdef" "dir:./" "dir:.build-id/" &&
	zstd -q -f --rm other.tar -o other.tar.zst
rep -i other.tar.zst --sort func >other.out 2>other.err
check "other names: left out, said in one notice, the report read (exit $?)" \
	bash -c '[ "$(grep -c "left out" other.err)" = 1 ] && grep -q samples other.out &&
		grep -q "^ebs report: other.tar.zst: 2 members of the archive left out (README, ...)" other.err'
# corrupted copies: a byte changed at 24 places, cut at 6 more: a clean
# exit (0, or 2 with a line naming it), never a crash, nothing left behind
size=$(stat -c %s rec.tar.zst) crashed="" i=0
cp rec.tar.zst fz.tar.zst
while [ $i -lt 30 ]; do
	cp rec.tar.zst fz.tar.zst
	off=$(((i * 7919 + 13) % size))
	if [ $i -lt 24 ]; then
		printf "\\x$(printf %02x $((i * 37 % 256)))" |
			dd of=fz.tar.zst bs=1 seek="$off" conv=notrunc status=none
	else
		truncate -s "$off" fz.tar.zst
	fi
	timeout -s KILL 60 "$EBS" report --no-pager -i fz.tar.zst >/dev/null 2>fz.err
	rc=$?
	[ $rc -eq 0 ] || { [ $rc -eq 2 ] && grep -q fz.tar.zst fz.err; } || crashed="$crashed $off:$rc"
	i=$((i + 1))
done
check "30 corrupted copies: exit 0, or 2 naming the file; none crashed${crashed:+ (offset:status$crashed)}" \
	[ -z "$crashed" ]
check "nothing left in TMPDIR" no_leftovers

# ---- f. another user's archive, another user's link at -o ------------------------
if can_play_nobody "another user's archive" "to play the user nobody"; then
	mkdir -m 1777 shared
	cp rec.tar.zst shared/theirs.tar.zst
	chown 65534:65534 shared/theirs.tar.zst
	expect_code "an archive of nobody's in a shared directory: refused" 2 EBS_E_UNTRUSTED \
		"${REP[@]}" -i shared/theirs.tar.zst
	rep -i shared/theirs.tar.zst --force --sort func >forced.out 2>/dev/null
	check "--force reads it: as before" cmp func.before forced.out
	$NOBODY ln -s "$TMP/victim" shared/out.tar.zst
	"$EBS" archive -i rec.data -o shared/out.tar.zst 2>link.err
	check "ebs archive -o through nobody's link in a shared directory: refused, nothing written" \
		bash -c '[ ! -e victim ] && grep -q "out.tar.zst" link.err'
fi

# ---- g. SQLite, a real program nobody here wrote ---------------------------------
if sqlite_build sqlite; then
	mkdir sq
	cp "$SQLWORK" sq/sqlwork
	record sq.data -e cpu-clock -F 1000 -- sq/sqlwork 100000
	check "SQLite: record: exit 0" [ $? -eq 0 ]
	rep -i sq.data --sort func >sqf.before 2>/dev/null
	rep -i sq.data --sort line >sql.before 2>/dev/null
	"$EBS" archive -i sq.data -o sq.tar.zst 2>sq-archive.err
	sed 's/^/    /' sq-archive.err
	rm -rf sq
	rep -i sq.data --sort func >sqf.gone 2>/dev/null
	check "SQLite: its binary deleted, the recording alone leaves it unresolved" \
		bash -c '! cmp -s sqf.before sqf.gone'
	rep -i sq.tar.zst --sort func >sqf.after 2>/dev/null
	rep -i sq.tar.zst --sort line >sql.after 2>/dev/null
	check "SQLite: report -i the archive equals the report before (functions)" cmp sqf.before sqf.after
	check "SQLite: ... and by line" cmp sql.before sql.after
	check "SQLite: sqlite3VdbeExec among its rows" grep -q "sqlite3VdbeExec.*sqlwork" sqf.after
	check "nothing left in TMPDIR" no_leftovers
fi
