// SPDX-License-Identifier: MIT
/*
 * demangle.c - C++ names as people read them, through the C++ runtime's own
 * demangler (__cxa_demangle, in libstdc++), which knows every construct
 * g++ and clang emit.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/internal.h"

/* The Itanium C++ ABI's demangler, exported by libstdc++ with C linkage. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

char *ebs_demangle_err(const char *name, int *err)
{
	int status = 0;
	char *out;

	*err = 0;
	/* only mangled names: plain C names must not be "demangled" as types */
	if (name[0] != '_' || name[1] != 'Z')
		return NULL;
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (status) {
		free(out);
		if (status == -1) /* memory allocation failure */
			*err = -ENOMEM;
		return NULL;
	}
	return out;
}

char *ebs_demangle(const char *name)
{
	int err;

	return ebs_demangle_err(name, &err);
}
