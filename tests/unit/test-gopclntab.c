// SPDX-License-Identifier: MIT
/*
 * test-gopclntab.c - Go's pclntab reader (symbolize/gopclntab.c) on tables
 * built here from the layouts Go's src/debug/gosym/pclntab.go reads (the
 * Go 1.19 toolchain writes only 1.18's; tests/integration/go.sh reads
 * those of real binaries):
 *
 *   test_versions   1.2 (4- and 8-byte words), 1.16, 1.18 and 1.20, little-
 *                   and big-endian, pc quanta 1 and 4: every function's
 *                   range and name, and file:line at chosen pcs, one
 *                   function's lines from another file (inlined code) and
 *                   of another compilation unit (cuOffset)
 *   test_refused    a bad magic, a header cut short, a function count past
 *                   the table, a function table out of order, a name
 *                   outside the table: refused, saying which
 *   test_truncated  every table cut at every length: refused or read, and
 *                   every lookup within bounds (run under ASan, UBSan)
 *   test_garbled    4000 tables with bytes changed at random, likewise
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/internal.h"
#include "test.h"

#define TEXT 0x401000ull

/* A table being written. */
struct tb {
	u8 b[4096];
	size_t n;
	bool big;
};

static void poke(struct tb *t, size_t at, u64 v, unsigned int size)
{
	unsigned int i;

	for (i = 0; i < size; i++)
		t->b[at + (t->big ? size - 1 - i : i)] = (u8)(v >> (8 * i));
}

static size_t put(struct tb *t, u64 v, unsigned int size)
{
	size_t at = t->n;

	poke(t, at, v, size);
	t->n += size;
	return at;
}

static size_t put_str(struct tb *t, const char *s)
{
	size_t at = t->n;

	memcpy(t->b + at, s, strlen(s) + 1);
	t->n += strlen(s) + 1;
	return at;
}

static void put_varint(struct tb *t, u32 v)
{
	while (v >= 0x80) {
		t->b[t->n++] = (u8)(v | 0x80);
		v >>= 7;
	}
	t->b[t->n++] = (u8)v;
}

/* A pc-value run: value val until pc end (an offset from the entry). */
struct run {
	s32 val;
	u32 end;
};

/* A pc-value table of runs (ended by end == 0), as Go's linker encodes one. */
static size_t put_pcvalue(struct tb *t, const struct run *r, unsigned int quantum)
{
	size_t at = t->n;
	s32 prev = -1;
	u32 pc = 0;

	for (; r->end; r++) {
		s32 d = r->val - prev;

		put_varint(t, d < 0 ? ((u32)-d << 1) - 1 : (u32)d << 1);
		put_varint(t, (r->end - pc) / quantum);
		prev = r->val;
		pc = r->end;
	}
	t->b[t->n++] = 0;
	return at;
}

/*
 * The functions of every table: main.a in a.go; main.b in b.go with code
 * from a.go inlined at 0x20 (file index 1), and of the second unit, whose
 * file list is (b.go, a.go).
 */
static const struct tfunc {
	const char *name;
	u64 lo, hi;
	struct run file[3], line[3];
	u32 cu; /* 1.16+: cuOffset */
} funcs[] = {
	{"main.a", 0x0, 0x40, {{0, 0x40}}, {{10, 0x10}, {12, 0x40}}, 0},
	{"main.b", 0x40, 0x100, {{0, 0x20}, {1, 0xc0}}, {{20, 0x20}, {25, 0xc0}}, 2},
};
#define NFUNC 2

/*
 * A table of version ver (12, 116, 118, 120) with words of ps bytes, in
 * big-endian order or not, pc quantum q.  1.2 has one file list, so there
 * main.b's indexes are shifted: its files are (1: a.go, 2: b.go).
 */
