// SPDX-License-Identifier: MIT
/*
 * exitcode - works for about 0.1 s of CPU time, then exits with the given
 * status, to check that the profiler passes its child's status on.
 *
 *   exitcode [STATUS]	exit status (default 3)
 */
#include "workload.h"

static volatile unsigned long sink;

WL_NOINLINE void exitcode_work(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	unsigned long x = sink;

	do {
		for (int i = 0; i < 100000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			WL_OPAQUE(x);
		}
	} while (wl_thread_cpu() < end);
	sink = x;
}

int main(int argc, char **argv)
{
	int status = (int)wl_arg(argc, argv, 1, 3);

	exitcode_work(0.1);
	return status;
}
