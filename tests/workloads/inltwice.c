// SPDX-License-Identifier: MIT
/*
 * inltwice - a function inlined into another that is itself both a
 * function of its own and inlined: mix() is inlined into step(); step()
 * runs out of line (called through a volatile function pointer, which no
 * compiler can inline) and inlined into outer()'s loop, for about the
 * same CPU time.  In the first, mix's caller is named by the symbol
 * table's step, in the second by DWARF's (an inline scope): one name,
 * which `ebs report` must show as one row, "mix (inlined into step)".
 *
 *   inltwice [SECONDS]	run for SECONDS of CPU time (default 0.4)
 */
#include "workload.h"

static volatile double sink;

static inline __attribute__((always_inline)) double mix(double y)
{
	for (int i = 0; i < 200; i++)
		y = y / 1.0007 + 0.5;
	return y;
}

static inline __attribute__((always_inline)) double step(double y)
{
	for (int i = 0; i < 10; i++)
		y = mix(y);
	return y;
}

static double (*volatile out_of_line)(double) = step;

WL_NOINLINE double outer(double y)
{
	for (int i = 0; i < 200; i++)
		y = step(y);
	return y;
}

WL_NOINLINE double called(double y)
{
	for (int i = 0; i < 200; i++)
		y = out_of_line(y);
	return y;
}

int main(int argc, char **argv)
{
	double until = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.4), y = 1.0;

	while (wl_thread_cpu() < until)
		y = called(outer(y));
	sink = y;
	return 0;
}
