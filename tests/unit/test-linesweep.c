// SPDX-License-Identifier: MIT
/*
 * test-linesweep.c - how symbolize/dwarf.c turns a unit's line program and
 * DIE tree into its address index (decode_lines: the rows, sorted;
 * build_segments: the sweep over the scopes' ranges), docs/symbolize.md
 * section 5.
 *
 *   test_fixture   a small ELF file written here byte by byte (no compiler:
 *                  DWARF 4, one unit, three sequences in the table out of
 *                  address order, two rows at one address, line 0, a file
 *                  switch, a sequence ending where the next begins; inlined
 *                  scopes nested, equal, overlapping without nesting, and
 *                  tied), read through the internal API (dwarf_info__*):
 *                  every lookup and every row has one exact answer
 *   test_workloads the workloads the Makefile builds (hotline, inlmany),
 *                  through the public API, on facts that hold whatever the
 *                  compiler: the source lines found by their marker
 *                  comments at test time, the inline chains of
 *                  always_inline helpers, the rows agreeing with the
 *                  lookups at every address of a function
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/internal.h"
#include "test.h"

static char tmpdir[64];

static bool ends_with(const char *s, const char *tail)
{
	size_t ls = s ? strlen(s) : 0, lt = strlen(tail);

	return s && ls >= lt && !strcmp(s + ls - lt, tail);
}

/* ---- a byte buffer --------------------------------------------------------- */

struct buf {
	unsigned char b[4096];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t len)
{
	if (b->n + len > sizeof(b->b))
		abort();
	memcpy(b->b + b->n, p, len);
	b->n += len;
}

static void u8_(struct buf *b, unsigned int v)
{
	unsigned char c = (unsigned char)v;

	put(b, &c, 1);
}

static void u16_(struct buf *b, u16 v)
{
	put(b, &v, 2);
}
static void u32_(struct buf *b, u32 v)
{
	put(b, &v, 4);
}
static void u64_(struct buf *b, u64 v)
{
	put(b, &v, 8);
}
static void str_(struct buf *b, const char *s)
{
	put(b, s, strlen(s) + 1);
}

static void uleb(struct buf *b, u64 v)
{
	do {
		unsigned int c = v & 0x7f;

		v >>= 7;
		u8_(b, c | (v ? 0x80 : 0));
	} while (v);
}

static void sleb(struct buf *b, long long v)
{
	for (;;) {
		unsigned int c = (unsigned int)v & 0x7f;

		v >>= 7;
		if ((v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40))) {
			u8_(b, c);
			return;
		}
		u8_(b, c | 0x80);
	}
}

static void patch32(struct buf *b, size_t at, u32 v)
{
	memcpy(b->b + at, &v, 4);
}

/* ---- the fixture ------------------------------------------------------------ */

/* DWARF constants, from the standard (no <dwarf.h>: only symbolize/ includes libdwarf's) */
enum {
	TAG_compile_unit = 0x11,
	TAG_subprogram = 0x2e,
	TAG_inlined_subroutine = 0x1d,
	AT_name = 0x03,
	AT_stmt_list = 0x10,
	AT_low_pc = 0x11,
	AT_high_pc = 0x12,
	AT_comp_dir = 0x1b,
	AT_inline = 0x20,
	AT_producer = 0x25,
	AT_abstract_origin = 0x31,
	AT_decl_file = 0x3a,
	AT_decl_line = 0x3b,
	AT_call_file = 0x58,
	AT_call_line = 0x59,
	FORM_addr = 0x01,
	FORM_data8 = 0x07,
	FORM_string = 0x08,
	FORM_data1 = 0x0b,
	FORM_ref4 = 0x13,
	FORM_sec_offset = 0x17,
	LNS_copy = 1,
	LNS_advance_pc = 2,
	LNS_advance_line = 3,
	LNS_set_file = 4,
	LNE_end_sequence = 1,
	LNE_set_address = 2,
};

enum { AB_CU = 1, AB_FUNC, AB_ABSTRACT, AB_INLINED };

static void abbrev(struct buf *b, unsigned int code, unsigned int tag, bool children, ...)
{
	va_list ap;
	unsigned int at;

	uleb(b, code);
	uleb(b, tag);
	u8_(b, children);
	va_start(ap, children);
	while ((at = va_arg(ap, unsigned int))) {
		uleb(b, at);
		uleb(b, va_arg(ap, unsigned int));
	}
	va_end(ap);
	u8_(b, 0);
	u8_(b, 0);
}

static void func(struct buf *b, const char *name, u64 lo, u64 len, unsigned int line)
{
	uleb(b, AB_FUNC);
	str_(b, name);
	u64_(b, lo);
	u64_(b, len);
	u8_(b, 1);
	u8_(b, line);
}

