/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer harnesses of tests/fuzz/ share (docs/fuzzing.md).
 *
 * A harness turns libFuzzer's bytes into the input of one parser, calls it
 * the way ebs does, and then checks what the parser promises in its header
 * (FUZZ_CHECK): a broken promise aborts like a crash, so libFuzzer keeps the
 * input.  AddressSanitizer and UndefinedBehaviorSanitizer catch the rest.
 */
#ifndef EBS_FUZZ_H
#define EBS_FUZZ_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A promise of the code under test: on failure, say which and abort. */
#define FUZZ_CHECK(cond, ...)                                                                      \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: broken promise: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/*
 * The bytes as a file the code under test opens by name: a memfd, named
 * "/proc/self/fd/N" in path.  Returns the descriptor (close it when done),
 * or -1 when the machine cannot make one (the input is then skipped).
 */
static inline int fuzz_file(const uint8_t *data, size_t size, char *path, size_t path_len)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);

		if (n <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	snprintf(path, path_len, "/proc/self/fd/%d", fd);
	return fd;
}

/* A NUL-terminated copy of the bytes, exactly size + 1 long (for ASan), or NULL. */
static inline char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}

/* Does [p, p + len) lie inside [base, base + size)? */
static inline int fuzz_inside(const void *p, size_t len, const void *base, size_t size)
{
	uintptr_t a = (uintptr_t)p, b = (uintptr_t)base;

	return a >= b && a - b <= size && len <= size - (a - b);
}

#endif /* EBS_FUZZ_H */
