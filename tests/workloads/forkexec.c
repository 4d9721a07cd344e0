// SPDX-License-Identifier: MIT
/*
 * forkexec - forks; the child execs "leafloop" from this program's own
 * directory with the same argument, while the parent runs
 * forkexec_parent_work() for a tenth of that time.  Exits with the child's
 * status.  Ground truth for following children across fork and exec.
 *
 *   forkexec [SECONDS]	child's CPU time (default 0.5)
 */
#include <sys/wait.h>

#include "workload.h"

static volatile unsigned long sink;

WL_NOINLINE void forkexec_parent_work(double seconds)
{
	WL_SPIN(sink, seconds, 100000);
}

int main(int argc, char **argv)
{
	double seconds = wl_arg(argc, argv, 1, 0.5);
	char path[PATH_MAX];
	int status;
	pid_t pid;

	if (wl_self_dir(path, sizeof(path) - sizeof("/leafloop")))
		return 1;
	strcat(path, "/leafloop");

	pid = fork();
	if (pid < 0) {
		perror("forkexec: fork");
		return 1;
	}
	if (pid == 0) {
		/* Without an argument, leafloop uses the same default. */
		char *args[] = { path, argc > 1 ? argv[1] : NULL, NULL };

		execv(path, args);
		fprintf(stderr, "forkexec: exec %s: %s\n", path, strerror(errno));
		_exit(127);
	}

	forkexec_parent_work(seconds / 10);

	if (waitpid(pid, &status, 0) < 0) {
		perror("forkexec: waitpid");
		return 1;
	}
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
