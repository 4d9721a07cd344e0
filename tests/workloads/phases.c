// SPDX-License-Identifier: MIT
/*
 * phases - alternates busy and idle phases, for ebs monitor's rising and
 * falling traces: N times (default 5), BUSY seconds of CPU time (default
 * 0.3) then IDLE seconds asleep (default 0.3).  The busy phases are CPU
 * time, so a loaded machine stretches them in wall time but never makes
 * them idle.
 *
 *   phases [N [BUSY [IDLE]]]
 */
#include "workload.h"

static volatile unsigned long sink;

WL_NOINLINE void phases_busy(double seconds)
{
	WL_SPIN(sink, seconds, 100000);
}

int main(int argc, char **argv)
{
	int n = (int)wl_arg(argc, argv, 1, 5);
	double busy = wl_arg(argc, argv, 2, 0.3), idle = wl_arg(argc, argv, 3, 0.3);
	struct timespec ts = {(time_t)idle, (long)((idle - (double)(time_t)idle) * 1e9)};

	for (int i = 0; i < n; i++) {
		phases_busy(busy);
		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
		ts.tv_sec = (time_t)idle;
		ts.tv_nsec = (long)((idle - (double)(time_t)idle) * 1e9);
	}
	return 0;
}
