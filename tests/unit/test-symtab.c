// SPDX-License-Identifier: MIT
/*
 * test-symtab.c - the symbol table's rules (symbolize/elf.c, docs/symbolize.md
 * section 3), through the internal API: raw symbols pushed with
 * raw_vec__push, a table built by symtab__build, looked up by symtab__find.
 *
 *   test_aliases    which of several symbols at one address names the entry:
 *                   a real one over NAME@plt, global over weak over local,
 *                   the shorter name, the first in the file's table; the
 *                   group's size is its largest
 *   test_extent     size-0 symbols run to the next symbol, not past their
 *                   section's end; a last one outside any section covers one
 *                   byte; sized symbols are not clipped; sizes saturate
 *   test_overlap    a lookup takes the last symbol starting at or below the
 *                   address that still covers it, walking back past others
 *   test_names      "@plt" appended, C++ names demangled when asked (and
 *                   kept when rejected), control characters shown as '?',
 *                   names copied out of the reader's memory
 *   test_rust_names Rust's legacy and v0 names demangled as perf shows
 *                   them (no hash, no disambiguators, no ".llvm.N"), the
 *                   mangled name kept beside every demangled one; only
 *                   the names shown are demangled
 *   test_random     400 random tables against a reference that applies the
 *                   rules above by scanning, at every address of their grid
 *   test_map_bias   a mapping's load bias from the segment it was made for,
 *                   in the layouts of GNU ld, gold, lld, mold and rust-lld
 *                   (readelf -lW, the kernel's MMAP records): lld's code
 *                   shares its first file page with the read-only segment
 *   test_elf_file   a real file (the workloads): NAME@plt at the slot its
 *                   .rela.plt relocation names, size-0 symbols ending at the
 *                   next symbol or their section's end, as this file's own
 *                   reading of the ELF headers (<elf.h>, not libelf) has it
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/internal.h"
#include "test.h"

static struct raw_vec rv;

static void reset(void)
{
	free(rv.v);
	memset(&rv, 0, sizeof(rv));
}

static void push(u64 addr, u64 size, u64 sec_end, const char *name, u8 rank, bool plt)
{
	struct raw_sym rs = {
		.addr = addr,
		.size = size,
		.sec_end = sec_end,
		.name = name,
		.name_len = strlen(name),
		.rank = rank,
		.plt = plt,
	};

	if (raw_vec__push(&rv, &rs))
		abort();
}

/* Build t from what was pushed; false (with a FAIL line) when it fails. */
static bool build(const char *name, struct symtab *t, bool demangle)
{
	int e = symtab__build(t, &rv, demangle);

	if (e) {
		TEST_FAIL(name, "symtab__build: %d", e);
		return false;
	}
	return true;
}

/* The name of the symbol covering addr, or NULL. */
/* The name shown for the symbol covering addr (symtab__name), or NULL. */
static const char *at(struct symtab *t, u64 addr)
{
	const struct sym *s = symtab__find(t, addr);

	return s ? symtab__name(t, s, NULL) : NULL;
}

/* The end of the symbol covering addr, or 0. */
static u64 end_at(const struct symtab *t, u64 addr)
{
	const struct sym *s = symtab__find(t, addr);

	return s ? s->end : 0;
}

/* ---- aliases ------------------------------------------------------------ */

