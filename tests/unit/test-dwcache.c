// SPDX-License-Identifier: MIT
/*
 * test-dwcache.c - the cache of decoded DWARF (symbolize/cache.c,
 * symbolize/dwarf_cache.c; docs/symbolize.md, "The cache"):
 *
 *   test_hash       sym_hash64 is XXH64: its published value for no bytes,
 *                   and libxxhash's own (when installed) on 2,000 inputs
 *   test_sizes      EBS_CACHE_MAX's sizes, and what is refused
 *   test_same       every answer the symbolizer gives for a file (lookups
 *                   all over its code, line rows, source spans, line owners,
 *                   warnings) is the same without the cache, with it cold
 *                   and warm: this test program itself (DWARF in the file),
 *                   and libc (a separate, compressed debug file) when its
 *                   debug file is installed
 *   test_corrupt    entries with bytes flipped, cut short, or overwritten
 *                   give the same answers, and are written anew
 *   test_digest     sym_dwarf_digest (digest.c), what an entry is of: the
 *                   same for a copy, for a byte of code changed and for a
 *                   sparse tail of 16 GiB (read: none of it); another for a
 *                   byte of .debug_str, .symtab or the section headers;
 *                   -EFBIG for a section of 2 GiB, read not at all;
 *                   -ENOEXEC for what is not ELF; for a file others may
 *                   write, a copy holding what was hashed and nothing else
 *   test_budget     a unit whose decoding runs out of steps ends there, said
 *                   once and naming the unit, its line rows kept; the units
 *                   that need fewer steps answer as without a limit
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gelf.h>

#include "symbolize/dwarf_int.h"
#include "symbolize/internal.h"
#include "test.h"
#include "tests/tools/rchar.h"

static char dir[64];   /* the test's directory */
static char cache[96]; /* its cache directory */

/* ---- sym_hash64 -------------------------------------------------------- */

static void test_hash(void)
{
	unsigned long long (*xxh64)(const void *, size_t, unsigned long long);
	unsigned char buf[4096];
	void *lib;
	int i, bad = 0;

	TEST_EQ("hash: XXH64 of no bytes, seed 0", sym_hash64("", 0, 0), 0xEF46DB3751D8E999ull);
	lib = dlopen("libxxhash.so.0", RTLD_NOW);
	xxh64 = lib ? (unsigned long long (*)(const void *, size_t, unsigned long long))dlsym(
			      lib, "XXH64")
		    : NULL;
	if (!xxh64) {
		TEST_SKIP("hash: as libxxhash's XXH64", "libxxhash.so.0 is not installed");
		if (lib)
			dlclose(lib);
		return;
	}
	srand(7);
	for (i = 0; i < (int)sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	for (i = 0; i < 2000; i++) {
		size_t len = i < 200 ? (size_t)i : (size_t)rand() % sizeof(buf);
		size_t off = (size_t)rand() % (sizeof(buf) - len + 1);
		u64 seed = i % 3 ? (u64)rand() << 32 | (u64)rand() : 0;

		if (sym_hash64(buf + off, len, seed) != xxh64(buf + off, len, seed) && !bad++)
			TEST_FAIL("hash: as libxxhash's XXH64", "length %zu, seed %llx", len,
				  (unsigned long long)seed);
	}
	if (!bad)
		TEST_OK("hash: as libxxhash's XXH64, 2000 inputs of 0 to 4096 bytes");
	dlclose(lib);
}

/* ---- EBS_CACHE_MAX -------------------------------------------------------- */

static void test_sizes(void)
{
	static const struct {
		const char *text;
		int err;
		u64 want;
	} cases[] = {
		{"0", 0, 0},
		{"4096", 0, 4096},
		{"100k", 0, 100ull << 10},
		{"64M", 0, 64ull << 20},
		{"512MiB", 0, 512ull << 20},
		{"2G", 0, 2ull << 30},
		{"3GB", 0, 3ull << 30},
		{"", -EINVAL, 0},
		{"M", -EINVAL, 0},
		{"-1", -EINVAL, 0},
		{" 1", -EINVAL, 0},
		{"12x", -EINVAL, 0},
		{"1Mx", -EINVAL, 0},
		{"99999999999999999999", -EINVAL, 0},
		{"17179869184G", -EINVAL, 0},
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 v = 0;
		int e = sym_cache_parse_size(cases[i].text, &v);
		char name[96];

		snprintf(name, sizeof(name), "sizes: '%s'", cases[i].text);
		if (e != cases[i].err || (!e && v != cases[i].want))
			TEST_FAIL(name, "got %d, %llu", e, (unsigned long long)v);
		else
			TEST_OK(name);
	}
}

/* ---- the same answers ----------------------------------------------------- */

struct text {
	char *buf;
	size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap ? 2 * t->cap + (size_t)n : 1 << 20;
		t->buf = realloc(t->buf, t->cap);
		if (!t->buf)
			abort();
	}
	t->len += (size_t)n;
}