/* An inlined instance, its children to follow and then a 0. */
static void inlined(struct buf *b, u32 origin, u64 lo, u64 len, unsigned int file,
		    unsigned int line)
{
	uleb(b, AB_INLINED);
	u32_(b, origin);
	u64_(b, lo);
	u64_(b, len);
	u8_(b, file);
	u8_(b, line);
}

static u32 abstract(struct buf *b, size_t cu_start, const char *name)
{
	u32 off = (u32)(b->n - cu_start);

	uleb(b, AB_ABSTRACT);
	str_(b, name);
	u8_(b, 3); /* DW_INL_declared_inlined */
	return off;
}

/*
 * The unit: a.c (file 1) and b.h (file 2) in /src.
 *
 *   outer  [0x1000,0x1100) declared at a.c:10
 *     inner  inlined [0x1040,0x1060) called at a.c:20
 *       deep inlined [0x1040,0x1060) (the same range) called at b.h:6
 *     tail   inlined [0x1050,0x1080) called at a.c:21 (overlaps inner, not nested)
 *     tail2  inlined [0x1070,0x1090) called at a.c:22 (ties with tail, later in DIE order)
 *   other  [0x1100,0x1110) declared at a.c:29
 *   early  [0x0f00,0x0f10) declared at a.c:39
 */
static void debug_info(struct buf *ab, struct buf *in)
{
	size_t cu;
	u32 o_inner, o_deep, o_tail, o_tail2;

	abbrev(ab, AB_CU, TAG_compile_unit, true, AT_name, FORM_string, AT_comp_dir, FORM_string,
	       AT_producer, FORM_string, AT_low_pc, FORM_addr, AT_high_pc, FORM_data8, AT_stmt_list,
	       FORM_sec_offset, 0);
	abbrev(ab, AB_FUNC, TAG_subprogram, true, AT_name, FORM_string, AT_low_pc, FORM_addr,
	       AT_high_pc, FORM_data8, AT_decl_file, FORM_data1, AT_decl_line, FORM_data1, 0);
	abbrev(ab, AB_ABSTRACT, TAG_subprogram, false, AT_name, FORM_string, AT_inline, FORM_data1,
	       0);
	abbrev(ab, AB_INLINED, TAG_inlined_subroutine, true, AT_abstract_origin, FORM_ref4,
	       AT_low_pc, FORM_addr, AT_high_pc, FORM_data8, AT_call_file, FORM_data1, AT_call_line,
	       FORM_data1, 0);
	u8_(ab, 0);

	cu = in->n;
	u32_(in, 0); /* unit_length, patched */
	u16_(in, 4); /* version */
	u32_(in, 0); /* debug_abbrev_offset */
	u8_(in, 8);  /* address_size */
	uleb(in, AB_CU);
	str_(in, "a.c");
	str_(in, "/src");
	str_(in, "handmade");
	u64_(in, 0xf00);
	u64_(in, 0x300);
	u32_(in, 0); /* stmt_list */
	o_inner = abstract(in, cu, "inner");
	o_deep = abstract(in, cu, "deep");
	o_tail = abstract(in, cu, "tail");
	o_tail2 = abstract(in, cu, "tail2");
	func(in, "outer", 0x1000, 0x100, 10);
	inlined(in, o_inner, 0x1040, 0x20, 1, 20);
	inlined(in, o_deep, 0x1040, 0x20, 2, 6);
	u8_(in, 0);
	u8_(in, 0);
	inlined(in, o_tail, 0x1050, 0x30, 1, 21);
	u8_(in, 0);
	inlined(in, o_tail2, 0x1070, 0x20, 1, 22);
	u8_(in, 0);
	u8_(in, 0); /* outer's children */
	func(in, "other", 0x1100, 0x10, 29);
	u8_(in, 0);
	func(in, "early", 0xf00, 0x10, 39);
	u8_(in, 0);
	u8_(in, 0); /* the unit's children */
	patch32(in, cu, (u32)(in->n - cu - 4));
}

static void set_address(struct buf *b, u64 a)
{
	u8_(b, 0);
	uleb(b, 9);
	u8_(b, LNE_set_address);
	u64_(b, a);
}

static void end_sequence(struct buf *b)
{
	u8_(b, 0);
	uleb(b, 1);
	u8_(b, LNE_end_sequence);
}

static void row(struct buf *b, u64 advance, long long lines)
{
	if (advance) {
		u8_(b, LNS_advance_pc);
		uleb(b, advance);
	}
	if (lines) {
		u8_(b, LNS_advance_line);
		sleb(b, lines);
	}
	u8_(b, LNS_copy);
}

static void set_file(struct buf *b, unsigned int f)
{
	u8_(b, LNS_set_file);
	uleb(b, f);
}

/*
 * The line table, in this order:
 *   0x1000 a.c:10, 0x1000 a.c:11 (the last at an address wins), 0x1010 :12,
 *   0x1020 line 0, 0x1030 :13, 0x1040 b.h:5, 0x1060 a.c:14, end at 0x1100;
 *   0x1100 a.c:30 (where the first sequence ended), end at 0x1110;
 *   0x0f00 a.c:40 (lower addresses, later in the table), end at 0x0f10.
 */
