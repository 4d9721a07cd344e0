#!/usr/bin/env bash
# debuginfod.sh - files asked of debuginfod servers by build-id (symbolize/
# debuginfod.c), from a real server (Debian's debuginfod, on 127.0.0.1 over
# a directory of debug files this test makes with objcopy --only-keep-debug)
# and from a fake one (python3's http.server) that misbehaves:
#  a. a program and its shared library, recorded unstripped, reported after
#     `strip -s` through the server: the report equal to the unstripped one,
#     row for row (functions and lines), nothing said; --stats says where
#     the DWARF came from; a warm client cache answers the same;
#  b. the program itself gone: fetched (debuginfod_find_executable), the
#     same report; annotate's source hidden (a tmpfs over its directory, in
#     a mount namespace): fetched, the same listing;
#  c. --offline, and DEBUGINFOD_URLS="": nothing asked (no request reaches
#     the fake server, no client cache made);
#  d. a server that is down, one that answers 500, one too slow (the
#     per-file EBS_DEBUGINFOD_TIMEOUT): one line naming it, the report goes
#     on, exit 0; a progress line on a terminal;
#  e. garbage, and another build-id's file: refused, naming both build-ids;
#     a file nobody planted in a client cache others can write: refused;
#  f. libdebuginfod absent (/dev/null bound over it): one notice, a report;
#  g. a real program nobody here wrote: SQLite's driver stripped, through
#     the server, against its unstripped report.
. "$(dirname "$0")/../lib.sh"

if ! command -v debuginfod >/dev/null; then
	skip "all" "no debuginfod server (Debian's debuginfod package; scripts/deps.sh test installs it)"
	exit 0
fi
LIBDI=$(ldconfig -p | awk '$1 == "libdebuginfod.so.1" {print $NF; exit}')
if [ -z "$LIBDI" ]; then
	skip "all" "no libdebuginfod.so.1 (Debian's libdebuginfod1)"
	exit 0
fi

PIDS=()
stop_servers() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	cleanup
}
trap stop_servers EXIT

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
build_id() { readelf -n "$1" | awk '/Build ID/ {print $3; exit}'; }
# R ARGS...: ebs report, the same listing every time (no DWARF cache between runs)
R() { "$EBS" report --no-cache --sort func,line --top 0 "$@"; }

# ---- the program, its library, their debug files ------------------------------------
mkdir -p src bin srv away
cat >src/libhot.c <<'C'
__attribute__((noinline)) double hot_lib(double x)
{
	for (int i = 0; i < 2000; i++)
		x = x * 1.0000001 + 0.5;
	return x;
}
C
cat >src/prog.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
double hot_lib(double x);
#ifdef REBUILT
int rebuilt = 1; /* another program: another build-id */
#endif
static __attribute__((noinline)) double hot_own(double x)
{
	for (int i = 0; i < 4000; i++)
		x = x / 1.0000001 - 0.25;
	return x;
}
int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0.3, x = 1;
	struct timespec t;

	do {
		x = hot_lib(hot_own(x));
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while (t.tv_sec + t.tv_nsec / 1e9 < secs);
	printf("%d\n", x > 0);
	return 0;
}
C
B=$TMP/bin
(cd src && gcc -O1 -g -fPIC -shared -Wl,--build-id -o "$B/libhot.so" libhot.c &&
	gcc -O1 -g -Wl,--build-id -o "$B/prog" prog.c -L"$B" -lhot -Wl,-rpath,"$B") ||
	{ fail "build" "gcc failed"; exit 0; }
PROG_ID=$(build_id bin/prog)
LIB_ID=$(build_id bin/libhot.so)
for f in prog libhot.so; do
	objcopy --only-keep-debug "bin/$f" "srv/$f.debug"
done

# no copy in the build-id cache: a file gone is found through debuginfod alone
record rec.data --no-buildid-cache -e cpu-clock -F 500 "$B/prog" 0.3
check "ebs record of the program: exit 0" [ $? -eq 0 ]
R -i rec.data >full.txt 2>full.err
check "the unstripped report names hot_own and hot_lib with lines" \
	bash -c 'grep -q "hot_own .*prog.c:" full.txt && grep -q "hot_lib .*libhot.c:" full.txt'
"$EBS" annotate -i rec.data --no-cache hot_own >ann-full.txt 2>ann-full.err

