/* SPDX-License-Identifier: MIT */
/*
 * workload.h - helpers shared by the ground-truth workloads: argument parsing,
 * clocks, and the directory of the running executable.
 *
 * Everything here is static inline so each workload stays one source file.
 * Named work functions use WL_NOINLINE: noinline keeps them as separate
 * symbols, noipa stops gcc from cloning them (foo.constprop.0) or folding
 * functions with identical bodies into one (-fipa-icf), either of which would
 * change the symbol names the tests look for.
 */
#ifndef EBS_TESTS_WORKLOAD_H
#define EBS_TESTS_WORKLOAD_H

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WL_NOINLINE __attribute__((noinline, noipa))

/* Stops the compiler from computing a loop's result in closed form. */
#define WL_OPAQUE(x) __asm__ volatile("" : "+r"(x))

/*
 * The work the ground-truth functions do: steps of an LCG on the variable
 * sink that the compiler can neither fold nor vectorise.  WL_STEPS makes n
 * of them; WL_SPIN makes them inner at a time until the calling thread has
 * used seconds of CPU time.  Macros, not functions, so that the loop is
 * the calling function's own code, under its name and on its lines.
 */
#define WL_STEP(x)                                                                                 \
	do {                                                                                       \
		(x) = (x) * 6364136223846793005UL + 1442695040888963407UL;                         \
		WL_OPAQUE(x);                                                                      \
	} while (0)
#define WL_STEPS(sink, n)                                                                          \
	do {                                                                                       \
		unsigned long x_ = (sink);                                                         \
		for (unsigned long i_ = 0; i_ < (n); i_++)                                         \
			WL_STEP(x_);                                                               \
		(sink) = x_;                                                                       \
	} while (0)
#define WL_SPIN(sink, seconds, inner)                                                              \
	do {                                                                                       \
		double end_ = wl_thread_cpu() + (seconds);                                         \
		unsigned long x_ = (sink);                                                         \
		do {                                                                               \
			for (int i_ = 0; i_ < (inner); i_++)                                       \
				WL_STEP(x_);                                                       \
		} while (wl_thread_cpu() < end_);                                                  \
		(sink) = x_;                                                                       \
	} while (0)

/*
 * argv[idx] as a non-negative number, or def when absent.  A malformed
 * argument ends the program with status 2 and a usage line.
 */
static inline double wl_arg(int argc, char **argv, int idx, double def)
{
	char *end;
	double v;

	if (argc <= idx)
		return def;
	errno = 0;
	v = strtod(argv[idx], &end);
	if (errno || end == argv[idx] || *end || v < 0) {
		fprintf(stderr, "%s: bad argument '%s' (want a non-negative number)\n", argv[0],
			argv[idx]);
		exit(2);
	}
	return v;
}

static inline double wl_clock(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU time consumed by the calling thread, in seconds. */
static inline double wl_thread_cpu(void)
{
	return wl_clock(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * The directory holding the running executable, written to buf.
 * Returns 0, or -1 with a message on stderr.
 */
static inline int wl_self_dir(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);
	char *slash;

	if (n < 0 || (size_t)n >= size - 1) {
		perror("readlink /proc/self/exe");
		return -1;
	}
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash) {
		fprintf(stderr, "/proc/self/exe: unexpected target '%s'\n", buf);
		return -1;
	}
	*slash = '\0';
	return 0;
}

#endif