static void test_aliases(void)
{
	struct symtab t;

	/* binding first: pushed local, weak, global; the global one wins */
	reset();
	push(0x1000, 0x10, 0, "loc", RANK_LOCAL, false);
	push(0x1000, 0x10, 0, "wk", RANK_WEAK, false);
	push(0x1000, 0x10, 0, "glob_long_name", RANK_GLOBAL, false);
	push(0x2000, 0x10, 0, "local_one", RANK_LOCAL, false);
	push(0x2000, 0x10, 0, "weak_one_longer", RANK_WEAK, false);
	if (build("symtab: aliases: binding", &t, false)) {
		TEST_STREQ("symtab: aliases: global over weak and local, even when longer",
			   at(&t, 0x1000), "glob_long_name");
		TEST_STREQ("symtab: aliases: weak over local, even when longer", at(&t, 0x2000),
			   "weak_one_longer");
		TEST_EQ("symtab: aliases: one entry per address", t.nsyms, 2);
		symtab__exit(&t);
	}

	/* same binding: the shorter name; same length: the first in the table */
	reset();
	push(0x1000, 0x10, 0, "memcpy_impl", RANK_GLOBAL, false);
	push(0x1000, 0x10, 0, "memcpy", RANK_GLOBAL, false);
	push(0x2000, 0x10, 0, "bbb", RANK_LOCAL, false);
	push(0x2000, 0x10, 0, "aaa", RANK_LOCAL, false);
	push(0x3000, 0x10, 0, "yyy", RANK_WEAK, false);
	push(0x3000, 0x10, 0, "zzz", RANK_WEAK, false);
	if (build("symtab: aliases: names", &t, false)) {
		TEST_STREQ("symtab: aliases: same binding, the shorter name", at(&t, 0x1000),
			   "memcpy");
		TEST_STREQ("symtab: aliases: same binding and length, the first in the table (bbb "
			   "before aaa)",
			   at(&t, 0x2000), "bbb");
		TEST_STREQ("symtab: aliases: same binding and length, the first in the table (yyy "
			   "before zzz)",
			   at(&t, 0x3000), "yyy");
		symtab__exit(&t);
	}

	/* a symbol of the table beats NAME@plt, whatever their bindings and lengths */
	reset();
	push(0x1000, 0x10, 0x1100, "f", RANK_GLOBAL, true);
	push(0x1000, 0x10, 0x1100, "a_local_name", RANK_LOCAL, false);
	if (build("symtab: aliases: plt", &t, false)) {
		TEST_STREQ("symtab: aliases: a real symbol over NAME@plt", at(&t, 0x1000),
			   "a_local_name");
		symtab__exit(&t);
	}

	/* the group's size is its largest, and so is its section end */
	reset();
	push(0x1000, 0x10, 0, "big_local", RANK_LOCAL, false);
	push(0x1000, 0x40, 0, "sized_local", RANK_LOCAL, false);
	push(0x1000, 0x08, 0, "g", RANK_GLOBAL, false);
	push(0x1100, 0, 0x1180, "z_weak", RANK_WEAK, false);
	push(0x1100, 0, 0, "z", RANK_WEAK, false);
	push(0x1200, 0x10, 0, "next", RANK_GLOBAL, false);
	if (build("symtab: aliases: sizes", &t, false)) {
		TEST_STREQ("symtab: aliases: the group's largest size, under the chosen name",
			   at(&t, 0x103f), "g");
		TEST_EQ("symtab: aliases: the group ends at its largest size", end_at(&t, 0x1000),
			0x1040);
		TEST_EQ("symtab: aliases: a size-0 group bounded by the largest section end of any "
			"alias",
			end_at(&t, 0x1100), 0x1180);
		symtab__exit(&t);
	}
}

/* ---- extent ------------------------------------------------------------- */

static void test_extent(void)
{
	struct symtab t;

	reset();
	push(0x1000, 0, 0, "to_next", RANK_GLOBAL, false);
	push(0x1100, 0, 0x1140, "to_section_end", RANK_GLOBAL, false);
	push(0x1200, 0, 0x1000, "bad_section", RANK_GLOBAL, false); /* below: ignored */
	push(0x1300, 0, 0x1400, "section_past_next", RANK_GLOBAL, false);
	push(0x1380, 0x10, 0, "sized", RANK_GLOBAL, false);
	push(0x1390, 0x100, 0x13a0, "sized_past_section", RANK_GLOBAL, false);
	push(0x1500, 0, 0x1600, "last_in_section", RANK_GLOBAL, false);
	if (build("symtab: extent", &t, false)) {
		TEST_CHECK("symtab: extent: size 0 runs to the next symbol",
			   !strcmp(at(&t, 0x10ff) ?: "", "to_next") &&
				   !strcmp(at(&t, 0x1100) ?: "", "to_section_end"));
		TEST_CHECK(
			"symtab: extent: size 0 stops at its section's end, before the next symbol",
			!strcmp(at(&t, 0x113f) ?: "", "to_section_end") && !at(&t, 0x1140) &&
				!at(&t, 0x11ff));
		TEST_EQ("symtab: extent: a section end at or below the symbol is ignored",
			end_at(&t, 0x1200), 0x1300);
		TEST_EQ("symtab: extent: size 0 stops at the next symbol, before its section's end",
			end_at(&t, 0x1300), 0x1380);
		TEST_EQ("symtab: extent: a sized symbol keeps its size past its section's end",
			end_at(&t, 0x1390), 0x1490);
		TEST_CHECK("symtab: extent: the last symbol, size 0, runs to its section's end",
			   !strcmp(at(&t, 0x15ff) ?: "", "last_in_section") && !at(&t, 0x1600));
		symtab__exit(&t);
	}

	reset();
	push(0x1000, 0x10, 0, "first", RANK_GLOBAL, false);
	push(0x2000, 0, 0, "last_no_section", RANK_GLOBAL, false);
	if (build("symtab: extent: last", &t, false)) {
		TEST_CHECK("symtab: extent: the last symbol, size 0, no section: one byte",
			   !strcmp(at(&t, 0x2000) ?: "", "last_no_section") && !at(&t, 0x2001));
		TEST_CHECK("symtab: extent: before the first symbol, between two: nothing",
			   !at(&t, 0xfff) && !at(&t, 0) && !at(&t, 0x1010) && !at(&t, 0x1fff));
		symtab__exit(&t);
	}

	reset();
	push(UINT64_MAX - 0x10, 0x100, 0, "wraps", RANK_GLOBAL, false);
	if (build("symtab: extent: top", &t, false)) {
		TEST_CHECK("symtab: extent: a size past the address space saturates, not wraps",
			   end_at(&t, UINT64_MAX - 0x10) == UINT64_MAX &&
				   !strcmp(at(&t, UINT64_MAX - 1) ?: "", "wraps") && !at(&t, 0));
		symtab__exit(&t);
	}

	reset();
	if (build("symtab: extent: empty", &t, false)) {
		TEST_CHECK("symtab: extent: an empty table finds nothing",
			   t.nsyms == 0 && !at(&t, 0) && !at(&t, 0x1000));
		symtab__exit(&t);
	}
}