static void debug_line(struct buf *ln)
{
	static const unsigned char std_lengths[12] = {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1};
	size_t start = ln->n, hlen_at;

	u32_(ln, 0); /* unit_length, patched */
	u16_(ln, 4);
	hlen_at = ln->n;
	u32_(ln, 0);			  /* header_length, patched */
	u8_(ln, 1);			  /* minimum_instruction_length */
	u8_(ln, 1);			  /* maximum_operations_per_instruction */
	u8_(ln, 1);			  /* default_is_stmt */
	u8_(ln, (unsigned int)-5 & 0xff); /* line_base */
	u8_(ln, 14);			  /* line_range */
	u8_(ln, 13);			  /* opcode_base */
	put(ln, std_lengths, sizeof(std_lengths));
	u8_(ln, 0); /* no include directories */
	str_(ln, "a.c");
	uleb(ln, 0);
	uleb(ln, 0);
	uleb(ln, 0);
	str_(ln, "b.h");
	uleb(ln, 0);
	uleb(ln, 0);
	uleb(ln, 0);
	u8_(ln, 0);
	patch32(ln, hlen_at, (u32)(ln->n - hlen_at - 4));

	set_address(ln, 0x1000);
	row(ln, 0, 9);	    /* 0x1000 :10 */
	row(ln, 0, 1);	    /* 0x1000 :11 */
	row(ln, 0x10, 1);   /* 0x1010 :12 */
	row(ln, 0x10, -12); /* 0x1020 :0 */
	row(ln, 0x10, 13);  /* 0x1030 :13 */
	set_file(ln, 2);
	row(ln, 0x10, -8); /* 0x1040 b.h:5 */
	set_file(ln, 1);
	row(ln, 0x20, 9); /* 0x1060 a.c:14 */
	u8_(ln, LNS_advance_pc);
	uleb(ln, 0xa0);
	end_sequence(ln); /* 0x1100 */
	set_address(ln, 0x1100);
	row(ln, 0, 29); /* 0x1100 :30 */
	u8_(ln, LNS_advance_pc);
	uleb(ln, 0x10);
	end_sequence(ln); /* 0x1110 */
	set_address(ln, 0xf00);
	row(ln, 0, 39); /* 0x0f00 :40 */
	u8_(ln, LNS_advance_pc);
	uleb(ln, 0x10);
	end_sequence(ln); /* 0x0f10 */
	patch32(ln, start, (u32)(ln->n - start - 4));
}

/* An ELF64 x86-64 executable holding only the three DWARF sections (and .text's header). */
static int write_fixture(const char *path)
{
	static struct buf ab, in, ln, shstr;
	static const char *const names[] = {
		"", ".text", ".debug_abbrev", ".debug_info", ".debug_line", ".shstrtab"};
	struct buf *data[] = {NULL, NULL, &ab, &in, &ln, &shstr};
	Elf64_Shdr sh[6];
	Elf64_Ehdr eh;
	u32 name_off[6];
	size_t off, i;
	int fd, e = 0;

	debug_info(&ab, &in);
	debug_line(&ln);
	for (i = 0; i < 6; i++) {
		name_off[i] = (u32)shstr.n;
		str_(&shstr, names[i]);
	}
	memset(&eh, 0, sizeof(eh));
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 6;
	eh.e_shstrndx = 5;
	memset(sh, 0, sizeof(sh));
	off = sizeof(eh);
	for (i = 1; i < 6; i++) {
		sh[i].sh_name = name_off[i];
		sh[i].sh_type = i == 1 ? SHT_NOBITS : i == 5 ? SHT_STRTAB : SHT_PROGBITS;
		sh[i].sh_addralign = 1;
		sh[i].sh_offset = off;
		if (i == 1) {
			sh[i].sh_flags = SHF_ALLOC | SHF_EXECINSTR;
			sh[i].sh_addr = 0xf00;
			sh[i].sh_size = 0x300;
			continue;
		}
		sh[i].sh_size = data[i]->n;
		off += data[i]->n;
	}
	off = (off + 7) & ~(size_t)7;
	eh.e_shoff = off;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, &eh, sizeof(eh)) != (ssize_t)sizeof(eh))
		e = -EIO;
	for (i = 2; i < 6 && !e; i++)
		if (write(fd, data[i]->b, data[i]->n) != (ssize_t)data[i]->n)
			e = -EIO;
	if (!e && (pwrite(fd, sh, sizeof(sh), (off_t)off) != (ssize_t)sizeof(sh)))
		e = -EIO;
	close(fd);
	return e;
}

/* ---- checks on the fixture --------------------------------------------------- */

struct want_frame {
	const char *function, *file; /* file: its last component; NULL: none */
	u32 line;
};