static void warn_cb(void *ctx, enum ebs_code code, const char *line)
{
	(void)code;
	put(ctx, "%s\n", line);
}

static int row_cb(void *ctx, const struct sym_row *r)
{
	put(ctx, "row %llx %s:%u%s\n", (unsigned long long)r->addr, r->file ? r->file : "?",
	    r->line, r->inlined ? " inlined" : "");
	return 0;
}

/* The executable PT_LOAD of an ELF64 file: [*lo, *hi). */
static int text_of(const char *path, u64 *lo, u64 *hi)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC), i, r = -ENOENT;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) == sizeof(eh) && eh.e_ident[EI_CLASS] == ELFCLASS64)
		for (i = 0; i < eh.e_phnum; i++)
			if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + i * sizeof(ph))) ==
				    sizeof(ph) &&
			    ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
				*lo = ph.p_vaddr;
				*hi = ph.p_vaddr + ph.p_memsz;
				r = 0;
				break;
			}
	close(fd);
	return r;
}

/*
 * Everything the symbolizer answers about path's code, as text: a lookup
 * every step bytes, its frames, the source span and a line owner there,
 * and every line row.  with_cache: through the cache at cache[].
 */
static u64 span_max = UINT64_MAX; /* of the code looked at */

static int answers(const char *path, bool with_cache, u64 step, struct text *t,
		   const char **debug_path)
{
	struct symbolize_opts so = {
		.demangle = true,
		.cache = with_cache,
		.cache_dir = cache,
		.warn = warn_cb,
		.warn_ctx = t,
	};
	struct symbolizer *s = symbolizer__new(&so);
	struct sym_result r;
	u64 lo = 0, hi = 0, a;
	unsigned int i;
	int e;

	if (!s)
		return -ENOMEM;
	e = text_of(path, &lo, &hi);
	if (!e)
		e = symbolizer__lookup_file(s, path, lo, &r);
	if (e || !r.info) {
		symbolizer__free(s);
		return e ? e : -ENOENT;
	}
	if (debug_path)
		*debug_path = r.info->debug_path ? "yes" : NULL;
	if (hi - lo > span_max)
		hi = lo + span_max;
	for (a = lo; a < hi; a += step) {
		struct sym_span sp;
		const char *owner;

		if (symbolizer__lookup_file(s, path, a, &r))
			break;
		put(t, "%llx %s+%llx:", (unsigned long long)a, r.function ? r.function : "?",
		    (unsigned long long)r.sym_offset);
		for (i = 0; i < r.nr_frames; i++)
			put(t, " [%s %s:%u:%u]", r.frames[i].function ? r.frames[i].function : "?",
			    r.frames[i].file ? r.frames[i].file : "?", r.frames[i].line,
			    r.frames[i].column);
		e = symbolizer__source_span(s, r.info, a, &sp);
		if (!e)
			put(t, " span %s %s %u-%u", sp.function ? sp.function : "?",
			    sp.file ? sp.file : "?", sp.first, sp.limit);
		if (r.file) {
			owner = symbolizer__line_owner(s, r.info, a, r.file, r.line);
			put(t, " owner %s", owner ? owner : "-");
		}
		put(t, "\n");
	}
	symbolizer__rows(s, r.info, lo, hi, row_cb, t);
	symbolizer__free(s); /* writes the entry */
	return 0;
}

/* The one entry in the cache directory: its name into name. */
static int entry_of(char *name, size_t len, const char *not_this)
{
	char cmd[256];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls %s | grep '\\.dwarf$'", cache);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(name, (int)len, p)) {
		name[strcspn(name, "\n")] = 0;
		if (!not_this || strcmp(name, not_this)) {
			n++;
			break;
		}
	}
	pclose(p);
	return n ? 0 : -1;
}

static void clear_cache(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", cache);
	if (system(cmd))
		abort();
}

static bool same(const struct text *a, const struct text *b)
{
	return a->len == b->len && !memcmp(a->buf, b->buf, a->len);
}

