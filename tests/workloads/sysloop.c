// SPDX-License-Identifier: MIT
/*
 * sysloop - time spent outside the program's own code: vdso_phase() calls
 * clock_gettime() (answered by the vdso, no system call) and kernel_phase()
 * makes a cheap system call (getppid), each for half of SECONDS of CPU time.
 * Ground truth for [vdso] and [kernel] symbols.
 *
 *   sysloop [SECONDS]	run for SECONDS of CPU time (default 0.5)
 */
#include <sys/syscall.h>

#include "workload.h"

static volatile long sink;

WL_NOINLINE void vdso_phase(double seconds)
{
	double end = wl_thread_cpu() + seconds;
	struct timespec ts;

	do {
		for (int i = 0; i < 1000; i++) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += ts.tv_nsec;
		}
	} while (wl_thread_cpu() < end);
}

WL_NOINLINE void kernel_phase(double seconds)
{
	double end = wl_thread_cpu() + seconds;

	do {
		for (int i = 0; i < 1000; i++)
			sink += syscall(SYS_getppid);
	} while (wl_thread_cpu() < end);
}

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 0.5);

	vdso_phase(seconds / 2);
	kernel_phase(seconds / 2);
	return 0;
}
