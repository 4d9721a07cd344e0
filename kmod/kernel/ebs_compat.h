/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of <ebs_compat.h>.  First, what the module's portable parts
 * (ebs_ring.c, ebs_msr.c, ebs_check.c) use, from the kernel:
 * tests/kmod/ebs_compat.h provides the same names in user space, so that
 * those files are compiled unchanged into the module and into user-space
 * tests.  Then the shims the kernel-only files use across kernel versions:
 * the one place where LINUX_VERSION_CODE is tested.
 */
#ifndef EBS_COMPAT_H
#define EBS_COMPAT_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <linux/version.h>
#include <asm/barrier.h>

#include <ebs/ebs_abi.h>

/*
 * vma->vm_flags |= set and &= ~clear, for ebs_main.c (which has
 * <linux/mm.h>): vm_flags_mod() from 6.3 on, where vm_flags became
 * read-only.  Macros, so that the portable files need no <linux/mm.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define ebs_vm_flags_mod(vma, set, clear) vm_flags_mod(vma, set, clear)
#else
#define ebs_vm_flags_mod(vma, set, clear) ((vma)->vm_flags = ((vma)->vm_flags | (set)) & ~(clear))
#endif

#endif /* EBS_COMPAT_H */
