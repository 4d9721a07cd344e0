// SPDX-License-Identifier: MIT
/*
 * memtouch - a burst of page faults: touch_pages() writes one byte in each
 * 4 KiB page of a freshly mmap()ed region, which is then unmapped; repeated.
 * Used to overflow a tiny ring buffer.
 *
 *   memtouch [MIB [REPEATS]]	region size (default 256) and rounds (default 4)
 */
#include <sys/mman.h>

#include "workload.h"

#define PAGE 4096

WL_NOINLINE void touch_pages(volatile char *p, size_t len)
{
	for (size_t off = 0; off < len; off += PAGE)
		p[off] = 1;
}

int main(int argc, char **argv)
{
	size_t len = (size_t)(wl_arg(argc, argv, 1, 256) * 1024 * 1024);
	unsigned long repeats = (unsigned long)wl_arg(argc, argv, 2, 4);

	if (len == 0)
		return 0;
	for (unsigned long r = 0; r < repeats; r++) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			       0);

		if (p == MAP_FAILED) {
			fprintf(stderr, "memtouch: mmap %zu bytes: %s\n", len, strerror(errno));
			return 1;
		}
		/* One fault per 4 KiB page, not one per transparent huge page. */
		madvise(p, len, MADV_NOHUGEPAGE);
		touch_pages(p, len);
		munmap(p, len);
	}
	return 0;
}