/* ---- overlap ------------------------------------------------------------ */

static void test_overlap(void)
{
	struct symtab t;

	reset();
	/* one big function with smaller ones inside (as a label with a size) */
	push(0x1000, 0x1000, 0, "outer", RANK_GLOBAL, false);
	push(0x1100, 0x10, 0, "inner1", RANK_GLOBAL, false);
	push(0x1200, 0x10, 0, "inner2", RANK_GLOBAL, false);
	push(0x1300, 0x10, 0, "inner3", RANK_GLOBAL, false);
	push(0x1310, 0x100, 0, "inner4", RANK_GLOBAL, false);
	push(0x1320, 0x8, 0, "inner5", RANK_GLOBAL, false);
	push(0x3000, 0x10, 0, "after", RANK_GLOBAL, false);
	if (build("symtab: overlap", &t, false)) {
		TEST_STREQ("symtab: overlap: inside a nested symbol, the nested one",
			   at(&t, 0x1205), "inner2");
		TEST_STREQ("symtab: overlap: after a nested symbol's end, the enclosing one",
			   at(&t, 0x1210), "outer");
		TEST_STREQ("symtab: overlap: past several ended ones, back to the enclosing one",
			   at(&t, 0x1500), "outer");
		TEST_STREQ(
			"symtab: overlap: the last starting at or below wins over an earlier cover",
			at(&t, 0x1321), "inner5");
		TEST_STREQ("symtab: overlap: a sized symbol is not clipped at the next one",
			   at(&t, 0x1330), "inner4");
		TEST_CHECK("symtab: overlap: past the enclosing one's end, nothing",
			   !at(&t, 0x2000) && !at(&t, 0x2fff));
		symtab__exit(&t);
	}
}

/* ---- names -------------------------------------------------------------- */

static void test_names(void)
{
	struct symtab t;
	char *copy;

	reset();
	push(0x1000, 0x10, 0, "puts", RANK_GLOBAL, true);
	push(0x1010, 0x10, 0, "_ZN2ns3fooEi", RANK_GLOBAL, false);
	push(0x1020, 0x10, 0, "_Z3barv", RANK_GLOBAL, true);
	push(0x1030, 0x10, 0, "_Znot_a_name!", RANK_GLOBAL, false);
	push(0x1040, 0x10, 0, "bad\nname\x1b[31m\x7f", RANK_GLOBAL, false);
	copy = strdup("copied_name");
	if (!copy)
		abort();
	push(0x1050, 0x10, 0, copy, RANK_GLOBAL, false);
	if (build("symtab: names: demangled", &t, true)) {
		/* the reader's memory goes away after the build (libelf's, a map's buffer) */
		memset(copy, 'X', strlen(copy));
		free(copy);
		TEST_STREQ("symtab: names: a PLT entry is NAME@plt", at(&t, 0x1000), "puts@plt");
		TEST_STREQ("symtab: names: C++ names demangled when asked", at(&t, 0x1010),
			   "ns::foo(int)");
		TEST_STREQ("symtab: names: a demangled PLT entry keeps @plt", at(&t, 0x1020),
			   "bar()@plt");
		TEST_STREQ("symtab: names: a name the demangler rejects is kept", at(&t, 0x1030),
			   "_Znot_a_name!");
		TEST_STREQ("symtab: names: control characters shown as ?", at(&t, 0x1040),
			   "bad?name?[31m?");
		TEST_STREQ("symtab: names: copied out of the reader's memory", at(&t, 0x1050),
			   "copied_name");
		symtab__exit(&t);
	}
	reset();
	push(0x1010, 0x10, 0, "_ZN2ns3fooEi", RANK_GLOBAL, false);
	if (build("symtab: names: not demangled", &t, false)) {
		TEST_STREQ("symtab: names: C++ names kept when not asked", at(&t, 0x1010),
			   "_ZN2ns3fooEi");
		symtab__exit(&t);
	}
}

