/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's rules as pure functions: which request a session's state
 * allows, which ioctl arguments and mappings are well formed, how ring
 * memory is charged, which samples may be kept.  No locks, no allocation,
 * no global state and nothing of the caller's: the module passes them
 * copies of what user space gave it and the facts it looked up itself.
 *
 * Portable: compiled into the module and, with tests/kmod/ebs_compat.h,
 * into user space (tests/unit/test-kmod, a libFuzzer harness).
 */
#ifndef EBS_CHECK_H
#define EBS_CHECK_H

#include <ebs_compat.h>

enum ebs_state {
	EBS_OPEN,	/* opened, nothing configured */
	EBS_CONFIGURED, /* rings allocated, counters claimed, not counting */
	EBS_RUNNING,	/* counting */
	EBS_STOPPED,	/* counting stopped; rings still readable */
};

/*
 * The largest sample_after: perf_event_open refuses periods with bit 63
 * set, and a kernel counter's hrtimer would take one for a negative time
 * and fire without pause.
 */
#define EBS_SAMPLE_AFTER_MAX ((1ull << 63) - 1)

/* The largest argument any request takes. */
union ebs_ioctl_arg {
	__u32 version;
	struct ebs_config cfg;
	struct ebs_stats stats;
	struct ebs_tail tail;
	struct ebs_read read;
};

/*
 * May request cmd run in state?  0; -EBUSY while RUNNING, -EINVAL in
 * another state it is not allowed in; -ENOTTY for a request that is not
 * the module's (another magic, number, direction or size).
 */
int ebs_check_state(unsigned int cmd, enum ebs_state state);

/* Is cfg well formed?  0 or -EINVAL.  Permission, the pid and the modes' own checks come later. */
int ebs_check_config(const struct ebs_config *cfg);

/*
 * Everything the module checks of one ioctl before it acts on it: cmd in
 * state (ebs_check_state()), then the argument, arg, the _IOC_SIZE(cmd)
 * bytes copied from the caller (unread for requests without one), against
 * a session of nr_rings rings.  0, or the -errno the ioctl returns.  The
 * module calls ebs_check_state() before copying the argument, so that a
 * request in the wrong state fails the same way whatever its pointer.
 * A TAIL's position within the ring is ebs_ring_set_tail()'s to check.
 */
int ebs_check_ioctl(unsigned int cmd, enum ebs_state state, unsigned int nr_rings,
		    const union ebs_ioctl_arg *arg);

/*
 * A mapping of len bytes at page offset pgoff, of a session in state with
 * nr_rings rings of (1 + ring_pages) pages of page_size bytes: 0 with *cpu
 * the ring it maps; -EPERM when writable; -EINVAL otherwise.
 */
int ebs_check_mmap(unsigned long pgoff, unsigned long len, bool writable, enum ebs_state state,
		   __u32 ring_pages, unsigned int nr_rings, unsigned long page_size,
		   unsigned int *cpu);

/*
 * Charging pages of ring memory, as perf_mmap() charges a ring: to the
 * user's locked_vm up to user_limit pages (the module's mlock_kb per online
 * CPU; user_locked is what the user has locked already, by perf too), the
 * rest to the process's pinned_vm, which with what it holds already
 * (pinned) may not pass rlimit_pages (RLIMIT_MEMLOCK) unless ipc_lock
 * (CAP_IPC_LOCK).  0 with *user_pages and *pinned_pages to charge (their
 * sum is pages), or -EPERM.
 */
int ebs_check_charge(__u64 pages, __u64 user_locked, __u64 user_limit, __u64 pinned,
		     __u64 rlimit_pages, bool ipc_lock, __u64 *user_pages, __u64 *pinned_pages);

/*
 * May a sample taken in user_mode (else kernel mode) be kept by a session
 * configured with flags?  A kernel-mode sample only with EBS_CFG_KERNEL,
 * which needs the right to see kernel addresses: an overflow of a
 * user-only counter can land in the kernel by skid (as perf's
 * sample_is_allowed() says), and its address is not the caller's to see.
 */
bool ebs_check_sample(__u32 flags, bool user_mode);

/*
 * Does cfg need CAP_PERFMON or CAP_SYS_ADMIN (perfmon_capable()) of the
 * caller of CONFIG?  All CPUs (every process's samples: perf_allow_cpu()'s
 * rule), and msr mode whatever the target: counter 0 counts every task on
 * every CPU, and its overflows (STATS) are every process's.
 */
bool ebs_check_perfmon(const struct ebs_config *cfg);

/*
 * READ's count c as RESET left it: what it counted since RESET read base,
 * field by field (a value below its base, a version 1 msr counter that
 * wrapped unseen, reads 0).
 */
void ebs_check_count_since(struct ebs_count *c, const struct ebs_count *base);

#endif /* EBS_CHECK_H */
