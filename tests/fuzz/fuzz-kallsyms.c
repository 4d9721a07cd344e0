// SPDX-License-Identifier: MIT
/*
 * fuzz-kallsyms.c - the kallsyms parser (symbolize/kallsyms.c), through the
 * symbolizer as report uses it (--kallsyms FILE): kernel lookups (of a
 * sampled address and of a caller's), a kernel function's bounds and
 * _stext, then the table itself.
 *
 * Promises checked (symbolize/internal.h, struct kallsyms): text symbols
 * only, sorted by address and one per address, names and module names
 * terminated ("[name]"), a lookup finds the last symbol at or below the
 * address (within KALLSYMS_LAST_SPAN past the last one), a function ends
 * where the next begins; an unusable file leaves "[kernel]" with no name.
 */
#include "symbolize/internal.h"
#include "tests/fuzz/fuzz.h"

#define LAST_SPAN 4096 /* kallsyms.c's KALLSYMS_LAST_SPAN */

static void probe(struct symbolizer *s, const struct kallsyms *k, u64 a)
{
	struct sym_result r, c;
	struct sym_func f;
	size_t i, want = SIZE_MAX;
	u64 look;
	int e;

	FUZZ_CHECK(symbolizer__lookup_kernel(s, a, &r) == 0, "lookup");
	/* a caller at return address a + 1: a's symbol, or after padding the next */
	FUZZ_CHECK(symbolizer__lookup_kernel_caller(s, a + 1, &c, &look) == 0 &&
			   (look == a ? c.function == r.function
				      : look == a + 1 && r.function && c.function &&
						(!strncmp(r.function, "__pfx_", 6) ||
						 !strncmp(r.function, "__cfi_", 6))),
		   "caller at %#llx", (unsigned long long)(a + 1));
	if (k) {
		for (i = k->nsyms; i-- > 0;)
			if (k->syms[i].addr <= a) {
				if (i + 1 < k->nsyms || a - k->syms[i].addr < LAST_SPAN)
					want = i;
				break;
			}
	}
	if (want == SIZE_MAX) {
		FUZZ_CHECK(!r.function && !strcmp(r.dso, "[kernel]") && r.dso_addr == a,
			   "%#llx: found %s in %s", (unsigned long long)a,
			   r.function ? r.function : "nothing", r.dso);
		FUZZ_CHECK(symbolizer__kernel_function(s, a, &f) == -ENOENT, "function");
		return;
	}
	FUZZ_CHECK(r.function == k->syms[want].name && r.dso == k->syms[want].dso &&
			   r.sym_offset == a - k->syms[want].addr,
		   "%#llx: %s, want %s", (unsigned long long)a, r.function ? r.function : "nothing",
		   k->syms[want].name);
	e = symbolizer__kernel_function(s, a, &f);
	FUZZ_CHECK(e == 0 && f.start == k->syms[want].addr && f.start <= a &&
			   (want + 1 == k->nsyms || f.end == k->syms[want + 1].addr),
		   "function of %#llx", (unsigned long long)a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct symbolize_opts opts = {0};
	struct symbolizer *s;
	const struct kallsyms *k;
	struct sym_result r;
	char path[64];
	size_t i;
	u64 stext;
	int fd;

	fd = fuzz_file(data, size, path, sizeof(path));
	if (fd < 0)
		return 0;
	opts.kallsyms = path;
	opts.kcore = "/nonexistent";
	s = symbolizer__new(&opts);
	if (!s) {
		close(fd);
		return 0;
	}
	symbolizer__lookup_kernel(s, 0, &r); /* loads the file */
	k = s->kernel;
	for (i = 0; k && i < k->nsyms; i++) {
		const struct ksym *ks = &k->syms[i];
		size_t len = strlen(ks->dso);

		FUZZ_CHECK(!i || ks[-1].addr < ks->addr, "entry %zu not above the previous", i);
		FUZZ_CHECK(ks->name[0] && !strpbrk(ks->name, " \t\n"), "entry %zu: name '%s'", i,
			   ks->name);
		FUZZ_CHECK(len >= 3 && ks->dso[0] == '[' && ks->dso[len - 1] == ']',
			   "entry %zu: module '%s'", i, ks->dso);
	}
	FUZZ_CHECK(!k || k->nsyms, "a table of no symbols");
	if (symbolizer__kernel_stext(s, &stext) == 0)
		FUZZ_CHECK(k && stext == k->stext && stext, "_stext");
	for (i = 0; k && i < k->nsyms && i < 64; i++) {
		probe(s, k, k->syms[i].addr);
		probe(s, k, k->syms[i].addr - 1);
		probe(s, k, k->syms[i].addr + LAST_SPAN - 1);
		probe(s, k, k->syms[i].addr + LAST_SPAN);
	}
	probe(s, k, 0);
	probe(s, k, UINT64_MAX);
	symbolizer__free(s);
	close(fd);
	return 0;
}
