// SPDX-License-Identifier: MIT
/*
 * libebshot.so - linked into "shlib" at build time.  shlib_hot() runs n
 * iterations of the same loop as dl_hot() and main_work() in shlib_main.c.
 */
#include "workload.h"

void shlib_hot(unsigned long n);

static volatile unsigned long sink;

/* aligned like the other two, so its loop costs the same on any CPU */
WL_NOINLINE __attribute__((aligned(64))) void shlib_hot(unsigned long n)
{
	WL_STEPS(sink, n);
}