/* A file's answers, without, cold and warm: ref gets them. */
static bool check_same(const char *what, const char *path, u64 step, struct text *ref)
{
	struct text cold = {0}, warm = {0};
	const char *dbg = NULL;
	char name[160], entry[128];
	struct stat st;
	int e;

	clear_cache();
	e = answers(path, false, step, ref, &dbg);
	snprintf(name, sizeof(name), "same: %s: answers without the cache", what);
	if (e || !dbg) {
		TEST_SKIP(name, "%s: %s", path, e ? strerror(-e) : "no DWARF for it");
		return false;
	}
	TEST_CHECK(name, ref->len > 1000 && stat(cache, &st) && errno == ENOENT);
	answers(path, true, step, &cold, NULL);
	snprintf(name, sizeof(name), "same: %s: with the cache cold: the same, an entry written",
		 what);
	TEST_CHECK(name, same(ref, &cold) && !entry_of(entry, sizeof(entry), NULL));
	answers(path, true, step, &warm, NULL);
	snprintf(name, sizeof(name), "same: %s: with the cache warm: the same", what);
	TEST_CHECK(name, same(ref, &warm));
	free(cold.buf);
	free(warm.buf);
	return true;
}

/* ---- corrupt entries --------------------------------------------------------- */

static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *b;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) || !(b = malloc((size_t)st.st_size + 1)) ||
	    read(fd, b, (size_t)st.st_size) != st.st_size) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	close(fd);
	*len = (size_t)st.st_size;
	return b;
}

static void spit(const char *path, const unsigned char *b, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0 || write(fd, b, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void test_corrupt(const char *path, u64 step, const struct text *ref, int runs)
{
	char entry[128], epath[256];
	unsigned char *good, *bad;
	size_t len, blen;
	int i, changed = 0, kept = 0;

	if (entry_of(entry, sizeof(entry), NULL)) {
		TEST_SKIP("corrupt", "no entry");
		return;
	}
	snprintf(epath, sizeof(epath), "%s/%s", cache, entry);
	good = slurp(epath, &len);
	bad = good ? malloc(len + 1) : NULL;
	if (!bad) {
		TEST_FAIL("corrupt", "cannot read %s", epath);
		free(good);
		return;
	}
	srand(11);
	for (i = 0; i < runs; i++) {
		struct text t = {0};
		unsigned char *after;
		size_t alen;
		int k, kind = i % 8;

		memcpy(bad, good, len);
		blen = len;
		if (kind < 5) { /* bits flipped: header, index, anywhere */
			for (k = 0; k <= kind; k++) {
				size_t at = kind == 0	? (size_t)rand() % 176
					    : kind == 1 ? len - 1 -
								  (size_t)rand() %
									  (len < 4096 ? len : 4096)
							: (size_t)rand() % len;

				bad[at] ^= (unsigned char)(1u << (rand() % 8));
			}
		} else if (kind == 5) {
			blen = (size_t)rand() % len;
		} else if (kind == 6) { /* a run of garbage */
			size_t at = (size_t)rand() % len, n = 1 + (size_t)rand() % 64;

			for (k = 0; (size_t)k < n && at + (size_t)k < len; k++)
				bad[at + (size_t)k] = (unsigned char)rand();
		} else { /* a block's byte: the middle of the file */
			bad[len / 2] ^= 0x40;
		}
		spit(epath, bad, blen);
		answers(path, true, step, &t, NULL);
		if (!same(ref, &t) && !changed++)
			TEST_FAIL("corrupt: the same answers", "run %d (kind %d) differs", i, kind);
		after = slurp(epath, &alen);
		/* every kind here breaks something this file's answers read */
		if (after && alen == blen && !memcmp(after, bad, blen) && !kept++)
			TEST_FAIL("corrupt: an entry that does not hold is written anew",
				  "run %d (kind %d) left it", i, kind);
		free(after);
		free(t.buf);
	}
	if (!changed) {
		char name[96];

		snprintf(name, sizeof(name), "corrupt: the same answers over %d corrupt entries",
			 runs);
		TEST_OK(name);
	}
	if (!kept)
		TEST_OK("corrupt: an entry that does not hold is written anew");
	spit(epath, good, len);
	free(good);
	free(bad);
}

/* ---- what an entry is of ---------------------------------------------------- */

/* Where section name of the ELF file at path is: its offset, size, header's offset. */
static int section_at(const char *path, const char *name, u64 *off, u64 *size, u64 *hdr)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -ENOENT;
	size_t shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh) && !elf_getshdrstrndx(e, &shstrndx))
		while (r && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n;

			if (gelf_getshdr(scn, &sh) && (n = elf_strptr(e, shstrndx, sh.sh_name)) &&
			    !strcmp(n, name)) {
				*off = sh.sh_offset;
				*size = sh.sh_size;
				*hdr = eh.e_shoff + elf_ndxscn(scn) * eh.e_shentsize;
				r = 0;
			}
		}
	elf_end(e);
	close(fd);
	return r;
}

