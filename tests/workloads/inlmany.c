// SPDX-License-Identifier: MIT
/*
 * inlmany - one hot source line inlined into four functions.  step()'s
 * division (the line marked STEP) is always inlined into caller_a ..
 * caller_d, which run in turn for the same CPU time, so most samples are
 * at that one line of the source, split about evenly between four compiled
 * functions: `ebs report --sort line` must show it as one row (with the
 * four functions it was inlined into), `--sort line,func` as four.
 *
 *   inlmany [SECONDS]	run for SECONDS of CPU time (default 0.4)
 */
#include "workload.h"

static volatile double sink;

static inline __attribute__((always_inline)) double step(double y)
{
	return y / 1.0007 + 0.5; /* STEP */
}

WL_NOINLINE double caller_a(double y, double until)
{
	do {
		for (int i = 0; i < 5000; i++)
			y = step(y);
	} while (wl_thread_cpu() < until);
	return y;
}

WL_NOINLINE double caller_b(double y, double until)
{
	do {
		for (int i = 0; i < 5000; i++)
			y = step(y);
	} while (wl_thread_cpu() < until);
	return y;
}

WL_NOINLINE double caller_c(double y, double until)
{
	do {
		for (int i = 0; i < 5000; i++)
			y = step(y);
	} while (wl_thread_cpu() < until);
	return y;
}

WL_NOINLINE double caller_d(double y, double until)
{
	do {
		for (int i = 0; i < 5000; i++)
			y = step(y);
	} while (wl_thread_cpu() < until);
	return y;
}

int main(int argc, char **argv)
{
	double quarter = wl_arg(argc, argv, 1, 0.4) / 4, y = 1.0;

	y = caller_a(y, wl_thread_cpu() + quarter);
	y = caller_b(y, wl_thread_cpu() + quarter);
	y = caller_c(y, wl_thread_cpu() + quarter);
	y = caller_d(y, wl_thread_cpu() + quarter);
	sink = y;
	return 0;
}
