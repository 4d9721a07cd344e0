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
	WL_SPIN(sink, seconds, 100000);
}

int main(int argc, char **argv)
{
	int status = (int)wl_arg(argc, argv, 1, 3);

	exitcode_work(0.1);
	return status;
}
