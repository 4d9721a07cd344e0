// SPDX-License-Identifier: MIT
/*
 * inlsome - one function inlined at one call site and called out of line
 * at another.  mix() is small and static: gcc inlines it into in_line()'s
 * loop; called() reaches it through a volatile function pointer, which no
 * compiler can inline, so its out-of-line copy runs too, for about the
 * same CPU time.  `ebs report` and `ebs diff` must show two rows, "mix
 * (inlined into in_line)" and "mix" (what ebs view's site_into keys).
 *
 *   inlsome [SECONDS]	run for SECONDS of CPU time (default 0.4)
 */
#include "workload.h"

static volatile double sink;

static double mix(double y)
{
	for (int i = 0; i < 200; i++)
		y = y / 1.0007 + 0.5;
	return y;
}

static double (*volatile out_of_line)(double) = mix;

WL_NOINLINE double in_line(double y)
{
	for (int i = 0; i < 2000; i++)
		y = mix(y);
	return y;
}

WL_NOINLINE double called(double y)
{
	for (int i = 0; i < 2000; i++)
		y = out_of_line(y);
	return y;
}

int main(int argc, char **argv)
{
	double until = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.4), y = 1.0;

	while (wl_thread_cpu() < until)
		y = called(in_line(y));
	sink = y;
	return 0;
}
