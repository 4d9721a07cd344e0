// SPDX-License-Identifier: MIT
/*
 * fuzz-gopclntab.c - Go's pclntab reader (symbolize/gopclntab.c): the
 * .gopclntab section of a Go binary, which the symbolizer reads from any
 * binary a recording names when it has no .symtab or no DWARF.
 *
 * Promises checked (symbolize/internal.h): a table read has functions,
 * each in range order with a terminated name; a lookup of a pc answers the
 * function whose range holds it (-ENOENT outside every range), its name
 * that function's, its file terminated and free of control characters.
 */
#include <errno.h>

#include "symbolize/internal.h"
#include "tests/fuzz/fuzz.h"

#define MAX_PROBED 64 /* functions probed per input */

static void probe(struct gopcln *g, u64 pc, u64 lo, u64 hi, const char *name)
{
	struct gopcln_hit h;
	int err = gopcln__lookup(g, pc, &h);

	if (err == -ENOMEM)
		return;
	if (pc < lo || pc >= hi) /* (another function may hold it) */
		return;
	FUZZ_CHECK(!err, "pc %#llx in [%#llx, %#llx): %d", (unsigned long long)pc,
		   (unsigned long long)lo, (unsigned long long)hi, err);
	/* equal ranges: the lookup may take another function of the same start */
	FUZZ_CHECK(h.lo <= pc && pc < h.hi, "pc %#llx outside the function found",
		   (unsigned long long)pc);
	FUZZ_CHECK(h.lo != lo || h.hi != hi || !strcmp(h.name, name) || h.lo == h.hi,
		   "pc %#llx: %s, not %s", (unsigned long long)pc, h.name, name);
	if (h.file)
		FUZZ_CHECK(strlen(h.file) < (1u << 24) && sym_text_is_clean(h.file),
			   "a file name with control characters");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct gopcln_hit h;
	struct gopcln *g;
	struct ebs_error err = {0};
	u64 prev_lo = 0;
	size_t i, n;

	g = gopcln__new(data, size, 0, &err);
	if (!g) {
		FUZZ_CHECK(errno == EINVAL || errno == ENOMEM, "errno %d", errno);
		FUZZ_CHECK(errno == ENOMEM || (err.msg[0] && !strchr(err.msg, '\n')),
			   "no reason: '%s'", err.msg);
		return 0;
	}
	n = gopcln__count(g);
	FUZZ_CHECK(n > 0, "a table without functions");
	for (i = 0; i < n && i < MAX_PROBED; i++) {
		const char *name;
		u64 lo, hi;

		FUZZ_CHECK(!gopcln__func(g, i, &lo, &hi, &name), "function %zu unreadable", i);
		FUZZ_CHECK(lo <= hi && lo >= prev_lo, "function %zu out of order", i);
		FUZZ_CHECK(strlen(name) < size, "function %zu's name", i);
		prev_lo = lo;
		probe(g, lo, lo, hi, name);
		probe(g, lo + (hi - lo) / 2, lo, hi, name);
		if (hi > lo)
			probe(g, hi - 1, lo, hi, name);
	}
	FUZZ_CHECK(gopcln__func(g, n, &prev_lo, &prev_lo, &(const char *){NULL}) == -EINVAL,
		   "function %zu of %zu read", n, n);
	FUZZ_CHECK(gopcln__lookup(g, UINT64_MAX, &h) == -ENOENT || h.lo <= UINT64_MAX,
		   "the top of the address space");
	gopcln__free(g);
	return 0;
}
