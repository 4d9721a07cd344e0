// SPDX-License-Identifier: MIT
/*
 * fuzz-perfmap.c - the perf-PID.map parser (symbolize/jitmap.c): a JIT's
 * symbol file, which any local user can write into /tmp, read into a
 * symbol table (C++ names demangled, as report does), then looked up.
 *
 * Promises checked (symbolize/internal.h, struct symtab): entries sorted by
 * address, one per address, each ending at or after its start, max_end the
 * running maximum, names terminated inside the arena; symtab__find()
 * answers as a linear search over the table does.
 */
#include <errno.h>

#include "symbolize/internal.h"
#include "tests/fuzz/fuzz.h"

/* The symbol a lookup of a must find: the last (highest) entry covering it. */
static const struct sym *linear_find(const struct symtab *t, u64 a)
{
	size_t i;

	for (i = t->nsyms; i-- > 0;)
		if (t->syms[i].addr <= a && a < t->syms[i].end)
			return &t->syms[i];
	return NULL;
}

static void probe(const struct symtab *t, u64 a)
{
	const struct sym *got = symtab__find(t, a), *want = linear_find(t, a);

	FUZZ_CHECK(got == want, "lookup of %#llx: entry %zd, a linear search finds %zd",
		   (unsigned long long)a, got ? got - t->syms : (ssize_t)-1,
		   want ? want - t->syms : (ssize_t)-1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symtab t = {0};
	char path[64];
	size_t i, arena_len = 0;
	u64 max_end = 0;
	int fd, err;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	err = jitmap__load(path, &t, true);
	close(fd);
	if (err) {
		FUZZ_CHECK(err < 0 && !t.syms, "error %d with a table", err);
		return 0;
	}
	if (t.nsyms)
		arena_len = (size_t)(strchr(t.syms[t.nsyms - 1].name, '\0') - t.arena) + 1;
	for (i = 0; i < t.nsyms; i++) {
		const struct sym *s = &t.syms[i];

		FUZZ_CHECK(!i || s[-1].addr < s->addr, "entry %zu not above the previous", i);
		FUZZ_CHECK(s->end >= s->addr, "entry %zu ends before it starts", i);
		max_end = s->end > max_end ? s->end : max_end;
		FUZZ_CHECK(s->max_end == max_end, "entry %zu: max_end", i);
		FUZZ_CHECK(s->name >= t.arena && s->name < t.arena + arena_len,
			   "entry %zu's name outside the arena", i);
		FUZZ_CHECK(s->name[0], "entry %zu has an empty name", i);
		/* the name shown: demangled (C++, Rust) the first time */
		FUZZ_CHECK(symtab__name(&t, s, NULL)[0], "entry %zu is shown empty", i);
	}
	/* every start, the last byte, the end, and the gaps, for the first entries */
	for (i = 0; i < t.nsyms && i < 64; i++) {
		probe(&t, t.syms[i].addr);
		probe(&t, t.syms[i].addr - 1);
		probe(&t, t.syms[i].end);
		probe(&t, t.syms[i].end - 1);
	}
	probe(&t, 0);
	probe(&t, UINT64_MAX);
	symtab__exit(&t);
	return 0;
}