# stripped in place (the build-ids stay); the server has the stripped files too
strip -s bin/prog bin/libhot.so
cp bin/prog bin/libhot.so srv/
R -i rec.data >stripped.txt 2>/dev/null
check "stripped, with no server, the report has lost lines" not cmp -s stripped.txt full.txt

# ---- the real server ----------------------------------------------------------------
PORT=$(free_port)
debuginfod -F -p "$PORT" -d "$TMP/db.sqlite" "$TMP/srv" >srv.log 2>&1 &
PIDS+=($!)
URL=http://127.0.0.1:$PORT
served() { curl -sf -o /dev/null "$URL/buildid/$1/$2"; }
if ! wait_until 120 served "$PROG_ID" debuginfo || ! wait_until 120 served "$LIB_ID" debuginfo ||
	! wait_until 120 served "$PROG_ID" executable; then
	fail "server" "debuginfod on port $PORT did not serve the debug files: $(tail -n 3 srv.log)"
	exit 0
fi

# a. the stripped program's report through the server
DI() { DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$TMP/$1 EBS_ERROR_CODES=1 "${@:2}"; }
DI cache1 R -i rec.data >through.txt 2>through.err
check "a. through debuginfod, the stripped report equals the unstripped one row for row" \
	cmp -s through.txt full.txt
check "a. nothing said (the server's 404 for libc and the vdso is silent): $(head -c 300 through.err)" \
	[ ! -s through.err ]
DI cache1 "$EBS" report -i rec.data --no-cache --stats >stats.txt 2>/dev/null
check "a. --stats: prog's and libhot.so's DWARF from the client cache, from debuginfod" \
	bash -c "grep -qF 'DWARF from $TMP/cache1/$PROG_ID/debuginfo (from debuginfod)' stats.txt &&
		grep -qF 'DWARF from $TMP/cache1/$LIB_ID/debuginfo (from debuginfod)' stats.txt"
DI cache1 R -i rec.data >warm.txt 2>warm.err
check "a. from the warm client cache, the same report" cmp -s warm.txt full.txt
DI cache1 R -i rec.data --offline >warm-off.txt 2>warm-off.err
check "a. --offline: what the client cache has is read, the same report, nothing said" \
	bash -c 'cmp -s warm-off.txt full.txt && [ ! -s warm-off.err ]'
# a file in the client cache is checked by build-id as every file
mkdir -p cwrong/"$PROG_ID" && cp srv/libhot.so.debug cwrong/"$PROG_ID"/debuginfo
DI cwrong R -i rec.data --offline >wrong-off.txt 2>wrong-off.err
check "a. --offline: another build-id's file in the client cache: not used, said" \
	bash -c "grep -q 'client cache: $TMP/cwrong/$PROG_ID/debuginfo has build-id $LIB_ID, not $PROG_ID: not used \[EBS_E_NO_BUILD_ID_MATCH\]\$' wrong-off.err &&
		! cmp -s wrong-off.txt full.txt"

# b. the program itself gone: its file from the server too
mv bin/prog away/
DI cache2 R -i rec.data >exe.txt 2>exe.err
check "b. the program gone, fetched by build-id: the same report" cmp -s exe.txt full.txt
DI cache2 R -i rec.data --offline >exe-off.txt 2>/dev/null
check "b. the program gone, --offline: the file fetched before, from the client cache" \
	cmp -s exe-off.txt full.txt
DI cache2 "$EBS" report -i rec.data --no-cache --stats >exe-stats.txt 2>/dev/null
check "b. --stats: the file from the client cache, from debuginfod" \
	grep -qF "file from $TMP/cache2/$PROG_ID/executable (from debuginfod)" exe-stats.txt
mv away/prog bin/
# the program rebuilt since (another build-id at its path): the recorded one fetched
cp bin/prog away/prog.recorded
(cd src && gcc -O1 -g -DREBUILT -Wl,--build-id -o "$B/prog" prog.c -L"$B" -lhot -Wl,-rpath,"$B")
DI cache2 R -i rec.data >rebuilt.txt 2>rebuilt.err
check "b. the program rebuilt: the recorded one fetched, the same report, nothing said ($(head -c 300 rebuilt.err))" \
	bash -c 'cmp -s rebuilt.txt full.txt && [ ! -s rebuilt.err ]'
