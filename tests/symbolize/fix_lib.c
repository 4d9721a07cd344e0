// SPDX-License-Identifier: MIT
/* fix_lib.c - the fixture's shared library. */
#include "fix.h"

static __attribute__((noinline)) unsigned long lib_helper(unsigned long x)
{
	return fix_mix2(x, 2) + 1;
}

unsigned long fix_lib(unsigned long x)
{
	return lib_helper(x) ^ fix_mix(x);
}
