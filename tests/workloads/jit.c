// SPDX-License-Identifier: MIT
/*
 * jit - "JIT-compiled" code: copies a small x86-64 loop into anonymous
 * executable memory, announces it in /tmp/perf-PID.map as jit_spin (the
 * convention perf and the V8/LuaJIT/Java agents use), and runs it for
 * SECONDS of CPU time.  The map file is left behind for the profiler; the
 * caller removes it.  Several at once, each naming its code otherwise,
 * at one address or not, are several JITs of one machine.
 *
 *   jit [SECONDS [NAME [ADDR]]]	run for SECONDS of CPU time (default 0.3),
 *				the code named NAME (default jit_spin), at
 *				ADDR (hexadecimal; default: where mmap puts it)
 */
#include <sys/mman.h>

#include "workload.h"

/* mov ecx, 100000; loop: dec ecx; jnz loop; ret */
static const unsigned char spin_code[] = {
	0xb9, 0xa0, 0x86, 0x01, 0x00,	/* mov $100000, %ecx */
	0xff, 0xc9,			/* dec %ecx */
	0x75, 0xfc,			/* jnz -4 */
	0xc3,				/* ret */
};

int main(int argc, char **argv)
{
	double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.3);
	const char *name = argc > 2 ? argv[2] : "jit_spin";
	unsigned long at = 0;
	char path[64], *rest = NULL;
	void (*spin)(void);
	FILE *map;
	void *mem;

#if !defined(__x86_64__)
	fprintf(stderr, "jit: x86-64 only\n");
	return 77;
#endif
	if (argc > 3) {
		errno = 0;
		at = strtoul(argv[3], &rest, 16);
		if (errno || !at || *rest || at % 4096) {
			fprintf(stderr, "jit: ADDR: a page's address in hexadecimal, not '%s'\n",
				argv[3]);
			return 2;
		}
	}
	/* at ADDR exactly, or not at all: MAP_FIXED_NOREPLACE (Linux 4.17) */
	mem = mmap((void *)at, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		   MAP_PRIVATE | MAP_ANONYMOUS | (at ? MAP_FIXED_NOREPLACE : 0), -1, 0);
	if (mem == MAP_FAILED || (at && mem != (void *)at)) {
		perror("jit: mmap");
		return 1;
	}
	memcpy(mem, spin_code, sizeof(spin_code));
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "w");
	if (!map) {
		perror(path);
		return 1;
	}
	fprintf(map, "%lx %zx %s\n", (unsigned long)mem, sizeof(spin_code), name);
	fclose(map);
	spin = (void (*)(void))mem;
	do
		spin();
	while (wl_thread_cpu() < end);
	printf("%d\n", (int)getpid());
	return 0;
}