static void build(struct tb *t, unsigned int ver, unsigned int ps, bool big, unsigned int q)
{
	unsigned int nwords = ver == 12 ? 1 : ver == 116 ? 7 : 8, i;
	unsigned int fsz = ver >= 118 ? 4 : ps, sz0 = ver >= 118 ? 4 : ps;
	size_t words, names[NFUNC], file_a, file_b, pcfile[NFUNC], pcln[NFUNC];
	size_t functab, fileoff_at = 0, cutab = 0, filetab = 0, pctab = 0, recs[NFUNC];
	u32 magic = ver == 12	 ? 0xfffffffb
		    : ver == 116 ? 0xfffffffa
		    : ver == 118 ? 0xfffffff0
				 : 0xfffffff1;

	memset(t, 0, sizeof(*t));
	t->big = big;
	put(t, magic, 4);
	put(t, 0, 1);
	put(t, 0, 1);
	put(t, q, 1);
	put(t, ps, 1);
	words = t->n;
	t->n += (size_t)nwords * ps;
	poke(t, words, NFUNC, ps);
	if (ver == 12) {
		struct run file12[NFUNC][3] = {{{1, 0x40}}, {{2, 0x20}, {1, 0xc0}}};

		functab = t->n;
		t->n += (2 * NFUNC + 1) * fsz;
		fileoff_at = put(t, 0, 4);
		for (i = 0; i < NFUNC; i++)
			names[i] = put_str(t, funcs[i].name);
		file_a = put_str(t, "/src/a.go");
		file_b = put_str(t, "/src/b.go");
		while (t->n % 4)
			t->n++;
		poke(t, fileoff_at, t->n, 4);
		put(t, 3, 4); /* the count, then entries 1 and 2 */
		put(t, file_a, 4);
		put(t, file_b, 4);
		for (i = 0; i < NFUNC; i++) {
			pcfile[i] = put_pcvalue(t, file12[i], q);
			pcln[i] = put_pcvalue(t, funcs[i].line, q);
		}
	} else {
		size_t nametab = t->n;

		for (i = 0; i < NFUNC; i++)
			names[i] = put_str(t, funcs[i].name) - nametab;
		while (t->n % 4)
			t->n++;
		filetab = t->n;
		file_a = put_str(t, "/src/a.go") - filetab;
		file_b = put_str(t, "/src/b.go") - filetab;
		while (t->n % 4)
			t->n++;
		cutab = t->n;
		put(t, file_a, 4); /* unit 0: a.go, b.go */
		put(t, file_b, 4);
		put(t, file_b, 4); /* unit 1 (cuOffset 2): b.go, a.go */
		put(t, file_a, 4);
		pctab = t->n;
		t->b[t->n++] = 0; /* offset 0: no table */
		for (i = 0; i < NFUNC; i++) {
			pcfile[i] = put_pcvalue(t, funcs[i].file, q) - pctab;
			pcln[i] = put_pcvalue(t, funcs[i].line, q) - pctab;
		}
		while (t->n % 8)
			t->n++;
		functab = t->n;
		t->n += (2 * NFUNC + 1) * fsz;
		i = ver == 116 ? 2 : 3;
		poke(t, words + 1 * ps, 2, ps); /* nfiles */
		if (ver >= 118)
			poke(t, words + 2 * ps, TEXT, ps);
		poke(t, words + (i + 0) * ps, nametab, ps);
		poke(t, words + (i + 1) * ps, cutab, ps);
		poke(t, words + (i + 2) * ps, filetab, ps);
		poke(t, words + (i + 3) * ps, pctab, ps);
		poke(t, words + (i + 4) * ps, functab, ps);
	}
	for (i = 0; i < NFUNC; i++) {
		size_t base = ver == 12 ? 0 : functab;

		while (t->n % 8)
			t->n++;
		recs[i] = t->n;
		put(t, ver >= 118 ? funcs[i].lo : TEXT + funcs[i].lo, sz0);
		put(t, names[i], 4);
		put(t, 0, 4);	      /* args */
		put(t, 0, 4);	      /* deferreturn */
		put(t, 0, 4);	      /* pcsp */
		put(t, pcfile[i], 4); /* pcfile */
		put(t, pcln[i], 4);   /* pcln */
		put(t, 0, 4);	      /* npcdata */
		put(t, ver == 12 ? 0 : funcs[i].cu, 4);
		if (ver >= 120)
			put(t, 1, 4); /* startLine */
		put(t, 0, 4);	      /* funcID, flag, nfuncdata */
		poke(t, functab + (2 * i) * fsz, ver >= 118 ? funcs[i].lo : TEXT + funcs[i].lo,
		     fsz);
		poke(t, functab + (2 * i + 1) * fsz, recs[i] - base, fsz);
	}
	poke(t, functab + 2 * NFUNC * fsz,
	     ver >= 118 ? funcs[NFUNC - 1].hi : TEXT + funcs[NFUNC - 1].hi, fsz);
}

/* At pc (an offset in .text): want function name, file and line; NULL name: none. */
static void expect_at(const char *what, struct gopcln *g, u64 pc, const char *name,
		      const char *file, u32 line)
{
	struct gopcln_hit h;
	char n[200];
	int err = gopcln__lookup(g, TEXT + pc, &h);

	snprintf(n, sizeof(n), "%s: pc %#llx", what, (unsigned long long)pc);
	if (!name) {
		TEST_EQ(n, err, -ENOENT);
		return;
	}
	if (err) {
		TEST_FAIL(n, "lookup returned %d", err);
		return;
	}
	if (strcmp(h.name, name) || (file ? !h.file || strcmp(h.file, file) : h.file != NULL) ||
	    h.line != line)
		TEST_FAIL(n, "got %s at %s:%u, want %s at %s:%u", h.name,
			  h.file ? h.file : "(none)", h.line, name, file ? file : "(none)", line);
	else
		TEST_OK(n);
}

