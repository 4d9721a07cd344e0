#!/usr/bin/env bash
# libebs.sh - the counting library as a user gets it (ebs-count(3)): `make
# install` into a DESTDIR, then docs/examples/count-example.c built against
# the installed library with pkg-config alone, shared (an rpath into
# DESTDIR) and static, run and its output checked: the read path, the
# empty read pair's cost, 100 page faults (10%) in a section that writes
# 100 fresh pages (MADV_NOHUGEPAGE: one fault a page), none in one that
# does not; a hardware event refused, named, where there is no PMU; a raw
# event refused as not taken; the example run unprivileged (at
# perf_event_paranoid 2 it retries with ':u' and says so); `make install`
# runs ldconfig only without DESTDIR; `make uninstall` removes every file;
# `ebs list` says the read path.
. "$(dirname "$0")/../lib.sh"

DEST=$TMP/dest
LIB=$DEST/usr/local/lib
# a build of its own (this run's CI=true, not its SAN= nor its make's), so
# that the tree's build directory keeps the flags it was built with
MAKE_HERE="env -u MAKEFLAGS -u MAKELEVEL -u SAN make -C $TOP --no-print-directory -j2 BUILD=$TMP/b"
if ! $MAKE_HERE CFLAGS="-O1 -g" install DESTDIR="$DEST" PREFIX=/usr/local >install.out 2>&1 </dev/null; then
	keep install.out
	fail "make install" "$(tail -n 3 install.out)"
	exit 0
fi
pass "make install DESTDIR= PREFIX=/usr/local"
for f in include/ebs/count.h lib/libebs.a lib/libebs.so.1 lib/libebs.so lib/pkgconfig/ebs.pc \
	share/man/man3/ebs-count.3; do
	check "installed: $f" test -e "$DEST/usr/local/$f"
done
check "libebs.so.1's soname is libebs.so.1" \
	sh -c "objdump -p '$LIB/libebs.so.1' | grep -q 'SONAME *libebs.so.1\$'"
# the API and nothing else: every exported symbol is ebs_count_* or ebs_tsc*
other=$(nm -D --defined-only "$LIB/libebs.so.1" | awk '$2 == "T" && $3 !~ /^ebs_(count_|tsc)/ { print $3 }')
check "libebs.so.1 exports the API only (others: ${other:-none})" [ -z "$other" ]

# pkg-config as a staged install is read: its paths under DESTDIR
pc() { PKG_CONFIG_PATH=$LIB/pkgconfig PKG_CONFIG_SYSROOT_DIR=$DEST pkg-config "$@"; }
hver=$(sed -n 's/^#define EBS_COUNT_VERSION[[:space:]]*"\(.*\)"/\1/p' "$DEST/usr/local/include/ebs/count.h")
check "pkg-config --modversion ebs is the header's EBS_COUNT_VERSION ($hver)" \
	[ "$(pc --modversion ebs)" = "$hver" ]
# two version numbers, each named: ebs --version once said 0.1.0 where
# ebs.pc says 1.1.x, with no word on which is what
check "ebs --version: ebs's version, then libebs's, the same as ebs.pc's ($("$EBS" --version))" \
	sh -c "'$EBS' --version | grep -qx 'ebs [0-9][0-9.]* (libebs $hver)'"
flags=$(pc --cflags --libs ebs)
check "pkg-config --cflags --libs ebs: -I and -L into DESTDIR, -lebs ($flags)" \
	sh -c "echo '$flags' | grep -q -- '-I$DEST/usr/local/include' &&
		echo '$flags' | grep -q -- '-L$LIB' && echo '$flags' | grep -q -- '-lebs'"

EX=$TOP/docs/examples/count-example.c
# shellcheck disable=SC2046 # pkg-config's flags are a list
if cc -Wall -Wextra -o ex-shared "$EX" $(pc --cflags --libs ebs) -Wl,-rpath,"$LIB" 2>cc.out; then
	pass "count-example built with pkg-config's flags (shared)"
else
	keep cc.out
	fail "count-example built with pkg-config's flags (shared)" "$(head -n 3 cc.out)"
fi
check "the shared build uses DESTDIR's libebs.so.1" \
	sh -c "ldd ./ex-shared | grep -q '$LIB/libebs.so.1'"
# shellcheck disable=SC2046
if cc -Wall -Wextra -o ex-static "$EX" $(pc --cflags ebs) $(pc --libs-only-L ebs) \
	-Wl,-Bstatic -lebs -Wl,-Bdynamic $(pc --static --libs-only-l ebs | sed 's/-lebs//') 2>cc.out; then
	pass "count-example built with the static library"
else
	keep cc.out
	fail "count-example built with the static library" "$(head -n 3 cc.out)"
fi
check "the static build needs no libebs.so" \
	sh -c "! readelf -d ./ex-static | grep -q 'libebs'"

