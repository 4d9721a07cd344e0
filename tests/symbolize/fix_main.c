// SPDX-License-Identifier: MIT
/*
 * fix_main.c - symbolization fixture: inlined helpers (from a header and
 * from this file, nested), a static function, a noinline function, a
 * function split into hot and cold parts, recursion, and calls into a
 * second compilation unit and a shared library.  Built at test time with
 * several compilers and options; never run for long.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fix.h"

static volatile unsigned long sink;

static inline __attribute__((always_inline)) unsigned long local_inline(unsigned long x)
{
	return fix_mix2(x, 3) * 3;
}

static __attribute__((noinline)) unsigned long static_fn(unsigned long x)
{
	unsigned long s = 0;

	for (unsigned long i = 0; i < x; i++)
		s += local_inline(i);
	return s;
}

__attribute__((noinline)) unsigned long recurse(unsigned long x)
{
	if (x < 2)
		return x;
	return recurse(x - 1) + recurse(x - 2);
}

__attribute__((noinline)) unsigned long maybe_fail(unsigned long x)
{
	if (__builtin_expect(x == 12345, 0)) {
		fprintf(stderr, "unlikely path %lu\n", x);	/* a cold part */
		abort();
	}
	return fix_mix(x);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10;

	sink = static_fn(n) + recurse(n % 20) + maybe_fail(n) + fix_util(n, 4);
	sink += fix_lib(n);
	printf("%lu\n", sink);
	return 0;
}
