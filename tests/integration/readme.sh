#!/usr/bin/env bash
# readme.sh - every command line README.md shows still works as shown.
# tests/tools/readme.py lists the commands of README's ```console blocks,
# in order, with the output shown under each; each runs here, in a
# checkout-like directory of the test's own ($TMP/co: build/ebs is $EBS,
# build/tests and build/real-cache are the build's, tests/ is the tree's),
# one shell's state (cd, export) carried from command to command.  A
# command must exit 0, and print what is shown in shape (headers and
# columns, not the numbers: readme.py says how).  `make GOAL` runs as
# `make -n` (what it would do, nothing built: make test inside make test
# would never end).  The kernel module's block loads ebs.ko only where the
# running kernel's headers are installed and no ebs.ko is loaded; SQLite's
# commands skip, saying why, where build-sqlite.sh cannot fetch SQLite.
# README=FILE checks another file (to show that a broken command fails;
# README_MIN=N: it shows at least N commands, default 10).
. "$(dirname "$0")/../lib.sh"

README=${README:-$TOP/README.md}
TOOL=$TOP/tests/tools/readme.py
CO=$TMP/co
mkdir -p "$CO/build"
ln -s "$EBS" "$CO/build/ebs"
ln -s "$(dirname "$EBS")/tests" "$CO/build/tests"
ln -s "$TOP/build/real-cache" "$CO/build/real-cache"
ln -s "$TOP/tests" "$CO/tests"
ln -s "$TOP/kmod" "$CO/kmod"
: >"$TMP/env.sh"
# SQLite built first, as a reader who ran it before has it: its first
# build adds a line ("compiling ... once") that README does not show, and
# the suite may run this test before any other has built it
"$TOP/tests/real/build-sqlite.sh" >sqlite-first.out 2>&1 </dev/null

python3 "$TOOL" list "$README" >cmds.txt 2>list.err ||
	{ fail "README's commands listed" "$(head -n 1 list.err)"; exit 0; }
check "README shows commands to run ($(wc -l <cmds.txt))" [ "$(wc -l <cmds.txt)" -ge "${README_MIN:-10}" ]
check "Quick start: exactly two commands, make demo and make test" \
	[ "$(awk -F'\t' '$1 == "Quick start" { print $3 }' cmds.txt | tr '\n' ,)" = "make demo,make test," ]

kmod_why=""
if [ ! -d "/lib/modules/$(uname -r)/build" ]; then
	kmod_why="no headers of the running kernel ($(uname -r)) to build ebs.ko against"
elif [ -e /dev/ebs ] || grep -q '^ebs ' /proc/modules 2>/dev/null; then
	kmod_why="an ebs.ko is loaded already (not ours to unload)"
elif [ "$(id -u)" != 0 ]; then
	kmod_why="loading a module needs root"
fi
sqlite_why=""
n=0
declare -A skipped
while IFS=$'\t' read -r section _block cmd shown; do
	n=$((n + 1))
	name="$section: \$ $cmd"
	run=$cmd
	case $cmd in
	make\ kmod)
		# built for real only where it is then loaded; else its recipe,
		# kbuild's sub-make left out (it fails under -n)
		if [ -n "$kmod_why" ]; then
			run="env -u MAKEFLAGS -u MAKELEVEL make -n -C $TOP --no-print-directory MAKE=true kmod"
		else
			run="env -u MAKEFLAGS -u MAKELEVEL make -C $TOP --no-print-directory kmod"
		fi ;;
	make\ *)
		run="env -u MAKEFLAGS -u MAKELEVEL -u SAN make -n -C $TOP --no-print-directory BUILD=$TMP/mk ${cmd#make }" ;;
	insmod\ * | rmmod\ * | *--backend=kmod*)
		if [ -n "$kmod_why" ]; then
			[ -n "${skipped[kmod]:-}" ] || skip "$section: loading ebs.ko" "$kmod_why"
			skipped[kmod]=1
			continue
		fi ;;
	esac
	if [ -n "$sqlite_why" ] && [[ $cmd == *sqlite* || $cmd == *sqlwork* ]]; then
		[ -n "${skipped[$section]:-}" ] || skip "$section: SQLite's commands" "$sqlite_why"
		skipped[$section]=1
		continue
	fi
	# one shell's state, command after command: what the README's reader has
	( cd "$CO" && . "$TMP/env.sh" && eval "$run" >"$TMP/out.$n" 2>&1 </dev/null; rc=$?
	  export -p >"$TMP/env.sh"; exit $rc )
	rc=$?
	if [ $rc -eq 77 ] && [ "$cmd" = tests/real/build-sqlite.sh ]; then
		sqlite_why="SQLite could not be fetched: $(head -n 1 "$TMP/out.$n")"
		skip "$name" "$sqlite_why"
		continue
	fi
	if [ $rc -ne 0 ]; then
		keep "$TMP/out.$n"
		fail "$name" "exit status $rc: $(head -n 2 "$TMP/out.$n" | tr '\n' '|')"
		continue
	fi
	if [ -z "$shown" ]; then
		pass "$name: exit 0"
		continue
	fi
	printf '%s\n' "$shown" | tr '\037' '\n' >"$TMP/shown.$n"
	if why=$(python3 "$TOOL" shape "$TMP/shown.$n" "$TMP/out.$n"); then
		pass "$name: exit 0, output as shown"
	else
		keep "$TMP/out.$n"
		fail "$name" "output not as README shows it: $why"
	fi
done <cmds.txt

# README's dependencies are in docs/hacking.md now: every package that
# building needs is named there (the README's list once left out
# libunwind-dev, which make needs)
missing=$("$TOP/scripts/deps.sh" build --list | while read -r p; do
	grep -qw -- "$p" "$TOP/docs/hacking.md" || printf '%s ' "$p"; done)
check "docs/hacking.md names every package scripts/deps.sh build installs (missing: ${missing:-none})" \
	[ -z "$missing" ]
