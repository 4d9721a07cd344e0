#!/usr/bin/env bash
# kmod.sh - ebs.ko for real: built against Debian's linux-headers-amd64,
# checked with the kernel's checkpatch.pl, then loaded in a QEMU (TCG) guest
# booting Debian's kernel from an initramfs built here (busybox, the module,
# ebs with its libraries, static workloads), where tests/kmod/guest-init.sh
# exercises it.  The guest's log is kept in the test artefacts.  Skips,
# loudly, only when the packages cannot be installed, or under make check
# (EBS_OFFLINE=1: nothing installed, nothing downloaded) when they are not
# installed or the kernel image and checkpatch.pl are not in the cache.
. "$(dirname "$0")/../lib.sh"

CACHE="$TOP/$BUILD/kmod-test"	# the kernel image and checkpatch.pl, kept between runs
mkdir -p "$CACHE"
LOG="$ARTEFACTS/kmod-guest.log"
: >"$LOG"

if ! EBS_DEPS_EXTRA="qemu-system-x86 linux-headers-amd64 busybox-static cpio" \
	"$TOP/scripts/deps.sh" build >deps.log 2>&1; then
	skip "all" "cannot install qemu-system-x86, linux-headers-amd64, busybox-static: $(tail -n 1 deps.log)"
	exit 0
fi
KDIR=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
if [ -z "$KDIR" ]; then
	skip "all" "no /usr/src/linux-headers-*-amd64 after installing linux-headers-amd64"
	exit 0
