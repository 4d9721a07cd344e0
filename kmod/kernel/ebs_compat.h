/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side: what the module's portable parts (ebs_ring.c,
 * ebs_msr.c) use, from the kernel.  tests/kmod/ebs_compat.h provides the
 * same names in user space, so that those files are compiled unchanged into
 * the module and into a user-space test.
 */
#ifndef EBS_COMPAT_H
#define EBS_COMPAT_H

#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include <asm/barrier.h>

#include <ebs/ebs_abi.h>

#endif /* EBS_COMPAT_H */
