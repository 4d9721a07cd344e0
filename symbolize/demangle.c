// SPDX-License-Identifier: MIT
/*
 * demangle.c - mangled names as people read them, through libiberty's
 * demangler (Debian's libiberty-dev, the one binutils' c++filt and
 * addr2line -C use): C++ (the Itanium ABI's "_Z" names g++ and clang emit)
 * and Rust, both its legacy names ("_ZN...17h<16 hex digits>E") and its v0
 * names ("_R..."), which the Rust standard library uses whatever a crate's
 * own names are.
 *
 * As perf, c++filt and rustfilt show them: a legacy Rust name without its
 * "::h<hash>", a v0 name without its crates' disambiguators, and a
 * compiler's ".llvm.N" (or other ".suffix") after a Rust name dropped; a
 * C++ name keeps its clone suffix, as "f() [clone .cold]".
 *
 * Only libiberty's callback entry points are used: they allocate nothing
 * (libiberty's xmalloc would exit on no memory) and keep no global state,
 * so that symbolizer threads may demangle at once.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>
#undef ARRAY_SIZE /* libiberty.h's, which util.h defines as well */

#include "symbolize/internal.h"

/* The demangled text, grown as libiberty hands it out in pieces. */
struct dm_buf {
	char *s;
	size_t len, cap;
	bool nomem;
};

static void dm_put(const char *piece, size_t n, void *opaque)
{
	struct dm_buf *b = opaque;
	char *s;

	if (b->nomem)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 128;

		while (b->len + n + 1 > cap)
			cap *= 2;
		s = realloc(b->s, cap);
		if (!s) {
			b->nomem = true;
			return;
		}
		b->s = s;
		b->cap = cap;
	}
	memcpy(b->s + b->len, piece, n);
	b->len += n;
	b->s[b->len] = '\0';
}

/* What a demangler's run gave: its text (malloc'd), or NULL with *err. */
static char *dm_result(struct dm_buf *b, int ok, int *err)
{
	if (b->nomem) {
		*err = -ENOMEM;
	} else if (ok && b->len) {
		return b->s;
	}
	free(b->s);
	return NULL;
}

char *ebs_demangle_err(const char *name, int *err)
{
	struct dm_buf b = {0};
	int ok;

	*err = 0;
	/* only mangled names: plain C names must not be "demangled" as types */
	if (name[0] != '_' || (name[1] != 'Z' && name[1] != 'R'))
		return NULL;
	/*
	 * Rust first: a legacy Rust name is a valid C++ name too (its hash a
	 * last component), which only the Rust demangler reads as Rust; it
	 * takes nothing else (it checks for the hash).  DMGL_VERBOSE off: no
	 * hash, no disambiguators.
	 */
	ok = rust_demangle_callback(name, DMGL_PARAMS | DMGL_ANSI, dm_put, &b);
	if (ok || b.nomem || name[1] == 'R')
		return dm_result(&b, ok, err);
	b.len = 0;
	ok = cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, dm_put, &b);
	return dm_result(&b, ok, err);
}

char *ebs_demangle(const char *name)
{
	int err;

	return ebs_demangle_err(name, &err);
}