/* Does the chain at addr read exactly as want (n frames)? */
static void check_chain(struct dwarf_info *di, const char *name, u64 addr,
			const struct want_frame *want, int n)
{
	struct sym_frame fr[8];
	char got[512] = "";
	int i, k = dwarf_info__lookup(di, addr, fr, 8);
	bool ok = k == n;

	for (i = 0; i < k && i < 8; i++) {
		size_t l = strlen(got);
		const char *f = fr[i].file ? strrchr(fr[i].file, '/') : NULL;

		snprintf(got + l, sizeof(got) - l, "%s%s@%s:%u", i ? " < " : "",
			 fr[i].function ? fr[i].function : "?",
			 f	      ? f + 1
			 : fr[i].file ? fr[i].file
				      : "-",
			 fr[i].line);
		if (i < n) {
			ok &= !!fr[i].function == !!want[i].function &&
			      (!want[i].function || !strcmp(fr[i].function, want[i].function));
			ok &= want[i].file ? ends_with(fr[i].file, want[i].file) : !fr[i].file;
			ok &= fr[i].line == want[i].line;
		}
	}
	if (ok)
		TEST_OK(name);
	else
		TEST_FAIL(name, "at 0x%llx: %d frames: %s", (unsigned long long)addr, k, got);
}

struct rows {
	struct sym_row r[32];
	int n;
};

static int collect(void *ctx, const struct sym_row *row)
{
	struct rows *rs = ctx;

	if (rs->n < 32)
		rs->r[rs->n] = *row;
	rs->n++;
	return 0;
}

