// SPDX-License-Identifier: MIT
/*
 * calltree - a call tree with known inclusive shares, for call graphs.
 *
 *   main -> tree_a -> tree_left  -> tree_leaf   (2 parts of the work)
 *                  -> tree_right -> tree_leaf   (1 part)
 *
 * tree_leaf does all the work and is a leaf: it calls nothing, so gcc
 * builds no frame for it when leaf frames may be omitted (the calltree-fp
 * build).  tree_left and tree_right each do one step after their call, so
 * the calls are not tail calls.  Of the samples in tree_a, tree_left holds
 * 2/3 and tree_right 1/3 inclusively.
 *
 *   calltree [SECONDS]	run for SECONDS of CPU time (default 0.5)
 */
#include "workload.h"

#define K_BASE 100000

static volatile unsigned long sink;

WL_NOINLINE void tree_leaf(unsigned long n)
{
	WL_STEPS(sink, n);
}

WL_NOINLINE void tree_left(unsigned long n)
{
	tree_leaf(2 * n);
	sink++;
}

WL_NOINLINE void tree_right(unsigned long n)
{
	tree_leaf(n);
	sink++;
}

WL_NOINLINE void tree_a(unsigned long n)
{
	tree_left(n);
	tree_right(n);
	sink++;
}

int main(int argc, char **argv)
{
	double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.5);
	unsigned long rnd = 1;

	do {
		rnd = rnd * 1103515245 + 12345;
		tree_a(K_BASE / 2 + (rnd >> 16) % K_BASE);
	} while (wl_thread_cpu() < end);
	return 0;
}