static const struct variant {
	unsigned int ver, ps;
	bool big;
	unsigned int q;
} variants[] = {
	{12, 8, false, 1},  {12, 4, true, 4},  {116, 8, false, 1}, {116, 4, false, 2},
	{118, 8, false, 1}, {118, 8, true, 4}, {120, 8, false, 1}, {120, 4, true, 4},
};
#define NVARIANTS (sizeof(variants) / sizeof(variants[0]))

static void variant_name(char *buf, size_t len, const struct variant *v)
{
	snprintf(buf, len, "Go 1.%u table, %u-byte words, %s, quantum %u",
		 v->ver == 12 ? 2 : v->ver % 100, v->ps, v->big ? "big-endian" : "little-endian",
		 v->q);
}

static void test_versions(void)
{
	size_t i;

	for (i = 0; i < NVARIANTS; i++) {
		const struct variant *v = &variants[i];
		char what[120], n[200];
		struct ebs_error werr = {0};
		char *why = werr.msg;
		struct gopcln *g;
		struct tb t;
		size_t k;

		variant_name(what, sizeof(what), v);
		build(&t, v->ver, v->ps, v->big, v->q);
		g = gopcln__new(t.b, t.n, 0, &werr);
		if (!g) {
			TEST_FAIL(what, "refused: %s", why);
			continue;
		}
		snprintf(n, sizeof(n), "%s: read as %s with %zu functions", what,
			 gopcln__version_name(g), gopcln__count(g));
		snprintf(why, sizeof(werr.msg), "1.%u", v->ver == 12 ? 2 : v->ver % 100);
		TEST_CHECK(n, gopcln__count(g) == NFUNC && !strcmp(gopcln__version_name(g), why));
		for (k = 0; k < NFUNC; k++) {
			const char *name;
			u64 lo, hi;
			int err = gopcln__func(g, k, &lo, &hi, &name);

			snprintf(n, sizeof(n), "%s: function %zu is %s [%#llx, %#llx)", what, k,
				 funcs[k].name, (unsigned long long)(TEXT + funcs[k].lo),
				 (unsigned long long)(TEXT + funcs[k].hi));
			TEST_CHECK(n, !err && !strcmp(name, funcs[k].name) &&
					      lo == TEXT + funcs[k].lo && hi == TEXT + funcs[k].hi);
		}
		expect_at(what, g, 0x0, "main.a", "/src/a.go", 10);
		expect_at(what, g, 0xc, "main.a", "/src/a.go", 10);
		expect_at(what, g, 0x10, "main.a", "/src/a.go", 12);
		expect_at(what, g, 0x3f, "main.a", "/src/a.go", 12);
		expect_at(what, g, 0x40, "main.b", "/src/b.go", 20);
		expect_at(what, g, 0x5f, "main.b", "/src/b.go", 20);
		expect_at(what, g, 0x60, "main.b", "/src/a.go", 25);
		expect_at(what, g, 0xff, "main.b", "/src/a.go", 25);
		expect_at(what, g, 0x100, NULL, NULL, 0);
		expect_at(what, g, (u64)-1 - TEXT, NULL, NULL, 0);
		gopcln__free(g);
	}
	/* 1.18's entries count from text_start when the caller gives one */
	{
		struct gopcln_hit h;
		struct gopcln *g;
		struct tb t;

		build(&t, 118, 8, false, 1);
		g = gopcln__new(t.b, t.n, TEXT + 0x1000, NULL);
		TEST_CHECK("1.18: entries from the text start given, not the header's",
			   g && !gopcln__lookup(g, TEXT + 0x1044, &h) &&
				   !strcmp(h.name, "main.b") && h.line == 20 &&
				   gopcln__lookup(g, TEXT + 0x44, &h) == -ENOENT);
		gopcln__free(g);
	}
}

/* gopcln__new(t) refused, errno EINVAL, code EBS_E_BAD_GOPCLNTAB, the reason holding want. */
static void expect_refused(const char *name, const struct tb *t, size_t n, const char *want)
{
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct gopcln *g;

	errno = 0;
	g = gopcln__new(t->b, n, 0, &werr);
	if (g) {
		TEST_FAIL(name, "read");
		gopcln__free(g);
	} else if (errno != EINVAL || werr.code != EBS_E_BAD_GOPCLNTAB || !strstr(why, want)) {
		TEST_FAIL(name, "errno %d, %s, '%s' (want EINVAL, EBS_E_BAD_GOPCLNTAB, '%s')",
			  errno, ebs_error_code_name(werr.code), why, want);
	} else {
		TEST_OK(name);
	}
}