cp away/prog.recorded bin/prog

# annotate's source, hidden from ebs (not from the server) by a tmpfs over its directory
if unshare -m true 2>/dev/null; then
	DI cache3 unshare -m sh -c 'mount -t tmpfs none "$1/src" && exec "$2" annotate -i rec.data --no-cache hot_own' \
		sh "$TMP" "$EBS" >ann-di.txt 2>ann-di.err
	unshare -m sh -c 'mount -t tmpfs none "$1/src" && exec "$2" annotate -i rec.data --no-cache --offline hot_own' \
		sh "$TMP" "$EBS" >ann-off.txt 2>&1
	check "b. the source hidden: annotate without a server shows no source line" \
		not grep -qF 'x = x / 1.0000001 - 0.25;' ann-off.txt
	check "b. the source hidden: fetched, annotate's listing as with the source" \
		diff <(grep -v '^# source' ann-full.txt) <(grep -v '^# source' ann-di.txt)
	check "b. annotate says where the source was read: the client cache" \
		grep -qF "# source: $TMP/src/prog.c (read from $TMP/cache3/$PROG_ID/source##" ann-di.txt
else
	skip "b. source" "unshare -m fails here: no mount namespace to hide the source in"
fi

# ---- the fake server --------------------------------------------------------------
cat >fake.py <<'PY'
import http.server, os, sys, time
mode, portfile, log, payload = sys.argv[1:5]
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        with open(log, 'a') as f:
            f.write(self.path + '\n')
        first = sum(1 for _ in open(log)) == 1
        if mode == 'slow':
            time.sleep(600)
        elif mode == 'trickle' and first:
            data = open(payload, 'rb').read()
            self.send_response(200)
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            for i in range(0, len(data), 5000):
                self.wfile.write(data[i:i + 5000])
                self.wfile.flush()
                time.sleep(0.1)
        elif mode == 'trickle':
            self.send_error(404)
        elif mode in ('404', '500'):
            self.send_error(int(mode))
        else:
            data = open(payload, 'rb').read()
            self.send_response(200)
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
    def log_message(self, *a):
        pass
srv = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
srv.daemon_threads = True
with open(portfile + '.tmp', 'w') as f:
    f.write(str(srv.server_address[1]))
os.rename(portfile + '.tmp', portfile)
srv.serve_forever()
PY
head -c 100000 /dev/urandom >garbage.bin
# fake MODE PAYLOAD: a fake server started; its URL in FAKE, its requests in MODE.log
fake() {
	: >"$1.log"
	python3 fake.py "$1" "$1.port" "$TMP/$1.log" "$2" &
	PIDS+=($!)
	wait_until 60 test -s "$1.port" || { fail "fake $1" "the fake server did not start"; return 1; }
	FAKE=http://127.0.0.1:$(cat "$1.port")
}
F() { DEBUGINFOD_URLS=$FAKE DEBUGINFOD_CACHE_PATH=$TMP/$1 EBS_ERROR_CODES=1 "${@:2}"; }

# c. never asked
if fake 404 /dev/null; then
	F c404 R -i rec.data --offline >off.txt 2>off.err
	DEBUGINFOD_URLS="" DEBUGINFOD_CACHE_PATH=$TMP/cempty R -i rec.data >empty.txt 2>&1
	check "c. --offline and DEBUGINFOD_URLS=\"\": no request, no client cache" \
		bash -c '[ ! -s 404.log ] && [ ! -e c404 ] && [ ! -e cempty ]'
	check "c. --offline: the stripped report" cmp -s off.txt stripped.txt
	F c404 "$EBS" report -i rec.data --no-cache --stats >s404.txt 2>s404.err
	check "c. asked (the counter works), 404 silent, --stats: debuginfod (not found)" \
		bash -c '[ -s 404.log ] && [ ! -s s404.err ] && grep -qF "debuginfod (not found)" s404.txt'
fi