/* The digest of the file at path (with its copy, closed, when made): 0 or -errno. */
static int digest_of(const char *path, u8 out[SYM_DIGEST_LEN], bool *copied, u64 *read)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), copy, e;
	u64 before = rchar_so_far();

	if (fd < 0)
		return -errno;
	e = sym_dwarf_digest(fd, &copy, out);
	if (read)
		*read = rchar_so_far() - before;
	if (copied)
		*copied = copy >= 0;
	if (copy >= 0)
		close(copy);
	close(fd);
	return e;
}

/* A copy of good (len bytes) at path, with byte at flipped (at == len: none). */
static void variant(const char *path, const unsigned char *good, size_t len, size_t at)
{
	unsigned char *b = malloc(len);

	if (!b)
		abort();
	memcpy(b, good, len);
	if (at < len)
		b[at] ^= 0x20;
	spit(path, b, len);
	free(b);
}

static void test_digest(const char *exe)
{
	u8 want[SYM_DIGEST_LEN], got[SYM_DIGEST_LEN];
	u64 text, text_len, str, str_len, sym, sym_len, info, info_len, hdr, rd = 0;
	char path[256], name[160];
	unsigned char *good;
	size_t len;
	bool copied = true;
	int fd, e, copy;

	elf_version(EV_CURRENT); /* as symbolizer__new does */
	snprintf(path, sizeof(path), "%s/digest", dir);
	good = slurp(exe, &len);
	if (!good || section_at(exe, ".text", &text, &text_len, &hdr) ||
	    section_at(exe, ".debug_str", &str, &str_len, &hdr) ||
	    section_at(exe, ".symtab", &sym, &sym_len, &hdr) ||
	    section_at(exe, ".debug_info", &info, &info_len, &hdr) || !text_len || !str_len ||
	    !sym_len) {
		TEST_SKIP("digest", "%s: no .text, .debug_str, .symtab and .debug_info", exe);
		free(good);
		return;
	}
	TEST_EQ("digest: this program", digest_of(exe, want, NULL, NULL), 0);
	variant(path, good, len, len);
	chmod(path, 0644);
	e = digest_of(path, got, &copied, NULL);
	TEST_CHECK("digest: a copy (mode 0644, ours): the same, no copy of it made",
		   !e && !copied && !memcmp(got, want, sizeof(got)));
	variant(path, good, len, (size_t)(text + text_len / 2));
	e = digest_of(path, got, NULL, NULL);
	TEST_CHECK("digest: a byte of .text changed: the same (decoding reads no code)",
		   !e && !memcmp(got, want, sizeof(got)));
	variant(path, good, len, (size_t)(str + str_len / 2));
	e = digest_of(path, got, NULL, NULL);
	TEST_CHECK("digest: a byte of .debug_str changed: another",
		   !e && memcmp(got, want, sizeof(got)));
	variant(path, good, len, (size_t)(sym + sym_len / 2));
	e = digest_of(path, got, NULL, NULL);
	TEST_CHECK("digest: a byte of .symtab changed: another (libdwarf reads it)",
		   !e && memcmp(got, want, sizeof(got)));
	variant(path, good, len, (size_t)(hdr + 8)); /* .debug_info's sh_flags */
	e = digest_of(path, got, NULL, NULL);
	TEST_CHECK("digest: a section header changed: another",
		   !e && memcmp(got, want, sizeof(got)));

	/* a sparse tail of 16 GiB: neither read nor hashed */
	variant(path, good, len, len);
	if (truncate(path, (off_t)len + (16ll << 30))) {
		TEST_SKIP("digest: a sparse tail", "truncate %s: %s", path, strerror(errno));
	} else {
		e = digest_of(path, got, NULL, &rd);
		snprintf(
			name, sizeof(name),
			"digest: a sparse tail of 16 GiB: the same, %llu bytes read (%zu the file's)",
			(unsigned long long)rd, len);
		TEST_CHECK(name, !e && !memcmp(got, want, sizeof(got)) && rd <= len);
	}

	/* .debug_info said to be 2 GiB (inside the file, sparse): over the cap, not read */
	variant(path, good, len, len);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd >= 0) {
		u64 big = 2ull << 30;

		if (pwrite(fd, &big, sizeof(big), (off_t)(hdr + 32)) != sizeof(big) || /* sh_size */
		    ftruncate(fd, (off_t)(info + big)))
			abort();
		close(fd);
	}
	e = digest_of(path, got, NULL, &rd);
	snprintf(name, sizeof(name),
		 "digest: a .debug_info of 2 GiB: -EFBIG (got %d), %llu bytes read", e,
		 (unsigned long long)rd);
	TEST_CHECK(name, e == -EFBIG && rd < (1u << 20));

	spit(path, (const unsigned char *)"not an ELF file\n", 16);
	TEST_EQ("digest: not ELF: -ENOEXEC", digest_of(path, got, NULL, NULL), -ENOEXEC);
	spit(path, (const unsigned char *)"", 0);
	TEST_EQ("digest: an empty file: -ENOEXEC", digest_of(path, got, NULL, NULL), -ENOEXEC);

	/* writable by the group: read from a copy of what was hashed, and only that */
	variant(path, good, len, len);
	chmod(path, 0664);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	e = fd < 0 ? -errno : sym_dwarf_digest(fd, &copy, got);
	if (!e && copy >= 0) {
		unsigned char *c = malloc(len);
		struct stat st;
		bool same = c && !fstat(copy, &st) && (u64)st.st_size == len &&
			    pread(copy, c, len, 0) == (ssize_t)len;
		size_t i, zero = 0;

		same = same && !memcmp(c + str, good + str, str_len) &&
		       !memcmp(c + info, good + info, info_len) && !memcmp(got, want, sizeof(got));
		for (i = 0; same && i < text_len; i++)
			zero += !c[text + i];
		TEST_CHECK(
			"digest: a file others may write (0664): a copy of its size, its DWARF as hashed, "
			"its code not copied",
			same && zero == text_len);
		free(c);
		close(copy);
	} else {
		TEST_FAIL("digest: a file others may write (0664): a copy", "digest %d, copy %d", e,
			  e ? -1 : copy);
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(good);
}