static void test_fixture(void)
{
	static const struct {
		u64 addr;
		const char *file;
		u32 line;
		bool inlined;
	} want_rows[] = {
		{0xf00, "/a.c", 40, false},  {0x1000, "/a.c", 11, false},
		{0x1010, "/a.c", 12, false}, {0x1030, "/a.c", 13, false},
		{0x1040, "/b.h", 5, true},   {0x1060, "/a.c", 14, true},
		{0x1100, "/a.c", 30, false},
	};
	char path[128], got[1024] = "";
	struct ebs_error werr = {0};
	char *why = werr.msg;
	struct dwarf_info *di;
	struct sym_span span;
	struct rows rs = {0};
	struct sym_frame fr[8];
	bool ok;
	int e, i;

	snprintf(path, sizeof(path), "%s/fixture", tmpdir);
	e = write_fixture(path);
	if (e) {
		TEST_FAIL("linesweep: fixture: written", "%s", strerror(-e));
		return;
	}
	di = dwarf_info__open(path, false, true, NULL, &werr);
	if (!di) {
		TEST_FAIL("linesweep: fixture: opened", "%s", why);
		return;
	}
	TEST_OK("linesweep: fixture: opened");

	/* the rows */
	check_chain(di, "linesweep: fixture: of two rows at one address, the last", 0x1000,
		    (const struct want_frame[]){{"outer", "/a.c", 11}}, 1);
	check_chain(di, "linesweep: fixture: an address between rows takes the row below", 0x100f,
		    (const struct want_frame[]){{"outer", "/a.c", 11}}, 1);
	check_chain(di, "linesweep: fixture: line 0: its file, line 0, the function still", 0x1025,
		    (const struct want_frame[]){{"outer", "/a.c", 0}}, 1);
	check_chain(di, "linesweep: fixture: the row after a line-0 row", 0x1030,
		    (const struct want_frame[]){{"outer", "/a.c", 13}}, 1);
	check_chain(di, "linesweep: fixture: where a sequence ends and the next begins, the next",
		    0x1100, (const struct want_frame[]){{"other", "/a.c", 30}}, 1);
	check_chain(di, "linesweep: fixture: a sequence later in the table at lower addresses",
		    0xf0f, (const struct want_frame[]){{"early", "/a.c", 40}}, 1);
	e = dwarf_info__lookup(di, 0x1110, fr, 8);
	TEST_EQ("linesweep: fixture: at a sequence's end, no line (and no scope: no frame)", e, 0);
	e = dwarf_info__lookup(di, 0xf10, fr, 8);
	TEST_EQ("linesweep: fixture: past the end of the table's first rows, nothing", e, 0);
	e = dwarf_info__lookup(di, 0xeff, fr, 8);
	TEST_EQ("linesweep: fixture: below the unit, nothing", e, 0);

	/* the sweep over the scopes */
	check_chain(di, "linesweep: fixture: two inlined scopes on one range: the deeper innermost",
		    0x1045,
		    (const struct want_frame[]){
			    {"deep", "/b.h", 5}, {"inner", "/b.h", 6}, {"outer", "/a.c", 20}},
		    3);
	check_chain(di, "linesweep: fixture: overlapping scopes not nested: the deeper one", 0x1055,
		    (const struct want_frame[]){
			    {"deep", "/b.h", 5}, {"inner", "/b.h", 6}, {"outer", "/a.c", 20}},
		    3);
	check_chain(di, "linesweep: fixture: where the overlapped scope ends, the other goes on",
		    0x1065,
		    (const struct want_frame[]){{"tail", "/a.c", 14}, {"outer", "/a.c", 21}}, 2);
	check_chain(di, "linesweep: fixture: equally deep scopes: the first in DIE order", 0x1075,
		    (const struct want_frame[]){{"tail", "/a.c", 14}, {"outer", "/a.c", 21}}, 2);
	check_chain(di, "linesweep: fixture: after the tie, the later scope alone", 0x1085,
		    (const struct want_frame[]){{"tail2", "/a.c", 14}, {"outer", "/a.c", 22}}, 2);
	check_chain(di, "linesweep: fixture: after every inlined scope, the function", 0x1090,
		    (const struct want_frame[]){{"outer", "/a.c", 14}}, 1);
	check_chain(di, "linesweep: fixture: before every inlined scope, the function", 0x103f,
		    (const struct want_frame[]){{"outer", "/a.c", 13}}, 1);

	/* every row, once, in address order, with its inline flag */
	e = dwarf_info__rows(di, 0, UINT64_MAX, collect, &rs);
	ok = !e && rs.n == (int)ARRAY_SIZE(want_rows);
	for (i = 0; i < rs.n && i < 32; i++) {
		size_t l = strlen(got);
		const char *f = rs.r[i].file ? strrchr(rs.r[i].file, '/') : NULL;

		snprintf(got + l, sizeof(got) - l, " 0x%llx%s:%u%s",
			 (unsigned long long)rs.r[i].addr, f ? f : "-", rs.r[i].line,
			 rs.r[i].inlined ? "(i)" : "");
		if (i < (int)ARRAY_SIZE(want_rows))
			ok &= rs.r[i].addr == want_rows[i].addr &&
			      rs.r[i].line == want_rows[i].line &&
			      ends_with(rs.r[i].file, want_rows[i].file) &&
			      rs.r[i].inlined == want_rows[i].inlined;
	}
	if (ok)
		TEST_OK("linesweep: fixture: the rows: one per address, by address, no line 0, "
			"inline flags");
	else
		TEST_FAIL("linesweep: fixture: the rows: one per address, by address, no line 0, "
			  "inline flags",
			  "%d rows:%s", rs.n, got);
	rs.n = 0;
	e = dwarf_info__rows(di, 0x1010, 0x1041, collect, &rs);
	TEST_CHECK("linesweep: fixture: the rows in [lo, hi) only",
		   !e && rs.n == 3 && rs.r[0].addr == 0x1010 && rs.r[2].addr == 0x1040);

	/* declarations */
	e = dwarf_info__source_span(di, 0x1050, &span);
	TEST_CHECK(
		"linesweep: fixture: a function's span: its declaration to before the next one's",
		!e && span.function && !strcmp(span.function, "outer") &&
			ends_with(span.file, "/a.c") && span.first == 10 && span.limit == 28);
	TEST_STREQ("linesweep: fixture: the owner of a line: the last declared at or before it",
		   dwarf_info__line_owner(di, 0x1000, span.file ? span.file : "", 35), "other");
	TEST_STREQ("linesweep: fixture: no owner before the first declaration",
		   dwarf_info__line_owner(di, 0x1000, span.file ? span.file : "", 9), NULL);
	TEST_STREQ("linesweep: fixture: nothing decoded went wrong", dwarf_info__problem(di), NULL);
	dwarf_info__free(di);
}

/* ---- the workloads ------------------------------------------------------------- */

/* A workload's source: $TOP/tests/workloads/NAME, else where DWARF says it was. */
static char *read_source(const char *name, const char *dwarf_path)
{
	const char *top = getenv("TOP");
	char path[PATH_MAX];
	char *text = NULL;

	if (top && *top) {
		snprintf(path, sizeof(path), "%s/tests/workloads/%s", top, name);
		if (ebs_read_file(path, &text) >= 0)
			return text;
	}
	if (dwarf_path && ebs_read_file(dwarf_path, &text) >= 0)
		return text;
	return NULL;
}

/* The line of the nth (from 1) line of text holding marker, 0 when none. */
static u32 line_of(const char *text, const char *marker, int nth)
{
	const char *p = text, *hit;
	u32 line = 1;

	while ((hit = strstr(p, marker))) {
		for (; p < hit; p++)
			line += *p == '\n';
		if (--nth == 0)
			return line;
		p = strchr(hit, '\n');
		if (!p)
			return 0;
	}
	return 0;
}

struct workload {
	const char *name;
	char path[PATH_MAX];
	struct symbolizer *s;
	struct dso d; /* its symbol table, to find functions by name */
	const struct sym_dso_info *info;
	char *src; /* the .c file's text */
	char *hdr; /* workload.h's */
};

