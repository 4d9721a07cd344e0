// SPDX-License-Identifier: MIT
/*
 * split - split_a() and split_b() have identical bodies and alignment, so an
 * iteration costs the same in both.  Each round runs RATIO*K iterations in
 * split_a and K in split_b, so split_a's expected share of the samples in the
 * two is exactly RATIO / (RATIO + 1): 0.75 by default.
 *
 *   split [SECONDS [RATIO]]	run for SECONDS of CPU time (default 0.5), RATIO
 *				(default 3) iterations of split_a for each of split_b's
 *
 * A round takes about (RATIO + 1) / 4 milliseconds.  K varies pseudo-randomly
 * from round to round so the rounds cannot stay in step with a sampling period.
 */
#include "workload.h"

#define K_BASE 200000	/* 4 * K_BASE iterations take about 1 ms */

static volatile unsigned long sink;

WL_NOINLINE __attribute__((aligned(64))) void split_a(unsigned long n)
{
	WL_STEPS(sink, n);
}

WL_NOINLINE __attribute__((aligned(64))) void split_b(unsigned long n)
{
	WL_STEPS(sink, n);
}

int main(int argc, char **argv)
{
	double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.5);
	double ratio = wl_arg(argc, argv, 2, 3);
	unsigned long rnd = 1;

	do {
		unsigned long k;

		rnd = rnd * 1103515245 + 12345;
		k = K_BASE / 2 + (rnd >> 16) % K_BASE;	/* 0.5 .. 1.5 * K_BASE */
		split_a((unsigned long)(ratio * (double)k));
		split_b(k);
	} while (wl_thread_cpu() < end);
	return 0;
}