# d. servers that fail: one line, the report goes on
DEAD=http://127.0.0.1:$(free_port)
DEBUGINFOD_URLS=$DEAD DEBUGINFOD_CACHE_PATH=$TMP/cdead EBS_ERROR_CODES=1 R -i rec.data >dead.txt 2>dead.err
rc=$?
check "d. a server down: exit 0 ($rc), the stripped report" bash -c "[ $rc -eq 0 ] && cmp -s dead.txt stripped.txt"
coded "d. a server down" dead.err EBS_E_DEBUGINFOD_FAILED
check "d. ... the line names the server" grep -qF "$DEAD" dead.err
if fake 500 /dev/null; then
	F c500 R -i rec.data >e500.txt 2>e500.err
	coded "d. HTTP 500" e500.err EBS_E_DEBUGINFOD_FAILED
	check "d. HTTP 500: asked once, the report goes on" \
		bash -c '[ "$(wc -l <500.log)" -eq 1 ] && cmp -s e500.txt stripped.txt'
	F c500 R -i rec.data >/dev/null 2>e500b.err
	check "d. HTTP 500 again: the same file asked again (no miss kept), said again" \
		bash -c '[ "$(sort -u 500.log | wc -l)" -eq 1 ] && [ "$(wc -l <500.log)" -eq 2 ] &&
			cmp -s e500.err e500b.err'
fi
if fake slow /dev/null; then
	t0=$SECONDS
	F cslow env EBS_DEBUGINFOD_TIMEOUT=2 "$EBS" report --no-cache --sort func,line --top 0 \
		-i rec.data >slow.txt 2>slow.err
	coded "d. a slow server, EBS_DEBUGINFOD_TIMEOUT=2" slow.err EBS_E_DEBUGINFOD_FAILED
	check "d. ... the report goes on, within the hang guard ($((SECONDS - t0)) s)" \
		bash -c "cmp -s slow.txt stripped.txt && [ $((SECONDS - t0)) -lt 60 ]"
	# libdebuginfod took the cancel for not found: no empty file of it answers the next run
	F cslow env EBS_DEBUGINFOD_TIMEOUT=2 "$EBS" report --no-cache -i rec.data >/dev/null 2>slow2.err
	check "d. the slow server again: prog's debug file asked again, not a silent miss" \
		bash -c "[ \"\$(grep -c '/buildid/$PROG_ID/debuginfo' slow.log)\" -eq 2 ] &&
			grep -q 'no answer for the debug file of prog within 2 s' slow2.err"
	# on a terminal (script's pty), a progress line while it waits, erased after
	F cslow2 env EBS_DEBUGINFOD_TIMEOUT=2 script -qec \
		"'$EBS' report --no-cache -i rec.data >/dev/null" tty.txt >/dev/null 2>&1
	check "d. on a terminal: a progress line redrawn in place while it waits" \
		grep -aqE "$(printf '\r')ebs report: debuginfod: the debug file of [^:]*: waiting \([0-9]+ s\)$(printf '\033')\[K" tty.txt
	check "d. ... erased when it ends, before the warning" \
		grep -aqF "$(printf '\r\033[Kebs report: warning: debuginfod: ')" tty.txt
fi
# a download of 2 s on a terminal: its bytes of the whole and its rate
if fake trickle garbage.bin; then
	F ctrickle script -qec "'$EBS' report --no-cache -i rec.data >/dev/null" trickle.txt >/dev/null 2>&1
	check "d. on a terminal: a download's progress, bytes of the whole and rate" \
		grep -aqE "$(printf '\r')ebs report: debuginfod: the debug file of [^:]*: [0-9.]+ (B|KiB) of 97.7 KiB, [0-9.]+ (B|KiB|MiB)/s$(printf '\033')\[K" trickle.txt
fi

# e. what a server sends is checked
if fake garbage garbage.bin; then
	F cgarb R -i rec.data >garb.txt 2>garb.err
	check "e. garbage: each file refused (EBS_E_NOT_ELF), prog's named, the report goes on" \
		bash -c "cmp -s garb.txt stripped.txt && grep -q 'for build-id $PROG_ID: not an ELF file: refused' garb.err &&
			! grep -v 'not an ELF file: refused \[EBS_E_NOT_ELF\]\$' garb.err"
fi
if fake other srv/libhot.so.debug; then
	F cother R -i rec.data >other.txt 2>other.err
	check "e. another build-id's file: refused, both build-ids named, the report goes on" \
		bash -c "grep -q 'with build-id $LIB_ID for build-id $PROG_ID: refused \[EBS_E_NO_BUILD_ID_MATCH\]\$' other.err &&
			! grep -q 'for build-id $LIB_ID' other.err && ! cmp -s other.txt full.txt"
