/* SPDX-License-Identifier: MIT */
/*
 * test.h - the unit-test harness.  A test program calls TEST_OK/TEST_FAIL/
 * TEST_SKIP (or the TEST_EQ family) once per check; each prints one line that
 * tests/run.sh counts:
 *
 *   PASS: name
 *   FAIL: name: why
 *   SKIP: name: why
 *
 * and test_done() returns the exit status (nonzero when anything failed).
 * A program that crashes before test_done() is counted as failed by run.sh.
 *
 * A suite's cases are named: its main is
 *
 *   TEST_MAIN(setup, teardown, TEST_CASE(test_fit), TEST_CASE(test_round))
 *
 * (setup returns 0 or fails the run with TEST_FAIL; either may be NULL).
 * A case is named after its function, less a leading "test_": with no
 * argument the program runs every case, in order; with names, only those
 * (`test-calib fit round`, or `tests/run.sh unit/test-calib:fit,round`);
 * `--list` prints the names; a name no case has is refused with exit 2.
 * A case must hold alone: what it needs, it or setup makes.
 */
#ifndef EBS_TEST_H
#define EBS_TEST_H

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

static int test_failures;

/* Line-buffered output: a crash keeps the lines printed before it. */
__attribute__((constructor)) static void test_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

#define TEST_OK(name) printf("PASS: %s\n", (name))
#define TEST_SKIP(name, ...)                                                                       \
	do {                                                                                       \
		printf("SKIP: %s: ", (name));                                                      \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
	} while (0)
#define TEST_FAIL(name, ...)                                                                       \
	do {                                                                                       \
		printf("FAIL: %s: ", (name));                                                      \
		printf(__VA_ARGS__);                                                               \
		printf(" (%s:%d)\n", __FILE__, __LINE__);                                          \
		test_failures++;                                                                   \
	} while (0)

