// SPDX-License-Identifier: MIT
/* fix_util.c - the fixture's second compilation unit. */
#include "fix.h"

struct acc {
	unsigned long v;
};

static inline __attribute__((always_inline)) void acc_add(struct acc *a, unsigned long x)
{
	a->v += fix_mix(x);
}

unsigned long fix_util(unsigned long x, int n)
{
	struct acc a = {0};

	for (int i = 0; i < n; i++)
		acc_add(&a, x + (unsigned long)i);
	return a.v + fix_mix2(x, n);
}
