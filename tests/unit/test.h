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
#include <sys/stat.h>

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

static inline int test_done(void)
{
	fflush(stdout);
	return test_failures ? 1 : 0;
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
