// SPDX-License-Identifier: MIT
/*
 * libebsdl.so - dlopen()ed by "shlib" at run time.  dl_hot() runs n
 * iterations of the same loop as shlib_hot() and main_work().
 */
#include "workload.h"

void dl_hot(unsigned long n);

static volatile unsigned long sink;

/* aligned like the other two, so its loop costs the same on any CPU */
WL_NOINLINE __attribute__((aligned(64))) void dl_hot(unsigned long n)
{
	WL_STEPS(sink, n);
}