/* The mangled name kept for the symbol covering addr, or NULL. */
static const char *mangled_at(struct symtab *t, u64 addr)
{
	const struct sym *s = symtab__find(t, addr);
	const char *mangled = NULL;

	if (s)
		symtab__name(t, s, &mangled);
	return mangled;
}

/* Names of rustc 1.95's symbols (tests/real/rust, legacy and v0 builds). */
static void test_rust_names(void)
{
	static const struct {
		const char *mangled, *shown;
	} v[] = {
		{"_ZN8rustwork3mix17h383c56897299a742E", "rustwork::mix"},
		{"_ZN50_$LT$rustwork..Half$u20$as$u20$rustwork..Mixer$GT$3run17h8bb3219affd096ccE",
		 "<rustwork::Half as rustwork::Mixer>::run"},
		{"_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17hd019ec1899b3c678E"
		 ".llvm.12694370142998209289",
		 "std::rt::lang_start::{{closure}}"},
		{"_RNvCschYMSn9up6a_8rustwork3mix", "rustwork::mix"},
		{"_RNvXCschYMSn9up6a_8rustworkNtB2_4HalfNtB2_5Mixer3run",
		 "<rustwork::Half as rustwork::Mixer>::run"},
		{"_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0CschYMSn9up6a_8rustwork"
		 ".llvm.663718450609953144",
		 "std::rt::lang_start::<()>::{closure#0}"},
		{"_RNvMNtCsgvbsrvnw3yD_9hashbrown11rustc_entryINtNtB4_3map7HashMapINtNtCslNYArtu3iFV_"
		 "5alloc3vec3VechEyNtNtNtCsjrHSEGnQ3l9_3std4hash6random11RandomStateE11rustc_"
		 "entryCschYMSn9up6a_8rustwork",
		 "<hashbrown::map::HashMap<alloc::vec::Vec<u8>, u64, "
		 "std::hash::random::RandomState>>::rustc_entry"},
	};
	struct symtab t;
	char name[160];
	size_t i;

	reset();
	for (i = 0; i < ARRAY_SIZE(v); i++)
		push(0x1000 + 0x10 * i, 0x10, 0, v[i].mangled, RANK_GLOBAL, false);
	push(0x2000, 0x10, 0, "rust_plain", RANK_GLOBAL, false);
	push(0x2010, 0x10, 0, "_ZN8rustwork3mix17h383c56897299a742E", RANK_GLOBAL, true);
	if (!build("symtab: rust names", &t, true))
		return;
	TEST_CHECK("symtab: names: none demangled before one is shown", !t.shown);
	TEST_STREQ("symtab: names: one shown...", at(&t, 0x1010), v[1].shown);
	TEST_CHECK("symtab: names: ... and only that one demangled",
		   t.shown && t.shown[1] && !t.shown[0] && !t.shown[2]);
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		snprintf(name, sizeof(name), "symtab: rust: %.60s...", v[i].mangled);
		TEST_STREQ(name, at(&t, 0x1000 + 0x10 * i), v[i].shown);
		TEST_STREQ("symtab: rust: ... its mangled name kept",
			   mangled_at(&t, 0x1000 + 0x10 * i), v[i].mangled);
	}
	TEST_CHECK("symtab: rust: a name not demangled has no mangled one",
		   !mangled_at(&t, 0x2000));
	TEST_STREQ("symtab: rust: a PLT entry demangled, @plt on both", at(&t, 0x2010),
		   "rustwork::mix@plt");
	TEST_STREQ("symtab: rust: ... its mangled name", mangled_at(&t, 0x2010),
		   "_ZN8rustwork3mix17h383c56897299a742E@plt");
	symtab__exit(&t);
}

/* ---- random tables against the rules, by scanning ----------------------- */

struct ref_sym {
	u64 addr, size, sec_end;
	char name[16];
	u8 rank;
	bool plt;
	size_t order;
};

struct ref_ent {
	u64 addr, end;
	char name[24];
};

/* Does a name b over a at one address (docs/symbolize.md section 3)? */
static bool ref_better(const struct ref_sym *b, const struct ref_sym *a)
{
	if (a->plt != b->plt)
		return !b->plt;
	if (a->rank != b->rank)
		return b->rank < a->rank;
	if (strlen(a->name) != strlen(b->name))
		return strlen(b->name) < strlen(a->name);
	return b->order < a->order;
}

