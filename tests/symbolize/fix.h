/* SPDX-License-Identifier: MIT */
/* fix.h - helpers inlined from a header into the symbolization fixtures. */
#ifndef FIX_H
#define FIX_H

static inline __attribute__((always_inline)) unsigned long fix_mix(unsigned long x)
{
	x ^= x >> 17;
	x *= 0xed5ad4bbUL;	/* an inlined line in a header */
	return x ^ (x >> 11);
}

static inline __attribute__((always_inline)) unsigned long fix_mix2(unsigned long x, int k)
{
	for (int i = 0; i < k; i++)
		x = fix_mix(x) + (unsigned long)i;	/* inline inside inline */
	return x;
}

unsigned long fix_util(unsigned long x, int n);
unsigned long fix_lib(unsigned long x);

#endif
