/* SPDX-License-Identifier: MIT */
/*
 * rchar.h - the bytes this process has read so far (rchar of
 * /proc/self/io: read, pread, sendfile, copy_file_range...), for tests
 * and tools that check what a call reads without timing it.  0 when
 * /proc/self/io cannot be read.
 */
#ifndef EBS_TESTS_RCHAR_H
#define EBS_TESTS_RCHAR_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline unsigned long long rchar_so_far(void)
{
	char buf[512], *at;
	int fd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	at = strstr(buf, "rchar: ");
	return at ? strtoull(at + 7, NULL, 10) : 0;
}

#endif /* EBS_TESTS_RCHAR_H */
