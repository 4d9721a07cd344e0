#!/usr/bin/env bash
# timeout: 1200
# kmod.sh - ebs.ko for real, on every kernel at hand: built (W=1, then
# sparse) against each installed /usr/src/linux-headers-*-amd64 and against
# the newest Debian 6.12 headers, unpacked here (never installed); checked
# with the kernel's checkpatch.pl --strict; then loaded, kernel by kernel,
# in a QEMU (TCG) guest booting that kernel's Debian image from an
# initramfs built here (busybox, the module, ebs with its libraries, static
# workloads), where tests/kmod/guest-init.sh exercises it.  Each guest's
# log is kept in the test artefacts.  Skips, loudly, only when the packages
# cannot be installed, or under make check (EBS_OFFLINE=1: nothing
# installed, nothing downloaded) when they are not installed or the
# kernels, their images and checkpatch.pl are not in the cache.
#
# 1200 s: two guests, each under a 400 s hang guard (90 to 118 s each
# measured), the builds (about 10 s a kernel) and a first run's downloads
# (the 6.12 image and linux-source-6.12: 260 MB); run.sh's 600 s would not
# hold two guards.
. "$(dirname "$0")/../lib.sh"

CACHE="$TOP/$BUILD/kmod-test"	# kernel headers and images, checkpatch.pl, kept between runs
mkdir -p "$CACHE"
rm -f "$ARTEFACTS"/kmod-guest*.log

# sparse for C=2; dwarves is pahole, which linux-kbuild-6.12 depends on (its
# headers have a vmlinux, so kbuild adds the module's BTF).
if ! EBS_DEPS_EXTRA="qemu-system-x86 linux-headers-amd64 busybox-static cpio sparse dwarves" \
	"$TOP/scripts/deps.sh" build >deps.log 2>&1; then
	skip "all" "cannot install qemu-system-x86, linux-headers-amd64, busybox-static, cpio, sparse, dwarves: $(tail -n 1 deps.log)"
	exit 0
fi

# The kernels: KVERS[i] built against KDIRS[i].  First every installed
# /usr/src/linux-headers-*-amd64 (Debian 12's 6.1, through
# linux-headers-amd64).
KVERS=() KDIRS=()
for d in $(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V); do
	KVERS+=("${d#/usr/src/linux-headers-}")
	KDIRS+=("$d")
done