/* The table by the rules: one entry per address, sorted, with its end. */
static size_t ref_build(const struct ref_sym *in, size_t n, struct ref_ent *out)
{
	size_t i, j, m = 0;
	u64 prev = 0;

	for (;;) {
		const struct ref_sym *best = NULL;
		u64 size = 0, sec_end = 0, next = UINT64_MAX, addr = UINT64_MAX;

		/* the next address above prev (or the lowest one) */
		for (i = 0; i < n; i++)
			if ((!m || in[i].addr > prev) && in[i].addr < addr)
				addr = in[i].addr;
		if (addr == UINT64_MAX)
			return m;
		for (i = 0; i < n; i++) {
			if (in[i].addr == addr) {
				if (!best || ref_better(&in[i], best))
					best = &in[i];
				size = in[i].size > size ? in[i].size : size;
				sec_end = in[i].sec_end > sec_end ? in[i].sec_end : sec_end;
			} else if (in[i].addr > addr && in[i].addr < next) {
				next = in[i].addr;
			}
		}
		out[m].addr = addr;
		snprintf(out[m].name, sizeof(out[m].name), "%s%s", best->name,
			 best->plt ? "@plt" : "");
		if (size)
			out[m].end = addr + size;
		else if (sec_end > addr && sec_end < next)
			out[m].end = sec_end;
		else
			out[m].end = next == UINT64_MAX ? addr + 1 : next;
		for (j = 0; j < m; j++)
			if (out[j].addr >= addr)
				abort();
		prev = addr;
		m++;
	}
}

/* The last entry starting at or below addr that covers it. */
static const struct ref_ent *ref_find(const struct ref_ent *e, size_t m, u64 addr)
{
	const struct ref_ent *best = NULL;
	size_t i;

	for (i = 0; i < m; i++)
		if (e[i].addr <= addr && addr < e[i].end && (!best || e[i].addr > best->addr))
			best = &e[i];
	return best;
}

#define RAND_SYMS 48
#define RAND_GRID 96

static void test_random(void)
{
	static const u8 ranks[] = {RANK_GLOBAL, RANK_WEAK, RANK_LOCAL};
	struct ref_sym in[RAND_SYMS];
	struct ref_ent ents[RAND_SYMS];
	unsigned long lookups = 0, wrong = 0, tables = 0, bad_tables = 0;
	char first[256] = "";
	u64 seed = 0x2545f4914f6cdd1dull;
	unsigned int round;

	for (round = 0; round < 400; round++) {
		size_t n = 1 + test_rand(&seed) % RAND_SYMS, m, i;
		struct symtab t;
		u64 a;

		reset();
		for (i = 0; i < n; i++) {
			struct ref_sym *r = &in[i];
			u64 k = test_rand(&seed) % 10;

			r->addr = test_rand(&seed) % RAND_GRID;
			r->size = k < 3 ? 0 : test_rand(&seed) % 24;
			/* a section end: none, above the symbol, or (ignored) at or below it */
			k = test_rand(&seed) % 4;
			r->sec_end = k == 0  ? 0
				     : k < 3 ? r->addr + 1 + test_rand(&seed) % 30
					     : test_rand(&seed) % (r->addr + 1);
			r->rank = ranks[test_rand(&seed) % 3];
			r->plt = test_rand(&seed) % 8 == 0;
			/* unique names of 3 to 6 bytes: lengths decide some ties */
			snprintf(r->name, sizeof(r->name), "%.*s%03zx", (int)(test_rand(&seed) % 4),
				 "xxx", i);
			r->order = i;
			push(r->addr, r->size, r->sec_end, r->name, r->rank, r->plt);
		}
		m = ref_build(in, n, ents);
		if (symtab__build(&t, &rv, false)) {
			TEST_FAIL("symtab: random: built", "symtab__build failed");
			return;
		}
		tables++;
		if (t.nsyms != m) {
			if (!bad_tables++)
				snprintf(first, sizeof(first), "round %u: %zu entries, want %zu",
					 round, t.nsyms, m);
		}
		for (a = 0; a < RAND_GRID + 32; a++) {
			const struct sym *got = symtab__find(&t, a);
			const struct ref_ent *want = ref_find(ents, m, a);

			lookups++;
			if (got && want && got->addr == want->addr && got->end == want->end &&
			    !strcmp(got->name, want->name))
				continue;
			if (!got && !want)
				continue;
			if (!wrong++ && !bad_tables)
				snprintf(first, sizeof(first),
					 "round %u addr 0x%llx: %s [0x%llx,0x%llx), want %s "
					 "[0x%llx,0x%llx)",
					 round, (unsigned long long)a, got ? got->name : "(none)",
					 got ? (unsigned long long)got->addr : 0ull,
					 got ? (unsigned long long)got->end : 0ull,
					 want ? want->name : "(none)",
					 want ? (unsigned long long)want->addr : 0ull,
					 want ? (unsigned long long)want->end : 0ull);
		}
		symtab__exit(&t);
	}
	if (wrong || bad_tables)
		TEST_FAIL(
			"symtab: random: 400 tables, every lookup as the rules have it",
			"%lu of %lu lookups differ, %lu of %lu tables have another size; first: %s",
			wrong, lookups, bad_tables, tables, first);
	else
		TEST_OK("symtab: random: 400 tables, every lookup as the rules have it");
}