static const struct sym *sym_named(const struct workload *w, const char *name)
{
	size_t i;

	for (i = 0; i < w->d.symtab.nsyms; i++)
		if (!strcmp(w->d.symtab.syms[i].name, name))
			return &w->d.symtab.syms[i];
	return NULL;
}

static const struct sym *sym_suffixed(const struct workload *w, const char *suffix)
{
	size_t i;

	for (i = 0; i < w->d.symtab.nsyms; i++)
		if (ends_with(w->d.symtab.syms[i].name, suffix))
			return &w->d.symtab.syms[i];
	return NULL;
}

static void workload_close(struct workload *w)
{
	symtab__exit(&w->d.symtab);
	free(w->d.segs);
	free(w->src);
	free(w->hdr);
	symbolizer__free(w->s);
}

/* Load a workload; false (with a SKIP or FAIL line) when it cannot be. */
static bool workload_open(struct workload *w, const char *name, const char *first_fn)
{
	struct sym_result r;
	const struct sym *fn;
	char label[128], srcname[64], hdr[PATH_MAX];
	struct ebs_error werr = {0};
	char *why = werr.msg;
	const char *dir = test_workloads_dir();
	int fd;

	memset(w, 0, sizeof(*w));
	w->name = name;
	snprintf(label, sizeof(label), "linesweep: %s: loaded", name);
	if ((size_t)snprintf(w->path, sizeof(w->path), "%.4000s/%s", dir ? dir : ".", name) >=
	    sizeof(w->path)) {
		TEST_FAIL(label, "path too long");
		return false;
	}
	w->s = symbolizer__new(NULL);
	if (!w->s) {
		TEST_FAIL(label, "symbolizer__new: %s", strerror(errno));
		return false;
	}
	fd = open(w->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		TEST_SKIP(label, "%s: %s (make workloads)", w->path, strerror(errno));
		symbolizer__free(w->s);
		w->s = NULL;
		return false;
	}
	w->d.path = w->path;
	if (dso__load_elf(&w->d, fd, NULL, 0, false, &werr) || !(fn = sym_named(w, first_fn))) {
		close(fd);
		TEST_FAIL(label, "%s: no symbol %s (%s)", w->path, first_fn, why);
		workload_close(w);
		return false;
	}
	close(fd);
	if (symbolizer__lookup_file(w->s, w->path, fn->addr, &r) || !r.info || !r.file) {
		TEST_FAIL(label, "%s: no line at %s", w->path, first_fn);
		workload_close(w);
		return false;
	}
	w->info = r.info;
	snprintf(srcname, sizeof(srcname), "%s.c", name);
	w->src = read_source(srcname, r.file);
	snprintf(hdr, sizeof(hdr), "%.*sworkload.h", (int)(strrchr(r.file, '/') + 1 - r.file),
		 r.file);
	w->hdr = read_source("workload.h", hdr);
	if (!w->src || !w->hdr) {
		TEST_SKIP(label, "the sources of %s are not readable (set TOP)", name);
		workload_close(w);
		return false;
	}
	TEST_OK(label);
	return true;
}

/* The last row at or below addr, among rows[0..n) sorted by address. */
static const struct sym_row *row_below(const struct sym_row *rows, int n, u64 addr)
{
	const struct sym_row *best = NULL;
	int i;

	for (i = 0; i < n && rows[i].addr <= addr; i++)
		best = &rows[i];
	return best;
}

struct row_vec {
	struct sym_row *v;
	size_t n, cap;
};

static int row_push(void *ctx, const struct sym_row *row)
{
	struct row_vec *rv = ctx;

	if (ebs_grow((void **)&rv->v, &rv->cap, rv->n, sizeof(*rv->v), 64))
		return -ENOMEM;
	rv->v[rv->n++] = *row;
	return 0;
}

/*
 * Over the function fn: its rows (one per address, ascending, inside it,
 * each with a line); and at every address of it, the lookup's line is the
 * last row's at or below it, and its chain ends in fn.
 */
