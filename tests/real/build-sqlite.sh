#!/usr/bin/env bash
# tests/real/build-sqlite.sh - fetch the SQLite amalgamation and build the
# sqlwork workload (tests/real/sqlwork.c) on it, for tests/integration/sqlite.sh.
#
#   tests/real/build-sqlite.sh [CACHE]	CACHE defaults to $TOP/build/real-cache
#
# The amalgamation comes from npm's better-sqlite3 package, pinned to one
# version (SQLite 3.53.2) and checked against its SHA-256.  The package,
# the sources, sqlite3.o and sqlwork stay in CACHE, shared by every build
# directory (workloads are never built with sanitizers): sqlite3.o (about
# half a minute) is rebuilt only when its source or flags change, sqlwork
# when the driver, sqlite3.o or the flags do.  One build at a time (flock).
#
# CACHE/sqlite-src names the sources' directory (sqlite3.h) whatever the
# version.  Prints the path of sqlwork.  Exit status 0; 77 when the package cannot be
# fetched (npm missing, the registry unreachable: one line on stderr says
# why, and the caller skips); anything else is a failure.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=${TOP:-$(cd "$HERE/../.." && pwd)}
CACHE=${1:-$TOP/build/real-cache}

PKG=better-sqlite3@12.11.1
TGZ=better-sqlite3-12.11.1.tgz
TGZ_SHA256=ebf0ed75a7a59dbcb3b24bbd014ef49d9f15bc328e4adcbf516f2a8fadfa2835
SRC=$CACHE/sqlite-3.53.2
CC=gcc
# the library as a distribution would build it, minus what a one-threaded
# driver without extensions does not need; PIE as Debian's default
SQLITE_FLAGS=(-O2 -g -fPIE -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION)
DRIVER_FLAGS=(-std=gnu11 -O2 -g -fPIE -pie -Wall -Wextra)

die() { echo "build-sqlite.sh: $*" >&2; exit 1; }

mkdir -p "$CACHE" || die "cannot create $CACHE"
exec 9>"$CACHE/.lock"
command -v flock >/dev/null && flock 9	# another test run may be building

# ---- the package ------------------------------------------------------------
sha_ok() { [ "$(sha256sum "$1" 2>/dev/null | cut -d' ' -f1)" = "$TGZ_SHA256" ]; }
if ! sha_ok "$CACHE/$TGZ"; then
	if [ -n "${EBS_OFFLINE:-}" ]; then
		echo "$TGZ is not in $CACHE, and make check downloads nothing (make test fetches it once)" >&2
		exit 77
	fi
	if ! command -v npm >/dev/null; then
		echo "npm is not installed (apt-get install npm), needed once to fetch $PKG" >&2
		exit 77
	fi
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX") || die "cannot create a directory in $CACHE"
	# no retries: an unreachable registry is said at once
	if ! (cd "$tmp" && npm pack "$PKG" --fetch-retries=0 --fetch-timeout=30000 \
			>npm.out 2>npm.err); then
		# npm's last lines name its log; the error itself is earlier
		why=$(grep -m 1 -E '^npm (ERR!|error) [A-Za-z]*Error: ' "$tmp/npm.err")
		[ -n "$why" ] || why=$(grep -m 1 -E '^npm (ERR!|error) code ' "$tmp/npm.err")
		[ -n "$why" ] || why=$(tail -n 1 "$tmp/npm.err")
		why=$(sed -E 's/^npm (ERR!|error) //' <<<"$why")
		rm -rf "$tmp"
		echo "npm pack $PKG failed: ${why:-no message}" | cut -c1-300 >&2
		exit 77
	fi
	sha_ok "$tmp/$TGZ" || { rm -rf "$tmp"; die "$PKG: $TGZ is not the pinned one (SHA-256 $TGZ_SHA256)"; }
	mv -f "$tmp/$TGZ" "$CACHE/$TGZ" && rm -rf "$tmp"
fi

# ---- the sources ------------------------------------------------------------
if [ ! -s "$SRC/sqlite3.c" ] || [ "$CACHE/$TGZ" -nt "$SRC/sqlite3.c" ]; then
	tmp=$(mktemp -d "$CACHE/.src.XXXXXX") || die "cannot create a directory in $CACHE"
	tar -xzf "$CACHE/$TGZ" -C "$tmp" package/deps/sqlite3/sqlite3.c \
		package/deps/sqlite3/sqlite3.h || die "cannot unpack $CACHE/$TGZ"
	rm -rf "$SRC"
	mv "$tmp/package/deps/sqlite3" "$SRC" || die "cannot move the sources into $SRC"
	rm -rf "$tmp"
	touch "$SRC/sqlite3.c" "$SRC/sqlite3.h"	# newer than the package
fi
# the sources' directory by a name that no version bump changes, for the
# drivers built elsewhere (tests/integration/sqlite-count.sh's sqlcount)
ln -sfn "$(basename "$SRC")" "$CACHE/sqlite-src" || die "cannot link $CACHE/sqlite-src"

# ---- sqlite3.o, then sqlwork -------------------------------------------------
# stale when its inputs are newer or it was built with other flags or compiler
stale() {	# OUT STAMP-TEXT INPUT...
	local out=$1 stamp=$2 in
	shift 2
	[ -f "$out" ] && [ "$(cat "$out.flags" 2>/dev/null)" = "$stamp" ] || return 0
	for in; do [ "$in" -nt "$out" ] && return 0; done
	return 1
}
cc_id=$($CC --version 2>/dev/null | head -n 1)
[ -n "$cc_id" ] || die "$CC is not installed"

obj=$CACHE/sqlite3.o
if stale "$obj" "$cc_id ${SQLITE_FLAGS[*]}" "$SRC/sqlite3.c" "$SRC/sqlite3.h"; then
	echo "build-sqlite.sh: compiling $SRC/sqlite3.c (about half a minute, once)" >&2
	$CC "${SQLITE_FLAGS[@]}" -c -o "$obj.tmp" "$SRC/sqlite3.c" || die "cannot compile $SRC/sqlite3.c"
	mv -f "$obj.tmp" "$obj" && echo "$cc_id ${SQLITE_FLAGS[*]}" >"$obj.flags"
fi
bin=$CACHE/sqlwork
if stale "$bin" "$cc_id ${DRIVER_FLAGS[*]}" "$HERE/sqlwork.c" "$obj"; then
	$CC "${DRIVER_FLAGS[@]}" -I"$SRC" -o "$bin.tmp" "$HERE/sqlwork.c" "$obj" -lm ||
		die "cannot build $bin"
	mv -f "$bin.tmp" "$bin" && echo "$cc_id ${DRIVER_FLAGS[*]}" >"$bin.flags"
fi
echo "$bin"