fi
KVER=${KDIR#/usr/src/linux-headers-}

# The kernel to boot: the image package of the headers' version, unpacked
# here (apt-get download + dpkg-deb: seconds; installing it builds an
# initrd we do not need).
VMLINUZ=/boot/vmlinuz-$KVER
if [ ! -r "$VMLINUZ" ]; then
	VMLINUZ="$CACHE/vmlinuz-$KVER"
	if [ ! -s "$VMLINUZ" ] && [ -n "${EBS_OFFLINE:-}" ]; then
		skip "all" "linux-image-$KVER is not in $CACHE, and make check downloads nothing (make test does, once)"
		exit 0
	fi
	if [ ! -s "$VMLINUZ" ]; then
		(cd "$CACHE" && rm -f linux-image-*.deb &&
			apt-get download -q "linux-image-$KVER" >/dev/null 2>&1 &&
			dpkg-deb --fsys-tarfile linux-image-"$KVER"_*.deb |
			tar -xO "./boot/vmlinuz-$KVER" >"$VMLINUZ.tmp" && mv "$VMLINUZ.tmp" "$VMLINUZ" &&
			rm -f linux-image-*.deb)
	fi
	if [ ! -s "$VMLINUZ" ]; then
		skip "all" "cannot get linux-image-$KVER to boot (apt-get download failed)"
		exit 0
	fi
fi

# Build: no warnings.
make -C "$TOP/kmod" KDIR="$KDIR" >kbuild.log 2>&1
rc=$?
keep kbuild.log
check "ebs.ko builds against $KVER" [ $rc -eq 0 -a -f "$TOP/kmod/ebs.ko" ]
check "ebs.ko builds without warnings" bash -c "! grep -E 'warning:|error:' kbuild.log"
[ -f "$TOP/kmod/ebs.ko" ] || exit 0

# checkpatch.pl: Debian ships it only in linux-source-*; take it from there once.
CP="$CACHE/checkpatch/checkpatch.pl"
if [ ! -f "$CP" ] && [ -z "${EBS_OFFLINE:-}" ]; then
	src=linux-source-$(echo "$KVER" | cut -d. -f1-2)
	(cd "$CACHE" && apt-get download -q "$src" >/dev/null 2>&1 &&
		dpkg-deb --fsys-tarfile "$src"_*.deb | tar -x "./usr/src/$src.tar.xz" &&
		tar -xJf "usr/src/$src.tar.xz" "$src/scripts/checkpatch.pl" "$src/scripts/spelling.txt" \
			"$src/scripts/const_structs.checkpatch" &&
		rm -rf checkpatch && mv "$src/scripts" checkpatch && rm -rf "$src" usr "$src"_*.deb)
fi
# Over the module's files and the headers of include/ebs/ that it includes.
# No errors; a warning only where tests/kmod/checkpatch-allow lists its file
# and type with the reason, and no line there that no warning needs.
if [ -f "$CP" ]; then
	hdrs=$(cd "$TOP/kmod" && sed -n 's|^#include <\(ebs/[^>]*\)>.*|../include/\1|p' ebs_*.[ch] kernel/*.h | sort -u)
	# shellcheck disable=SC2086 # hdrs is a list of file names
	(cd "$TOP/kmod" && perl "$CP" --no-tree -f --terse --show-types ebs_*.c ebs_*.h kernel/*.h \
		$hdrs) >checkpatch.log 2>&1
	keep checkpatch.log
	check "checkpatch.pl: no errors" bash -c "! grep -q ': ERROR:' checkpatch.log && grep -q '^total: 0 errors' checkpatch.log"
	ALLOW=$TOP/tests/kmod/checkpatch-allow
	sed -n -E 's/^([^ :]+):[0-9]+: WARNING:([A-Z0-9_]+):.*/\1 \2/p' checkpatch.log | sort -u >warned.txt
	grep -v -E '^(#|[[:space:]]*$)' "$ALLOW" >allow.txt
	unlisted=$(awk 'NR == FNR { ok[$1 " " $2] = 1; next } !ok[$1 " " $2]' allow.txt warned.txt)
	if [ -n "$unlisted" ]; then
		fail "checkpatch.pl: every warning is listed in tests/kmod/checkpatch-allow" \
			"not listed: $(while read -r f ty; do grep -F "$f:" checkpatch.log | grep -F "WARNING:$ty:"
				done <<<"$unlisted" | head -n 5 | tr '\n' '|')"
	else
		pass "checkpatch.pl: every warning is listed in tests/kmod/checkpatch-allow ($(wc -l <warned.txt) file and type pairs)"
	fi
	check "checkpatch-allow: each line names a file, a type and its reason" \
		awk 'NF < 3 { exit 1 }' allow.txt
	stale=$(awk 'NR == FNR { w[$1 " " $2] = 1; next } !w[$1 " " $2] { print $1, $2 }' warned.txt allow.txt)
	check "checkpatch-allow: no line that no warning needs${stale:+ (stale: $stale)}" [ -z "$stale" ]
elif [ -n "${EBS_OFFLINE:-}" ]; then
	skip "checkpatch" "checkpatch.pl is not in $CACHE, and make check downloads nothing (make test fetches it, once)"
else
	skip "checkpatch" "checkpatch.pl is not on this machine and linux-source could not be fetched"
fi

# The initramfs: busybox, the module, ebs with the libraries ldd names, static workloads.
R=root
mkdir -p $R/bin $R/proc $R/sys $R/dev $R/tmp
cp /bin/busybox $R/bin/busybox
cp "$TOP/kmod/ebs.ko" "$TOP/tests/kmod/guest-init.sh" $R/
mv $R/guest-init.sh $R/init
cp "$EBS" $R/ebs
for lib in $(ldd "$EBS" | grep -o '/[^ ]*'); do
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
WL="$TOP/tests/workloads"
gcc -static -O2 -g -fno-omit-frame-pointer -I"$WL" -o $R/leafloop "$WL/leafloop.c"
gcc -static -O2 -g -fno-omit-frame-pointer -I"$WL" -DWALLCLOCK -o $R/sleeper "$WL/leafloop.c"
gcc -static -O2 -g -I"$WL" -o $R/memtouch "$WL/memtouch.c"
gcc -static -O2 -g -pthread -I"$TOP/include" -o $R/kmodtest "$TOP/tests/kmod/kmodtest.c"
gcc -static -O2 -g -pthread -I"$TOP/include" -o $R/kfuzz "$TOP/tests/kmod/kfuzz.c"
(cd $R && find . -print0 | cpio --null -o -H newc 2>/dev/null | gzip -1) >initramfs.cpio.gz
check "initramfs built" [ -s initramfs.cpio.gz ]

# Boot.  QEMU exits 0 after poweroff and after a panic alike: trust the
# end marker and the log, not the exit status.  tsc=reliable: with -smp 2
# the guest calls its TSC unstable and falls back to clocksources that are
# emulated devices under TCG, and then its timers lag so much that
# timer-driven sampling (cpu-clock) loses most samples to hrtimer overruns:
# measured here, 852 of 5000 expected overflows without it, 4561 with it.
# thread=single: one host thread runs both vCPUs, so they compete less with
# the host for its two cores; the timers then lag less and less unevenly
# (at 100 us: 59-96% of the expected overflows, against 21-91% with a
# thread per vCPU).  The guest runs 16 to 40 s here; 400 s is a hang guard
# (a guest that stops at a panic or in a loop), not a speed requirement,
# and leaves room in run.sh's 600 s for the build steps above.
# kfuzz's calls (tests/kmod/kfuzz.c): 100000 take about 80 s of guest time
# here, 30000 about 25 s; EBS_KFUZZ=100000 for the full count.
KFUZZ=${EBS_KFUZZ:-30000}
start=$(date +%s)
timeout 400 qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 2 -nographic \
	-no-reboot -net none \
	-kernel "$VMLINUZ" -initrd initramfs.cpio.gz \
	-append "console=ttyS0 quiet panic=-1 tsc=reliable clocksource=tsc slub_debug=U EBS_KFUZZ=$KFUZZ" >"$LOG" 2>&1
rc=$?
took=$(($(date +%s) - start))
tr -d '\r' <"$LOG" >guest.log
grep -E '^(PASS|FAIL|SKIP): ' guest.log
grep -E '^    ' guest.log
check "the guest ran to its end (${took} s, qemu status $rc)" grep -q '^EBS-GUEST-END' guest.log
check "the guest did not hang (ended before the 400 s guard)" [ $rc -ne 124 ]
check "no kernel panic, oops or BUG in the guest's console" \
	bash -c "! grep -E 'Kernel panic|Oops:|BUG:|Call Trace' guest.log"