fi
if can_play_nobody "e. planted" "to plant a file as nobody"; then
	# a client cache others can write: nobody puts the right debug file there first
	mkdir -m 1777 shared
	$NOBODY sh -c "mkdir -p shared/$PROG_ID && cat srv/prog.debug >shared/$PROG_ID/debuginfo"
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$TMP/shared EBS_ERROR_CODES=1 \
		"$EBS" report -i rec.data --no-cache >planted.txt 2>planted.err
	check "e. nobody's file in a shared client cache: refused, said ($(head -c 200 planted.err))" \
		bash -c "grep -q '$TMP/shared/$PROG_ID/debuginfo: .*refused \[EBS_E_UNTRUSTED\]\$' planted.err"
fi

# h. no client cache the library can make (nobody, HOME=/nonexistent): one
# line, not a silent miss in every row
if can_play_nobody "h. no client cache" "to run as nobody"; then
	chmod a+r rec.data
	HOME=/nonexistent DEBUGINFOD_CACHE_PATH= XDG_CACHE_HOME= DEBUGINFOD_URLS=$URL EBS_ERROR_CODES=1 \
		nobody_ebs report --no-cache -i rec.data >nocache.txt 2>nocache.err
	check "h. no client cache directory: one line naming it ($(head -c 300 nocache.err))" \
		bash -c "[ \"\$(grep -c debuginfod nocache.err)\" -eq 1 ] &&
			grep -q 'debuginfod: no cache directory for the client (/nonexistent/.cache/debuginfod_client: No such file or directory; set DEBUGINFOD_CACHE_PATH): not asked \[EBS_E_DEBUGINFOD_FAILED\]\$' nocache.err"
fi

# f. no libdebuginfod: one notice, the report
if unshare -m true 2>/dev/null; then
	DEBUGINFOD_URLS=$URL DEBUGINFOD_CACHE_PATH=$TMP/cnolib EBS_ERROR_CODES=1 unshare -m sh -c \
		'mount --bind /dev/null "$1" && shift && exec "$@"' sh "$(readlink -f "$LIBDI")" \
		"$EBS" report --no-cache --sort func,line --top 0 -i rec.data >nolib.txt 2>nolib.err
	check "f. libdebuginfod absent: one notice, the stripped report, exit 0" \
		bash -c '[ "$(wc -l <nolib.err)" -eq 1 ] &&
			grep -q "debuginfod: libdebuginfod.so.1 not found: not asked \[EBS_E_NO_DEBUGINFOD\]$" nolib.err &&
			cmp -s nolib.txt stripped.txt'
else
	skip "f. no libdebuginfod" "unshare -m fails here: no mount namespace to hide the library in"
fi

# ---- g. a real program: SQLite's driver -----------------------------------------
if sqlite_build "g. sqlite"; then
	mkdir -p sq sqsrv
	cp "$SQLWORK" sq/sqlwork
	objcopy --only-keep-debug sq/sqlwork sqsrv/sqlwork.debug
	record sq.data -e cpu-clock -F 500 "$TMP/sq/sqlwork" 30000
	R -i sq.data --dso sqlwork >sq-full.txt 2>/dev/null
	strip -s sq/sqlwork
	SQPORT=$(free_port)
	debuginfod -F -p "$SQPORT" -d "$TMP/sqdb.sqlite" "$TMP/sqsrv" >sqsrv.log 2>&1 &
	PIDS+=($!)
	SQID=$(build_id sq/sqlwork)
	if wait_until 120 curl -sf -o /dev/null "http://127.0.0.1:$SQPORT/buildid/$SQID/debuginfo"; then
		DEBUGINFOD_URLS=http://127.0.0.1:$SQPORT DEBUGINFOD_CACHE_PATH=$TMP/csq \
			R -i sq.data --dso sqlwork >sq-di.txt 2>sq-di.err
		check "g. SQLite's driver stripped, through debuginfod: its report row for row as unstripped ($(grep -c . sq-full.txt) lines)" \
			bash -c 'cmp -s sq-di.txt sq-full.txt && grep -q sqlite3VdbeExec sq-di.txt'
	else
		fail "g. sqlite" "debuginfod did not serve sqlwork's debug file: $(tail -n 3 sqsrv.log)"
	fi
fi