# private_headers SERIES: the newest linux-headers-SERIES.*-amd64 in the
# package lists, unpacked into $CACHE/headers-VERSION: prints its VERSION,
# or says why not on stderr and fails.  Not installed: the headers package
# depends on its kernel's image package, and installing that would install
# a second kernel on this machine, build it an initrd and make it the
# default to boot.  The headers, their -common part and linux-kbuild are
# downloaded and unpacked (apt-get download, dpkg-deb -x); the Makefile's
# one absolute path is pointed at the copy (the scripts and tools symlinks
# are relative).  Under EBS_OFFLINE, the newest already unpacked.
private_headers() {
	local series=$1 v root mk
	if [ -n "${EBS_OFFLINE:-}" ]; then
		v=$(ls -d "$CACHE/headers-$series".*/.ok 2>/dev/null | sed 's|.*/headers-||; s|/\.ok$||' | sort -V | tail -n 1)
		if [ -z "$v" ]; then
			echo "linux-headers-$series.* are not in $CACHE, and make check downloads nothing (make test does, once)" >&2
			return 1
		fi
	else
		v=$(apt-cache search --names-only "^linux-headers-${series//./\\.}\\.[0-9]+\\+deb[0-9]+-amd64\$" 2>/dev/null |
			awk '{ print $1 }' | sed 's/^linux-headers-//; s/-amd64$//' | sort -V | tail -n 1)
		if [ -z "$v" ]; then
			echo "no linux-headers-$series.*-amd64 in the package lists" >&2
			return 1
		fi
	fi
	root="$CACHE/headers-$v"
	if [ ! -e "$root/.ok" ]; then
		rm -rf "$root" "$CACHE/dl"
		mkdir -p "$CACHE/dl" "$root"
		if ! (cd "$CACHE/dl" && apt-get download -q "linux-headers-$v-amd64" \
			"linux-headers-$v-common" "linux-kbuild-$v" >apt.log 2>&1); then
			echo "apt-get download of linux-headers-$v-amd64, -common, linux-kbuild-$v failed: $(tail -n 1 "$CACHE/dl/apt.log")" >&2
			rm -rf "$root" "$CACHE/dl"
			return 1
		fi
		for deb in "$CACHE"/dl/*.deb; do
			dpkg-deb -x "$deb" "$root" || { echo "dpkg-deb -x $deb failed" >&2; rm -rf "$root"; return 1; }
		done
		rm -rf "$CACHE/dl"
		touch "$root/.ok"
		# older versions of the series: no longer needed
		for old in "$CACHE/headers-$series".*; do
			[ "$old" = "$root" ] || rm -rf "$old" "$CACHE/vmlinuz-${old##*/headers-}-amd64"
		done
	fi
	# "include /usr/src/linux-headers-V-common/Makefile", or where the cache was
	mk="$root/usr/src/linux-headers-$v-amd64/Makefile"
	sed -i "s|^include .*/usr/src/|include $root/usr/src/|" "$mk"
	if ! grep -qF "include $root/usr/src/linux-headers-$v-common/Makefile" "$mk"; then
		echo "$mk does not include the unpacked common headers" >&2
		return 1
	fi
	echo "$v"
}
# Then 6.12, the LTS kernel after 6.1 (Debian 12's bookworm-security has
# it; it is Debian 13's), unless its headers are installed already.
PRIVATE_SERIES="6.12"
for series in $PRIVATE_SERIES; do
	case " ${KVERS[*]} " in *" $series."*) continue ;; esac
	if v=$(private_headers $series 2>private.err); then
		KVERS+=("$v-amd64")
		KDIRS+=("$CACHE/headers-$v/usr/src/linux-headers-$v-amd64")
	else
		skip "$series" "no Linux $series headers to build against: $(cat private.err)"
	fi
