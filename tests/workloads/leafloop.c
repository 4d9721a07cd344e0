// SPDX-License-Identifier: MIT
/*
 * leafloop - main() calls parent(), which calls leaf() in a loop; leaf() does
 * about 99% of the work.  Ground truth for "the leaf dominates" and for
 * call chains leaf <- parent <- main.
 *
 *   leafloop [SECONDS]	run for SECONDS of CPU time (default 0.5)
 *
 * With WL_CPU_OUT set, it says on stderr how much CPU time it took, in ns.
 * Built with -DWALLCLOCK as "sleeper": SECONDS is wall-clock time (default 5)
 * and the pid is printed on stdout at once, for attach and system-wide tests.
 */
#include "workload.h"

#ifdef WALLCLOCK
#define DEFAULT_SECONDS 5.0
#define now() wl_clock(CLOCK_MONOTONIC)
#else
#define DEFAULT_SECONDS 0.5
#define now() wl_thread_cpu()
#endif

static volatile unsigned long sink;

/* About 1000 dependent multiply-adds: a few microseconds. */
WL_NOINLINE void leaf(void)
{
	unsigned long x = sink;

	for (int i = 0; i < 1000; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		WL_OPAQUE(x);
	}
	sink = x;
}

/* Calls leaf() until 'seconds' have passed, reading the clock every 1000 calls. */
WL_NOINLINE void parent(double seconds)
{
	double end = now() + seconds;

	do {
		for (int i = 0; i < 1000; i++)
			leaf();
	} while (now() < end);
}

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, DEFAULT_SECONDS);

#ifdef WALLCLOCK
	printf("%d\n", (int)getpid());
	fflush(stdout);
#endif
	parent(seconds);
	/* the CPU time the loop took, for a test that holds a count to it */
	if (getenv("WL_CPU_OUT"))
		fprintf(stderr, "leafloop: cpu %.0f ns\n", wl_clock(CLOCK_PROCESS_CPUTIME_ID) * 1e9);
	return 0;
}
