// SPDX-License-Identifier: MIT
/*
 * failmalloc.so - an allocation-failure injector, loaded with LD_PRELOAD.
 *
 *   EBS_FAIL_AT=N	the Nth allocation (malloc, calloc, realloc,
 *			aligned_alloc, posix_memalign; counted from 1) returns
 *			NULL with errno ENOMEM; every other one succeeds
 *   EBS_FAIL_COUNT=FILE	at exit, write the number of allocations made
 *			to FILE (to choose the range of N to sweep)
 *   EBS_FAIL_SPARE=NAME	never fail an allocation made directly by a
 *			library whose file name contains NAME (say
 *			"libdwarf"): when the Nth is one, the next one
 *			outside it fails instead
 *
 * Counting is per process: a forked child inherits the count and goes on
 * from it.  The variables (LD_PRELOAD among them) are read and removed
 * from the environment when the library loads, so that the programs ebs
 * runs (the profiled command) are not failed too.  Used by
 * tests/integration/oom.sh; glibc routes its own internal allocations
 * (stdio buffers, strdup, qsort's buffer) through these symbols too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);
void *__libc_memalign(size_t align, size_t n);

static unsigned long calls, fail_at;
static int armed = -1;
static const char *spare;

/* Was the allocation at return address ret made by a spared library? */
static int spared(void *ret)
{
	Dl_info info;

	return spare && dladdr(ret, &info) && info.dli_fname && strstr(info.dli_fname, spare);
}

static char spare_name[256], count_path[4096];

__attribute__((constructor)) static void arm(void)
{
	const char *s = getenv("EBS_FAIL_AT");

	fail_at = s ? strtoul(s, NULL, 10) : 0;
	s = getenv("EBS_FAIL_SPARE");
	if (s) {
		snprintf(spare_name, sizeof(spare_name), "%s", s);
		spare = spare_name;
	}
	s = getenv("EBS_FAIL_COUNT");
	if (s)
		snprintf(count_path, sizeof(count_path), "%s", s);
	unsetenv("EBS_FAIL_AT");
	unsetenv("EBS_FAIL_SPARE");
	unsetenv("EBS_FAIL_COUNT");
	unsetenv("LD_PRELOAD");
	armed = fail_at > 0;
}

static int fail_here(void *ret)
{
	if (++calls != fail_at || armed <= 0)
		return 0;
	if (spared(ret)) {
		fail_at++; /* the next one outside */
		return 0;
	}
	return 1;
}

#define should_fail() fail_here(__builtin_return_address(0))

void *malloc(size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_realloc(p, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	if (should_fail()) {
		errno = ENOMEM;
		return NULL;
	}
	return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	if (should_fail())
		return ENOMEM;
	p = __libc_memalign(align, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

__attribute__((destructor)) static void report_count(void)
{
	char buf[32];
	int fd, len;

	if (!count_path[0])
		return;
	fd = open(count_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return;
	len = snprintf(buf, sizeof(buf), "%lu\n", calls);
	if (write(fd, buf, (size_t)len) < 0)
		len = 0;
	close(fd);
}
