#!/bin/sh
# scripts/format.sh - the C files against .clang-format.
#
#   scripts/format.sh check    print what clang-format would change; exit 1 if anything
#   scripts/format.sh apply    change the files in place
#
# The files: every .c and .h git tracks (every one under the tree outside
# build directories when this is not a git checkout), but the test
# programs whose line numbers are test data: tests/report/ (golden.s holds
# golden.c's lines), tests/symbolize/ and tests/workloads/.  CLANG_FORMAT
# names another clang-format; the tree is kept with Debian 12's, version 14.
set -u
cd "$(dirname "$0")/.." || exit 1
CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null 2>&1; then
	echo "scripts/format.sh: no $CF; install Debian's clang-format" >&2
	exit 2
fi
files() {
	{ git ls-files '*.c' '*.h' 2>/dev/null ||
	  find . -name '*.[ch]' -not -path './build*' | sed 's|^\./||'; } |
		grep -vE '^tests/(report|symbolize|workloads)/'
}
case ${1:-check} in
apply)
	files | xargs "$CF" -i --style=file
	;;
check)
	n=0 lines=0
	for f in $(files); do
		d=$("$CF" --style=file "$f" | diff -u "$f" -)
		[ -z "$d" ] && continue
		printf '%s\n' "$d" | sed "1s|^--- $f.*|--- a/$f|; 2s|^+++ -.*|+++ b/$f|"
		n=$((n + 1))
		lines=$((lines + $(printf '%s\n' "$d" | grep -c '^[-+][^-+]')))
	done
	if [ "$n" -gt 0 ]; then
		echo "format-check: $n files, $lines lines differ from .clang-format ($("$CF" --version | sed 's/.*version //')); make format changes them" >&2
		exit 1
	fi
	echo "format-check: $(files | wc -l) files as .clang-format has them"
	;;
*)
	echo "usage: scripts/format.sh check|apply" >&2
	exit 2
	;;
esac
