// SPDX-License-Identifier: MIT
/*
 * demangle.c - C++ names as people read them, through the C++ runtime's own
 * demangler (__cxa_demangle, in libstdc++), which knows every construct
 * g++ and clang emit.
 */
#include <stdlib.h>
#include <string.h>

#include "symbolize/internal.h"

/* The Itanium C++ ABI's demangler, exported by libstdc++ with C linkage. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *ebs_demangle(const char *name)
{
	int status = 0;
	char *out;

	/* only mangled names: plain C names must not be "demangled" as types */
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}
