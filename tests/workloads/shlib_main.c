// SPDX-License-Identifier: MIT
/*
 * shlib - samples in shared libraries.  shlib_hot() lives in libebshot.so,
 * linked at build time; dl_hot() in libebsdl.so, dlopen()ed from this
 * program's directory.  Each round gives them 9 parts of work each and
 * main_work() 2 parts (45% / 45% / 10%), with the same loop in all three,
 * each function aligned to 64 bytes so that the loops sit alike in the
 * instruction fetch blocks and cost the same per iteration.
 *
 *   shlib [SECONDS]	run for SECONDS of CPU time (default 0.5)
 */
#include <dlfcn.h>

#include "workload.h"

#define PART 40000	/* a round of 20 parts takes about a millisecond */

void shlib_hot(unsigned long n);

static volatile unsigned long sink;

/* aligned like shlib_hot and dl_hot, so its loop costs the same on any CPU */
WL_NOINLINE __attribute__((aligned(64))) void main_work(unsigned long n)
{
	WL_STEPS(sink, n);
}

int main(int argc, char **argv)
{
	double end = wl_thread_cpu() + wl_arg(argc, argv, 1, 0.5);
	void (*dl_hot)(unsigned long);
	char path[PATH_MAX];
	unsigned long rnd = 1;
	void *lib;

	if (wl_self_dir(path, sizeof(path) - sizeof("/libebsdl.so")))
		return 1;
	strcat(path, "/libebsdl.so");
	lib = dlopen(path, RTLD_NOW);
	if (!lib) {
		fprintf(stderr, "shlib: %s\n", dlerror());
		return 1;
	}
	dl_hot = (void (*)(unsigned long))dlsym(lib, "dl_hot");
	if (!dl_hot) {
		fprintf(stderr, "shlib: dl_hot: %s\n", dlerror());
		return 1;
	}

	do {
		unsigned long part;

		/* Vary the round length so it cannot stay in step with sampling. */
		rnd = rnd * 1103515245 + 12345;
		part = PART / 2 + (rnd >> 16) % PART;
		shlib_hot(9 * part);
		dl_hot(9 * part);
		main_work(2 * part);
	} while (wl_thread_cpu() < end);

	dlclose(lib);
	return 0;
}