/* ---- a real file ---------------------------------------------------------- */

/* An ELF64 x86-64 file read by hand: its sections and their names. */
struct elf_file {
	const unsigned char *p;
	size_t len;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *shstr;
};

static bool in_file(const struct elf_file *f, u64 off, u64 size)
{
	return off <= f->len && size <= f->len - off;
}

static bool elf_parse(struct elf_file *f)
{
	const Elf64_Shdr *ss;

	f->eh = (const void *)f->p;
	if (f->len < sizeof(*f->eh) || memcmp(f->p, ELFMAG, SELFMAG) ||
	    f->p[EI_CLASS] != ELFCLASS64 || f->eh->e_machine != EM_X86_64 ||
	    f->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    !in_file(f, f->eh->e_shoff, (u64)f->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    f->eh->e_shstrndx >= f->eh->e_shnum)
		return false;
	f->sh = (const void *)(f->p + f->eh->e_shoff);
	ss = &f->sh[f->eh->e_shstrndx];
	if (!in_file(f, ss->sh_offset, ss->sh_size))
		return false;
	f->shstr = (const char *)f->p + ss->sh_offset;
	return true;
}

static const Elf64_Shdr *elf_section(const struct elf_file *f, const char *name)
{
	unsigned int i;

	for (i = 0; i < f->eh->e_shnum; i++)
		if (f->sh[i].sh_name < f->sh[f->eh->e_shstrndx].sh_size &&
		    !strcmp(f->shstr + f->sh[i].sh_name, name))
			return &f->sh[i];
	return NULL;
}

/* Symbol i of table sec and its name, or false. */
static bool elf_sym(const struct elf_file *f, const Elf64_Shdr *sec, u64 i, Elf64_Sym *out,
		    const char **name)
{
	const Elf64_Shdr *str;

	if (sec->sh_link >= f->eh->e_shnum || !in_file(f, sec->sh_offset, sec->sh_size) ||
	    (i + 1) * sizeof(Elf64_Sym) > sec->sh_size)
		return false;
	memcpy(out, f->p + sec->sh_offset + i * sizeof(Elf64_Sym), sizeof(*out));
	str = &f->sh[sec->sh_link];
	if (!in_file(f, str->sh_offset, str->sh_size) || out->st_name >= str->sh_size)
		return false;
	*name = (const char *)f->p + str->sh_offset + out->st_name;
	return true;
}

/* The symbols symtab__build sees from .symtab (collect_syms's rule), for next-symbol bounds. */
static bool elf_used(const struct elf_file *f, const Elf64_Sym *s, const char *name)
{
	int type = ELF64_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || !*name)
		return false;
	if (type == STT_NOTYPE)
		return s->st_size && s->st_shndx < f->eh->e_shnum &&
		       (f->sh[s->st_shndx].sh_flags & SHF_EXECINSTR);
	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

static void check_elf_file(const char *dir, const char *file)
{
	char path[PATH_MAX], name[160];
	struct ebs_error werr = {0};
	char *why = werr.msg;
	const Elf64_Shdr *plt, *plt_sec, *rela, *dynsym, *symtab, *tab;
	unsigned int plt_ok = 0, plt_bad = 0, zero_ok = 0, zero_bad = 0;
	char plt_first[640] = "", zero_first[640] = "";
	struct elf_file f = {0};
	struct dso d;
	u64 i, j, nrel, nsym;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f.p = test_slurp(path, &f.len);
	snprintf(name, sizeof(name), "symtab: %s: read", file);
	if (!f.p) {
		TEST_SKIP(name, "%s not built (make workloads)", path);
		return;
	}
	if (!elf_parse(&f)) {
		TEST_SKIP(name, "%s is not an ELF64 x86-64 file", path);
		free((void *)f.p);
		return;
	}
	memset(&d, 0, sizeof(d));
	d.path = path;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dso__load_elf(&d, fd, NULL, 0, false, &werr) || !d.symtab.nsyms) {
		TEST_FAIL(name, "dso__load_elf: %s", why);
		if (fd >= 0)
			close(fd);
		free((void *)f.p);
		return;
	}
	close(fd);

	/* PLT: relocation i names slot i of .plt.sec, else slot i + 1 of .plt */
	plt = elf_section(&f, ".plt");
	plt_sec = elf_section(&f, ".plt.sec");
	rela = elf_section(&f, ".rela.plt");
	dynsym = rela && rela->sh_link < f.eh->e_shnum ? &f.sh[rela->sh_link] : NULL;
	tab = plt_sec ? plt_sec : plt;
	nrel = rela && in_file(&f, rela->sh_offset, rela->sh_size)
		       ? rela->sh_size / sizeof(Elf64_Rela)
		       : 0;
	for (i = 0; tab && dynsym && i < nrel; i++) {
		u64 slot = plt_sec ? i : i + 1, addr = tab->sh_addr + 16 * slot;
		const struct sym *s = symtab__find(&d.symtab, addr);
		char want[256];
		const char *sname;
		Elf64_Rela r;
		Elf64_Sym sym;

		memcpy(&r, f.p + rela->sh_offset + i * sizeof(r), sizeof(r));
		if (ELF64_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    (slot + 1) * 16 > tab->sh_size ||
		    !elf_sym(&f, dynsym, ELF64_R_SYM(r.r_info), &sym, &sname) || !*sname)
			continue;
		snprintf(want, sizeof(want), "%s@plt", sname);
		if (s && s->addr == addr && s->end == addr + 16 && !strcmp(s->name, want)) {
			plt_ok++;
			continue;
		}
		if (!plt_bad++)
			snprintf(plt_first, sizeof(plt_first),
				 "at 0x%llx: %.200s [0x%llx,0x%llx), want %.200s",
				 (unsigned long long)addr, s ? s->name : "(none)",
				 s ? (unsigned long long)s->addr : 0ull,
				 s ? (unsigned long long)s->end : 0ull, want);
	}
	snprintf(name, sizeof(name), "symtab: %s: NAME@plt at the slot of its .rela.plt entry",
		 file);
	if (plt_bad)
		TEST_FAIL(name, "%u of %u wrong; first %s", plt_bad, plt_ok + plt_bad, plt_first);
	else if (!plt_ok)
		TEST_SKIP(name, "%s has no PLT entries with a symbol", file);
	else
		TEST_OK(name);
	if (!plt_sec && plt && plt->sh_size >= 16) {
		const struct sym *s = symtab__find(&d.symtab, plt->sh_addr);

		snprintf(name, sizeof(name),
			 "symtab: %s: .plt's entry 0 (the resolver) is not NAME@plt", file);
		TEST_CHECK(name, !s || s->addr != plt->sh_addr || !strstr(s->name, "@plt"));
	}

	/* size-0 symbols of .symtab: to the next symbol or their section's end */
	symtab = elf_section(&f, ".symtab");
	nsym = symtab ? symtab->sh_size / sizeof(Elf64_Sym) : 0;
	for (i = 1; i < nsym; i++) {
		u64 next = UINT64_MAX, end, want;
		const struct sym *s;
		const char *sname;
		Elf64_Sym sym;
		bool sized_alias = false;

		if (!elf_sym(&f, symtab, i, &sym, &sname) || !elf_used(&f, &sym, sname) ||
		    sym.st_size || sym.st_shndx >= f.eh->e_shnum)
			continue;
		for (j = 1; j < nsym; j++) {
			const char *n2;
			Elf64_Sym s2;

			if (!elf_sym(&f, symtab, j, &s2, &n2) || !elf_used(&f, &s2, n2))
				continue;
			if (s2.st_value > sym.st_value && s2.st_value < next)
				next = s2.st_value;
			sized_alias |= s2.st_value == sym.st_value && s2.st_size;
		}
		if (sized_alias)
			continue;
		/* PLT slots are symbols too */
		for (j = 0; tab && j * 16 < tab->sh_size; j++) {
			u64 a = tab->sh_addr + 16 * j;

			if (a > sym.st_value && a < next && symtab__find(&d.symtab, a) &&
			    symtab__find(&d.symtab, a)->addr == a)
				next = a;
		}
		end = f.sh[sym.st_shndx].sh_addr + f.sh[sym.st_shndx].sh_size;
		want = end > sym.st_value && end < next ? end : next;
		s = symtab__find(&d.symtab, sym.st_value);
		if (s && s->addr == sym.st_value && s->end == want) {
			zero_ok++;
			continue;
		}
		if (!zero_bad++)
			snprintf(zero_first, sizeof(zero_first),
				 "%.200s at 0x%llx ends at 0x%llx, want 0x%llx", sname,
				 (unsigned long long)sym.st_value,
				 s ? (unsigned long long)s->end : 0ull, (unsigned long long)want);
	}
	snprintf(name, sizeof(name),
		 "symtab: %s: size-0 symbols end at the next symbol or their section's end", file);
	if (zero_bad)
		TEST_FAIL(name, "%u of %u wrong; first %s", zero_bad, zero_ok + zero_bad,
			  zero_first);
	else if (!zero_ok)
		TEST_SKIP(name, "%s has no size-0 function symbols", file);
	else
		TEST_OK(name);

	symtab__exit(&d.symtab);
	free(d.segs);
	free((void *)f.p);
}

