// SPDX-License-Identifier: MIT
/*
 * digest.c - what the DWARF cache's digest (symbolize/digest.c) costs:
 * for each file, the digest an entry of its DWARF would be keyed by, the
 * bytes it read and the best time of RUNS digests, for bench/cache.sh.
 *
 * usage: digest [-n RUNS] FILE...
 *
 * One line a file, "SHA256 BYTES SECONDS PATH" (SHA256 "-" and the error
 * when there is none: a file over the caps, not ELF), then "total BYTES
 * SECONDS".  Exits 1 with one line when a file cannot be opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "symbolize/internal.h"
#include "tests/tools/rchar.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long total_bytes = 0;
	double total_s = 0;
	int runs = 5, i, r;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		runs = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || runs < 1) {
		fprintf(stderr, "usage: digest [-n RUNS] FILE...\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	for (i = 1; i < argc; i++) {
		u8 d[SYM_DIGEST_LEN];
		unsigned long long bytes = 0;
		double best = 0;
		int e = 0, k;

		for (r = 0; r < runs; r++) {
			int fd = open(argv[i], O_RDONLY | O_CLOEXEC), copy;
			unsigned long long before = rchar_so_far();
			double t0 = now(), t;

			if (fd < 0) {
				fprintf(stderr, "digest: %s: %s\n", argv[i], strerror(errno));
				return 1;
			}
			e = sym_dwarf_digest(fd, &copy, d);
			t = now() - t0;
			bytes = rchar_so_far() - before;
			if (copy >= 0)
				close(copy);
			close(fd);
			if (!r || t < best)
				best = t;
		}
		if (e) {
			printf("- %llu %.6f %s (%s)\n", bytes, best, argv[i], strerror(-e));
		} else {
			for (k = 0; k < SYM_DIGEST_LEN; k++)
				printf("%02x", d[k]);
			printf(" %llu %.6f %s\n", bytes, best, argv[i]);
		}
		total_bytes += bytes;
		total_s += best;
	}
	printf("total %llu %.6f\n", total_bytes, total_s);
	return 0;
}
