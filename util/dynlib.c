// SPDX-License-Identifier: MIT
/*
 * dynlib.c - a shared library loaded at its first use (dynlib.h).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/dynlib.h"

int dynlib_load(const char *soname, const struct dynlib_entry *e, size_t n, void *table, char *why,
		size_t len)
{
	void *fns[64], *lib;
	size_t i;

	if (n > sizeof(fns) / sizeof(fns[0])) {
		snprintf(why, len, "%s: %zu entry points, at most 64", soname, n);
		return -ENOENT;
	}
	lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(why, len, "%s", dlerror());
		return -ENOENT;
	}
	for (i = 0; i < n; i++) {
		fns[i] = dlsym(lib, e[i].name);
		if (!fns[i]) {
			snprintf(why, len, "%s has no %s", soname, e[i].name);
			dlclose(lib);
			return -ENOENT;
		}
	}
	/* (POSIX: a function's address fits a void *, as dlsym gives it) */
	for (i = 0; i < n; i++)
		memcpy((char *)table + e[i].off, &fns[i], sizeof(fns[i]));
	return 0;
}
