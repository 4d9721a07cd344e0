#!/bin/sh
# scripts/kdir.sh - the kernel tree `make kmod` builds ebs.ko against, when
# KDIR= is not given, printed with why on the second line:
#   1. the running kernel's (/lib/modules/$(uname -r)/build), if installed;
#   2. else Debian's default: the headers the meta-package linux-headers-amd64
#      depends on (linux-headers-6.1.0-NN-amd64 on Debian 12), if installed;
#   3. else the newest /usr/src/linux-headers-*-amd64.
# Not simply the newest: a newer kernel's headers (6.12 from backports) may
# need a newer compiler than the system's and fail where the default builds.
# EBS_KMODULES and EBS_KSRC (default /lib/modules, /usr/src) are for the
# tests (tests/integration/makefile.sh), as is dpkg-query from PATH.
# Prints nothing and exits 1 when there are no headers.
set -u
mods=${EBS_KMODULES:-/lib/modules} src=${EBS_KSRC:-/usr/src}

if [ -d "$mods/$(uname -r)/build" ]; then
	echo "$mods/$(uname -r)/build"
	echo "the running kernel's headers ($(uname -r))"
	exit 0
fi
dep=$(dpkg-query -W -f '${Depends}' linux-headers-amd64 2>/dev/null |
	sed -n 's/^\(linux-headers-[^ ,]*\).*/\1/p')
if [ -n "$dep" ] && [ -d "$src/$dep" ]; then
	echo "$src/$dep"
	echo "Debian's default headers ($dep, which linux-headers-amd64 depends on)"
	exit 0
fi
new=$(ls -d "$src"/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$new" ] || exit 1
echo "$new"
echo "the newest installed headers ($(basename "$new"))"