done
if [ ${#KVERS[@]} -eq 0 ]; then
	skip "all" "no /usr/src/linux-headers-*-amd64 after installing linux-headers-amd64"
	exit 0
fi
echo "    kernels: ${KVERS[*]}"

# vmlinuz KVER: prints the image of KVER to boot: /boot's if readable, else
# the one in linux-image-KVER's package (or -unsigned's), unpacked into
# the cache (apt-get download + dpkg-deb: seconds; installing it would
# build an initrd we do not need); or says why not on stderr and fails.
vmlinuz() {
	local kv=$1 img="$CACHE/vmlinuz-$1" pkg
	if [ -r "/boot/vmlinuz-$kv" ]; then
		echo "/boot/vmlinuz-$kv"
		return 0
	fi
	if [ ! -s "$img" ] && [ -n "${EBS_OFFLINE:-}" ]; then
		echo "linux-image-$kv is not in $CACHE, and make check downloads nothing (make test does, once)" >&2
		return 1
	fi
	for pkg in "linux-image-$kv" "linux-image-$kv-unsigned"; do
		[ -s "$img" ] && break
		(cd "$CACHE" && rm -f linux-image-*.deb &&
			apt-get download -q "$pkg" >/dev/null 2>&1 &&
			dpkg-deb --fsys-tarfile "$pkg"_*.deb | tar -xO "./boot/vmlinuz-$kv" >"$img.tmp" &&
			mv "$img.tmp" "$img")
		rm -f "$img.tmp" "$CACHE"/linux-image-*.deb
	done
	if [ ! -s "$img" ]; then
		echo "cannot get linux-image-$kv to boot (apt-get download failed)" >&2
		return 1
	fi
	echo "$img"
}

# Build against each kernel, in a copy of kmod/ and include/ of its own
# (kmod/Kbuild takes -I$(src)/../include), through kmod/Makefile: two
# kernels' objects never meet, and kmod/ keeps only what make kmod puts
# there.  W=1: no compiler or modpost warning.  Then sparse over every file
# again (C=2 checks without compiling): no warning either.
NSRC=$(ls "$TOP"/kmod/*.c | grep -vc '\.mod\.c$')  # not kbuild's ebs.mod.c of an in-tree build
for i in "${!KVERS[@]}"; do
	kv=${KVERS[i]} kd=${KDIRS[i]} b="$TMP/kbuild/${KVERS[i]}"
	mkdir -p "$b/kmod/kernel"
	cp "$TOP"/kmod/Kbuild "$TOP"/kmod/Makefile "$TOP"/kmod/*.[ch] "$b/kmod/"
	cp "$TOP"/kmod/kernel/*.h "$b/kmod/kernel/"
	cp -r "$TOP/include" "$b/include"
	t0=$SECONDS
	make -C "$b/kmod" KDIR="$kd" W=1 >"kbuild-$kv.log" 2>&1
	rc=$?
	keep "kbuild-$kv.log"
	check "$kv: ebs.ko builds, W=1 ($((SECONDS - t0)) s)" [ $rc -eq 0 -a -f "$b/kmod/ebs.ko" ]
	check "$kv: no compiler or modpost warning at W=1" \
		bash -c "! grep -iE 'warning|error' 'kbuild-$kv.log'"
	[ -f "$b/kmod/ebs.ko" ] || continue
	make -C "$b/kmod" KDIR="$kd" W=1 C=2 >"sparse-$kv.log" 2>&1
	rc=$?
	keep "sparse-$kv.log"
	nchk=$(grep -c '^  CHECK ' "sparse-$kv.log")
	check "$kv: sparse (C=2) over the $NSRC files ($nchk checked): no warning" \
		bash -c "[ $rc -eq 0 ] && [ $nchk -eq $NSRC ] && ! grep -iE 'warning|error|not found' 'sparse-$kv.log'"
done

# checkpatch.pl --strict, of the newest kernel's series: Debian ships it
# only in linux-source-SERIES; take it from there once.
series=$(printf '%s\n' "${KVERS[@]}" | sort -V | tail -n 1 | cut -d. -f1-2)
CPDIR="$CACHE/checkpatch-$series"
CP="$CPDIR/checkpatch.pl"
rm -rf "$CACHE/checkpatch"	# where 6.1's was kept before
if [ ! -f "$CP" ] && [ -z "${EBS_OFFLINE:-}" ]; then
	src=linux-source-$series
	(cd "$CACHE" && apt-get download -q "$src" >/dev/null 2>&1 &&
		dpkg-deb --fsys-tarfile "$src"_*.deb | tar -x "./usr/src/$src.tar.xz" &&
		tar -xJf "usr/src/$src.tar.xz" "$src/scripts/checkpatch.pl" "$src/scripts/spelling.txt" \
			"$src/scripts/const_structs.checkpatch" &&
		rm -rf "$CPDIR" && mv "$src/scripts" "$CPDIR")
	rm -rf "${CACHE:?}/$src" "${CACHE:?}/usr" "$CACHE/$src"_*.deb
fi
# Over the module's files and the headers of include/ebs/ that it includes.
# No errors; a warning or check only where tests/kmod/checkpatch-allow lists
# its file and type with the reason, and no line there that none needs.
if [ -f "$CP" ]; then
	hdrs=$(cd "$TOP/kmod" && sed -n 's|^#include <\(ebs/[^>]*\)>.*|../include/\1|p' ebs_*.[ch] kernel/*.h | sort -u)
	# shellcheck disable=SC2086 # hdrs is a list of file names
	(cd "$TOP/kmod" && perl "$CP" --no-tree -f --terse --show-types --strict ebs_*.c ebs_*.h kernel/*.h \
		$hdrs) >checkpatch.log 2>&1
	keep checkpatch.log
	check "checkpatch.pl --strict ($series): no errors" \
		bash -c "! grep -q ': ERROR:' checkpatch.log && grep -q '^total: 0 errors' checkpatch.log"
	ALLOW=$TOP/tests/kmod/checkpatch-allow
	sed -n -E 's/^([^ :]+):[0-9]+: (WARNING|CHECK):([A-Z0-9_]+):.*/\1 \3/p' checkpatch.log | sort -u >warned.txt
	grep -v -E '^(#|[[:space:]]*$)' "$ALLOW" >allow.txt
	unlisted=$(awk 'NR == FNR { ok[$1 " " $2] = 1; next } !ok[$1 " " $2]' allow.txt warned.txt)
	if [ -n "$unlisted" ]; then
		fail "checkpatch.pl --strict: every warning and check is listed in tests/kmod/checkpatch-allow" \
			"not listed: $(while read -r f ty; do grep -F "$f:" checkpatch.log | grep -E ": (WARNING|CHECK):$ty:"
				done <<<"$unlisted" | head -n 5 | tr '\n' '|')"
	else
		pass "checkpatch.pl --strict: every warning and check is listed in tests/kmod/checkpatch-allow ($(wc -l <warned.txt) file and type pairs)"
	fi
	check "checkpatch-allow: each line names a file, a type and its reason" \
		awk 'NF < 3 { exit 1 }' allow.txt
	stale=$(awk 'NR == FNR { w[$1 " " $2] = 1; next } !w[$1 " " $2] { print $1, $2 }' warned.txt allow.txt)
	check "checkpatch-allow: no line that no warning or check needs${stale:+ (stale: $stale)}" [ -z "$stale" ]
elif [ -n "${EBS_OFFLINE:-}" ]; then
	skip "checkpatch" "checkpatch.pl of $series is not in $CACHE, and make check downloads nothing (make test fetches it, once)"
else
	skip "checkpatch" "checkpatch.pl is not on this machine and linux-source-$series could not be fetched"
fi

# The initramfs: busybox, ebs with the libraries ldd names and those it
# loads when first needed (util/dynlib.h: capstone and Zydis for annotate
# --asm of /proc/kcore, libarchive; the sonames it holds, found through
# ldconfig, with what they need), static workloads.
R=root
mkdir -p $R/bin $R/proc $R/sys $R/dev $R/tmp
cp /bin/busybox $R/bin/busybox
cp "$TOP/tests/kmod/guest-init.sh" $R/
mv $R/guest-init.sh $R/init
cp "$EBS" $R/ebs
dyn=$(strings "$EBS" | grep -E '^lib(capstone|Zydis|archive)\.so' | sort -u |
	while read -r so; do ldconfig -p | awk -v so="$so" '$1 == so && /x86-64/ { print $NF; exit }'; done)
for lib in $(for f in "$EBS" $dyn; do echo "$f"; ldd "$f" | grep -o '/[^ ]*'; done | sort -u); do
	[ "$lib" = "$EBS" ] && continue
	mkdir -p "$R$(dirname "$lib")"
	cp -L "$lib" "$R$lib"
done
WL="$TOP/tests/workloads"
gcc -static -O2 -g -fno-omit-frame-pointer -I"$WL" -o $R/leafloop "$WL/leafloop.c"
gcc -static -O2 -g -fno-omit-frame-pointer -I"$WL" -DWALLCLOCK -o $R/sleeper "$WL/leafloop.c"
gcc -static -O2 -g -I"$WL" -o $R/memtouch "$WL/memtouch.c"
gcc -static -O2 -g -pthread -I"$TOP/include" -o $R/kmodtest "$TOP/tests/kmod/kmodtest.c"
gcc -static -O2 -g -pthread -I"$TOP/include" -o $R/kfuzz "$TOP/tests/kmod/kfuzz.c"
# preloaded into ebs: what it asks CONFIG for, seen where the module refuses it
gcc -shared -fPIC -O2 -g -I"$TOP/include" -o $R/ebsioctl.so "$TOP/tests/kmod/ebsioctl.c" -ldl

# Boot each kernel with its module.  QEMU exits 0 after poweroff and after
# a panic alike: trust the end marker and the log, not the exit status.
# tsc=reliable: with -smp 2 the guest calls its TSC unstable and falls back
# to clocksources that are emulated devices under TCG, and then its timers
# lag so much that timer-driven sampling (cpu-clock) loses most samples to
# hrtimer overruns: measured here, 852 of 5000 expected overflows without
# it, 4561 with it.  thread=single: one host thread runs both vCPUs, so
# they compete less with the host for its two cores; the timers then lag
# less and less unevenly (at 100 us: 59-96% of the expected overflows,
# against 21-91% with a thread per vCPU).  A guest runs 90 to 118 s here;
# 400 s is a hang guard (a guest that stops at a panic or in a loop), not
# a speed requirement.  kfuzz's calls (tests/kmod/kfuzz.c): 100000 take
# about 80 s of guest time here, 30000 about 25 s; EBS_KFUZZ=100000 for
# the full count.  Every check of a guest names its kernel.
KFUZZ=${EBS_KFUZZ:-30000}
# The sanitizer half (SAN=) boots one kernel, the first: what it adds is
# ebs's own code under ASan and UBSan, which is the same against either
# kernel; the plain half boots them all (a guest is 2 to 4 minutes of a
# CPU here, the largest part of the suite).
[ -n "${SAN:-}" ] && [ ${#KVERS[@]} -gt 1 ] &&
	echo "    the sanitizer half boots ${KVERS[0]} only (the plain half boots ${KVERS[*]})"
for i in "${!KVERS[@]}"; do
	kv=${KVERS[i]} ko="$TMP/kbuild/${KVERS[i]}/kmod/ebs.ko"
	[ -n "${SAN:-}" ] && [ "$i" -gt 0 ] && break
	if [ ! -f "$ko" ]; then
		skip "$kv: guest" "ebs.ko did not build against $kv"
		continue
	fi
	if ! img=$(vmlinuz "$kv" 2>vmlinuz.err); then
		skip "$kv: guest" "$(cat vmlinuz.err)"
		continue
	fi
	cp "$ko" $R/ebs.ko
	(cd $R && find . -print0 | cpio --null -o -H newc 2>/dev/null | gzip -1) >"initramfs-$kv.cpio.gz"
	log="$ARTEFACTS/kmod-guest-$kv.log"
	start=$(date +%s)
	timeout 400 qemu-system-x86_64 -accel tcg,thread=single -m 1024 -smp 2 -nographic \
		-no-reboot -net none \
		-kernel "$img" -initrd "initramfs-$kv.cpio.gz" \
		-append "console=ttyS0 quiet panic=-1 tsc=reliable clocksource=tsc slub_debug=U EBS_KFUZZ=$KFUZZ" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	tr -d '\r' <"$log" >"guest-$kv.log"
	echo "    --- the guest of $kv"
	sed -n -E "s/^(PASS|FAIL|SKIP): kmod: /\1: kmod: $kv: /p" "guest-$kv.log"
	grep -E '^    ' "guest-$kv.log"
	ran=$(sed -n 's/.*EBS-GUEST-START //p' "guest-$kv.log" | head -n 1)
	check "$kv: the guest ran that kernel (uname -r: ${ran:-none})" [ "$ran" = "$kv" ]
	check "$kv: the guest ran to its end (${took} s, qemu status $rc)" grep -q '^EBS-GUEST-END' "guest-$kv.log"
	check "$kv: the guest did not hang (ended before the 400 s guard)" [ $rc -ne 124 ]
	check "$kv: no kernel panic, oops or BUG in the guest's console" \
		bash -c "! grep -E 'Kernel panic|Oops:|BUG:|Call Trace' 'guest-$kv.log'"
done
