/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space side of <ebs_compat.h>: the kernel names that the module's
 * portable files (kmod/ebs_ring.c, kmod/ebs_msr.c) use, so that they are
 * compiled unchanged into tests/unit/test-kmod.  kmod/kernel/ebs_compat.h
 * is the module's side.
 */
#ifndef EBS_COMPAT_H
#define EBS_COMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

#include <ebs/ebs_abi.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

#endif /* EBS_COMPAT_H */