for kind in shared static; do
	[ -x "ex-$kind" ] || continue
	if ! "./ex-$kind" >"ex-$kind.out" 2>&1; then
		keep "ex-$kind.out"
		fail "$kind: count-example runs" "$(head -n 3 "ex-$kind.out")"
		continue
	fi
	keep "ex-$kind.out"
	out=ex-$kind.out
	check "$kind: prints the library's version and a read path" \
		grep -qE "^libebs $hver, read path: (read|rdpmc)\$" "$out"
	ov=$(awk '/^empty read pair: task-clock/ { print $5 }' "$out")
	check "$kind: an empty read pair's task-clock cost measured, 1 ns to 1 ms ($ov)" \
		awk -v v="${ov:-0}" 'BEGIN { exit !(v >= 1 && v <= 1000000) }'
	# one fault a fresh page (MADV_NOHUGEPAGE): 100, held to 10%
	pf2=$(awk '/^section 2 page-faults: n 50 / { print $7 }' "$out")
	check "$kind: 100 fresh pages written: page-faults mean 100 (10%) ($pf2)" \
		awk -v v="${pf2:-0}" 'BEGIN { exit !(v >= 90 && v <= 110) }'
	pf1=$(awk '/^section 1 page-faults: n 50 / { print $7 }' "$out")
	check "$kind: the summing section: page-faults mean below 1 ($pf1)" \
		awk -v v="${pf1:-9}" 'BEGIN { exit !(v < 1) }'
	check "$kind: both sections' task-clock, 50 each" \
		[ "$(grep -c '^section [12] task-clock: n 50 ' "$out")" = 2 ]
done

# a hardware event: here (no PMU) one line naming it, status 2
if [ -x ex-shared ]; then
	./ex-shared task-clock,cycles >hw.out 2>&1
	st=$?
	if grep -q 'cycles.*PMU' hw.out; then
		check "cycles without a PMU: one line naming it, status 2 ($(cat hw.out))" \
			[ "$st" = 2 ] && [ "$(wc -l <hw.out)" = 1 ]
	elif [ "$st" = 0 ]; then
		skip "cycles without a PMU" "cycles opens here (a hardware PMU)"
	else
		fail "cycles without a PMU" "status $st: $(cat hw.out)"
	fi
	./ex-shared task-clock,bogus >bad.out 2>&1
	st=$?
	check "a bad event string: status 2, the event named ($(cat bad.out))" \
		sh -c "[ $st = 2 ] && grep -q \"'bogus'\" bad.out"
	./ex-shared task-clock,r00c0 >raw.out 2>&1
	st=$?
	check "a raw event: status 2, said not taken, the events taken listed ($(cat raw.out))" \
		sh -c "[ $st = 2 ] && grep -q \"event 'r00c0': raw events (rUUEE) are not taken by libebs; it takes cycles,.*task-clock\" raw.out"
fi

# unprivileged (the test runs as root: dropped to nobody): at paranoid 2
# or more the kernel refuses to count the kernel, and the example retries
# with ':u', in one line; below 2 the events open as given
para=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
for kind in shared static; do
	[ -x "ex-$kind" ] || continue
	$NOBODY "./ex-$kind" >"nb-$kind.out" 2>"nb-$kind.err"
	st=$?
	keep "nb-$kind.out"
	if [ "$para" -ge 2 ]; then
		check "$kind unprivileged (paranoid $para): ':u' retried, said in one line ($(cat "nb-$kind.err"))" \
			sh -c "[ $st = 0 ] && [ \$(wc -l <nb-$kind.err) = 1 ] &&
			       grep -q \"Permission denied.*counting user space only: task-clock:u,page-faults:u\$\" nb-$kind.err"
		ev=":u"
	else
		check "$kind unprivileged (paranoid $para): the events open as given" \
			sh -c "[ $st = 0 ] && [ ! -s nb-$kind.err ]"
		ev=""
	fi
	pf2=$(awk "/^section 2 page-faults$ev: n 50 / { print \$7 }" "nb-$kind.out")
	check "$kind unprivileged: 100 fresh pages written: page-faults$ev mean 100 (10%) ($pf2)" \
		awk -v v="${pf2:-0}" 'BEGIN { exit !(v >= 90 && v <= 110) }'
done

# ldconfig: run by a real install (DESTDIR empty), not by a staged one; shown by make -n only
check "make -n install without DESTDIR runs ldconfig, with DESTDIR does not" \
	sh -c "$MAKE_HERE -n install PREFIX=/usr/local </dev/null 2>&1 | grep -q 'ldconfig\$' &&
	       ! $MAKE_HERE -n install DESTDIR=$DEST PREFIX=/usr/local </dev/null 2>&1 | grep -q ldconfig"

if $MAKE_HERE CFLAGS="-O1 -g" uninstall DESTDIR="$DEST" PREFIX=/usr/local >uninstall.out 2>&1 </dev/null; then
	left=$(find "$DEST" -type f -o -type l | sed "s|^$DEST||" | tr '\n' ' ')
	check "make uninstall removes every file it installed (left: ${left:-none})" [ -z "$left" ]
else
	fail "make uninstall" "$(tail -n 3 uninstall.out)"
fi

"$EBS" list --no-pager >list.out 2>&1
keep list.out
check "ebs list: one line saying the read path" \
	[ "$(grep -cE '^libebs read path: (read|rdpmc) \(.+\)$' list.out)" = 1 ]