static void test_refused(void)
{
	struct tb t;
	size_t functab;

	build(&t, 118, 8, false, 1);
	t.b[0] = 0xfe;
	expect_refused("a bad magic", &t, t.n, "unknown Go pclntab magic 0xfffffffe");
	build(&t, 118, 8, false, 1);
	t.b[7] = 3;
	expect_refused("a pointer size of 3", &t, t.n, "no Go pclntab header");
	build(&t, 118, 8, false, 1);
	expect_refused("1.18 header cut short", &t, 40, "header is cut short");
	build(&t, 118, 8, false, 1);
	poke(&t, 8, 1ull << 40, 8);
	expect_refused("1.18: 2^40 functions", &t, t.n, "runs past its end");
	build(&t, 12, 8, false, 1);
	poke(&t, 8, (u64)-1, 8);
	expect_refused("1.2: 2^64 - 1 functions", &t, t.n, "functions in");
	build(&t, 116, 8, false, 1);
	poke(&t, 8 + 6 * 8, t.n + 1, 8);
	expect_refused("1.16: functab offset past the end", &t, t.n, "functab offset");
	build(&t, 118, 8, false, 1);
	poke(&t, 8, 0, 8);
	expect_refused("no functions", &t, t.n, "no functions");
	/* 1.18: the functab is (entryoff, funcoff) u32 pairs */
	build(&t, 118, 8, false, 1);
	memcpy(&functab, t.b + 8 + 7 * 8, sizeof(functab));
	poke(&t, functab + 16, 0x10, 4); /* the end below main.b's start */
	expect_refused("the function table out of order", &t, t.n, "out of order at entry 2");
	build(&t, 118, 8, false, 1);
	poke(&t, functab + 4, 0x7ffffff0, 4);
	expect_refused("a record outside the table", &t, t.n, "function 0's record");
	build(&t, 118, 8, false, 1);
	{
		u32 rec;

		memcpy(&rec, t.b + functab + 12, 4);
		poke(&t, functab + rec + 4, 0x7ffffff0, 4);
	}
	expect_refused("a name outside the table", &t, t.n, "function 1's name");
}

/* Every lookup a reader would make of g, which must stay in bounds. */
static void probe_all(struct gopcln *g)
{
	size_t k, n = gopcln__count(g);
	struct gopcln_hit h;
	u64 pc;

	for (k = 0; k < n; k++) {
		const char *name;
		u64 lo, hi;

		if (!gopcln__func(g, k, &lo, &hi, &name) && strlen(name) > 4096)
			TEST_FAIL("probe", "a name of %zu bytes", strlen(name));
	}
	for (pc = TEXT - 1; pc <= TEXT + 0x101; pc += 3)
		if (!gopcln__lookup(g, pc, &h) && (!h.name || (h.file && strlen(h.file) > 4096)))
			TEST_FAIL("probe", "pc %#llx", (unsigned long long)pc);
}

static void test_truncated(void)
{
	size_t i, n, early;

	for (i = 0; i < NVARIANTS; i++) {
		const struct variant *v = &variants[i];
		char what[160];
		struct tb t;

		build(&t, v->ver, v->ps, v->big, v->q);
		for (n = 0, early = 0; n < t.n; n++) {
			struct gopcln *g = gopcln__new(t.b, n, 0, NULL);

			if (g) {
				early += n + 8 < t.n;
				probe_all(g);
				gopcln__free(g);
			}
		}
		variant_name(what, sizeof(what), v);
		strncat(what, ": cut at every length", sizeof(what) - strlen(what) - 1);
		/*
		 * the records come last: only the unread tail of the last one
		 * (startLine, funcID...: 8 bytes at most) may be cut off
		 */
		TEST_EQ(what, early, 0);
	}
}

static void test_garbled(void)
{
	unsigned int seed = 20261129, i, read = 0;
	size_t k;

	for (i = 0; i < 4000; i++) {
		const struct variant *v = &variants[i % NVARIANTS];
		struct gopcln *g;
		struct tb t;
		unsigned int edits;

		build(&t, v->ver, v->ps, v->big, v->q);
		for (edits = 1 + rand_r(&seed) % 4; edits; edits--) {
			k = (size_t)rand_r(&seed) % t.n;
			t.b[k] = rand_r(&seed) % 3 ? (u8)rand_r(&seed) : t.b[k] ^ 0x80;
		}
		g = gopcln__new(t.b, t.n, 0, NULL);
		if (g) {
			read++;
			probe_all(g);
			gopcln__free(g);
		}
	}
	TEST_CHECK("4000 garbled tables: no crash, some still read", read > 0);
}

TEST_MAIN(NULL, NULL, TEST_CASE(test_versions), TEST_CASE(test_refused), TEST_CASE(test_truncated),
	  TEST_CASE(test_garbled))
