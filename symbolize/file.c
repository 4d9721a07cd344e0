// SPDX-License-Identifier: MIT
/*
 * file.c - opening and reading the files a recording names.  Anyone may
 * have put something at those paths since: a FIFO must not block a report,
 * a device or an endless file must not fill its memory, and a file in a
 * world-writable directory (/tmp, where perf-PID.map files live) may be
 * another user's doing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/internal.h"

/* Is the directory holding path writable by every user? */
static bool in_shared_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	size_t len;

	if (!slash) {
		dir[0] = '.';
		dir[1] = '\0';
	} else {
		len = slash == path ? 1 : (size_t)(slash - path);
		if (len >= sizeof(dir))
			return true; /* cannot tell: assume the worst */
		memcpy(dir, path, len);
		dir[len] = '\0';
	}
	return stat(dir, &st) == 0 && (st.st_mode & S_IWOTH);
}

int sym_open_file(const char *path, unsigned int flags, struct stat *st)
{
	bool shared = (flags & SYM_OPEN_OWNED) && in_shared_dir(path);
	int fd, fl;

	/* O_NONBLOCK: opening a FIFO would wait for a writer */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (shared ? O_NOFOLLOW : 0));
	if (fd < 0)
		return errno == ELOOP && shared ? -ELOOP : -errno;
	if (fstat(fd, st)) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -SYM_ENOTREG;
	}
	if (shared && st->st_uid != 0 && st->st_uid != geteuid()) {
		close(fd);
		return -EPERM;
	}
	/* a regular file never blocks, but reads should wait like any others */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		close(fd);
		return -EIO;
	}
	return fd;
}

const char *sym_open_strerror(int err)
{
	switch (err) {
	case -SYM_ENOTREG:
		return "not a regular file";
	case -ELOOP:
		return "a symbolic link in a world-writable directory: not followed";
	case -EPERM:
		return "owned by another user (neither root nor us) in a world-writable directory: not trusted";
	default:
		return strerror(-err);
	}
}

ssize_t sym_read_bounded(int fd, size_t max, size_t max_line, char **out, size_t *bad_line)
{
	size_t cap = 4096, len = 0, line_start = 0, lines = 1, i;
	char *buf = malloc(cap), *nbuf;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (len + 1 >= cap) {
			size_t ncap = cap * 2 > max + 2 ? max + 2 : cap * 2;

			nbuf = ncap > cap ? realloc(buf, ncap) : NULL;
			if (!nbuf) {
				free(buf);
				return ncap > cap ? -ENOMEM : -EFBIG;
			}
			buf = nbuf;
			cap = ncap;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return n;
		}
		if (n == 0)
			break;
		/* lines are checked as they come: /dev/zero is refused at once */
		for (i = len; max_line && i < len + (size_t)n; i++) {
			if (buf[i] == '\n') {
				line_start = i + 1;
				lines++;
			} else if (i - line_start + 1 >= max_line) {
				free(buf);
				*bad_line = lines;
				return -E2BIG;
			}
		}
		len += (size_t)n;
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[len] = '\0';
	*out = buf;
	return (ssize_t)len;
}

bool sym_text_is_clean(const char *s)
{
	return ebs_text_is_clean(s);
}

char *sym_clean_text(char *s)
{
	return ebs_clean_text(s, false);
}
