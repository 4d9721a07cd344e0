// SPDX-License-Identifier: MIT
/*
 * libebsdl.so - dlopen()ed by "shlib" at run time.  dl_hot() runs n
 * iterations of the same loop as shlib_hot() and main_work().
 */
void dl_hot(unsigned long n);

static volatile unsigned long sink;

/* aligned like the other two, so its loop costs the same on any CPU */
__attribute__((noinline, noipa, aligned(64))) void dl_hot(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	sink = x;
}