static void check_function(struct workload *w, const char *fn, struct row_vec *rows)
{
	const struct sym *s = sym_named(w, fn);
	char name[200], first[300] = "";
	unsigned long bad = 0, n = 0;
	size_t i;
	u64 a;
	int e;

	rows->n = 0;
	snprintf(name, sizeof(name),
		 "linesweep: %s: %s's rows: one per address, ascending, inside it", w->name, fn);
	if (!s) {
		TEST_FAIL(name, "no symbol %s", fn);
		return;
	}
	e = symbolizer__rows(w->s, w->info, s->addr, s->end, row_push, rows);
	for (i = 0; !e && i < rows->n; i++)
		if (rows->v[i].addr < s->addr || rows->v[i].addr >= s->end || !rows->v[i].line ||
		    !rows->v[i].file || (i && rows->v[i].addr <= rows->v[i - 1].addr))
			break;
	if (e || !rows->n || i < rows->n)
		TEST_FAIL(name, "%d, %zu rows, row %zu wrong", e, rows->n, i);
	else
		TEST_OK(name);

	for (a = s->addr; a < s->end; a++) {
		const struct sym_row *below = row_below(rows->v, (int)rows->n, a);
		struct sym_result r;

		n++;
		if (symbolizer__lookup_in(w->s, w->info, a, &r) || !r.nr_frames) {
			if (!bad++)
				snprintf(first, sizeof(first), "0x%llx: no frame",
					 (unsigned long long)a);
			continue;
		}
		if (!r.frames[r.nr_frames - 1].function ||
		    strcmp(r.frames[r.nr_frames - 1].function, fn)) {
			if (!bad++)
				snprintf(first, sizeof(first), "0x%llx: outermost %s",
					 (unsigned long long)a, r.frames[r.nr_frames - 1].function);
			continue;
		}
		/* a line-0 row in between gives none: a line, if any, is the row's below */
		if (r.line &&
		    (!below || below->line != r.line || !r.file || strcmp(below->file, r.file))) {
			if (!bad++)
				snprintf(first, sizeof(first),
					 "0x%llx: line %u, the row below says %u",
					 (unsigned long long)a, r.line, below ? below->line : 0);
		}
	}
	snprintf(name, sizeof(name),
		 "linesweep: %s: every address of %s: the row below's line, a chain ending in %s",
		 w->name, fn, fn);
	if (bad)
		TEST_FAIL(name, "%lu of %lu addresses; first %s", bad, n, first);
	else
		TEST_OK(name);
}

/*
 * Inline chains in fn: some address has the chain [inl @ inl_line,
 * fn @ call_line], and wherever inl is innermost its caller is fn at
 * call_line (a function inlined at one call site).
 */
static void check_inlined(struct workload *w, const char *fn, const char *inl, u32 inl_line,
			  u32 call_line)
{
	const struct sym *s = sym_named(w, fn);
	unsigned long found = 0, bad = 0;
	char name[200], first[300] = "";
	u64 a;

	for (a = s ? s->addr : 0; s && a < s->end; a++) {
		struct sym_result r;

		if (symbolizer__lookup_in(w->s, w->info, a, &r) || !r.nr_frames ||
		    !r.frames[0].function || strcmp(r.frames[0].function, inl))
			continue;
		if (r.nr_frames == 2 && r.frames[1].function && !strcmp(r.frames[1].function, fn) &&
		    r.frames[1].line == call_line && ends_with(r.frames[1].file, ".c")) {
			found += r.frames[0].line == inl_line;
			continue;
		}
		if (!bad++)
			snprintf(first, sizeof(first), "0x%llx: %u frames, caller %s at %u",
				 (unsigned long long)a, r.nr_frames,
				 r.nr_frames > 1 && r.frames[1].function ? r.frames[1].function
									 : "?",
				 r.nr_frames > 1 ? r.frames[1].line : 0);
	}
	snprintf(name, sizeof(name),
		 "linesweep: %s: %s inlined into %s: called from line %u, at line %u", w->name, inl,
		 fn, call_line, inl_line);
	if (!s)
		TEST_FAIL(name, "no symbol %s", fn);
	else if (bad || !found)
		TEST_FAIL(name, "%lu addresses at line %u, %lu with another caller; first %s",
			  found, inl_line, bad, first);
	else
		TEST_OK(name);
}

static bool has_row(const struct row_vec *rows, u32 line, bool inlined)
{
	size_t i;

	for (i = 0; i < rows->n; i++)
		if (rows->v[i].line == line && rows->v[i].inlined == inlined &&
		    ends_with(rows->v[i].file, ".c"))
			return true;
	return false;
}

