/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of <ebs_compat.h>.  First, what the module's portable parts
 * (ebs_ring.c, ebs_msr.c, ebs_check.c) use, from the kernel:
 * tests/kmod/ebs_compat.h provides the same names in user space, so that
 * those files are compiled unchanged into the module and into user-space
 * tests.  Then the shims the kernel-only files use across kernel versions:
 * the one place where LINUX_VERSION_CODE is tested.
 *
 * The module needs Linux 6.1 or later.  It is built (without a warning, at
 * W=1 and under sparse) and tested in a QEMU guest on Debian 12's 6.1 and
 * 6.12 kernels (docs/kmod.md, section 1); no older kernel has been tried.
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

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "ebs.ko needs Linux 6.1 or later (it is built and tested on 6.1 and 6.12: docs/kmod.md)"
#endif

/*
 * vma->vm_flags |= set and &= ~clear, for ebs_main.c (which has
 * <linux/mm.h>): vm_flags_mod() from 6.3 on, where vm_flags became
 * read-only.  Macros, so that the portable files need no <linux/mm.h>.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define ebs_vm_flags_mod(vma, set, clear) vm_flags_mod(vma, set, clear)
#else
#define ebs_vm_flags_mod(vma, set, clear)                                                          \
	do {                                                                                       \
		struct vm_area_struct *ebs_vma_ = (vma);                                           \
		ebs_vma_->vm_flags = (ebs_vma_->vm_flags | (set)) & ~(clear);                      \
	} while (0)
#endif

/*
 * 64-bit MSR accessors, for ebs_msr_hw.c (which has <asm/msr.h>):
 * rdmsrl() and wrmsrl() are rdmsrq() and wrmsrq() from 6.16 on, the old
 * names gone.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define ebs_rdmsrq(msr, val) rdmsrq(msr, val)
#define ebs_wrmsrq(msr, val) wrmsrq(msr, val)
#else
#define ebs_rdmsrq(msr, val) rdmsrl(msr, val)
#define ebs_wrmsrq(msr, val) wrmsrl(msr, val)
#endif

/*
 * A timer with its function, for ebs_msr_hw.c (which has
 * <linux/hrtimer.h>): hrtimer_setup() from 6.13 on, where hrtimer_init()
 * is deprecated (and later gone).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define ebs_hrtimer_setup(t, fn, clock, mode) hrtimer_setup(t, fn, clock, mode)
#else
#define ebs_hrtimer_setup(t, fn, clock, mode)                                                      \
	do {                                                                                       \
		struct hrtimer *ebs_t_ = (t);                                                      \
		hrtimer_init(ebs_t_, clock, mode);                                                 \
		ebs_t_->function = (fn);                                                           \
	} while (0)
#endif

/*
 * A local APIC register write, for ebs_msr_hw.c (which has <asm/apic.h>).
 * From 6.6 on apic_write() is a static call whose key and trampoline
 * (__SCK__apic_call_write, __SCT__apic_call_write) are not exported, so a
 * module that calls it fails at modpost.  The APIC driver's own write
 * function is what that call is set to (apic_update_callback() changes
 * both), and the pointer to the driver, apic, is exported (GPL), in 6.1
 * as in 6.12: before 6.6 apic_write() is this very call.
 */
#define ebs_apic_write(reg, v) apic->write(reg, v)

#endif /* EBS_COMPAT_H */