/*
 * dwarf_sort_rows against qsort by dwarf_row_cmp: line tables of sequences
 * in shuffled order, in order, overlapping, with repeated addresses and
 * ends at the next one's start: the one sorted order each time.
 */
static void test_sort_rows(void)
{
	static struct dw_row a[4096], b[4096];
	unsigned int seed = 7, round, bad = 0;

	for (round = 0; round < 400; round++) {
		size_t n = 0, nseq = 1 + rand_r(&seed) % 40, s, i;
		bool overlap = round % 4 == 3, ordered = round % 4 == 2;
		u64 base[40];

		for (s = 0; s < nseq; s++)
			base[s] = (ordered ? (u64)s : (u64)(rand_r(&seed) % 1000)) *
				  (overlap ? 16 : 4096);
		for (s = 0; s < nseq; s++) {
			size_t len = 1 + rand_r(&seed) % 90;
			u64 at = base[s];

			for (i = 0; i < len && n < 4095; i++) {
				at += rand_r(&seed) % 3; /* repeated addresses too */
				a[n] = (struct dw_row){at, 1, (u32)i, 0, (u32)n << 1};
				n++;
			}
			/* the end: at the next sequence's start, sometimes */
			a[n] = (struct dw_row){round % 3 ? at + 1 : base[(s + 1) % nseq], NO_SCOPE,
					       0, 0, (u32)n << 1 | ROW_END};
			n++;
		}
		memcpy(b, a, n * sizeof(*a));
		qsort(b, n, sizeof(*b), dwarf_row_cmp);
		dwarf_sort_rows(a, n);
		bad += memcmp(a, b, n * sizeof(*a)) != 0;
	}
	TEST_EQ("dwarf_sort_rows: 400 line tables sorted as qsort sorts them", bad, 0);
}

/* ---- the steps of a unit's decoding ------------------------------------------ */

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* n frames of a and m of b alike: functions, files, lines, columns. */
static bool same_frames(const struct sym_frame *a, int n, const struct sym_frame *b, int m)
{
	int i;

	if (n != m)
		return false;
	for (i = 0; i < n; i++)
		if (!same_text(a[i].function, b[i].function) || !same_text(a[i].file, b[i].file) ||
		    a[i].line != b[i].line || a[i].column != b[i].column)
			return false;
	return true;
}

