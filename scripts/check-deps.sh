#!/bin/sh
# scripts/check-deps.sh - are the headers ebs takes from packages there?
#
#   CC=cc scripts/check-deps.sh [CFLAGS...]
#
# The Makefile runs this before it compiles anything.  Prints nothing when
# $CC (with CFLAGS: the -I that pkg-config gives) finds every header below;
# otherwise one line naming the headers that are missing and the Debian
# packages that have them, which the Makefile stops with.  One run of the
# preprocessor when all are there; one per header only when some are not.
# capstone is optional and probed by the Makefile itself (EBS_HAVE_CAPSTONE).
set -u
CC=${CC:-cc}

# header, Debian package (keep in step with scripts/deps.sh)
DEPS="gelf.h libelf-dev
libdwarf.h libdwarf-dev
dwarf.h libdwarf-dev
uthash.h uthash-dev
libunwind.h libunwind-dev
zlib.h zlib1g-dev
curses.h libncurses-dev
nettle/sha2.h nettle-dev
archive.h libarchive-dev
zstd.h libzstd-dev
libiberty/demangle.h libiberty-dev
elfutils/debuginfod.h libdebuginfod-dev
linux/perf_event.h linux-libc-dev"

FLAGS="$*"
# shellcheck disable=SC2086 # FLAGS and CC are lists of compiler arguments
compiles() {	# source text: does $CC preprocess it?
	printf '%s\n' "$1" | $CC $FLAGS -E -x c - >/dev/null 2>&1
}

set -- $CC
if ! command -v "$1" >/dev/null 2>&1; then
	echo "ebs: cannot build: no C compiler $1; install Debian's build-essential (make deps)"
	exit 0
fi
all=$(echo "$DEPS" | while read -r h _; do printf '#include <%s>\n' "$h"; done)
compiles "$all" && exit 0
if ! compiles ""; then
	echo "ebs: cannot build: $CC $FLAGS fails on an empty file:" \
		"$(printf '\n' | $CC $FLAGS -E -x c - 2>&1 >/dev/null | grep -m 1 .)"
	exit 0
fi
headers="" pkgs=""
while read -r h p; do
	compiles "#include <$h>" && continue
	headers="$headers <$h>"
	case " $pkgs " in *" $p "*) ;; *) pkgs="$pkgs $p" ;; esac
done <<EOF
$DEPS
EOF
if [ -z "$pkgs" ]; then
	# each alone is found, together they are not: say what the compiler says
	why=$(printf '%s\n' "$all" | $CC $FLAGS -E -x c - 2>&1 >/dev/null | grep -m 1 'error')
	echo "ebs: cannot build: the libraries' headers do not compile together with $CC: $why"
	exit 0
fi
echo "ebs: cannot build:${headers} not found; install Debian's${pkgs} (make deps, or apt-get install${pkgs})"
