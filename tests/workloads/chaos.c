// SPDX-License-Identifier: MIT
/*
 * chaos - a profiled program that is hard on a profiler: it crashes, forks
 * many short children, execs itself over and over, or churns threads.
 * Each mode spends its CPU time in a function of its own, and ends with
 * an exit status of its own, so that a test can check that every process's
 * samples are attributed and that the profiler passes the status on.
 *
 *   chaos segv SECONDS	  work SECONDS of CPU time in chaos_crash_work(),
 *			  then write through a NULL pointer (SIGSEGV, status 139)
 *   chaos forks N	  fork N children one after another, each working 0.5 ms
 *			  in chaos_child_work() and exiting 0; exit 3
 *   chaos execs N	  work 2 ms in chaos_exec_work(), then exec itself
 *			  with N-1; the last one exits 4 (the pid stays the same)
 *   chaos threads N	  N threads, at most 8 at a time, each working 2 ms
 *			  in chaos_thread_work(); exit 5
 */
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "workload.h"

static volatile unsigned long sink;

static inline __attribute__((always_inline)) void spin(double seconds)
{
	WL_SPIN(sink, seconds, 10000);
}

WL_NOINLINE void chaos_crash_work(double seconds)
{
	spin(seconds);
}

WL_NOINLINE void chaos_child_work(void)
{
	spin(0.0005);
}

WL_NOINLINE void chaos_exec_work(void)
{
	spin(0.002);
}

WL_NOINLINE void *chaos_thread_work(void *arg)
{
	(void)arg;
	spin(0.002);
	return NULL;
}

static int forks(long n)
{
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("chaos: fork");
			return 1;
		}
		if (pid == 0) {
			chaos_child_work();
			_exit(0);
		}
		if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "chaos: child %d failed\n", (int)pid);
			return 1;
		}
	}
	return 3;
}

static int execs(char **argv, long n)
{
	char left[32], path[PATH_MAX];
	char *args[] = {argv[0], argv[1], left, NULL};

	chaos_exec_work();
	if (n <= 1)
		return 4;
	if (wl_self_dir(path, sizeof(path) - sizeof("/chaos")))
		return 1;
	strcat(path, "/chaos");
	snprintf(left, sizeof(left), "%ld", n - 1);
	execv(path, args);
	perror("chaos: exec");
	return 1;
}

static int threads(long n)
{
	pthread_t t[8];

	for (long i = 0; i < n; i += 8) {
		int k = n - i < 8 ? (int)(n - i) : 8, err;

		for (int j = 0; j < k; j++) {
			err = pthread_create(&t[j], NULL, chaos_thread_work, NULL);
			if (err) {
				fprintf(stderr, "chaos: pthread_create: %s\n", strerror(err));
				return 1;
			}
		}
		for (int j = 0; j < k; j++)
			pthread_join(t[j], NULL);
	}
	return 5;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double arg = wl_arg(argc, argv, 2, 0);

	if (!strcmp(mode, "segv")) {
		volatile int *null = NULL;

		chaos_crash_work(arg);
		signal(SIGSEGV, SIG_DFL);
		WL_OPAQUE(null);	/* a store the compiler cannot turn into a trap */
		*null = 1;
		return 1;
	}
	if (!strcmp(mode, "forks"))
		return forks((long)arg);
	if (!strcmp(mode, "execs"))
		return execs(argv, (long)arg);
	if (!strcmp(mode, "threads"))
		return threads((long)arg);
	fprintf(stderr, "usage: chaos segv SECONDS | forks N | execs N | threads N\n");
	return 2;
}