/*
 * dwarf.c counts each unit's steps (a DIE read, a reference followed)
 * against a budget of STEPS_PER_BYTE a byte of the unit, which no unit
 * needs (a tenth is usual): met, the unit's decoding ends there.  Met here
 * through steps_cap, a lower budget for each unit: this program's units
 * that need more than 200 steps end early, with one problem naming the
 * unit, and keep their line rows; the small ones answer as without it.
 */
static void test_budget(const char *exe)
{
	struct dwarf_info *full, *capped;
	struct sym_frame fa[16], fb[16];
	unsigned int n = 0, lined = 0, lines = 0, same = 0;
	u64 lo = 0, hi = 0, a;
	const char *p;
	struct ebs_error werr = {0};

	full = text_of(exe, &lo, &hi) ? NULL : dwarf_info__open(exe, true, true, NULL, &werr);
	capped = full ? dwarf_info__open(exe, true, true, NULL, &werr) : NULL;
	if (!capped) {
		TEST_SKIP("budget", "%s: no DWARF read", exe);
		dwarf_info__free(full);
		return;
	}
	capped->steps_cap = 200;
	for (a = lo; a < hi; a += 13) {
		int na = dwarf_info__lookup(full, a, fa, 16);
		int nb = dwarf_info__lookup(capped, a, fb, 16);

		if (!na)
			continue;
		n++;
		/* an address in a function's scope but in no line row (a gap
		 * the line table leaves) has no line to keep */
		if (fa[0].file && fa[0].line) {
			lined++;
			if (nb && same_text(fa[0].file, fb[0].file))
				lines += fa[0].line == fb[0].line;
		}
		same += same_frames(fa, na, fb, nb);
	}
	p = dwarf_info__problem(capped);
	TEST_CHECK("budget: a unit out of steps says so, naming it",
		   p && !strncmp(p, "the unit at .debug_info offset ", 31) &&
			   strstr(p, ": its DIEs take more steps than its "));
	TEST_CHECK("budget: no unit of this program comes near STEPS_PER_BYTE",
		   !dwarf_info__problem(full));
	if (!lined || lines != lined)
		TEST_FAIL("budget: every address keeps its line", "%u of %u", lines, lined);
	else
		TEST_OK("budget: every address keeps its line");
	if (!same || same == n)
		TEST_FAIL("budget: small units answer as without a budget, others lose scopes",
			  "%u of %u answers alike", same, n);
	else
		TEST_OK("budget: small units answer as without a budget, others lose scopes");
	dwarf_info__free(full);
	dwarf_info__free(capped);
}

static int setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/ebs-test-dwcache.XXXXXX");
	if (!mkdtemp(dir)) {
		TEST_FAIL("setup", "mkdtemp: %s", strerror(errno));
		return -1;
	}
	snprintf(cache, sizeof(cache), "%s/ebs", dir);
	return 0;
}

static void teardown(void)
{
	clear_cache();
	rmdir(dir);
}

/* The cache of this program's own DWARF: the same text, corrupted, over budget. */
static void test_self(void)
{
	struct text ref = {0};
	char exe[4096];
	ssize_t n;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		TEST_FAIL("self", "readlink /proc/self/exe: %s", strerror(errno));
		return;
	}
	exe[n] = 0;
	test_digest(exe);
	/*
	 * Every 13th byte for the answers; every 97th over the corrupt entries,
	 * each of which costs a decode and a pass of lookups (ten times fewer:
	 * 190 s to 51 s under the sanitizers, beside other work).
	 */
	if (check_same("this program", exe, 13, &ref)) {
		free(ref.buf);
		memset(&ref, 0, sizeof(ref));
		if (!answers(exe, false, 97, &ref, NULL))
			test_corrupt(exe, 97, &ref, 120);
	}
	test_budget(exe);
	free(ref.buf);
}

static void test_libc(void)
{
	struct text ref = {0};

	span_max = 256 << 10; /* libc's first units: every one would take seconds */
	check_same("libc", "/lib/x86_64-linux-gnu/libc.so.6", 61, &ref);
	free(ref.buf);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_hash), TEST_CASE(test_sizes), TEST_CASE(test_sort_rows),
	  TEST_CASE(test_self), TEST_CASE(test_libc))