/* test_map_bias's cases: a file's PT_LOAD segments and one mapping of it */
struct bias_case {
	const char *what;
	struct segment segs[4];
	size_t nsegs;
	u64 start, len, pgoff, want;
};

static void test_map_bias(void)
{
	static const struct bias_case cases[] = {
		{"lld, not PIE: the code on the read-only segment's last file page",
		 {{0, 0x79c, 0x200000, false},
		  {0x7a0, 0x3a0, 0x2017a0, true},
		  {0xb40, 0x1a0, 0x202b40, false},
		  {0xce0, 0x50, 0x203ce0, false}},
		 4,
		 0x201000,
		 0x1000,
		 0,
		 0},
		{"lld, PIE",
		 {{0, 0x8b4, 0, false},
		  {0x8c0, 0x390, 0x18c0, true},
		  {0xc50, 0x200, 0x2c50, false},
		  {0xe50, 0x58, 0x3e50, false}},
		 4,
		 0x55fadcc91000,
		 0x1000,
		 0,
		 0x55fadcc90000},
		{"mold, PIE",
		 {{0, 0x788, 0, false},
		  {0x790, 0x3c6, 0x1790, true},
		  {0xb58, 0x220, 0x2b58, false},
		  {0xd78, 0x50, 0x3d78, false}},
		 4,
		 0x560e81f03000,
		 0x1000,
		 0,
		 0x560e81f02000},
		{"rust-lld: the mapping from a page inside the read-only segment",
		 {{0, 0x13858, 0, false},
		  {0x13860, 0x3df60, 0x14860, true},
		  {0x517c0, 0x28b8, 0x537c0, false},
		  {0x54078, 0x9c0, 0x57078, false}},
		 4,
		 0x564bd7f26000,
		 0x3f000,
		 0x13000,
		 0x564bd7f12000},
		{"GNU ld, separate code pages",
		 {{0, 0x760, 0, false},
		  {0x1000, 0x3b1, 0x1000, true},
		  {0x2000, 0x1c8, 0x2000, false},
		  {0x2dd0, 0x268, 0x3dd0, false}},
		 4,
		 0x55adfbca9000,
		 0x1000,
		 0x1000,
		 0x55adfbca8000},
		{"gold: one mapping of the whole file, the code segment first",
		 {{0, 0xc40, 0, true}, {0xdc0, 0x280, 0x1dc0, false}},
		 2,
		 0x558b28a03000,
		 0x3000,
		 0,
		 0x558b28a03000},
		{"no segment marked executable: the one holding pgoff",
		 {{0, 0x8b4, 0, false}, {0x8c0, 0x390, 0x18c0, false}},
		 2,
		 0x7f0000001000,
		 0x1000,
		 0,
		 0x7f0000001000},
		{"no segment in the mapping: the offsets are the addresses",
		 {{0x10000, 0x100, 0x10000, true}},
		 1,
		 0x7f0000005000,
		 0x1000,
		 0x1000,
		 0x7f0000004000},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bias_case *c = &cases[i];
		struct dso d = {.segs = (struct segment *)c->segs, .nsegs = c->nsegs};
		char name[160];

		snprintf(name, sizeof(name), "map bias: %s", c->what);
		TEST_EQ(name, dso__map_bias(&d, c->start, c->len, c->pgoff), c->want);
	}
}

static void test_elf_file(void)
{
	const char *dir = test_workloads_dir();
	struct symbolizer *s;

	/* symbolizer__new sets libelf's version, which dso__load_elf needs */
	s = symbolizer__new(NULL);
	if (!s || !dir) {
		TEST_FAIL("symtab: files: set up", "no symbolizer or no workloads directory");
		symbolizer__free(s);
		return;
	}
	check_elf_file(dir, "hotline");
	check_elf_file(dir, "leafloop-nopie");
	check_elf_file(dir, "shlib");
	symbolizer__free(s);
}

static void teardown(void)
{
	reset();
}

TEST_MAIN(NULL, teardown, TEST_CASE(test_aliases), TEST_CASE(test_extent), TEST_CASE(test_map_bias),
	  TEST_CASE(test_overlap), TEST_CASE(test_names), TEST_CASE(test_rust_names),
	  TEST_CASE(test_random), TEST_CASE(test_elf_file))
