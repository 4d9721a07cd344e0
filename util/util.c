// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/hash.h"
#include "util/util.h"

int ebs_error__set(struct ebs_error *e, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (e) {
		va_start(ap, fmt);
		vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
		va_end(ap);
		e->err = -errnum;
	}
	return -errnum;
}

size_t ebs_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

ssize_t ebs_read_file(const char *path, char **out)
{
	size_t cap = 4096, len = 0;
	char *buf, *nbuf;
	ssize_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(cap);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (;;) {
		if (len + 1 >= cap) {
			nbuf = realloc(buf, cap * 2);
			if (!nbuf) {
				err = -ENOMEM;
				goto out_free;
			}
			buf = nbuf;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			goto out_free;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;

out_free:
	free(buf);
	close(fd);
	return err;
}

static u64 clock_of(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (u64)ts.tv_sec * 1000000000ull + (u64)ts.tv_nsec;
}

u64 ebs_clock_ns(void)
{
	return clock_of(CLOCK_MONOTONIC);
}

u64 ebs_realtime_ns(void)
{
	return clock_of(CLOCK_REALTIME);
}

bool ebs_path_in_place(const char *path)
{
	char real[PATH_MAX];
	struct stat st;

	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return true;
	if (!strncmp(path, "/dev/", 5) || !strncmp(path, "/proc/", 6))
		return true;
	return realpath(path, real) && (!strncmp(real, "/dev/", 5) || !strncmp(real, "/proc/", 6));
}

int ebs_grow(void **v, size_t *cap, size_t n, size_t size, size_t min)
{
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : min;
	if (ncap < *cap || ncap > SIZE_MAX / size)
		return -ENOMEM;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

size_t ebs_upper_bound(const void *base, size_t n, size_t size, size_t key_off, u64 key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		u64 k;

		memcpy(&k, (const char *)base + mid * size + key_off, sizeof(k));
		if (k <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct ebs_strset {
	UT_hash_handle hh;
	char s[];
};

const char *ebs_strset__intern(struct ebs_strset **set, const char *s)
{
	struct ebs_strset *e;
	size_t len = strlen(s);

	HASH_FIND(hh, *set, s, len, e);
	if (e)
		return e->s;
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return NULL;
	memcpy(e->s, s, len + 1);
	HASH_ADD_KEYPTR(hh, *set, e->s, len, e);
	if (!e->hh.tbl) {	/* uthash could not allocate its table */
		free(e);
		return NULL;
	}
	return e->s;
}

void ebs_strset__free(struct ebs_strset **set)
{
	struct ebs_strset *e, *tmp;

	HASH_ITER(hh, *set, e, tmp) {
		HASH_DEL(*set, e);
		free(e);
	}
}

void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}