/* TEST_CHECK(name, cond): pass when cond holds. */
#define TEST_CHECK(name, cond)                                                                     \
	do {                                                                                       \
		if (cond)                                                                          \
			TEST_OK(name);                                                             \
		else                                                                               \
			TEST_FAIL(name, "%s", #cond);                                              \
	} while (0)

/* TEST_EQ(name, got, want): integers, compared as intmax_t. */
#define TEST_EQ(name, got, want)                                                                   \
	do {                                                                                       \
		intmax_t got_ = (intmax_t)(got), want_ = (intmax_t)(want);                         \
		if (got_ == want_)                                                                 \
			TEST_OK(name);                                                             \
		else                                                                               \
			TEST_FAIL(name, "%s = %jd, want %jd", #got, got_, want_);                  \
	} while (0)

/* TEST_STREQ(name, got, want): strings; NULL compares equal only to NULL. */
#define TEST_STREQ(name, got, want)                                                                \
	do {                                                                                       \
		const char *gs_ = (got), *ws_ = (want);                                            \
		if ((!gs_ && !ws_) || (gs_ && ws_ && strcmp(gs_, ws_) == 0))                       \
			TEST_OK(name);                                                             \
		else                                                                               \
			TEST_FAIL(name, "%s = \"%s\", want \"%s\"", #got, gs_ ? gs_ : "(null)",    \
				  ws_ ? ws_ : "(null)");                                           \
	} while (0)

/*
 * TEST_SURVIVES(name, statement): pass when the statement, run in a child
 * process, returns; fail saying how the child ended (a crash, an abort).
 * For what a check can only see by not crashing: a NULL-tolerant
 * destructor, a NULL buffer.
 */
#define TEST_SURVIVES(name, stmt)                                                                  \
	do {                                                                                       \
		int st_;                                                                           \
		pid_t pid_;                                                                        \
                                                                                                   \
		fflush(stdout);                                                                    \
		pid_ = fork();                                                                     \
		if (pid_ == 0) {                                                                   \
			stmt;                                                                      \
			_exit(0);                                                                  \
		}                                                                                  \
		if (pid_ < 0 || waitpid(pid_, &st_, 0) != pid_)                                    \
			TEST_FAIL(name, "fork or wait failed");                                    \
		else if (WIFSIGNALED(st_))                                                         \
			TEST_FAIL(name, "%s killed the child by signal %d (%s)", #stmt,            \
				  WTERMSIG(st_), strsignal(WTERMSIG(st_)));                        \
		else if (WEXITSTATUS(st_))                                                         \
			TEST_FAIL(name, "%s: the child exited with %d", #stmt, WEXITSTATUS(st_));  \
		else                                                                               \
			TEST_OK(name);                                                             \
	} while (0)

/* How many file descriptors this process has open; -1 when it cannot tell. */
static inline int test_open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* less opendir's own */
}

static inline int test_done(void)
{
	fflush(stdout);
	return test_failures ? 1 : 0;
}

/* One named case of a suite: TEST_CASE(function). */
struct test_case {
	const char *name;
	void (*run)(void);
};
#define TEST_CASE(fn)                                                                              \
	{                                                                                          \
#fn, fn                                                                            \
	}

/* A case's name: its function's, less a leading "test_". */
static inline const char *test_case_name(const struct test_case *c)
{
	return strncmp(c->name, "test_", 5) ? c->name : c->name + 5;
}

/*
 * The suite's main (TEST_MAIN): argv names the cases to run (none: all),
 * "--list" lists them.  Exit 2 for a name no case has, before any runs.
 */
static inline int test_main(int argc, char **argv, const struct test_case *cases, size_t n,
			    int (*setup)(void), void (*teardown)(void))
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	unsigned char *want = calloc(n ? n : 1, 1);
	size_t i;
	int a;

	if (!want)
		return 2;
	for (a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--list")) {
			for (i = 0; i < n; i++)
				printf("%s\n", test_case_name(&cases[i]));
			free(want);
			return 0;
		}
		for (i = 0; i < n; i++)
			if (!strcmp(argv[a], test_case_name(&cases[i])) ||
			    !strcmp(argv[a], cases[i].name))
				break;
		if (i == n) {
			fprintf(stderr, "%s: no case '%s' (--list lists them)\n", prog, argv[a]);
			free(want);
			return 2;
		}
		want[i] = 1;
	}
	if (!setup || !setup()) {
		for (i = 0; i < n; i++)
			if (argc < 2 || want[i])
				cases[i].run();
		if (teardown)
			teardown();
	}
	free(want);
	return test_done();
}

#define TEST_MAIN(setup, teardown, ...)                                                            \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		static const struct test_case cases_[] = {__VA_ARGS__};                            \
		return test_main(argc, argv, cases_, sizeof(cases_) / sizeof(cases_[0]), setup,    \
				 teardown);                                                        \
	}

/* The next of a reproducible pseudo-random sequence (xorshift64; *s nonzero). */
static inline unsigned long long test_rand(unsigned long long *s)
{
	unsigned long long x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/*
 * The workloads' directory: $WORKLOADS (tests/run.sh sets it), else
 * build/tests/workloads beside this program's build/tests/unit/.  NULL
 * when neither can be found.
 */
static inline const char *test_workloads_dir(void)
{
	static char buf[PATH_MAX];
	const char *env = getenv("WORKLOADS");
	ssize_t n;
	char *slash;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 32);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	slash = strrchr(buf, '/'); /* .../tests/unit/test-NAME */
	if (!slash)
		return NULL;
	*slash = '\0';
	slash = strrchr(buf, '/'); /* .../tests/unit */
	if (!slash)
		return NULL;
	strcpy(slash, "/workloads");
	return buf;
}

/* A whole regular file into memory (malloc'd), *len its size; NULL when unreadable. */
static inline unsigned char *test_slurp(const char *path, size_t *len)
{
	unsigned char *buf = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (buf = malloc((size_t)st.st_size)) && read(fd, buf, (size_t)st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
	}
	close(fd);
	*len = buf ? (size_t)st.st_size : 0;
	return buf;
}

#endif /* EBS_TEST_H */
