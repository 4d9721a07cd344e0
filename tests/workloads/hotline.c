// SPDX-License-Identifier: MIT
/*
 * hotline - known hot source lines.  In hot_loop() the line marked HOT (three
 * dependent divisions) is the hottest; inl_helper(), always inlined into
 * hot_loop(), does one division on its line marked INLINE-HOT; the line
 * before HOT (a multiply and an add) is colder.  perf's cpu-clock measured
 * about 57% HOT, 25% INLINE-HOT, 9% the cold line, 8% the for line.
 *
 * All the work is one dependency chain on y, so the compiler cannot move one
 * line's instructions in between another's.  That matters because a sample
 * usually lands on the instruction after a slow division, not on it.
 *
 *   hotline [SECONDS]	run for SECONDS of CPU time (default 0.5)
 */
#include "workload.h"

static volatile double sink;

static inline __attribute__((always_inline)) double inl_helper(double y)
{
	return y / 1.0007 + 0.5; /* INLINE-HOT */
}

WL_NOINLINE double hot_loop(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	double y = 1.0;

	do {
		for (int i = 0; i < 20000; i++) {
			y = y * 0.5 + 1.0;
			y = y / 1.0001 / 1.0003 / 1.0005 + 2.0; /* HOT */
			y = inl_helper(y);
		}
	} while (wl_thread_cpu() < end);
	return y;
}

int main(int argc, char **argv)
{
	sink = hot_loop(wl_arg(argc, argv, 1, 0.5));
	return 0;
}
