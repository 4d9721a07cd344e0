/* SPDX-License-Identifier: MIT */
/*
 * guest.h - what the QEMU guest's test programs (kmodtest.c, kfuzz.c)
 * share: taking another identity with chosen capabilities, without
 * libcap.  Static inline: each program is one file, linked statically.
 * Needs _GNU_SOURCE (setresuid()) before the first system header.
 */
#ifndef EBS_KMOD_GUEST_H
#define EBS_KMOD_GUEST_H

#include <grp.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CAPBIT(c)    (1ull << (c))
#define GUEST_NOBODY 65534

/*
 * Become uid (and gid) with exactly the capabilities in caps (bits
 * CAPBIT(CAP_...)), kept across exec (ambient for a uid other than 0; the
 * bounding set for root), and dumpable, so that the processes it forks may
 * be sampled by it as by any user.  memlock_kb >= 0 sets RLIMIT_MEMLOCK.
 * Called as root.  0 or -1 (errno set).
 */
static inline int guest_become(uid_t uid, uint64_t caps, long memlock_kb)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	int c;

	if (memlock_kb >= 0) {
		struct rlimit rl = {(rlim_t)memlock_kb * 1024, (rlim_t)memlock_kb * 1024};

		if (setrlimit(RLIMIT_MEMLOCK, &rl))
			return -1;
	}
	/* what exec would give back to root: the bounding set (needs CAP_SETPCAP, so first) */
	for (c = 0; c <= CAP_LAST_CAP; c++)
		if (!(caps & CAPBIT(c)) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0))
			return -1;
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return -1;
	d[0].effective = d[0].permitted = d[0].inheritable = (uint32_t)caps;
	d[1].effective = d[1].permitted = d[1].inheritable = (uint32_t)(caps >> 32);
	if (syscall(SYS_capset, &h, d))
		return -1;
	for (c = 0; c <= CAP_LAST_CAP; c++)
		if ((caps & CAPBIT(c)) && uid &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0))
			return -1;
	/* changing ids made the process undumpable: as it would be after an exec */
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

#endif /* EBS_KMOD_GUEST_H */