static void test_hotline(void)
{
	struct row_vec rows = {0};
	struct sym_result r;
	struct sym_span span;
	struct workload w;
	const struct sym *s, *plt;
	u32 decl, hot, inl_hot, call, clock_call;
	char name[160];
	unsigned long chains = 0;
	u64 a;

	if (!workload_open(&w, "hotline", "hot_loop"))
		return;
	decl = line_of(w.src, "double hot_loop(double seconds)", 1);
	hot = line_of(w.src, "/* HOT */", 1);
	inl_hot = line_of(w.src, "/* INLINE-HOT */", 1);
	call = line_of(w.src, "y = inl_helper(y);", 1);
	clock_call = line_of(w.hdr, "return wl_clock(CLOCK_THREAD_CPUTIME_ID);", 1);
	if (!decl || !hot || !inl_hot || !call || !clock_call) {
		TEST_FAIL("linesweep: hotline: markers", "not found in the sources");
		goto out;
	}
	s = sym_named(&w, "hot_loop");

	TEST_CHECK("linesweep: hotline: hot_loop's span starts at its declaration",
		   !symbolizer__source_span(w.s, w.info, s->addr, &span) && span.function &&
			   !strcmp(span.function, "hot_loop") &&
			   ends_with(span.file, "/hotline.c") && span.first == decl);
	TEST_CHECK("linesweep: hotline: hot_loop's first address: its own, at its first line",
		   !symbolizer__lookup_in(w.s, w.info, s->addr, &r) && r.nr_frames == 1 &&
			   ends_with(r.file, "/hotline.c") &&
			   (r.line == decl || r.line == decl + 1) && r.frames[0].function &&
			   !strcmp(r.frames[0].function, "hot_loop"));

	check_function(&w, "hot_loop", &rows);
	TEST_CHECK("linesweep: hotline: the HOT line has a row of hot_loop's own",
		   has_row(&rows, hot, false));
	TEST_CHECK("linesweep: hotline: the INLINE-HOT line has a row, inlined",
		   has_row(&rows, inl_hot, true));
	check_inlined(&w, "hot_loop", "inl_helper", inl_hot, call);

	/* two levels: wl_clock inlined into wl_thread_cpu inlined into hot_loop */
	for (a = s->addr; a < s->end; a++) {
		if (symbolizer__lookup_in(w.s, w.info, a, &r) || r.nr_frames != 3)
			continue;
		chains += r.frames[0].function && !strcmp(r.frames[0].function, "wl_clock") &&
			  r.frames[1].function && !strcmp(r.frames[1].function, "wl_thread_cpu") &&
			  r.frames[1].line == clock_call &&
			  ends_with(r.frames[1].file, "/workload.h") && r.frames[2].function &&
			  !strcmp(r.frames[2].function, "hot_loop") &&
			  ends_with(r.frames[2].file, "/hotline.c");
	}
	TEST_CHECK("linesweep: hotline: two levels inlined (wl_clock < wl_thread_cpu < hot_loop)",
		   chains > 0);

	TEST_STREQ("linesweep: hotline: the owner of the HOT line",
		   symbolizer__line_owner(w.s, w.info, s->addr, span.file, hot), "hot_loop");
	TEST_STREQ("linesweep: hotline: the owner of the INLINE-HOT line",
		   symbolizer__line_owner(w.s, w.info, s->addr, span.file, inl_hot), "inl_helper");

	plt = sym_suffixed(&w, "@plt");
	snprintf(name, sizeof(name), "linesweep: hotline: a PLT entry: a name, no line");
	if (!plt)
		TEST_SKIP(name, "no PLT entry in %s", w.path);
	else
		TEST_CHECK(name, !symbolizer__lookup_in(w.s, w.info, plt->addr, &r) && r.function &&
					 ends_with(r.function, "@plt") && !r.file && !r.nr_frames);
out:
	free(rows.v);
	workload_close(&w);
}

static void test_inlmany(void)
{
	static const char *const callers[] = {"caller_a", "caller_b", "caller_c", "caller_d"};
	struct row_vec rows = {0};
	struct sym_span span;
	struct workload w;
	char name[160], marker[64];
	u32 step, call;
	unsigned int i;

	if (!workload_open(&w, "inlmany", "caller_a"))
		return;
	step = line_of(w.src, "/* STEP */", 1);
	if (!step) {
		TEST_FAIL("linesweep: inlmany: markers", "not found in the sources");
		goto out;
	}
	for (i = 0; i < ARRAY_SIZE(callers); i++) {
		const struct sym *s = sym_named(&w, callers[i]);

		call = line_of(w.src, "y = step(y);", (int)i + 1);
		check_function(&w, callers[i], &rows);
		snprintf(name, sizeof(name),
			 "linesweep: inlmany: %s has a row of the STEP line, inlined", callers[i]);
		TEST_CHECK(name, has_row(&rows, step, true));
		check_inlined(&w, callers[i], "step", step, call);
		snprintf(marker, sizeof(marker), "double %s(", callers[i]);
		snprintf(name, sizeof(name),
			 "linesweep: inlmany: %s's span starts at its declaration", callers[i]);
		TEST_CHECK(name, s && !symbolizer__source_span(w.s, w.info, s->addr, &span) &&
					 span.first == line_of(w.src, marker, 1) && span.first &&
					 !strcmp(span.function ?: "", callers[i]));
	}
out:
	free(rows.v);
	workload_close(&w);
}

static struct symbolizer *sym;

static int setup(void)
{
	sym = symbolizer__new(NULL); /* sets libelf's version */
	strcpy(tmpdir, "/tmp/ebs-test-linesweep.XXXXXX");
	if (!sym || !mkdtemp(tmpdir)) {
		TEST_FAIL("linesweep: set up", "%s", strerror(errno));
		symbolizer__free(sym);
		return -1;
	}
	return 0;
}

static void teardown(void)
{
	char path[128];

	symbolizer__free(sym);
	snprintf(path, sizeof(path), "%s/fixture", tmpdir);
	unlink(path);
	rmdir(tmpdir);
}

TEST_MAIN(setup, teardown, TEST_CASE(test_fixture), TEST_CASE(test_hotline),
	  TEST_CASE(test_inlmany))
