// SPDX-License-Identifier: MIT
/*
 * threads - four threads, thread i spinning in its own function thread_fn_i()
 * for SECONDS of its own CPU time; main joins them.
 *
 *   threads [SECONDS [wait]]	CPU time per thread (default 0.125, so 0.5 s in all)
 *
 * With "wait", the program prints its pid, creates the four threads, and
 * they start spinning only when it gets SIGUSR1: a profiler attached in
 * between (-p) finds all four and sees all of their work.
 */
#include <pthread.h>
#include <signal.h>

#include "workload.h"

static volatile unsigned long sink;
static pthread_barrier_t start;	/* the threads and main, with "wait" */
static int waiting;

/* The busy loop, inlined into each thread function so it owns its samples. */
static inline __attribute__((always_inline)) void spin(double seconds)
{
	if (waiting)
		pthread_barrier_wait(&start);
	WL_SPIN(sink, seconds, 100000);
}

WL_NOINLINE void *thread_fn_0(void *arg)
{
	spin(*(double *)arg);
	return NULL;
}

WL_NOINLINE void *thread_fn_1(void *arg)
{
	spin(*(double *)arg);
	return NULL;
}

WL_NOINLINE void *thread_fn_2(void *arg)
{
	spin(*(double *)arg);
	return NULL;
}

WL_NOINLINE void *thread_fn_3(void *arg)
{
	spin(*(double *)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	static void *(*const fns[])(void *) = { thread_fn_0, thread_fn_1, thread_fn_2, thread_fn_3 };
	double seconds = wl_arg(argc, argv, 1, 0.125);
	pthread_t tids[4];
	sigset_t usr1;
	int err, sig;

	if (argc > 2) {
		if (strcmp(argv[2], "wait")) {
			fprintf(stderr, "threads: bad argument '%s' (want 'wait')\n", argv[2]);
			return 2;
		}
		/* blocked before the threads exist, so that they inherit it */
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		pthread_sigmask(SIG_BLOCK, &usr1, NULL);
		pthread_barrier_init(&start, NULL, 5);
		waiting = 1;
	}
	for (int i = 0; i < 4; i++) {
		err = pthread_create(&tids[i], NULL, fns[i], &seconds);
		if (err) {
			fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
			return 1;
		}
	}
	if (waiting) {
		printf("%d\n", (int)getpid());
		fflush(stdout);
		sigwait(&usr1, &sig);
		pthread_barrier_wait(&start);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
